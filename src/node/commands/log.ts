/**
 * `hackmd-bridge log [<path>] [--json] [--limit <n>]`: the sync journal (docs/sync-journal.md),
 * oldest first — every write by anyone (you, an agent, automatic sync) with what was decided and
 * where replaced text lives. Reads the state folder only: no request, nothing written.
 */
import { actorWords, entryTime, readJournal, replacedWords } from "../../app/journal";
import { flag, text, type CommandContext, type HumanCommand } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { formatTable, UsageError, writeJson } from "./output";

/** The checked arguments of `log`. */
export interface LogArgs {
  path: string | undefined;
  limit: number;
  json: boolean;
}

/** Prints the journal's entries. */
export async function runLog(args: LogArgs, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  const entries = await readJournal(core.deps, {
    ...(args.path === undefined ? {} : { path: args.path }),
    limit: args.limit,
  });
  if (args.json) {
    writeJson(io, { entries });
    return EXIT.ok;
  }
  if (entries.length === 0) {
    io.out(
      args.path === undefined ? "The sync journal is empty.\n" : `The sync journal has no entry for ${args.path}.\n`,
    );
    return EXIT.ok;
  }
  const rows = entries.map((entry) => [
    entryTime(entry.at),
    actorWords(entry),
    entry.kind,
    entry.branch ?? "",
    entry.file ?? entry.note?.note_id ?? "",
    replacedWords(entry),
  ]);
  io.out(formatTable([["time", "by", "what", "branch", "file or note", "replaced text"], ...rows]));
  return EXIT.ok;
}

/** The `log` subcommand. */
export const logCommand: HumanCommand = {
  name: "log",
  summary: "show the sync journal: every write, who made it, and where replaced text lives",
  synopsis: "[<path>] [--limit <n>] [options]",
  description: [
    "Lists the sync journal, oldest first: every pull, push, merge and agent write, by you, an",
    "agent or automatic sync, with the decision-table branch and where any text it replaced lives",
    "now. With a path (or a note id), only that file's entries. Reads local state only.",
  ].join("\n"),
  positionals: { required: [], optional: ["path"] },
  options: {
    limit: { type: "string", value: "<n>", help: "the newest n entries (default 100, at most 1000)" },
  },
  shared: ["root", "json"],
  exitCodes: {
    0: "listed",
    2: "usage error, or the state folder cannot be read",
  },
  examples: ["hackmd-bridge log", "hackmd-bridge log notes/plan.md --json"],
  parse: ({ values, positionals: given }) => {
    const limitText = text(values, "limit");
    const limit = limitText === undefined ? 100 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new UsageError("--limit must be a whole number from 1 to 1000");
    const args: LogArgs = { path: given[0], limit, json: flag(values, "json") };
    return { json: args.json, run: (context) => runLog(args, context) };
  },
};
