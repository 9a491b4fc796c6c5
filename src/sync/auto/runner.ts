/**
 * Automatic sync (docs/auto-sync.md): scheduled sync-all rounds paced by the request
 * budget, a debounced push of each tracked file some seconds after its last modification, and
 * the persistent outbox retried when the budget allows. Host-neutral and clock-injected: the
 * runner never sets a timer. A host (the command's loop, the plugin's interval) calls `step(now)`
 * and sleeps until `nextWake(now)`; tests drive the same two calls with a fake clock.
 *
 * Every pull and push goes through the SyncService (its queue serialises per note and path, and
 * its pending-write rule refuses to overwrite an unconfirmed write); the runner only decides when.
 */
import { BridgeError, isBridgeError, type ErrorKind } from "../../core/errors";
import { bodyHash } from "../../core/hash";
import { normalizeLineEndings } from "../../core/text";
import { MAX_BODY_BYTES } from "../service";
import type { LocalFiles } from "../../core/local-files";
import { silentLogger, type Clock, type Logger, type Sleep } from "../../core/ports";
import { CallContext } from "../../hackmd/call-context";
import type { HackmdClient } from "../../hackmd/client";
import type { NoteSummary } from "../../hackmd/types";
import type { OverwrittenVersion } from "../../hackmd/safety-version";
import type { SentRequest } from "../../hackmd/request";
import type { Words } from "../../core/wording";
import {
  DEFAULT_SYNC_ALL_CONCURRENCY,
  emptyCounts,
  LocalHashCache,
  syncAll,
  type SyncAllCounts,
  type SyncAllItem,
} from "../sync-all";
import type { PushStatus, SyncTools, TrackedEntry } from "../types";
import type { RequestBudget, RoundDelay } from "./budget";
import { isQueuedKind, retryAt, type Outbox, type OutboxEntry } from "./outbox";
import { DEFAULT_DEBOUNCE_MS } from "../limits";

export { FIRST_RETRY_MS, MAX_RETRY_MS, retryAt } from "./outbox";
export { DEFAULT_DEBOUNCE_MS };

/** Requests a push costs when nothing goes wrong: GET, PATCH, read-back GET (docs/tools.md §17). */
export const PUSH_COST = 3;
/**
 * Requests a push in a round costs when the round's fresh list stands in for its GET: PATCH and
 * read-back GET (PushRequest.listed, docs/auto-sync.md).
 */
export const LISTED_PUSH_COST = 2;
/**
 * Credit (RequestBudget.credit) a push sent on its own must leave, in days of the month's even
 * pace: below it, changed files wait for the next round, where their push costs less and
 * several edits of one note go out as one.
 */
export const DIRECT_PUSH_RESERVE_DAYS = 0.25;
/**
 * Short-window room a round's step waits for: every step in flight may be a full push (never more
 * than a third of a small window, which would never have that much room; every request is still
 * held to the window when it is reserved).
 */
const STEP_ROOM = PUSH_COST * DEFAULT_SYNC_ALL_CONCURRENCY;

function stepRoom(windowRequests: number): number {
  return Math.min(STEP_ROOM, Math.max(PUSH_COST, Math.floor(windowRequests / 3)));
}

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
  /**
   * True once the host is stopping (the command's SIGINT/SIGTERM): no request waits for the
   * budget any more, and none is sent; the host's `sleep` should return early then too.
   */
  isStopping?: () => boolean;
  /**
   * The mirrors a round keeps whole (src/app/mirror-sync.ts `mirrorRoundHook`), when the host has
   * any: `before` runs the mirrors' part of the round, sync-all then lists through `listNotes` (one
   * list per workspace for both) under `call`, and `after` follows the folder moves it read. Their
   * requests go through the same client, so the budget counts and paces them.
   */
  roundMirrors?: () => Promise<RoundMirrors | undefined>;
}

/** A round's mirrors (see `AutoSyncDeps.roundMirrors`). */
export interface RoundMirrors {
  call: CallContext;
  listNotes: (teamPath: string | null) => Promise<{ notes: NoteSummary[]; sentAt: number }>;
  before(): Promise<void>;
  after(): Promise<void>;
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
  /** A conflict's remote body hash (the host's status bar shows the conflict). */
  remote_body_hash?: string;
  /** A collaborator's edits the push replaced (landed between its read and its write), by version. */
  overwritten_versions?: OverwrittenVersion[];
}

