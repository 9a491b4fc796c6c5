/**
 * `hackmd-bridge sync --watch [--budget N]`: automatic sync of a folder (src/sync/auto/) until
 * SIGINT or SIGTERM — sync-all rounds paced by the monthly request budget, queued pushes retried
 * from the outbox in the shared state folder — one line per round or push. The budget's count is
 * kept in the state folder (`auto-sync/budget.json`): every request is added to it before it is
 * sent, under the file's lock (src/sync/auto/budget-file.ts), so it survives restarts and kills
 * and is shared by every watcher of the folder. A signal ends every wait at once.
 */
import { hostname } from "node:os";
import process from "node:process";
import { clearTimeout, setTimeout } from "node:timers";
import { sameStamp, type FileStamp, type LocalFiles } from "../../core/local-files";
import type { SyncTools } from "../../sync/types";
import type { OverwrittenVersion } from "../../hackmd/safety-version";
import { BUDGET_FILE } from "../../sync/auto/budget-file";
import { FREE_PLAN_MONTHLY, RequestBudget, type MonthlyBudget, type RoundDelay } from "../../sync/auto/budget";
import { stateFileBudgetStorage } from "../../sync/auto/budget-file";
import { Outbox } from "../../sync/auto/outbox";
import { AutoSyncRunner, DEFAULT_DEBOUNCE_MS, type StepReport } from "../../sync/auto/runner";
import type { Environment } from "../runtime";
import type { CommandContext } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { UsageError } from "./output";
import { CLI_WORDS, commandLine } from "./words";
import { mirrorRoundHook } from "../../app/mirror-sync";
import { commandTrash } from "./mirror";

