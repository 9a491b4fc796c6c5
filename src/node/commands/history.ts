/**
 * `hackmd-bridge history <path> [--show <version_id>] [--named]`: the saved versions of a tracked
 * file's note, newest first (one request), or one version's text (one request). Nothing is
 * written; to bring a version back, save its text over the file (`--show … > file`) and push.
 */
import { getNoteVersion, listNoteVersions } from "../../app/versions";
import { CallContext } from "../../hackmd/call-context";
import { localMinute } from "../../hackmd/safety-version";
import { flag, text, type CommandContext, type HumanCommand } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { formatTable, writeJson } from "./output";
import { trackedNote } from "./tracked-note";
import { commandLine } from "./words";

/** The checked arguments of `history`. */
export interface HistoryArgs {
  path: string;
  show: string | undefined;
  named: boolean;
  json: boolean;
}

/** Lists the versions, or prints one version's text. */
export async function runHistory(args: HistoryArgs, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  const { path, found } = await trackedNote(context, args.path, "note history");
  const noteId = found.record.internal_id;
  if (args.show !== undefined) {
    const version = await getNoteVersion(core.deps, new CallContext(), noteId, args.show);
    if (args.json) writeJson(io, { local_path: path, note_id: noteId, version: { ...version } });
    else io.out(version.content ?? "");
    return EXIT.ok;
  }
  const page = await listNoteVersions(core.deps, new CallContext(), noteId, {
    limit: 50,
    ...(args.named ? { namedOnly: true } : {}),
  });
  if (args.json) {
    writeJson(io, { local_path: path, note_id: noteId, total: page.total, versions: page.versions });
    return EXIT.ok;
  }
  if (page.versions.length === 0) {
    io.out(`Note ${noteId} (${path}) has no saved versions${args.named ? " with a name" : ""}.\n`);
    return EXIT.ok;
  }
  const rows = page.versions.map((v) => [
    v.created_at_ms === null ? v.created_at : localMinute(v.created_at_ms),
    v.created_by?.display_name ?? "",
    v.id,
    v.name_source === "user" ? v.name : "(saved by HackMD)",
  ]);
  io.out(formatTable([["time", "by", "version id", "name"], ...rows]));
  const more = page.total > page.versions.length ? ` (the newest ${page.versions.length} of ${page.total})` : "";
  io.out(`Versions of ${path}${more}. Show one with \`${commandLine("history", [path], " --show <version id>")}\`.\n`);
  return EXIT.ok;
}

/** The `history` subcommand. */
export const historyCommand: HumanCommand = {
  name: "history",
  summary: "list the saved versions of a tracked file's note, or show one",
  synopsis: "<path> [--show <version_id>] [--named] [options]",
  description: [
    "Lists the note's versions on HackMD, newest first: the ones with a name (HackMD Bridge names",
    'HackMD\'s text "Before push from …" before it overwrites it) and the ones HackMD saved by itself.',
    "With --show, prints that version's text; nothing is written. One request either way.",
  ].join("\n"),
  positionals: { required: ["path"] },
  options: {
    show: { type: "string", value: "<version_id>", help: "print the text of this version" },
    named: { type: "boolean", help: "only versions with a name" },
  },
  shared: ["root", "json"],
  exitCodes: {
    0: "listed or shown",
    1: "the file is not tracked",
    2: "usage error, or trouble (no versions API, token, network)",
  },
  examples: ["hackmd-bridge history notes/plan.md", "hackmd-bridge history notes/plan.md --show 0b5e…"],
  parse: ({ values, positionals: given }) => {
    const args: HistoryArgs = {
      path: given[0] ?? "",
      show: text(values, "show"),
      named: flag(values, "named"),
      json: flag(values, "json"),
    };
    return { json: args.json, run: (context) => runHistory(args, context) };
  },
};
