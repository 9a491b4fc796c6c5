/**
 * Automatic sync (issue 15, docs/auto-sync.md): scheduled sync-all rounds paced by the request
 * budget, a debounced push of each tracked file some seconds after its last modification, and
 * the persistent outbox retried when the budget allows. Host-neutral and clock-injected: the
 * runner never sets a timer. A host (the command's loop, the plugin's interval) calls `step(now)`
 * and sleeps until `nextWake(now)`; tests drive the same two calls with a fake clock.
 *
 * Every pull and push goes through the SyncService (its queue serialises per note and path, and
 * its pending-write rule refuses to overwrite an unconfirmed write); the runner only decides when.
 */
import { BridgeError, isBridgeError, type ErrorKind } from "../../core/errors";
import type { LocalFiles } from "../../core/local-files";
import { silentLogger, type Clock, type Logger, type Sleep } from "../../core/ports";
import { CallContext } from "../../hackmd/call-context";
import type { HackmdClient } from "../../hackmd/client";
import type { Words } from "../../core/wording";
import { DEFAULT_SYNC_ALL_CONCURRENCY, LocalHashCache, syncAll, type SyncAllCounts } from "../sync-all";
import type { PushStatus, SyncTools, TrackedEntry } from "../types";
import type { RequestBudget, RoundDelay } from "./budget";
import { isQueuedKind, type Outbox, type OutboxEntry } from "./outbox";

/** Quiet time after a file's last modification before it is pushed (never mid-typing). */
export const DEFAULT_DEBOUNCE_MS = 20_000;
/** Requests a push costs when nothing goes wrong: GET, PATCH, read-back GET (TOOLS.md §17). */
export const PUSH_COST = 3;
/** Short-window room a round's step waits for: every step in flight may be a full push. */
const STEP_ROOM = PUSH_COST * DEFAULT_SYNC_ALL_CONCURRENCY;
/** First wait before a queued push is retried; doubled per failure up to `MAX_RETRY_MS`. */
export const FIRST_RETRY_MS = 60_000;
export const MAX_RETRY_MS = 30 * 60_000;

/** What the runner needs. */
export interface AutoSyncDeps {
  client: HackmdClient;
  files: LocalFiles;
  sync: SyncTools;
  clock: Clock;
  /** Waits out the short window inside a round; a fake clock's sleep advances it. */
  sleep: Sleep;
  budget: RequestBudget;
  outbox: Outbox;
  logger?: Logger;
  words?: Words;
}

/** Options of the runner. */
export interface AutoSyncOptions {
  debounceMs?: number;
  /** Merge non-overlapping edits of both sides (default true). */
  autoMerge?: boolean;
  /** Files open in an editor right now: never pulled into or pushed from (default: none). */
  isEditing?: (localPath: string) => boolean;
}

/** One push the runner made (debounced or from the outbox). */
export interface PushReport {
  local_path: string;
  from_outbox: boolean;
  /** The push's status, or `queued` (kept in the outbox), or `failed` (reported, not queued). */
  outcome: PushStatus | "queued" | "failed";
  error_kind?: ErrorKind;
  message?: string;
}

/** What one `step` did. */
export interface StepReport {
  at: number;
  /** Set when a scheduled round ran. */
  round?: { counts: SyncAllCounts; requests: number; conflicts: string[] };
  pushes: PushReport[];
  /** Requests this step sent. */
  requests: number;
  used: number;
  monthly: number | "unlimited";
  queued: number;
  /** When the next round is due and why. */
  next: RoundDelay;
}

/** The runner of one folder. */
export class AutoSyncRunner {
  private readonly logger: Logger;
  private readonly debounceMs: number;
  private readonly autoMerge: boolean;
  private readonly isEditing: (localPath: string) => boolean;
  private readonly cache = new LocalHashCache();
  /** Last modification time of tracked files not pushed since. */
  private readonly dirty = new Map<string, number>();
  private nextRoundAt: number | undefined;
  private lastDelay: RoundDelay = { ms: 0, reason: "minimum" };
  private roundCost: number | undefined;
  private unsubscribe: (() => void) | undefined;
  private sent = 0;
  private running = false;
  /**
   * After a push failed for want of HackMD (offline, rate limited, down), no push is tried until
   * then: one failure stands for all, so an offline day does not spend the budget on probes.
   */
  private pushesBlockedUntil = 0;

  constructor(
    private readonly deps: AutoSyncDeps,
    options: AutoSyncOptions = {},
  ) {
    this.logger = deps.logger ?? silentLogger;
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
    this.autoMerge = options.autoMerge ?? true;
    this.isEditing = options.isEditing ?? (() => false);
  }

  /** Starts counting the client's requests against the budget; the first round is due at `firstRoundAt`. */
  start(firstRoundAt: number): void {
    this.unsubscribe ??= this.deps.client.onRequestSent((sent) => {
      this.sent += 1;
      this.deps.budget.record(sent.at);
    });
    this.nextRoundAt = firstRoundAt;
  }