/** Reads `--budget`: a whole number of requests per month, or `unlimited`; default the free plan's 2,000. */
export function parseBudget(value: string | undefined): MonthlyBudget {
  if (value === undefined) return FREE_PLAN_MONTHLY;
  const text = value.trim().toLowerCase();
  if (text === "unlimited") return "unlimited";
  if (!/^\d+$/.test(text) || Number(text) < 10 || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(
      `--budget must be a whole number of requests per month (at least 10) or "unlimited", e.g. --budget 2000`,
    );
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

/** A stop signal: SIGINT or SIGTERM ends every `wait` at once; `dispose` removes the handlers. */
function signals(): { wait: (ms: number) => Promise<void>; isStopped: () => boolean; dispose: () => void } {
  let stop = false;
  const wakes = new Set<() => void>();
  const onSignal = (): void => {
    stop = true;
    for (const wake of [...wakes]) wake();
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
          wakes.delete(done);
          resolve();
        }
        wakes.add(done);
      }),
    isStopped: () => stop,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** Runs until a signal; a step in progress finishes first (no pull or push is cut in half). */
export async function runWatch(
  args: { budget: MonthlyBudget; merge: boolean; quietMs?: number },
  context: CommandContext,
): Promise<ExitCode> {
  const { io } = context;
  const { client, files, sync, clock, logger } = context.core.deps;
  const signal = signals();
  const host = hostname().replace(/[\s@]/g, "_");
  const storage = stateFileBudgetStorage(files.state, {
    logger,
    owner: `${process.pid}@${host}`,
    isAlive: (owner) => processAlive(owner, host),
    stateFolder: files.root.stateFolder,
  });
  const budget = new RequestBudget({ monthly: args.budget, storage, ...budgetTuning(context.env) });
  const outbox = new Outbox(files.state);
  // Every wait of the runner (the short window, a rate-limit pause) ends at a signal.
  const runner = new AutoSyncRunner(
    {
      client,
      files,
      sync,
      clock,
      sleep: signal.wait,
      budget,
      outbox,
      logger,
      words: CLI_WORDS,
      isStopping: signal.isStopped,
      roundMirrors: () => mirrorRoundHook(context.core.deps, { host: commandTrash(context.core.deps) }),
    },
    { autoMerge: args.merge, debounceMs: args.quietMs ?? DEFAULT_DEBOUNCE_MS },
  );
  // Edits are noticed within a few seconds, so a push is due a quiet time after the last one.
  const looker = new TrackedFileLooker(files, sync);
  const lookMs = Math.min(LOOK_MS, args.quietMs ?? DEFAULT_DEBOUNCE_MS);
  try {
    await budget.load(clock.now());
    runner.start(clock.now());
    const limit = args.budget === "unlimited" ? "unlimited" : String(args.budget);
    const tracked = (await sync.listTracked()).length;
    sayDamage(budget.takeDamage(), files.root.stateFolder, io);
    io.out(
      `Watching ${tracked} tracked note${tracked === 1 ? "" : "s"}: ${budget.used(clock.now())}/${limit} requests used this month. Stop with Ctrl+C.\n`,
    );
    while (!signal.isStopped()) {
      for (const path of await looker.changed()) runner.fileChanged(path, clock.now());
      const report = await runner.step(clock.now());
      sayDamage(budget.takeDamage(), files.root.stateFolder, io);
      const line = reportLine(report);
      if (line !== undefined) io.out(`${line}\n`);
      if (signal.isStopped()) break;
      const wait = (await runner.nextWake(clock.now())) - clock.now();
      await signal.wait(Math.min(lookMs, Math.max(0, wait)));
    }
  } finally {
    runner.stop();
    signal.dispose();
    await budget.flush().catch(() => undefined);
  }
  io.out(
    `Stopped: ${budget.used(clock.now())} requests used this month; ${(await outbox.list()).length} pushes queued.\n`,
  );
  return EXIT.ok;
}

/** Says once that the saved count was damaged and what the budget counts from instead. */
function sayDamage(damage: string | undefined, stateFolder: string, io: CommandContext["io"]): void {
  if (damage === undefined) return;
  io.out(
    `The request budget file ${stateFolder}/${BUDGET_FILE} was damaged (${damage}); counting goes on from a safe count (what the month's even pace allows so far, nothing in the last 5 minutes) and the file is written anew.\n`,
  );
}

/** Whether the process that took a budget lock (`<pid>@<host>`) still runs; undefined when that cannot be told from here. */
function processAlive(owner: string, host: string): boolean | undefined {
  const [pidText, ownerHost] = owner.split("@");
  const pid = Number(pidText);
  if (ownerHost !== host || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM" ? true : false;
  }
}

/**
 * Test-only tunables of the short window, from the environment (never documented for users):
 * `HACKMD_BRIDGE_TEST_WINDOW_LIMIT` requests per `HACKMD_BRIDGE_TEST_WINDOW_MS` milliseconds.
 */
function budgetTuning(env: Environment): { windowLimit?: number; windowMs?: number } {
  const number = (text: string | undefined): number | undefined =>
    text !== undefined && /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
  const windowLimit = number(env.HACKMD_BRIDGE_TEST_WINDOW_LIMIT);
  const windowMs = number(env.HACKMD_BRIDGE_TEST_WINDOW_MS);
  return { ...(windowLimit === undefined ? {} : { windowLimit }), ...(windowMs === undefined ? {} : { windowMs }) };
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
      counts.errors > 0 ? `${counts.errors} error${counts.errors === 1 ? "" : "s"}` : "",
      counts.skipped > 0 ? `${counts.skipped} skipped` : "",
    ].filter((part) => part !== "");
    parts.push(`round: ${done.length === 0 ? "nothing to do" : done.join(", ")}`);
    // What went wrong, once per round (the first error; the others are usually the same cause).
    const failed = report.round.items.find((item) => item.outcome === "error" && item.message !== undefined);
    if (failed !== undefined)
      parts.push(`${failed.local_path === "" ? "error" : failed.local_path}: ${failed.message ?? ""}`);
    for (const item of report.round.items) {
      if (item.overwritten_versions !== undefined)
        parts.push(overwrittenWords(item.local_path, item.overwritten_versions));
    }
  }
  for (const push of report.pushes) {
    parts.push(
      `push ${push.local_path}: ${push.outcome}${push.error_kind === undefined ? "" : ` (${push.error_kind})`}`,
    );
    if (push.overwritten_versions !== undefined)
      parts.push(overwrittenWords(push.local_path, push.overwritten_versions));
  }
  if (parts.length === 0) return undefined;
  const limit = report.monthly === "unlimited" ? "unlimited" : String(report.monthly);
  const time = new Date(report.at).toISOString().slice(0, 19).replace("T", " ");
  return `${time} ${parts.join("; ")}; ${report.requests} requests, ${report.used}/${limit} this month, ${report.queued} queued; next round ${delayWords(report.next)}`;
}

/** A collaborator's edits a push replaced, as the line says them. */
function overwrittenWords(path: string, found: readonly OverwrittenVersion[]): string {
  const first = found[0];
  const by = [...new Set(found.map((version) => version.by))].join(", ");
  return `${path}: an edit by ${by} landed just before the push and was replaced; their text is in version ${first?.version_id ?? "?"} (${commandLine("history", [path], ` --show ${first?.version_id ?? "<version id>"}`)})`;
}

function delayWords(delay: RoundDelay): string {
  const minutes = Math.round(delay.ms / 60_000);
  const span =
    minutes < 1 ? "in under a minute" : minutes < 120 ? `in ${minutes} min` : `in ${Math.round(minutes / 60)} h`;
  const why: Record<RoundDelay["reason"], string> = {
    spread: "",
    minimum: "",
    window: " (HackMD's 5-minute limit)",
    quota: " (HackMD asked to wait)",
    exhausted: " (this month's budget is spent)",
  };
  return `${span}${why[delay.reason]}`;
}
