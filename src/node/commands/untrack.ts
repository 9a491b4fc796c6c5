/**
 * `hackmd-bridge untrack <path>`: forgets a file's sync record and baseline (docs/tools.md §14.8),
 * keeping the file and the note; `--note <id>` forgets a record whose file name is unknown.
 * Local only: no HackMD request.
 */
import { BridgeError } from "../../core/errors";
import { flag, teamOption, text, type CommandContext, type HumanCommand } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { UsageError, workspaceLabel, writeJson } from "./output";
import { commandStore, movedAway } from "./tracked-note";

/** The checked arguments of `untrack`. */
export interface UntrackArgs {
  /** The tracked file, or undefined with `--note`. */
  path: string | undefined;
  noteId: string | undefined;
  teamPath: string | null;
  json: boolean;
}

/** Forgets one record; a file that is not tracked is a refusal (exit 1). */
export async function runUntrack(args: UntrackArgs, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  let target: { teamPath: string | null; noteId: string };
  if (args.path !== undefined) {
    // The record names the canonical path; the file itself may be gone.
    const resolved = await core.deps.files.resolve(args.path, "read");
    const entry = (await core.deps.sync.listTracked()).find((tracked) => tracked.local_path === resolved.path);
    if (entry === undefined) {
      throw (
        (await movedAway(commandStore(context), resolved.path)) ??
        new BridgeError(
          "not_tracked",
          `${resolved.path} is not tracked, so there is nothing to forget; see \`hackmd-bridge list --tracked\`.`,
        )
      );
    }
    target = { teamPath: entry.team_path, noteId: entry.note_id };
  } else {
    target = { teamPath: args.teamPath, noteId: args.noteId ?? "" };
  }
  // Typing the command is the confirmation the tool asks an agent for.
  const out = await core.deps.sync.untrack({ ...target, confirm: true });
  if (args.json) writeJson(io, out);
  else
    io.out(
      `Untracked ${out.local_path || "(unknown path)"} (note ${out.note_id}, ${workspaceLabel(out.team_path)}); the file and the note are kept.\n`,
    );
  return EXIT.ok;
}

/** The `untrack` subcommand. */
export const untrackCommand: HumanCommand = {
  name: "untrack",
  summary: "forget a file's link to its note (the file and the note are kept)",
  synopsis: "<path> [options] | --note <note_id> [--team <team_path>] [options]",
  description: [
    "Removes the sync record and the baseline; no request is made. Afterwards the file is an",
    "ordinary file: pulling the note over it again needs --overwrite, and --discard-local-changes",
    "if it was edited.",
  ].join("\n"),
  positionals: { required: [], optional: ["path"] },
  options: {
    note: {
      type: "string",
      value: "<note_id>",
      help: "forget the record of this note instead (when its file name is unknown)",
    },
    team: { type: "string", value: "<team_path>", help: "the team of --note (default: personal)" },
  },
  shared: ["root", "json"],
  exitCodes: { 0: "untracked", 1: "not tracked", 2: "usage error, or a failure (a damaged sync record, local files)" },
  examples: ["hackmd-bridge untrack notes/plan.md", "hackmd-bridge untrack --note SysJb0yAY… --team my-team"],
  parse: ({ values, positionals: given }) => {
    const [path] = given;
    const noteId = text(values, "note");
    const team = text(values, "team");
    if ((path === undefined) === (noteId === undefined)) throw new UsageError("give either <path> or --note <note_id>");
    if (team !== undefined && noteId === undefined)
      throw new UsageError("--team goes with --note (a file's record already names its team)");
    const teamPath = teamOption(team);
    const args: UntrackArgs = { path, noteId, teamPath, json: flag(values, "json") };
    return { json: args.json, run: (context) => runUntrack(args, context) };
  },
};
