/**
 * The request budget of automatic sync (docs/auto-sync.md): requests counted per
 * calendar month (UTC) and persisted through a small storage port, HackMD's 100 requests per
 * 5 minutes never exceeded, and the delay before the next round chosen so that what is left of
 * the month's budget is spread over what is left of the month. The clock is a parameter of
 * every question, the storage is injected, nothing here sends a request.
 *
 * A request is counted before it leaves (`reserve`): the count and the send time are added to
 * the saved state as one read-modify-write (`BudgetStorage.update`; the command's state file
 * takes a lock for it, src/sync/auto/budget-file.ts), so a process killed at any moment has
 * already saved what it sent, and two processes sharing the file add to one count instead of
 * overwriting each other's.
 */
import { BridgeError } from "../../core/errors";
import type { Quota } from "../../hackmd/quota";

/** HackMD's short window (docs/hackmd-api.md §1.8.9): 100 requests per rolling 5 minutes. */
export const WINDOW_LIMIT = 100;
/** The short window's length. */
export const WINDOW_MS = 5 * 60_000;
/** The monthly quota of HackMD's free plan, the default budget. */
export const FREE_PLAN_MONTHLY = 2_000;
/** The monthly quota of the upgraded plans. */
export const UPGRADED_PLAN_MONTHLY = 10_000;
/**
 * How far spending may run ahead of the month's even pace, as a share of the monthly budget (at
 * least `MIN_PACE_SLACK` requests): enough for the first rounds of a month and a burst of edits,
 * little enough that the month's last days keep their share.
 */
export const PACE_SLACK_SHARE = 0.01;
export const MIN_PACE_SLACK = 10;
/** Shortest delay between two rounds, however much budget is left. */
export const MIN_ROUND_DELAY_MS = 60_000;

/** A monthly budget: a number of requests, or no limit but HackMD's own window. */
export type MonthlyBudget = number | "unlimited";

/** The default budget of a plan. */
export function defaultBudget(plan: "free" | "upgraded"): number {
  return plan === "free" ? FREE_PLAN_MONTHLY : UPGRADED_PLAN_MONTHLY;
}

/** Where the count is kept between runs: one small JSON text. */
export interface BudgetStorage {
  /** The saved text, or undefined when nothing was saved yet. */
  load(): Promise<string | undefined>;
  save(text: string): Promise<void>;
  /**
   * Reads the text, lets `change` compute the next one (undefined: leave it) and saves it, as one
   * step for every process sharing the storage (the state file's lock). Absent: `load` then
   * `save`, serialised inside this process, which is enough where one process owns the storage
   * (the plugin's local storage).
   */
  update?(change: (text: string | undefined) => string | undefined): Promise<void>;
}

/** What is persisted: the month and its counts, and the send times still inside the window. */
export interface BudgetState {
  format: 1;
  /** `YYYY-MM` (UTC). */
  month: string;
  /** Requests sent this month. */
  used: number;
  /** Of `used`, requests spent by scheduled rounds (lists and the GETs and writes they made). */
  rounds: number;
  /** Epoch ms of the requests sent within the last window, oldest first. */
  recent: number[];
}

