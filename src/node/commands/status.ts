/**
 * `hackmd-bridge status [path]`: the sync check (docs/tools.md §14.5) of one tracked file, or every
 * tracked note as a table from sync-all's dry-run plan. Nothing is written, locally or on HackMD.
 */
import type { ErrorKind } from "../../core/errors";
import { CallContext } from "../../hackmd/call-context";
import type { SyncAllItem, SyncAllPlanId } from "../../sync/sync-all";
import type { SyncCheck } from "../../sync/types";
import { flag, type CommandContext, type HumanCommand } from "./command";
import { EXIT, exitCodeForKind, type ExitCode } from "./exit-codes";
import { formatTable, groupedMessages, writeJson } from "./output";
import { dryRunPlan, noteLabel } from "./sync";
import { CLI_WORDS, commandLine, shellQuote, teamFlag } from "./words";

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
  /** A conflict whose edits do not overlap: `sync` merges it without help. */
  merges?: true;
  /** The error kind behind an `error` state. */
  error_kind?: ErrorKind;
  /** Why, and the next step, when the note needs attention. */
  message?: string;
}

/** What a person should do next about one note, with its file and note filled in. */
export function nextStep(entry: {
  status: NoteState;
  local_path: string;
  note_id: string;
  team_path: string | null;
  merges?: true;
}): string {
  const path = shellQuote(entry.local_path || "<path>");
  switch (entry.status) {
    case "in_sync":
      return "nothing to do";
    case "local_changed":
      return `push it: ${commandLine("push", [entry.local_path || "<path>"])} (or hackmd-bridge sync)`;
    case "remote_changed":
      return `pull it: ${commandLine("pull", [entry.note_id, entry.local_path || "<path>"], `${teamFlag(entry.team_path)} --overwrite`)} (or hackmd-bridge sync)`;
    case "conflict":
      return entry.merges === true
        ? `both sides changed without overlapping: ${commandLine("push", [entry.local_path || "<path>"], " --merge")} (or hackmd-bridge sync) merges them`
        : `both sides changed: ${commandLine("push", [entry.local_path || "<path>"])} writes the note's text to ${path.replace(/\.md$/i, ".remote.md")}; merge it, then push with the --expected-remote-hash it prints`;
    case "missing_local":
      return `the file is gone: ${CLI_WORDS.step({ action: "pull", path: entry.local_path, noteId: entry.note_id, teamPath: entry.team_path })} restores it, or ${CLI_WORDS.step({ action: "untrack", path: entry.local_path })} forgets it`;
    case "missing_remote":
      return `the note is gone or not readable on HackMD: ${CLI_WORDS.step({ action: "untrack", path: entry.local_path, noteId: entry.note_id, teamPath: entry.team_path })} forgets it`;
    case "error":
      return "see the message above";
  }
}

/**
 * Reports sync state. Exit 0 when every note could be checked and none needs a person (edits on
 * one side are what push, pull and sync are for); 1 for a conflict that does not merge by itself,
 * a missing file or note; 2 when a check failed.
 */
export async function runStatus(args: StatusArgs, context: CommandContext): Promise<ExitCode> {
  return args.path === undefined ? statusOfAll(args, context) : statusOfOne({ ...args, path: args.path }, context);
}

/** The check of one tracked file; errors (not tracked, file missing) propagate to the caller. */
async function statusOfOne(args: StatusArgs & { path: string }, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  const check = await core.deps.sync.check({ localPath: args.path, call: new CallContext() });
  const entry = {
    status: check.status,
    local_path: check.local_path,
    note_id: check.note_id,
    team_path: await teamOf(context, check.local_path),
  };
  if (args.json) writeJson(io, check);
  else
    io.out(
      `${check.status}  ${check.local_path}  ${check.note_id}\n${check.status === "in_sync" ? "" : `Next: ${nextStep(entry)}\n`}`,
    );
  return check.status === "conflict" ? EXIT.attention : EXIT.ok;
}

/**
 * Every tracked note, from sync-all's dry-run plan: one list request per workspace, plus a GET
 * only for notes whose timestamp moved or that are not listed — not one GET per note.
 */
async function statusOfAll(args: StatusArgs, context: CommandContext): Promise<ExitCode> {
  const { io } = context;
  const plan = await dryRunPlan({ context, json: args.json });
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

/** The workspace of a tracked file's note (the sync check reports only its id). */
async function teamOf(context: CommandContext, localPath: string): Promise<string | null> {
  const tracked = await context.core.deps.sync.listTracked();
  return tracked.find((entry) => entry.local_path === localPath)?.team_path ?? null;
}

/** 0 when nothing needs a person; 2 when a note failed (auth, network, damaged state…); else 1. */
function statusExitCode(entries: readonly StatusEntry[]): ExitCode {
  let code: ExitCode = EXIT.ok;
  for (const entry of entries) {
    if (entry.status === "in_sync" || entry.status === "local_changed" || entry.status === "remote_changed") continue;
    if (entry.status === "conflict" && entry.merges === true) continue;
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
export function statusEntry(item: SyncAllItem): StatusEntry {
  const status = item.outcome === "skipped" ? "error" : STATE_OF_PLAN[item.plan];
  return {
    status,
    team_path: item.team_path,
    note_id: item.note_id,
    local_path: item.local_path,
    ...(item.merges === true ? { merges: true as const } : {}),
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
function printTable(options: {
  entries: StatusEntry[];
  counts: Record<string, number>;
  write: (text: string) => void;
}): void {
  const { entries, counts, write } = options;
  const rows = entries.map((entry) => [entry.status, entry.local_path || "(unknown path)", noteLabel(entry)]);
  write(formatTable([["state", "path", "note"], ...rows]));
  write(
    `\n${Object.entries(counts)
      .map(([state, count]) => `${count} ${state}`)
      .join(", ")}\n`,
  );
  const messages = entries.flatMap((entry) =>
    entry.message !== undefined && entry.status !== "in_sync"
      ? [{ label: entry.local_path || noteLabel(entry), message: entry.message }]
      : [],
  );
  for (const line of groupedMessages(messages)) write(`${line}\n`);
  const pending = entries.filter((entry) => entry.status !== "in_sync");
  if (pending.length > 0) write("\nNext:\n");
  for (const entry of pending) write(`  ${entry.local_path || noteLabel(entry)}: ${nextStep(entry)}\n`);
}

/** The `status` subcommand. */
export const statusCommand: HumanCommand = {
  name: "status",
  summary: "show which tracked notes changed, and where",
  synopsis: "[<path>] [options]",
  description: [
    "With <path>: that file against its note (one request). Without: every tracked note, planned",
    "from one note list per workspace plus a read of each note that moved. Nothing is written.",
    "States: in_sync, local_changed, remote_changed, conflict, missing_local, missing_remote, error.",
  ].join("\n"),
  positionals: { required: [], optional: ["path"] },
  options: {},
  shared: ["root", "json"],
  exitCodes: {
    0: "checked; nothing needs you (in_sync, local_changed or remote_changed, or a conflict sync merges by itself)",
    1: "a conflict to merge by hand, a file or note that is missing, or refused: the file is not tracked",
    2: "usage error, or a failure (a note could not be checked)",
  },
  examples: ["hackmd-bridge status", "hackmd-bridge status notes/plan.md --json"],
  parse: ({ values, positionals: given }) => {
    const [path] = given;
    const args: StatusArgs = { path, json: flag(values, "json") };
    return { json: args.json, run: (context) => runStatus(args, context) };
  },
};
