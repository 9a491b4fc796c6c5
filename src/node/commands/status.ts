/**
 * `hackmd-bridge status [path]`: the sync check (TOOLS.md §14.5) of one tracked file, or every
 * tracked note as a table from sync-all's dry-run plan. Nothing is written, locally or on HackMD.
 */
import type { ErrorKind } from "../../core/errors";
import { CallContext } from "../../hackmd/call-context";
import type { SyncAllBranch, SyncAllItem, SyncAllPlanId, SyncAllResult } from "../../sync/sync-all";
import type { SyncCheck } from "../../sync/types";
import { flag, JSON_OPTION, positionals, type CommandContext, type HumanCommand } from "./command";
import { EXIT, exitCodeForKind, type ExitCode } from "./exit-codes";
import { createProgress, formatTable, groupedMessages, writeJson } from "./output";
import { noteLabel, runSyncAll } from "./sync";

/** The checked arguments of `status`. */
export interface StatusArgs {
  /** One tracked file, or undefined for every tracked note. */
  path: string | undefined;
  json: boolean;
}

/** A tracked note's state: a check status, or why it could not be checked. */
export type NoteState = SyncCheck["status"] | "missing_local" | "missing_remote" | "error";

/** One row of `status` without a path (snake_case, like the engine's outputs). */
export interface StatusEntry {
  status: NoteState;
  team_path: string | null;
  note_id: string;
  local_path: string;
  /** The sync-all plan branch behind the state (docs/sync-decision-table.md). */
  branch: SyncAllBranch;
  /** The error kind behind an `error` state. */
  error_kind?: ErrorKind;
  /** Why, and the next step, when the note needs attention. */
  message?: string;
}

/** What a person should do next for each state. */
const NEXT_STEP: Record<NoteState, string> = {
  in_sync: "nothing to do",
  local_changed: "push it: hackmd-bridge push <path>",
  remote_changed: "pull it: hackmd-bridge pull <note> <path> --overwrite",
  conflict: "push it (writes <name>.remote.md and shows both sides), merge, then push with --expected-remote-hash",
  missing_local: "the file is gone: pull the note again, or forget it (hackmd_untrack_note)",
  missing_remote: "the note is gone or not readable on HackMD: forget it (hackmd_untrack_note)",
  error: "see the message",
};

/** Reports sync state: exit 0 when everything is in sync, 1 when anything needs attention. */
export async function runStatus(args: StatusArgs, context: CommandContext): Promise<ExitCode> {
  return args.path === undefined ? statusOfAll(args, context) : statusOfOne({ ...args, path: args.path }, context);
}

/** The check of one tracked file; errors (not tracked, file missing) propagate to the caller. */
async function statusOfOne(args: StatusArgs & { path: string }, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  const check = await core.deps.sync.check({ localPath: args.path, call: new CallContext() });
  if (args.json) writeJson(io, check);
  else io.out(`${check.status}  ${check.local_path}  ${check.note_id}\n${check.status === "in_sync" ? "" : `Next: ${NEXT_STEP[check.status]}\n`}`);
  return check.status === "in_sync" ? EXIT.ok : EXIT.attention;
}

/**
 * Every tracked note, from sync-all's dry-run plan: one list request per workspace, plus a GET
 * only for notes whose timestamp moved or that are not listed — not one GET per note.
 */
async function statusOfAll(args: StatusArgs, context: CommandContext): Promise<ExitCode> {
  const { io } = context;
  const progress = createProgress({ io, json: args.json });
  let plan: SyncAllResult;
  try {
    plan = await runSyncAll({ context, dryRun: true, progress });
  } finally {
    progress.done();
  }
  const entries = plan.items.map(statusEntry);
  const counts = countStates(entries);
  if (args.json) {
    writeJson(io, { source: "sync_all_plan", counts, notes: entries });
  } else if (entries.length === 0) {
    io.out("No tracked notes. Pull one with: hackmd-bridge pull <note_ref> <path>\n");
  } else {
    printTable({ entries, counts, write: io.out });
    io.out("(Planned from one note list per workspace, reading only notes that moved; nothing was written.)\n");
  }
  return statusExitCode(entries);
}

/** 0 when every note is in sync; 2 when one failed (auth, network, damaged state…); else 1. */
function statusExitCode(entries: readonly StatusEntry[]): ExitCode {
  let code: ExitCode = EXIT.ok;
  for (const entry of entries) {
    if (entry.status === "in_sync") continue;
    if (entry.status === "error" && exitCodeForKind(entry.error_kind ?? "internal") === EXIT.error) return EXIT.error;
    code = EXIT.attention;
  }
  return code;
}

/** A note's state from its sync-all plan; the plan's words are the sync check's (§14.5). */
const STATE_OF_PLAN: Record<SyncAllPlanId, NoteState> = {
  in_sync: "in_sync",
  // Both sides made the same change: the sync check calls that in_sync too.
  same_change: "in_sync",
  pull: "remote_changed",
  push: "local_changed",
  conflict: "conflict",
  // Only real runs plan `reconcile` (both moved, not fetched); a push would decide. Conservative.
  reconcile: "conflict",
  missing_local: "missing_local",
  missing_remote: "missing_remote",
  error: "error",
};

/** One status row from a planned sync-all item. */
function statusEntry(item: SyncAllItem): StatusEntry {
  const status = item.outcome === "skipped" ? "error" : STATE_OF_PLAN[item.plan];
  return {
    status,
    team_path: item.team_path,
    note_id: item.note_id,
    local_path: item.local_path,
    branch: item.branch,
    ...(item.error_kind === undefined ? {} : { error_kind: item.error_kind }),
    ...(item.message === undefined ? {} : { message: item.message }),
  };
}

/** How many notes are in each state (only states that occur). */
export function countStates(entries: ReadonlyArray<{ status: string }>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of entries) counts[entry.status] = (counts[entry.status] ?? 0) + 1;
  return counts;
}

/** The `state  path  note` table, the counts, and the next steps of the states that occur. */
function printTable(options: { entries: StatusEntry[]; counts: Record<string, number>; write: (text: string) => void }): void {
  const { entries, counts, write } = options;
  const rows = entries.map((entry) => [entry.status, entry.local_path || "(unknown path)", noteLabel(entry)]);
  write(formatTable([["state", "path", "note"], ...rows]));
  write(`\n${Object.entries(counts).map(([state, count]) => `${count} ${state}`).join(", ")}\n`);
  const messages = entries.flatMap((entry) => (entry.message !== undefined && entry.status !== "in_sync" ? [{ label: entry.local_path || noteLabel(entry), message: entry.message }] : []));
  for (const line of groupedMessages(messages)) write(`${line}\n`);
  const states = new Set(entries.map((entry) => entry.status).filter((state) => state !== "in_sync"));
  for (const state of states) write(`${state}: ${NEXT_STEP[state]}\n`);
}

/** The `status` subcommand. */
export const statusCommand: HumanCommand = {
  name: "status",
  usage: "hackmd-bridge status [<path>] [--root <dir>] [--json]",
  options: { ...JSON_OPTION },
  parse: ({ values, positionals: given }) => {
    const [path] = positionals(given, { required: [], optional: ["path"] });
    const args: StatusArgs = { path, json: flag(values, "json") };
    return { json: args.json, run: (context) => runStatus(args, context) };
  },
};