/** The month (UTC) an instant falls in, as `YYYY-MM`. */
export function monthOf(now: number): string {
  const date = new Date(now);
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, "0")}`;
}

/** Epoch ms of the start of the next month (UTC). */
export function monthEnd(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** Epoch ms of the start of this month (UTC). */
export function monthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function emptyState(now: number): BudgetState {
  return { format: 1, month: monthOf(now), used: 0, rounds: 0, recent: [] };
}

/** Reads a saved state; anything unreadable starts the month afresh at the saved count when it can. */
export function parseBudgetState(text: string | undefined, now: number): BudgetState {
  if (text === undefined) return emptyState(now);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return emptyState(now);
  }
  if (typeof value !== "object" || value === null) return emptyState(now);
  const state = value as Partial<BudgetState>;
  const count = (n: unknown): number => (typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : 0);
  if (typeof state.month !== "string" || !/^\d{4}-\d{2}$/.test(state.month)) return emptyState(now);
  // A send time after `now` means the clock was set back since: it is taken as now (a clock
  // moved back must not hold pushes until its old future passes).
  const recent = Array.isArray(state.recent)
    ? state.recent
        .filter((t): t is number => typeof t === "number" && Number.isFinite(t))
        .map((t) => (now > 0 ? Math.min(t, now) : t))
    : [];
  const used = count(state.used);
  // A month after this one (the clock set back across a month's end) is taken as this month, count kept.
  const month = now > 0 && state.month > monthOf(now) ? monthOf(now) : state.month;
  return { format: 1, month, used, rounds: Math.min(count(state.rounds), used), recent: recent.sort((a, b) => a - b) };
}

/** A saved state as the budget reads it: what `parseBudgetState` makes of it, and what was wrong. */
export interface BudgetRead {
  state: BudgetState;
  /** Set when the saved text was damaged (not JSON, no month, a count that is not a count): say so. */
  damage?: string;
  /** Set when a saved time or month lay after now (the clock was set back): the text should be rewritten. */
  clamped?: true;
}

/**
 * Reads a saved state for counting. A damaged text does not start the month at zero (that would
 * let a broken file lift the budget): the count restarts at what the month's even pace allows
 * so far, with an empty window, and `damage` says so for the host to report.
 */
export function readBudgetState(text: string | undefined, now: number, monthly: MonthlyBudget): BudgetRead {
  if (text === undefined) return { state: emptyState(now) };
  const why = damageOf(text);
  if (why === undefined) {
    const state = parseBudgetState(text, now);
    const saved = JSON.parse(text) as Partial<BudgetState>;
    const ahead =
      saved.month !== state.month ||
      (Array.isArray(saved.recent) && saved.recent.some((t) => typeof t === "number" && t > now));
    return ahead && now > 0 ? { state, clamped: true } : { state };
  }
  const start = monthStart(now);
  const earned =
    monthly === "unlimited" ? 0 : Math.min(monthly, Math.ceil((monthly * (now - start)) / (monthEnd(now) - start)));
  return { state: { ...emptyState(now), used: earned }, damage: why };
}

/**
 * What a storage returns, instead of the text, for a file it could not read as one (a NUL then
 * the reason; src/sync/auto/budget-file.ts): reported as damage in these words.
 */
export const UNREADABLE_BUDGET = { tooLarge: "\u0000too large", notUtf8: "\u0000not UTF-8" } as const;

/** Why a saved text cannot be trusted as a count, or undefined when it can. */
function damageOf(text: string): string | undefined {
  if (text === UNREADABLE_BUDGET.tooLarge) return "it is larger than a budget file can be";
  if (text === UNREADABLE_BUDGET.notUtf8) return "it is not UTF-8 text";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "it is not JSON";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "it is not a JSON object";
  const state = value as Record<string, unknown>;
  if (typeof state.month !== "string" || !/^\d{4}-\d{2}$/.test(state.month))
    return "its month is missing or not YYYY-MM";
  if (typeof state.used !== "number" || !Number.isSafeInteger(state.used) || state.used < 0)
    return "its count is not a whole number";
  if (state.recent !== undefined && !Array.isArray(state.recent)) return "its send times are not a list";
  return undefined;
}

/** Milliseconds until `cost` more requests fit in a window holding `recent` (sorted, pruned to `now`). */
function windowWaitOf(recent: readonly number[], now: number, cost: number, limit: number, windowMs: number): number {
  const room = limit - recent.length;
  if (cost <= room) return 0;
  const index = Math.min(recent.length - 1, cost - room - 1);
  const leaves = recent[index] ?? now;
  return Math.max(1, leaves + windowMs - now);
}

/** How a request is reserved. */
export interface ReserveOptions {
  /** Counted as spent by a scheduled round. */
  inRound: boolean;
  /**
   * Held to the budget: refused (`rate_limited`, nothing sent) once the month's budget is spent,
   * and not reserved while the short window is full (the answer is the wait). Off for requests
   * the budget only counts (an agent's call in the plugin between steps).
   */
  enforce: boolean;
}

/** Options of a budget. */
export interface RequestBudgetOptions {
  monthly: MonthlyBudget;
  storage: BudgetStorage;
  /** Short-window limit (default 100 per 5 minutes); tests may lower it. */
  windowLimit?: number;
  windowMs?: number;
  minRoundDelayMs?: number;
}

/** Why the next round waits as long as it does (shown by the command and the status bar). */
export type DelayReason = "spread" | "minimum" | "window" | "quota" | "exhausted";

/** The scheduler's answer: wait this long before the next round. */
export interface RoundDelay {
  ms: number;
  reason: DelayReason;
}

/**
 * One device's request budget. `record` counts a request as it is sent (wire it to
 * `HackmdClient.onRequestSent`); `nextDelay` says when the next round may start; `mayPush` says
 * whether a push of `cost` requests fits now. Call `load` once before use and `flush` to persist.
 */
export class RequestBudget {
  private state: BudgetState;
  private quota: Quota | null = null;
  /** Requests counted by `record` and not yet added to the saved state by `flush`. */
  private unsaved: { used: number; rounds: number; recent: number[] } = { used: 0, rounds: 0, recent: [] };
  private inRound = false;
  /** In-process order of read-modify-writes (the storage's lock orders processes). */
  private chain: Promise<unknown> = Promise.resolve();
  /** What was wrong with the saved state when it was last read, until `takeDamage`. */
  private damage: string | undefined;
  private readonly windowLimit: number;
  private readonly windowMs: number;
  private readonly minRoundDelayMs: number;

  constructor(private readonly options: RequestBudgetOptions) {
    this.state = emptyState(0);
    this.windowLimit = options.windowLimit ?? WINDOW_LIMIT;
    this.windowMs = options.windowMs ?? WINDOW_MS;
    this.minRoundDelayMs = options.minRoundDelayMs ?? MIN_ROUND_DELAY_MS;
  }

  /** Requests allowed in the short window. */
  get windowRequests(): number {
    return this.windowLimit;
  }

  /** The budget in force. */
  get monthly(): MonthlyBudget {
    return this.options.monthly;
  }

  /** Reads the saved count (a new month starts at zero; a damaged one at a safe count, see `takeDamage`). */
  async load(now: number): Promise<void> {
    const read = readBudgetState(await this.options.storage.load(), now, this.options.monthly);
    this.adopt(read, now);
    // Times after now, read as now, are saved as now: read again later they must age from here,
    // not look new at every read. A damaged text is replaced by the safe state.
    if (read.clamped === true || read.damage !== undefined) await this.change(now, () => true);
  }

  /**
   * Reads the saved count again, to see what other processes sharing the storage have sent
   * (one read, no lock); what this budget counted and did not save yet stays counted.
   */
  async refresh(now: number): Promise<void> {
    await this.flush();
    await this.load(now);
  }

  /** What was wrong with the saved count when it was last read (once), for the host to say. */
  takeDamage(): string | undefined {
    const damage = this.damage;
    this.damage = undefined;
    return damage;
  }

  /** Adds the requests counted by `record` since the last flush to the saved count (never overwrites it). */
  async flush(): Promise<void> {
    if (this.unsaved.used === 0) return;
    const adding = this.unsaved;
    this.unsaved = { used: 0, rounds: 0, recent: [] };
    const last = adding.recent.at(-1) ?? 0;
    try {
      await this.change(last, (state) => {
        state.used += adding.used;
        state.rounds += adding.rounds;
        state.recent.push(...adding.recent);
        state.recent.sort((a, b) => a - b);
        return true;
      });
    } catch (error) {
      // Not saved: counted again at the next flush.
      this.unsaved.used += adding.used;
      this.unsaved.rounds += adding.rounds;
      this.unsaved.recent.push(...adding.recent);
      throw error;
    }
  }

  /**
   * Counts one request sent at `at` in memory; `flush` adds it to the saved count. Hosts that can
   * wait before a request is sent use `reserve` instead, which saves it before it leaves.
   */
  record(at: number): void {
    this.roll(at);
    this.state.used += 1;
    if (this.inRound) this.state.rounds += 1;
    this.state.recent.push(at);
    this.prune(at);
    this.unsaved.used += 1;
    if (this.inRound) this.unsaved.rounds += 1;
    this.unsaved.recent.push(at);
  }

  /**
   * Reserves one request about to be sent at `at`: it is added to the saved count (and its send
   * time to the saved window) before it can leave. Returns 0 once reserved. With `enforce`, a
   * full short window reserves nothing and answers the milliseconds until there is room (wait,
   * then ask again), and a spent month throws `rate_limited` with nothing counted.
   */
  async reserve(at: number, options: ReserveOptions): Promise<number> {
    let wait = 0;
    await this.change(at, (state) => {
      if (options.enforce) {
        if (this.options.monthly !== "unlimited" && state.used + 1 > this.options.monthly) {
          throw new BridgeError(
            "rate_limited",
            `This month's request budget of ${this.options.monthly} is spent (${state.used} requests sent); nothing was sent. Automatic sync goes on next month, or once the budget is raised.`,
          );
        }
        wait = windowWaitOf(state.recent, at, 1, this.windowLimit, this.windowMs);
        if (wait > 0) return false;
      }
      state.used += 1;
      if (options.inRound) state.rounds += 1;
      state.recent.push(at);
      return true;
    });
    return wait;
  }

  /**
   * One read-modify-write of the saved state, in order with this budget's others and, through
   * the storage's `update`, with other processes': the saved state is read (rolled to `now`'s
   * month, pruned), `apply` changes it (false: nothing to save), and the result becomes this
   * budget's state, plus what `record` counted and `flush` has not saved yet.
   */
  private change(now: number, apply: (state: BudgetState) => boolean): Promise<void> {
    const run = async (): Promise<void> => {
      const storage = this.options.storage;
      let next: BudgetRead | undefined;
      const compute = (text: string | undefined): string | undefined => {
        const read = readBudgetState(text, now, this.options.monthly);
        const state = read.state;
        rollState(state, now);
        pruneState(state, now, this.windowMs);
        const write = apply(state);
        next = read;
        // A damaged or clock-ahead text is replaced even when nothing else changed.
        return write || read.damage !== undefined || read.clamped === true ? JSON.stringify(state) : undefined;
      };
      if (storage.update !== undefined) await storage.update(compute);
      else {
        const text = compute(await storage.load());
        if (text !== undefined) await storage.save(text);
      }
      if (next !== undefined) this.adopt(next, now);
    };
    const result = this.chain.then(run, run);
    this.chain = result.catch(() => undefined);
    return result;
  }

  /** Takes a read state as this budget's, with the requests counted but not yet saved on top. */
  private adopt(read: BudgetRead, now: number): void {
    const state = read.state;
    if (read.damage !== undefined) this.damage = read.damage;
    state.used += this.unsaved.used;
    state.rounds += this.unsaved.rounds;
    if (this.unsaved.recent.length > 0) state.recent = [...state.recent, ...this.unsaved.recent].sort((a, b) => a - b);
    this.state = state;
    this.roll(now);
    this.prune(now);
  }

  /** Marks the requests recorded from now on as spent by a scheduled round (or not). */
  setInRound(inRound: boolean): void {
    this.inRound = inRound;
  }

  /** The last `X-RateLimit-*` observation (`HackmdClient.lastQuota`); consulted by every answer. */
  observeQuota(quota: Quota | null): void {
    if (quota !== null) this.quota = quota;
  }

  /** Requests sent this month (UTC). */
  used(now: number): number {
    this.roll(now);
    return this.state.used;
  }

  /** Requests left this month; Infinity when unlimited. */
  remaining(now: number): number {
    if (this.options.monthly === "unlimited") return Infinity;
    return Math.max(0, this.options.monthly - this.used(now));
  }

  /** Requests sent within the last window. */
  inWindow(now: number): number {
    this.prune(now);
    return this.state.recent.length;
  }

  /** Milliseconds until `cost` more requests fit in the short window (0: now). */
  windowWait(now: number, cost: number): number {
    this.prune(now);
    // The oldest `cost - room` requests must leave the window first.
    return windowWaitOf(this.state.recent, now, cost, this.windowLimit, this.windowMs);
  }

  /** Milliseconds HackMD's own headers ask to wait before `cost` requests (0: none). */
  quotaWait(now: number, cost: number): number {
    const quota = this.quota;
    if (quota === null || quota.remaining === null || quota.remaining >= cost) return 0;
    if (quota.reset_seconds === null) return 0;
    return Math.max(0, quota.observed_at + quota.reset_seconds * 1000 - now);
  }

  /**
   * Whether a push costing `cost` requests may be sent now: it fits this month's budget, the
   * short window and HackMD's headers. Pushes carry the user's edits, so they may spend budget
   * that the spread reserved for rounds.
   */
  mayPush(now: number, cost: number): boolean {
    return cost <= this.remaining(now) && this.windowWait(now, cost) === 0 && this.quotaWait(now, cost) === 0;
  }

  /**
   * Requests that may be spent now without running ahead of the month's even pace: the budget
   * earned so far (the monthly budget times the share of the month gone), plus the slack, less
   * what was sent. Negative after a costly round or push; Infinity when unlimited.
   */
  credit(now: number): number {
    if (this.options.monthly === "unlimited") return Infinity;
    const monthly = this.options.monthly;
    const start = monthStart(now);
    const earned = (monthly * (now - start)) / (monthEnd(now) - start);
    return Math.min(earned + this.slack(), monthly) - this.used(now);
  }

  /** Milliseconds until `credit` reaches `cost` (0: now). */
  paceWait(now: number, cost: number): number {
    if (this.options.monthly === "unlimited") return 0;
    const missing = cost - this.credit(now);
    if (missing <= 0) return 0;
    const start = monthStart(now);
    return Math.ceil((missing * (monthEnd(now) - start)) / this.options.monthly);
  }

  /** The requests spending may run ahead of the even pace. */
  private slack(): number {
    if (this.options.monthly === "unlimited") return Infinity;
    return Math.max(MIN_PACE_SLACK, Math.floor(this.options.monthly * PACE_SLACK_SHARE));
  }

  /**
   * How long to wait before the next round, which is expected to cost `roundCost` requests
   * (at least one list per workspace): until spending that much keeps the month on its even
   * pace (`credit`), and never sooner than the minimum delay. The answer never lets a round break
   * the short window or HackMD's reported quota, and waits for the next month when the budget
   * cannot pay for one more round. Whatever a round costs beyond its estimate (the pushes and
   * pulls it found) delays the next one, so the month's spending keeps pace whatever happens.
   */
  nextDelay(now: number, roundCost: number): RoundDelay {
    const cost = Math.max(1, roundCost);
    const blocked = Math.max(this.windowWait(now, cost), this.quotaWait(now, cost));
    const blockedReason: DelayReason =
      this.quotaWait(now, cost) >= this.windowWait(now, cost) && blocked > 0 ? "quota" : "window";
    let spread: RoundDelay;
    if (this.options.monthly === "unlimited") {
      spread = { ms: this.minRoundDelayMs, reason: "minimum" };
    } else {
      const left = monthEnd(now) - now;
      if (this.remaining(now) < cost) {
        spread = { ms: Math.max(1, left), reason: "exhausted" };
      } else {
        const ms = Math.min(left, this.paceWait(now, cost));
        spread =
          ms <= this.minRoundDelayMs ? { ms: this.minRoundDelayMs, reason: "minimum" } : { ms, reason: "spread" };
      }
    }
    return blocked > spread.ms ? { ms: blocked, reason: blockedReason } : spread;
  }

  /** A new month starts the count at zero. */
  private roll(now: number): void {
    rollState(this.state, now);
  }

  private prune(now: number): void {
    pruneState(this.state, now, this.windowMs);
  }
}

/**
 * A new month starts the count at zero (the window's send times stay). A saved month after
 * `now`'s is the clock set back: the count is kept as this month's.
 */
function rollState(state: BudgetState, now: number): void {
  if (now <= 0) return;
  const month = monthOf(now);
  if (state.month === month) return;
  if (state.month < month) {
    state.used = 0;
    state.rounds = 0;
  }
  state.month = month;
}

/** Drops the send times that left the window (a saved time after now was made now when read). */
function pruneState(state: BudgetState, now: number, windowMs: number): void {
  const from = now - windowMs;
  let drop = 0;
  while (drop < state.recent.length && (state.recent[drop] ?? 0) <= from) drop += 1;
  if (drop > 0) state.recent.splice(0, drop);
}