  /** Stops counting; a step in progress finishes. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** A tracked (or maybe tracked) file was modified at `at`: it is pushed `debounceMs` after its last modification. */
  fileChanged(localPath: string, at: number): void {
    this.dirty.set(localPath, at);
  }

  /** Files waiting for their quiet time to pass. */
  get waiting(): number {
    return this.dirty.size;
  }

  /** When something is next due: a debounced push, a queued retry or the next round. */
  async nextWake(now: number): Promise<number> {
    let wake = this.nextRoundAt ?? now;
    for (const [path, at] of this.dirty) wake = Math.min(wake, this.pushWake(now, at + this.debounceMs, path));
    for (const entry of await this.deps.outbox.list()) wake = Math.min(wake, this.pushWake(now, retryAt(entry), entry.local_path));
    return Math.max(now, wake);
  }

  /**
   * When a push due at `due` can actually be tried: a file open in an editor is looked at again
   * one debounce later; one the budget cannot pay for now, once the window or HackMD's reset
   * allows, or with the next round when the month's budget is spent.
   */
  private pushWake(now: number, at: number, path: string): number {
    const due = Math.max(at, this.pushesBlockedUntil);
    if (due > now) return due;
    if (this.isEditing(path)) return now + this.debounceMs;
    const { budget } = this.deps;
    if (budget.mayPush(now, PUSH_COST)) return now;
    if (budget.remaining(now) < PUSH_COST) return this.nextRoundAt ?? now + this.debounceMs;
    return now + Math.max(1_000, budget.windowWait(now, PUSH_COST), budget.quotaWait(now, PUSH_COST));
  }

  /** Does whatever is due at `now`: debounced pushes, queued retries, then the round if due. */
  async step(now: number): Promise<StepReport> {
    if (this.running) throw new Error("AutoSyncRunner.step is not reentrant");
    this.running = true;
    const before = this.sent;
    const { budget } = this.deps;
    budget.observeQuota(this.deps.client.lastQuota);
    const pushes: PushReport[] = [];
    let round: StepReport["round"];
    let tracked: Promise<Map<string, TrackedEntry>> | undefined;
    // Read once per step, and only when a push is due: no request, but every record is read.
    const trackedByPath = (): Promise<Map<string, TrackedEntry>> =>
      (tracked ??= this.deps.sync.listTracked().then((entries) => new Map(entries.map((entry) => [entry.local_path, entry]))));
    try {
      const queued = await this.deps.outbox.list();
      const queuedPaths = new Set(queued.map((entry) => entry.local_path));
      for (const [path, at] of [...this.dirty]) {
        if (now < this.pushesBlockedUntil) break;
        if (at + this.debounceMs > now || this.isEditing(path)) continue;
        if (!budget.mayPush(now, PUSH_COST)) break;
        this.dirty.delete(path);
        if (queuedPaths.has(path)) continue; // the outbox below pushes it
        const report = await this.push(await trackedByPath(), path, false, now);
        if (report !== undefined) pushes.push(report);
      }
      for (const entry of await this.deps.outbox.list()) {
        if (now < this.pushesBlockedUntil) break;
        if (retryAt(entry) > now || this.isEditing(entry.local_path) || this.dirty.has(entry.local_path)) continue;
        if (!budget.mayPush(now, PUSH_COST)) break;
        const report = await this.push(await trackedByPath(), entry.local_path, true, now, entry);
        if (report !== undefined) pushes.push(report);
      }
      if (this.nextRoundAt === undefined || now >= this.nextRoundAt) round = await this.round(now);
    } finally {
      this.running = false;
      await budget.flush().catch((error: unknown) => {
        this.logger.warn("auto_sync.budget_save_failed", { error: error instanceof Error ? error.name : "unknown" });
      });
    }
    const monthly = budget.monthly;
    return {
      at: now,
      ...(round === undefined ? {} : { round }),
      pushes,
      requests: this.sent - before,
      used: budget.used(now),
      monthly,
      queued: (await this.deps.outbox.list()).length,
      next: this.lastDelay,
    };
  }

  /** One scheduled sync-all round, then the next one scheduled from what is left of the budget; undefined when none fits now. */
  private async round(now: number): Promise<StepReport["round"]> {
    const { budget } = this.deps;
    const estimate = this.roundCost ?? (await this.workspaceCount());
    const start = this.sent;
    let counts: SyncAllCounts;
    const conflicts: string[] = [];
    const skipRound = budget.nextDelay(now, estimate);
    if (skipRound.reason === "exhausted" || skipRound.reason === "window" || skipRound.reason === "quota") {
      // Not even one round fits now: wait, and send nothing.
      this.scheduleAfter(now, skipRound);
      return undefined;
    }
    budget.setInRound(true);
    try {
      const result = await syncAll(
        { client: this.deps.client, files: this.deps.files, sync: this.gatedSync(), sleep: this.deps.sleep, logger: this.logger, ...(this.deps.words === undefined ? {} : { words: this.deps.words }) },
        { autoMerge: this.autoMerge, hashCache: this.cache, holdBack: (path) => this.isEditing(path) || this.dirty.has(path) },
      );
      counts = result.counts;
      for (const item of result.items) {
        if (item.outcome === "conflict") conflicts.push(item.local_path);
        // A round that pushed or pulled a note settles its queued push.
        if (item.outcome === "pushed" || item.outcome === "merged" || item.outcome === "pulled" || item.outcome === "baseline_advanced" || item.outcome === "conflict") {
          await this.deps.outbox.remove(item.team_path, item.note_id);
        }
      }
    } catch (error) {
      this.logger.warn("auto_sync.round_failed", { error_kind: isBridgeError(error) ? error.kind : "internal" });
      counts = emptyCounts();
    } finally {
      budget.setInRound(false);
    }
    const spent = this.sent - start;
    // The next round is expected to cost about what rounds cost lately (never below one list per workspace).
    const floor = await this.workspaceCount();
    this.roundCost = Math.max(floor, Math.round(((this.roundCost ?? spent) * 3 + spent) / 4));
    this.scheduleAfter(now, budget.nextDelay(now, this.roundCost));
    return { counts, requests: spent, conflicts };
  }

