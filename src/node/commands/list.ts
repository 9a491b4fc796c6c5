/**
 * `hackmd-bridge list`: the notes of a workspace on HackMD (one list request), each with the file
 * it is tracked at; `list --tracked`: the tracked files with their state, from sync-all's dry-run
 * plan (one list per workspace plus a read of each note that moved). Nothing is written.
 */
import { listWorkspace } from "../../app/notes";
import { CallContext } from "../../hackmd/call-context";
import { flag, teamOption, text, type CommandContext, type HumanCommand } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { formatTable, UsageError, workspaceLabel, writeJson } from "./output";
import { countStates, statusEntry } from "./status";
import { dryRunPlan, noteLabel } from "./sync";

/** The checked arguments of `list`. */
export interface ListArgs {
  tracked: boolean;
  /** The workspace whose notes are listed (personal when null). */
  teamPath: string | null;
  json: boolean;
}

/** Lists remote notes or tracked files; exit 0 once listed. */
export async function runList(args: ListArgs, context: CommandContext): Promise<ExitCode> {
  return args.tracked ? listTracked(args, context) : listRemote(args, context);
}

/** One remote note in `--json` output. */
interface RemoteEntry {
  id: string;
  short_id: string | null;
  title: string;
  last_changed_at: number | null;
  read_permission: string | null;
  /** The file it is tracked at in this root, if any. */
  local_path: string | null;
}

async function listRemote(args: ListArgs, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  // Always fetched (refresh): a person asking for the list wants it as HackMD has it now.
  const [notes, tracked] = await Promise.all([
    listWorkspace(core.deps, new CallContext(), args.teamPath, true),
    core.deps.sync.listTracked(),
  ]);
  const pathOf = new Map(
    tracked.filter((entry) => entry.team_path === args.teamPath).map((entry) => [entry.note_id, entry.local_path]),
  );
  const entries: RemoteEntry[] = notes.map((note) => ({
    id: note.id,
    short_id: note.short_id,
    title: note.title,
    last_changed_at: note.last_changed_at,
    read_permission: note.read_permission,
    local_path: pathOf.get(note.id) ?? null,
  }));
  if (args.json) {
    writeJson(io, { team_path: args.teamPath, notes: entries });
    return EXIT.ok;
  }
  if (entries.length === 0) {
    io.out(`No notes in the ${workspaceLabel(args.teamPath)} workspace.\n`);
    return EXIT.ok;
  }
  const rows = entries.map((entry) => [entry.short_id ?? "-", entry.id, entry.local_path ?? "-", entry.title]);
  io.out(formatTable([["short_id", "id", "tracked at", "title"], ...rows]));
  io.out(
    `\n${entries.length} note${entries.length === 1 ? "" : "s"} in the ${workspaceLabel(args.teamPath)} workspace. Pull one with: hackmd-bridge pull <short_id or id> <path>${args.teamPath === null ? "" : ` --team ${args.teamPath}`}\n`,
  );
  return EXIT.ok;
}

async function listTracked(args: ListArgs, context: CommandContext): Promise<ExitCode> {
  const { io } = context;
  const plan = await dryRunPlan({ context, json: args.json });
  const entries = plan.items.map(statusEntry).map(({ status, ...entry }) => ({
    local_path: entry.local_path,
    note_id: entry.note_id,
    team_path: entry.team_path,
    state: status,
    ...(entry.message === undefined ? {} : { message: entry.message }),
  }));
  if (args.json) {
    writeJson(io, { counts: countStates(entries.map((entry) => ({ status: entry.state }))), tracked: entries });
    return EXIT.ok;
  }
  if (entries.length === 0) {
    io.out(
      "No tracked files. Pull a note with: hackmd-bridge pull <note_ref> <path>, or publish a file with: hackmd-bridge publish <path>\n",
    );
    return EXIT.ok;
  }
  io.out(
    formatTable([
      ["path", "note", "state"],
      ...entries.map((entry) => [entry.local_path || "(unknown path)", noteLabel(entry), entry.state]),
    ]),
  );
  return EXIT.ok;
}

/** The `list` subcommand. */
export const listCommand: HumanCommand = {
  name: "list",
  summary: "list the notes of a workspace on HackMD, or (--tracked) the tracked files and their state",
  synopsis: "[--tracked] [--team <team_path>] [options]",
  description: [
    "Without --tracked: one request for the workspace's notes, with the short id and id to pull",
    "them by, and the file each is tracked at in this root. With --tracked: every tracked file,",
    "its note and its state (as status reports it). Nothing is written.",
  ].join("\n"),
  positionals: { required: [] },
  options: {
    tracked: { type: "boolean", help: "list the tracked files and their state instead" },
    team: { type: "string", value: "<team_path>", help: "list a team's notes (default: personal)" },
  },
  shared: ["root", "json"],
  exitCodes: { 0: "listed", 2: "usage error, or a failure (token, network, HackMD)" },
  examples: ["hackmd-bridge list", "hackmd-bridge list --team my-team --json", "hackmd-bridge list --tracked"],
  parse: ({ values }) => {
    const tracked = flag(values, "tracked");
    const team = text(values, "team");
    if (tracked && team !== undefined)
      throw new UsageError("--team goes without --tracked (tracked files of every workspace are listed)");
    const teamPath = teamOption(team);
    const args: ListArgs = { tracked, teamPath, json: flag(values, "json") };
    // Listing refuses nothing: every failure is one (exit 2).
    return { json: args.json, run: (context) => runList(args, context), exitCodeOf: () => EXIT.error };
  },
};