/** What one `step` did. */
export interface StepReport {
  at: number;
  /** Set when a scheduled round ran. */
  round?: {
    counts: SyncAllCounts;
    requests: number;
    conflicts: string[];
    /** What the round did per note (empty when it failed before listing). */
    items: SyncAllItem[];
    /** Why the round stopped before it could list, when it did. */
    error_kind?: ErrorKind;
  };
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
  private unsubscribe: (() => void) | undefined;
  private sent = 0;
  private running = false;
  private inRound = false;

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

  /**
   * Starts counting the client's requests against the budget: each is reserved (saved in the
   * budget's storage) before it is sent, and inside a step it first waits for room in the short
   * window and is refused once the month's budget is spent. The first round is due at `firstRoundAt`.
   */
  start(firstRoundAt: number): void {
    if (this.unsubscribe === undefined) {
      const reserving = this.deps.client.beforeRequestSent((sent) => this.reserve(sent));
      const counting = this.deps.client.onRequestSent(() => {
        this.sent += 1;
      });
      this.unsubscribe = () => {
        reserving();
        counting();
      };
    }
    this.nextRoundAt = firstRoundAt;
  }

  /**
   * Reserves one request before it leaves. Requests of a step are held to the budget (they wait
   * for the window, and a spent month refuses them); others (an agent's call in the plugin
   * between steps) are only counted.
   */
  private async reserve(sent: SentRequest): Promise<void> {
    const { budget, clock, sleep } = this.deps;
    for (;;) {
      this.assertNotStopping();
      const wait = await budget.reserve(clock.now(), { inRound: this.inRound, enforce: this.running });
      if (wait === 0) return;
      // A write comes after the read that decided it: waiting minutes for the window between the
      // two would let a collaborator's edit land unseen and be replaced. Nothing is sent; a push of
      // the runner is queued and tried again later with a fresh read (an agent's write during a
      // step is refused the same way, and the agent may retry). Reads may wait.
      if (sent.method !== "GET") {
        throw new BridgeError(
          "rate_limited",
          `HackMD's limit of ${budget.windowRequests} requests per 5 minutes is reached (every process syncing this folder counts), so this change was not sent and nothing changed. Automatic sync tries its pushes again later from a fresh read of the note; try anything else again in a few minutes.`,
        );
      }
      await sleep(wait);
    }
  }

