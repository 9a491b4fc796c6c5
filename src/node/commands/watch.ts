/**
 * `hackmd-bridge sync --watch [--budget N]`: automatic sync of a folder (src/sync/auto/) until
 * SIGINT or SIGTERM — sync-all rounds paced by the monthly request budget, queued pushes retried
 * from the outbox in the shared state folder — one line per round or push. The budget's count is
 * kept in the state folder (`auto-sync/budget.json`), so it survives restarts.
 */
import { watch } from "node:fs";
import { sep } from "node:path";
import { NodeLocalFiles } from "../local-files";
import { FREE_PLAN_MONTHLY, RequestBudget, type MonthlyBudget, type RoundDelay } from "../../sync/auto/budget";
import { Outbox, stateFileBudgetStorage } from "../../sync/auto/outbox";
import { AutoSyncRunner, type StepReport } from "../../sync/auto/runner";
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

/**
 * Watches the folder for Markdown files being written (hidden folders such as the state folder
 * left out) and calls `onChange` with each one's folder-relative path. Best effort: where the
 * platform cannot watch recursively, returns undefined and edits go out with the next round.
 */
export function watchMarkdown(root: string, onChange: (path: string) => void): (() => void) | undefined {
  try {
    const watcher = watch(root, { recursive: true, persistent: false }, (_event, name) => {
      if (name === null) return;
      const path = String(name).split(sep).join("/");
      if (!path.toLowerCase().endsWith(".md") || path.endsWith(".remote.md")) return;
      if (path.split("/").some((part) => part.startsWith("."))) return;
      onChange(path);
    });
    watcher.on("error", () => watcher.close());
    return () => watcher.close();
  } catch {
    return undefined;
  }
}

/** A stop signal: SIGINT or SIGTERM ends `wait` at once; `dispose` removes the handlers. */
function signals(): { wait: (ms: number) => Promise<void>; wake: () => void; isStopped: () => boolean; dispose: () => void } {
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
    wake: () => wake?.(),
    isStopped: () => stop,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** Runs until a signal; a step in progress finishes first (no pull or push is cut in half). */
export async function runWatch(args: { budget: MonthlyBudget; merge: boolean }, context: CommandContext): Promise<ExitCode> {
  const { io } = context;
  const { client, files, sync, clock, sleep, logger } = context.core.deps;
  const budget = new RequestBudget({ monthly: args.budget, storage: stateFileBudgetStorage(files.state) });
  await budget.load(clock.now());
  const outbox = new Outbox(files.state);
  const runner = new AutoSyncRunner({ client, files, sync, clock, sleep, budget, outbox, logger, words: CLI_WORDS }, { autoMerge: args.merge });
  const signal = signals();
  // An edit wakes the loop, so its push is due a quiet time after it, not at the next round.
  const unwatch = files instanceof NodeLocalFiles ? watchMarkdown(files.rootPath, (path) => {
    runner.fileChanged(path, clock.now());
    signal.wake();
  }) : undefined;
  try {
    runner.start(clock.now());
    const limit = args.budget === "unlimited" ? "unlimited" : String(args.budget);
    const tracked = (await sync.listTracked()).length;
    io.out(`Watching ${tracked} tracked note${tracked === 1 ? "" : "s"}: ${budget.used(clock.now())}/${limit} requests used this month. Stop with Ctrl+C.\n`);
    if (unwatch === undefined) io.out("This system cannot watch the folder for edits; they go out with the next round.\n");
    while (!signal.isStopped()) {
      const report = await runner.step(clock.now());
      const line = reportLine(report);
      if (line !== undefined) io.out(`${line}\n`);
      if (signal.isStopped()) break;
      const wait = (await runner.nextWake(clock.now())) - clock.now();
      await signal.wait(Math.max(0, wait));
    }
  } finally {
    unwatch?.();
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
