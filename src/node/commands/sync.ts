/**
 * `hackmd-bridge sync [--dry-run]`: sync-all (src/sync/sync-all.ts) for people — remote changes
 * pulled, local edits pushed, conflicts reported with their `.remote.md` snapshot, missing files
 * and notes reported; one list request per workspace plus about one GET per changed note.
 */
import {
  syncAll,
  type SyncAllCounts,
  type SyncAllItem,
  type SyncAllProgress,
  type SyncAllResult,
} from "../../sync/sync-all";
import { flag, text, type CommandContext, type HumanCommand } from "./command";
import { EXIT, exitCodeForKind, type ExitCode } from "./exit-codes";
import {
  createProgress,
  formatTable,
  groupedMessages,
  indent,
  UsageError,
  writeJson,
  type CommandIo,
  type Progress,
} from "./output";
import { snapshotCleanupSentence } from "../../sync/snapshots";
import { CLI_WORDS, commandLine } from "./words";
import { parseBudget, parseQuietTime, runWatch } from "./watch";
import { loadMirrors, type MirrorResult } from "../../app/mirror";
import { syncWithMirrors } from "../../app/mirror-sync";
import { commandTrash } from "./mirror";

/** The checked arguments of `sync`. */
export interface SyncArgs {
  /** Plan only: one list per workspace and the GETs of moved notes; nothing is written. */
  dryRun: boolean;
  /** Merge non-overlapping edits of both sides (default); `--no-merge` reports them as conflicts. */
  merge: boolean;
  json: boolean;
  /** Mirrors: delete a note on HackMD when its file was deleted in the vault (default: untrack only). */
  deleteRemote?: boolean;
}

/** Runs sync-all: exit 0 if everything ended in sync, 1 if conflicts/refusals/skips remain, 2 on errors. */
export async function runSync(args: SyncArgs, context: CommandContext): Promise<ExitCode> {
  const { io } = context;
  const progress = createProgress({ io, json: args.json });
  let result: SyncAllResult;
  let mirrors: MirrorResult[] = [];
  try {
    // Mirrors (src/app/mirror.ts) share the round's one list per workspace with sync-all.
    if ((await loadMirrors(context.core.deps.files.state)).length > 0) {
      const round = await syncWithMirrors(context.core.deps, {
        host: commandTrash(context.core.deps),
        words: CLI_WORDS,
        deleteRemote: args.deleteRemote === true,
        syncAll: { dryRun: args.dryRun, autoMerge: args.merge, onProgress: syncProgress(progress) },
        onMirrorProgress: (target, report) => {
          if (report.total > 0 && report.phase === "fetching")
            progress.update(`Mirror ${target}: fetching notes ${report.done}/${report.total}`);
        },
      });
      result = round.sync;
      mirrors = round.mirrors;
    } else result = await runSyncAll({ context, dryRun: args.dryRun, autoMerge: args.merge, progress });
  } finally {
    progress.done();
  }
  if (args.json) writeJson(io, mirrors.length === 0 ? publicResult(result) : { ...publicResult(result), mirrors });
  else {
    printReport({ result, io });
    printMirrors(mirrors, io);
  }
  const code = exitCodeOfItems(result.items);
  const mirrorTrouble = mirrors.some((mirror) => mirror.items.some((item) => item.action === "error"));
  return code === EXIT.ok && mirrorTrouble ? EXIT.attention : code;
}

/** One line per mirror, then what it did beyond plain pulls. */
function printMirrors(mirrors: readonly MirrorResult[], io: CommandIo): void {
  for (const mirror of mirrors) {
    const shown = mirror.items.filter((item) => item.action !== "pulled" || mirror.items.length < 20);
    io.out(
      `Mirror ${mirror.target} (${mirror.local_dir || "root folder"}): ${mirror.items.length === 0 ? "nothing new" : `${mirror.items.length} change${mirror.items.length === 1 ? "" : "s"}`}.\n`,
    );
    if (shown.length > 0)
      io.out(
        formatTable(shown.map((item) => [item.action, item.local_path || "-", item.message ?? item.note_id ?? ""])),
      );
  }
}

/** Sync-all's progress reports as the progress line. */
function syncProgress(progress: Progress): (report: SyncAllProgress) => void {
  return (report) => {
    if (report.total > 0) progress.update(progressText(report));
  };
}

/** The result as `--json` shows it: without the decision table's internal branch ids. */
export function publicResult(
  result: SyncAllResult,
): Omit<SyncAllResult, "items"> & { items: Array<Omit<SyncAllItem, "branch">> } {
  return { ...result, items: result.items.map(({ branch: _branch, ...item }) => item) };
}