  /**
   * The SyncService with every pull and push of a round waiting for room in the short window
   * first, and refused as `rate_limited` (which stops the round, the rest reported skipped) once
   * the month's budget cannot pay for one more: a round with many changed notes stays polite.
   */
  private gatedSync(): SyncTools {
    const { sync, budget, clock, sleep } = this.deps;
    const room = async (): Promise<void> => {
      for (;;) {
        const now = clock.now();
        if (budget.remaining(now) < PUSH_COST) {
          throw new BridgeError("rate_limited", "This month's request budget is spent; the remaining notes sync next month or after the budget is raised.");
        }
        // Room for every step in flight at once, each a full push.
        const wait = Math.max(budget.windowWait(now, STEP_ROOM), budget.quotaWait(now, PUSH_COST));
        if (wait === 0) return;
        await sleep(wait);
      }
    };
    return {
      listTracked: () => sync.listTracked(),
      check: (options) => sync.check(options),
      pull: async (request) => {
        await room();
        return sync.pull(request);
      },
      push: async (request) => {
        await room();
        return sync.push(request);
      },
      remoteFormOf: (found, text) => sync.remoteFormOf(found, text),
      localFormOf: (found, text) => sync.localFormOf(found, text),
      untrack: (request) => sync.untrack(request),
      followRename: (options) => sync.followRename(options),
      batch: (run) => sync.batch(run),
    };
  }

  private scheduleAfter(now: number, delay: RoundDelay): void {
    this.lastDelay = delay;
    this.nextRoundAt = now + delay.ms;
  }

  /** One push through the SyncService; a failure that wrote nothing goes to the outbox. */
  private async push(byPath: ReadonlyMap<string, TrackedEntry>, localPath: string, fromOutbox: boolean, now: number, entry?: OutboxEntry): Promise<PushReport | undefined> {
    const tracked = byPath.get(localPath);
    if (tracked === undefined) {
      if (entry !== undefined) await this.deps.outbox.remove(entry.team_path, entry.note_id);
      return undefined; // not a tracked file (or untracked since): nothing to push
    }
    try {
      const result = await this.deps.sync.push({ localPath, strategy: this.autoMerge ? "merge" : "safe", confirm: false, confirmLargeFile: false, call: new CallContext() });
      await this.deps.outbox.remove(tracked.team_path, tracked.note_id);
      this.cache.forget(localPath);
      const status = result.kind === "pushed" ? result.output.status : "nothing_to_push";
      return { local_path: localPath, from_outbox: fromOutbox, outcome: status };
    } catch (error) {
      const kind: ErrorKind = isBridgeError(error) ? error.kind : "internal";
      const message = error instanceof Error ? error.message : String(error);
      if (isQueuedKind(kind)) {
        const queued = await this.deps.outbox.add({ team_path: tracked.team_path, note_id: tracked.note_id, local_path: localPath, last_error_kind: kind, at: now });
        this.pushesBlockedUntil = Math.max(this.pushesBlockedUntil, retryAt(queued));
        return { local_path: localPath, from_outbox: fromOutbox, outcome: "queued", error_kind: kind, message };
      }
      // `readback` (the write may have landed) and refusals are reported, never queued: the
      // next push re-reads the note and the pending-write rule decides (TOOLS.md §4.2).
      if (entry !== undefined) await this.deps.outbox.remove(entry.team_path, entry.note_id);
      return { local_path: localPath, from_outbox: fromOutbox, outcome: "failed", error_kind: kind, message };
    }
  }

  private async workspaceCount(): Promise<number> {
    const tracked = await this.deps.sync.listTracked();
    return Math.max(1, new Set(tracked.map((entry) => entry.team_path)).size);
  }
}

/** When a queued push is next tried: after its last failure, waiting longer after each. */
export function retryAt(entry: OutboxEntry): number {
  const wait = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, entry.attempts - 1));
  return entry.last_attempt_at + wait;
}

function emptyCounts(): SyncAllCounts {
  return { in_sync: 0, pulled: 0, pushed: 0, merged: 0, conflicts: 0, missing_local: 0, missing_remote: 0, errors: 0, skipped: 0 };
}
