/**
 * `hackmd-bridge sync --watch [--budget N]`: automatic sync of a folder (src/sync/auto/) until
 * SIGINT or SIGTERM — sync-all rounds paced by the monthly request budget, queued pushes retried
 * from the outbox in the shared state folder — one line per round or push. The budget's count is
 * kept in the state folder (`auto-sync/budget.json`), so it survives restarts.
 */
import { sameStamp, type FileStamp, type LocalFiles } from "../../core/local-files";
import type { SyncTools } from "../../sync/types";
import { FREE_PLAN_MONTHLY, RequestBudget, type MonthlyBudget, type RoundDelay } from "../../sync/auto/budget";
import { Outbox, stateFileBudgetStorage } from "../../sync/auto/outbox";
import { AutoSyncRunner, DEFAULT_DEBOUNCE_MS, type StepReport } from "../../sync/auto/runner";
import type { CommandContext } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { UsageError } from "./output";
import { CLI_WORDS } from "./words";

/** Reads `--budget`: a whole number of requests per month, or `unlimited`; default the free plan's 2,000. */
export function parseBudget(value: string | undefined): MonthlyBudget {
  if (value === undefined) return FREE_PLAN_MONTHLY;
  const text = value.trim().toLowerCase();
  if (text === "unlimited") return "unlimited";
  if (!/^\d+$/.test(text) || Number(text) < 10 || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`--budget must be a whole number of requests per month (at least 10) or "unlimited", e.g. --budget 2000`);
  }
  return Number(text);
}

/** Longest time between two looks at the tracked files' stamps. */
const LOOK_MS = 5_000;

/**
 * Notices edits of tracked files by their stamps (size, mtime, identity): one `stat` per tracked
 * file per look, no request and no platform file watcher (recursive watching is not available
 * everywhere). The first look only learns the stamps.
 */
export class TrackedFileLooker {
  private readonly seen = new Map<string, FileStamp | "missing">();
  private first = true;

  constructor(
    private readonly files: LocalFiles,
    private readonly sync: SyncTools,
  ) {}

  /** Paths of tracked files whose stamp changed since the last look. */
  async changed(): Promise<string[]> {
    const out: string[] = [];
    const tracked = await this.sync.listTracked();
    const paths = new Set(tracked.map((entry) => entry.local_path));
    for (const path of paths) {
      const info = await this.files.stat(path).catch(() => undefined);
      const now: FileStamp | "missing" = info?.stamp ?? "missing";
      const before = this.seen.get(path);
      this.seen.set(path, now);
      if (this.first || before === undefined) continue;
      if (before === "missing" || now === "missing" ? before !== now : !sameStamp(before, now)) out.push(path);
    }
    for (const path of [...this.seen.keys()]) if (!paths.has(path)) this.seen.delete(path);
    this.first = false;
    return out;
  }
}

/** Reads `--quiet-time`: whole seconds from 1 to 3600; default the runner's 20 s. */
export function parseQuietTime(value: string | undefined): number {
  if (value === undefined) return DEFAULT_DEBOUNCE_MS;
  const text = value.trim();
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 3600) {
    throw new UsageError("--quiet-time must be a whole number of seconds from 1 to 3600, e.g. --quiet-time 20");
  }
  return Number(text) * 1000;
}