/** Sync-all over the core's deps (messages in the command line's words), with its progress shown. */
export function runSyncAll(options: {
  context: CommandContext;
  dryRun: boolean;
  autoMerge?: boolean;
  progress: Progress;
}): Promise<SyncAllResult> {
  const { context, dryRun, progress } = options;
  return syncAll(
    { ...context.core.deps, words: CLI_WORDS },
    {
      dryRun,
      autoMerge: options.autoMerge ?? true,
      onProgress: (report) => {
        if (report.total > 0) progress.update(progressText(report));
      },
    },
  );
}

/** Sync-all's dry-run plan with a progress line (status and list show it as a table). */
export async function dryRunPlan(options: { context: CommandContext; json: boolean }): Promise<SyncAllResult> {
  const progress = createProgress({ io: options.context.io, json: options.json });
  try {
    return await runSyncAll({ context: options.context, dryRun: true, progress });
  } finally {
    progress.done();
  }
}

/** The progress line of one sync-all report. */
function progressText(report: SyncAllProgress): string {
  const step = `${report.done}/${report.total}`;
  switch (report.phase) {
    case "listing":
      return `Listing workspaces ${step}`;
    case "checking":
      return `Checking tracked notes ${step}`;
    case "syncing":
      return `Syncing ${step}${report.note_id === undefined ? "" : ` (note ${report.note_id})`}`;
  }
}

/** True when an item ended in sync, or (dry run) nothing is planned for it. */
function settled(item: SyncAllItem): boolean {
  switch (item.outcome) {
    case "unchanged":
    case "baseline_advanced":
    case "pulled":
    case "pushed":
    case "merged":
      return true;
    case "planned":
      // A dry run answers "is there anything to do?": a planned pull, push or merge is.
      return item.plan === "in_sync" || item.plan === "same_change";
    default:
      return false;
  }
}

/**
 * Exit code of a sync-all result: 2 when a note failed (not merely refused), 1 when any is
 * unsettled (a dry run: when anything would be done or needs you), else 0.
 */
export function exitCodeOfItems(items: readonly SyncAllItem[]): ExitCode {
  let code: ExitCode = EXIT.ok;
  for (const item of items) {
    if (settled(item)) continue;
    if (item.outcome === "error" && exitCodeForKind(item.error_kind ?? "internal") === EXIT.error) return EXIT.error;
    code = EXIT.attention;
  }
  return code;
}

/** The word for what happened (or, in a dry run, would happen) to one note. */
function label(item: SyncAllItem): string {
  if (item.outcome !== "planned") return item.outcome;
  if (item.plan === "pull") return "would_pull";
  if (item.plan === "push" || item.plan === "reconcile") return "would_push";
  if (item.merges === true) return "would_merge";
  return item.plan;
}

/** The counts as a sentence fragment, zero counts left out. */
export function countWords(counts: SyncAllCounts, dryRun: boolean): string {
  const words: Array<[keyof SyncAllCounts, string]> = [
    ["in_sync", "in sync"],
    ["pulled", dryRun ? "to pull" : "pulled"],
    ["pushed", dryRun ? "to push" : "pushed"],
    ["merged", dryRun ? "to merge" : "merged"],
    ["conflicts", dryRun ? "in conflict" : "conflicts"],
    ["missing_local", "missing locally"],
    ["missing_remote", "missing on HackMD"],
    ["errors", "errors"],
    ["skipped", "skipped"],
  ];
  return (
    words
      .filter(([key]) => counts[key] > 0)
      // "1 error", "1 conflict": the plural words are written for counts above one.
      .map(
        ([key, word]) =>
          `${counts[key]} ${counts[key] === 1 && (key === "errors" || (key === "conflicts" && !dryRun)) ? word.slice(0, -1) : word}`,
      )
      .join(", ")
  );
}

/** The summary line, then one line per note that is not plainly in sync, with its message. */
function printReport(options: { result: SyncAllResult; io: CommandIo }): void {
  const { result, io } = options;
  const total = result.items.length;
  if (total === 0) {
    io.out("No tracked notes. Pull one with: hackmd-bridge pull <note_ref> <path>\n");
    return;
  }
  const head = result.dry_run ? "Dry run, nothing was written. " : "";
  io.out(`${head}${total} tracked note${total === 1 ? "" : "s"}: ${countWords(result.counts, result.dry_run)}.\n`);
  const quiet = (item: SyncAllItem): boolean =>
    item.outcome === "unchanged" ||
    item.outcome === "baseline_advanced" ||
    (item.outcome === "planned" && item.plan === "same_change");
  // A note in sync is shown only when its conflict's snapshot was removed (or kept) just now.
  const shown = result.items.filter((item) => !quiet(item) || item.snapshot_cleanup !== undefined);
  if (shown.length === 0) return;
  io.out(formatTable(shown.map((item) => [label(item), item.local_path || "(unknown path)", noteLabel(item)])));
  const details = shown.flatMap((item) => {
    const lines = itemDetails(item);
    return lines.length === 0
      ? []
      : [{ label: item.local_path || noteLabel(item), message: `\n${indent(lines.join("\n"))}` }];
  });
  for (const line of groupedMessages(details)) io.out(`${line}\n`);
}