  private assertNotStopping(): void {
    if (this.deps.isStopping?.() === true)
      throw new BridgeError(
        "network",
        "Automatic sync is stopping; this request was not sent, and nothing was written for it.",
      );
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

  /**
   * Asks for a round now (a host's "sync on startup" or "sync on resume"): it is due at once when
   * the month's pace covers its lists, otherwise the scheduled one stays. True when it is due now.
   */
  async requestRound(now: number): Promise<boolean> {
    const estimate = await this.workspaceCount();
    if (this.deps.budget.paceWait(now, estimate) > 0) return false;
    this.nextRoundAt = Math.min(this.nextRoundAt ?? now, now);
    return true;
  }

  /** Files waiting for their quiet time to pass. */
  get waiting(): number {
    return this.dirty.size;
  }

  /** When something is next due: a debounced push, a queued retry or the next round. */
  async nextWake(now: number): Promise<number> {
    let wake = this.nextRoundAt ?? now;
    for (const [path, at] of this.dirty) wake = Math.min(wake, this.pushWake(now, at + this.debounceMs, path));
    for (const entry of await this.deps.outbox.list())
      wake = Math.min(wake, this.pushWake(now, retryAt(entry, now), entry.local_path));
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
    if (this.mayPushAlone(now)) return now;
    // Not worth a push of its own now: the file goes out with the next round.
    if (budget.remaining(now) < PUSH_COST || !this.paceAllowsAlone(now))
      return this.nextRoundAt ?? now + this.debounceMs;
    return now + Math.max(1_000, budget.windowWait(now, PUSH_COST), budget.quotaWait(now, PUSH_COST));
  }

  /**
   * Whether a file may be pushed on its own now (3 requests, about 20 s after the last edit): it
   * fits the month, the short window and HackMD's headers, and the month's pace has credit to
   * spare. Otherwise it waits for the next round.
   */
  private mayPushAlone(now: number): boolean {
    return this.deps.budget.mayPush(now, PUSH_COST) && this.paceAllowsAlone(now);
  }

  private paceAllowsAlone(now: number): boolean {
    const { budget } = this.deps;
    const monthly = budget.monthly;
    if (monthly === "unlimited") return true;
    return budget.credit(now) >= PUSH_COST + (monthly / 30) * DIRECT_PUSH_RESERVE_DAYS;
  }

  /** Whether a modified file is still inside its quiet time (or open in an editor): a round leaves it alone. */
  private stillEditing(path: string, now: number): boolean {
    if (this.isEditing(path)) return true;
    const at = this.dirty.get(path);
    return at !== undefined && at + this.debounceMs > now;
  }

  /** Does whatever is due at `now`: debounced pushes, queued retries, then the round if due. */
  async step(now: number): Promise<StepReport> {
    if (this.running) throw new Error("AutoSyncRunner.step is not reentrant");
    this.running = true;
    const before = this.sent;
    const { budget } = this.deps;
    // What other processes sharing the budget's storage sent since (one read).
    await budget.refresh(now).catch((error: unknown) => {
      this.logger.warn("auto_sync.budget_read_failed", { error: error instanceof Error ? error.name : "unknown" });
    });
    budget.observeQuota(this.deps.client.lastQuota);
    const pushes: PushReport[] = [];
    let round: StepReport["round"];
    let tracked: Promise<Map<string, TrackedEntry>> | undefined;
    // Read once per step, and only when a push is due: no request, but every record is read.
    const trackedByPath = (): Promise<Map<string, TrackedEntry>> =>
      (tracked ??= this.deps.sync
        .listTracked()
        .then((entries) => new Map(entries.map((entry) => [entry.local_path, entry]))));
    try {
      const queued = await this.deps.outbox.list();
      const queuedPaths = new Set(queued.map((entry) => entry.local_path));
      for (const [path, at] of [...this.dirty]) {
        if (now < this.pushesBlockedUntil) break;
        if (at + this.debounceMs > now || this.isEditing(path)) continue;
        if (!this.mayPushAlone(now)) break; // it goes out with the next round
        this.dirty.delete(path);
        if (queuedPaths.has(path)) continue; // the outbox below pushes it
        const report = await this.push(await trackedByPath(), path, false, now);
        if (report !== undefined) pushes.push(report);
      }
      for (const entry of await this.deps.outbox.list()) {
        if (now < this.pushesBlockedUntil) break;
        if (retryAt(entry, now) > now || this.isEditing(entry.local_path) || this.dirty.has(entry.local_path)) continue;
        if (!this.mayPushAlone(now)) break; // the next round pushes it
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
    // A round is due once the pace covers its lists; what it finds beyond them delays the next one.
    const estimate = await this.workspaceCount();
    const start = this.sent;
    let counts: SyncAllCounts;
    let items: SyncAllItem[] = [];
    let failure: ErrorKind | undefined;
    const conflicts: string[] = [];
    const skipRound = budget.nextDelay(now, estimate);
    if (skipRound.reason === "exhausted" || skipRound.reason === "window" || skipRound.reason === "quota") {
      // Not even one round fits now: wait, and send nothing.
      this.scheduleAfter(now, skipRound);
      return undefined;
    }
    budget.setInRound(true);
    this.inRound = true;
    try {
      // The mirrors' part first, on the lists sync-all then uses; a failure there is logged and the round goes on.
      const mirrors = await this.deps.roundMirrors?.().catch(() => undefined);
      if (mirrors !== undefined)
        await mirrors.before().catch((error: unknown) => {
          this.logger.warn("auto_sync.mirrors_failed", { error_kind: isBridgeError(error) ? error.kind : "internal" });
        });
      const result = await syncAll(
        {
          client: this.deps.client,
          files: this.deps.files,
          sync: this.gatedSync(),
          sleep: this.deps.sleep,
          clock: this.deps.clock,
          logger: this.logger,
          ...(this.deps.words === undefined ? {} : { words: this.deps.words }),
        },
        {
          autoMerge: this.autoMerge,
          hashCache: this.cache,
          holdBack: (path) => this.stillEditing(path, this.deps.clock.now()),
          trustListing: true,
          // The journal names the round as the writer of every pull and push it makes; a round with
          // mirrors shares their call (src/app/mirror-sync.ts), which names the round too.
          ...(mirrors === undefined
            ? { call: new CallContext({ actor: { kind: "auto" } }) }
            : { call: mirrors.call, listNotes: mirrors.listNotes }),
        },
      );
      if (mirrors !== undefined)
        await mirrors.after().catch((error: unknown) => {
          this.logger.warn("auto_sync.mirrors_failed", { error_kind: isBridgeError(error) ? error.kind : "internal" });
        });
      counts = result.counts;
      items = result.items;
      // A changed file whose push the round could not send (offline, rate limited, HackMD down)
      // is queued like a push of its own that failed.
      for (const item of result.items) {
        const kind = item.error_kind;
        if ((item.outcome !== "error" && item.outcome !== "skipped") || kind === undefined || !isQueuedKind(kind))
          continue;
        if (!this.quiet(item.local_path, now) && !PUSH_PLANS.has(item.plan)) continue;
        await this.queue({ team_path: item.team_path, note_id: item.note_id, local_path: item.local_path }, kind, now);
      }
      // Files changed before the round and not held back went out with it, or are queued, or failed
      // for a reason the round reported and are found again by the next round: no push of their own.
      const heldBack = new Set(
        result.items
          .filter((item) => item.outcome === "skipped" && item.error_kind === undefined)
          .map((item) => item.local_path),
      );
      for (const path of [...this.dirty.keys()])
        if (this.quiet(path, now) && !heldBack.has(path)) this.dirty.delete(path);
      for (const item of result.items) {
        if (item.outcome === "conflict") conflicts.push(item.local_path);
        // A round that pushed or pulled a note settles its queued push.
        if (
          item.outcome === "pushed" ||
          item.outcome === "merged" ||
          item.outcome === "pulled" ||
          item.outcome === "baseline_advanced" ||
          item.outcome === "conflict"
        ) {
          await this.deps.outbox.remove(item.team_path, item.note_id);
        }
      }
    } catch (error) {
      const kind: ErrorKind = isBridgeError(error) ? error.kind : "internal";
      this.logger.warn("auto_sync.round_failed", { error_kind: kind });
      counts = emptyCounts();
      failure = kind;
      if (isQueuedKind(kind)) {
        const tracked = await this.deps.sync.listTracked().catch(() => []);
        for (const entry of tracked) {
          if (!this.quiet(entry.local_path, now)) continue;
          await this.queue(entry, kind, now);
          this.dirty.delete(entry.local_path);
        }
      }
    } finally {
      budget.setInRound(false);
      this.inRound = false;
    }
    const spent = this.sent - start;
    // The next round is due once the pace has earned back what this one cost, and its lists.
    this.scheduleAfter(now, budget.nextDelay(now, estimate));
    return { counts, requests: spent, conflicts, items, ...(failure === undefined ? {} : { error_kind: failure }) };
  }

  /**
   * The SyncService with every pull and push of a round waiting for room in the short window
   * first, and refused as `rate_limited` (which stops the round, the rest reported skipped) once
   * the month's budget cannot pay for one more: a round with many changed notes stays polite.
   */
  private gatedSync(): SyncTools {
    const { sync, budget, clock, sleep } = this.deps;
    // Steps in flight at once may together reach the month's end: each request is checked again
    // when it is reserved, and one past the budget is refused before it is sent.
    const room = async (): Promise<void> => {
      for (;;) {
        this.assertNotStopping();
        const now = clock.now();
        if (budget.remaining(now) < PUSH_COST) {
          throw new BridgeError(
            "rate_limited",
            "This month's request budget is spent; the remaining notes sync next month or after the budget is raised.",
          );
        }
        // Room for every step in flight at once, each a full push.
        const wait = Math.max(
          budget.windowWait(now, stepRoom(budget.windowRequests)),
          budget.quotaWait(now, PUSH_COST),
        );
        if (wait === 0) return;
        await sleep(wait);
      }
    };
    const claimed = async <T>(run: () => Promise<T>): Promise<T> => {
      await room();
      return run();
    };
    return {
      listTracked: () => sync.listTracked(),
      check: (options) => sync.check(options),
      pull: (request) => claimed(() => sync.pull(request)),
      push: (request) => claimed(() => sync.push(request)),
      remoteFormOf: (found, text) => sync.remoteFormOf(found, text),
      localFormOf: (found, text) => sync.localFormOf(found, text),
      publishForm: (path) => sync.publishForm(path),
      adopt: (request) => claimed(() => sync.adopt(request)),
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
  private async push(
    byPath: ReadonlyMap<string, TrackedEntry>,
    localPath: string,
    fromOutbox: boolean,
    now: number,
    entry?: OutboxEntry,
  ): Promise<PushReport | undefined> {
    const tracked = byPath.get(localPath);
    if (tracked === undefined) {
      if (entry !== undefined) await this.deps.outbox.remove(entry.team_path, entry.note_id);
      return undefined; // not a tracked file (or untracked since): nothing to push
    }
    if (await this.matchesBaseline(localPath)) {
      // Saved back to the baseline, or written by a pull: nothing to send, and no request to learn it.
      if (entry !== undefined) await this.deps.outbox.remove(entry.team_path, entry.note_id);
      return undefined;
    }
    try {
      const result = await this.deps.sync.push({
        localPath,
        strategy: this.autoMerge ? "merge" : "safe",
        confirm: false,
        confirmLargeFile: false,
        call: new CallContext({ actor: { kind: "auto", ...(fromOutbox ? { tool: "outbox" } : {}) } }),
      });
      await this.deps.outbox.remove(tracked.team_path, tracked.note_id);
      this.cache.forget(localPath);
      const status = result.kind === "pushed" ? result.output.status : "nothing_to_push";
      const remote = result.kind === "pushed" && status === "conflict" ? result.output.remote_body_hash : undefined;
      const overwritten = result.kind === "pushed" ? (result.safety?.overwritten ?? []) : [];
      return {
        local_path: localPath,
        from_outbox: fromOutbox,
        outcome: status,
        ...(remote === undefined ? {} : { remote_body_hash: remote }),
        ...(overwritten.length === 0 ? {} : { overwritten_versions: overwritten }),
      };
    } catch (error) {
      const kind: ErrorKind = isBridgeError(error) ? error.kind : "internal";
      const message = error instanceof Error ? error.message : String(error);
      if (isQueuedKind(kind)) {
        await this.queue(tracked, kind, now);
        return { local_path: localPath, from_outbox: fromOutbox, outcome: "queued", error_kind: kind, message };
      }
      // `readback` (the write may have landed) and refusals are reported, never queued: the
      // next push re-reads the note and the pending-write rule decides (docs/tools.md §4.2).
      if (entry !== undefined) await this.deps.outbox.remove(entry.team_path, entry.note_id);
      return { local_path: localPath, from_outbox: fromOutbox, outcome: "failed", error_kind: kind, message };
    }
  }

  /**
   * Whether the file's body (in the baseline's form) equals its baseline, read without a request
   * and remembered by stamp like a round's check. False when unsure: the push then decides.
   */
  private async matchesBaseline(localPath: string): Promise<boolean> {
    const store = this.deps.sync.store;
    if (store === undefined) return false;
    try {
      const found = await store.findByPath(localPath);
      if (found === undefined) return false;
      const info = await this.deps.files.stat(localPath);
      if (info.kind !== "file" || info.stamp === undefined) return false;
      let hash = this.cache.lookup(localPath, info.stamp);
      if (hash === undefined) {
        const read = await this.deps.files.read(localPath, { maxBytes: MAX_BODY_BYTES });
        if (read.truncated) return false;
        const text = new TextDecoder("utf-8", { fatal: true }).decode(read.bytes);
        hash = await bodyHash(await this.deps.sync.remoteFormOf(found, normalizeLineEndings(text)));
        this.cache.remember(localPath, read.stamp, hash);
      }
      return hash === found.record.baseline_body_hash;
    } catch {
      return false;
    }
  }

  /** Queues a push that could not be sent; no push is tried again before its retry is due. */
  private async queue(
    note: { team_path: string | null; note_id: string; local_path: string },
    kind: ErrorKind,
    now: number,
  ): Promise<void> {
    const queued = await this.deps.outbox.add({
      team_path: note.team_path,
      note_id: note.note_id,
      local_path: note.local_path,
      last_error_kind: kind,
      at: now,
    });
    this.pushesBlockedUntil = Math.max(this.pushesBlockedUntil, retryAt(queued, now));
  }

  /** Whether a file modified in this process has had its quiet time by `now`. */
  private quiet(path: string, now: number): boolean {
    const at = this.dirty.get(path);
    return at !== undefined && at + this.debounceMs <= now;
  }

  private async workspaceCount(): Promise<number> {
    const tracked = await this.deps.sync.listTracked();
    return Math.max(1, new Set(tracked.map((entry) => entry.team_path)).size);
  }
}

/** Sync-all plans that push the file's edits. */
const PUSH_PLANS: ReadonlySet<string> = new Set(["push", "same_change", "conflict", "reconcile"]);