/** A stop signal: SIGINT or SIGTERM ends `wait` at once; `dispose` removes the handlers. */
function signals(): { wait: (ms: number) => Promise<void>; isStopped: () => boolean; dispose: () => void } {
  let stop = false;
  let wake: (() => void) | undefined;
  const onSignal = (): void => {
    stop = true;
    wake?.();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    // Its own timer, cleared on a signal, so a long wait never keeps the process alive after Ctrl+C.
    wait: (ms) =>
      new Promise<void>((resolve) => {
        if (stop) return resolve();
        const timer = setTimeout(done, ms);
        function done(): void {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      }),
    isStopped: () => stop,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** Runs until a signal; a step in progress finishes first (no pull or push is cut in half). */
export async function runWatch(args: { budget: MonthlyBudget; merge: boolean; quietMs?: number }, context: CommandContext): Promise<ExitCode> {
  const { io } = context;
  const { client, files, sync, clock, sleep, logger } = context.core.deps;
  const budget = new RequestBudget({ monthly: args.budget, storage: stateFileBudgetStorage(files.state) });
  await budget.load(clock.now());
  const outbox = new Outbox(files.state);
  const runner = new AutoSyncRunner({ client, files, sync, clock, sleep, budget, outbox, logger, words: CLI_WORDS }, { autoMerge: args.merge, debounceMs: args.quietMs ?? DEFAULT_DEBOUNCE_MS });
  const signal = signals();
  // Edits are noticed within a few seconds, so a push is due a quiet time after the last one.
  const looker = new TrackedFileLooker(files, sync);
  const lookMs = Math.min(LOOK_MS, args.quietMs ?? DEFAULT_DEBOUNCE_MS);
  try {
    runner.start(clock.now());
    const limit = args.budget === "unlimited" ? "unlimited" : String(args.budget);
    const tracked = (await sync.listTracked()).length;
    io.out(`Watching ${tracked} tracked note${tracked === 1 ? "" : "s"}: ${budget.used(clock.now())}/${limit} requests used this month. Stop with Ctrl+C.\n`);
    while (!signal.isStopped()) {
      for (const path of await looker.changed()) runner.fileChanged(path, clock.now());
      const report = await runner.step(clock.now());
      const line = reportLine(report);
      if (line !== undefined) io.out(`${line}\n`);
      if (signal.isStopped()) break;
      const wait = (await runner.nextWake(clock.now())) - clock.now();
      await signal.wait(Math.min(lookMs, Math.max(0, wait)));
    }
  } finally {
    runner.stop();
    signal.dispose();
    await budget.flush();
  }
  io.out(`Stopped: ${budget.used(clock.now())} requests used this month; ${(await outbox.list()).length} pushes queued.\n`);
  return EXIT.ok;
}

/** One line per round or push: what happened, requests used / budget, queued pushes, next round. */
export function reportLine(report: StepReport): string | undefined {
  const parts: string[] = [];
  if (report.round !== undefined) {
    const { counts } = report.round;
    const done = [
      counts.pulled > 0 ? `${counts.pulled} pulled` : "",
      counts.pushed > 0 ? `${counts.pushed} pushed` : "",
      counts.merged > 0 ? `${counts.merged} merged` : "",
      counts.conflicts > 0 ? `${counts.conflicts} in conflict (${report.round.conflicts.join(", ")})` : "",
      counts.errors > 0 ? `${counts.errors} errors` : "",
      counts.skipped > 0 ? `${counts.skipped} skipped` : "",
    ].filter((part) => part !== "");
    parts.push(`round: ${done.length === 0 ? "nothing to do" : done.join(", ")}`);
  }
  for (const push of report.pushes) {
    parts.push(`push ${push.local_path}: ${push.outcome}${push.error_kind === undefined ? "" : ` (${push.error_kind})`}`);
  }
  if (parts.length === 0) return undefined;
  const limit = report.monthly === "unlimited" ? "unlimited" : String(report.monthly);
  const time = new Date(report.at).toISOString().slice(0, 19).replace("T", " ");
  return `${time} ${parts.join("; ")}; ${report.requests} requests, ${report.used}/${limit} this month, ${report.queued} queued; next round ${delayWords(report.next)}`;
}

function delayWords(delay: RoundDelay): string {
  const minutes = Math.round(delay.ms / 60_000);
  const span = minutes < 1 ? "in under a minute" : minutes < 120 ? `in ${minutes} min` : `in ${Math.round(minutes / 60)} h`;
  const why: Record<RoundDelay["reason"], string> = {
    spread: "",
    minimum: "",
    window: " (HackMD's 5-minute limit)",
    quota: " (HackMD asked to wait)",
    exhausted: " (this month's budget is spent)",
  };
  return `${span}${why[delay.reason]}`;
}