/** `team/id` for a team note, the id for a personal one. */
export function noteLabel(item: { team_path: string | null; note_id: string }): string {
  return item.team_path === null ? item.note_id : `${item.team_path}/${item.note_id}`;
}

/** A note's message, snapshot and next command, as lines. */
export function itemDetails(item: SyncAllItem): string[] {
  const lines: string[] = [];
  if (item.message !== undefined) lines.push(item.message);
  if (item.snapshot_path !== undefined) lines.push(`remote body: ${item.snapshot_path}`);
  // The .remote.md of an earlier conflict, removed now that both sides agree (or why it stayed).
  const cleanup = snapshotCleanupSentence(item.snapshot_cleanup).trim();
  if (cleanup !== "") lines.push(cleanup);
  if (item.outcome === "conflict" && item.remote_body_hash !== undefined) {
    lines.push(
      `after merging: ${commandLine("push", [item.local_path], ` --expected-remote-hash ${item.remote_body_hash}`)}`,
    );
  } else if (item.outcome === "planned" && item.plan === "conflict" && item.merges !== true) {
    lines.push(
      `run ${commandLine("push", [item.local_path])} (writes the .remote.md snapshot and shows both sides), merge, then push with --expected-remote-hash`,
    );
  }
  return lines;
}

/** The `sync` subcommand. */
export const syncCommand: HumanCommand = {
  name: "sync",
  summary: "pull remote changes and push local ones for every tracked note",
  synopsis: "[options]",
  description: [
    "One note list per workspace decides which notes need a request at all. Edits on both sides",
    "that do not overlap are merged (unless --no-merge); a real conflict is left alone, with the",
    "note's text in <name>.remote.md. --dry-run shows the plan and writes nothing.",
    "--watch keeps doing this until Ctrl+C: rounds are spaced so the month's request budget lasts",
    "the month (never more than HackMD's 100 requests per 5 minutes). A file you save is pushed",
    "about 20 s later while the budget has credit to spare, otherwise with the next round; a push",
    "that fails offline is queued in the state folder and sent when HackMD answers again",
    "(docs/auto-sync.md).",
  ].join("\n"),
  positionals: { required: [] },
  options: {
    "dry-run": { type: "boolean", help: "show what would be done; nothing is written locally or on HackMD" },
    "no-merge": { type: "boolean", help: "report edits on both sides as conflicts instead of merging them" },
    "delete-remote": {
      type: "boolean",
      help: "mirrors: delete the note on HackMD when you deleted its file (default: only untrack it)",
    },
    watch: {
      type: "boolean",
      help: "keep syncing until Ctrl+C or SIGTERM, paced by the monthly request budget; one line per round",
    },
    budget: {
      type: "string",
      value: "<N|unlimited>",
      help: "with --watch: requests per calendar month (UTC) to spend (default 2000, HackMD's free plan)",
    },
    "quiet-time": {
      type: "string",
      value: "<seconds>",
      help: "with --watch: how long a saved file must stay unchanged before it is pushed (default 20)",
    },
  },
  shared: ["root", "json"],
  exitCodes: {
    0: "every note ends in sync; with --dry-run: nothing to do; with --watch: stopped with Ctrl+C or SIGTERM",
    1: "conflicts, missing files or notes, or refusals remain; with --dry-run: something would be pulled, pushed or merged, or needs you",
    2: "usage error, or a failure (a note could not be synced)",
  },
  examples: ["hackmd-bridge sync --dry-run", "hackmd-bridge sync --json", "hackmd-bridge sync --watch --budget 2000"],
  parse: ({ values }) => {
    if (flag(values, "watch")) {
      if (flag(values, "dry-run")) throw new UsageError("--watch syncs for real; leave out --dry-run (or --watch)");
      if (flag(values, "json")) throw new UsageError("--watch prints one line per round; leave out --json");
      const watchArgs = {
        budget: parseBudget(text(values, "budget")),
        merge: !flag(values, "no-merge"),
        quietMs: parseQuietTime(text(values, "quiet-time")),
      };
      return { json: false, run: (context) => runWatch(watchArgs, context) };
    }
    if (values.budget !== undefined)
      throw new UsageError("--budget goes with --watch: hackmd-bridge sync --watch --budget <N>");
    if (values["quiet-time"] !== undefined)
      throw new UsageError("--quiet-time goes with --watch: hackmd-bridge sync --watch --quiet-time <seconds>");
    const args: SyncArgs = {
      dryRun: flag(values, "dry-run"),
      merge: !flag(values, "no-merge"),
      json: flag(values, "json"),
      deleteRemote: flag(values, "delete-remote"),
    };
    return { json: args.json, run: (context) => runSync(args, context) };
  },
};
