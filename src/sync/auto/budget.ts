/**
 * The request budget of automatic sync (issue 15, docs/auto-sync.md): requests counted per
 * calendar month (UTC) and persisted through a small storage port, HackMD's 100 requests per
 * 5 minutes never exceeded, and the delay before the next round chosen so that what is left of
 * the month's budget is spread over what is left of the month. Pure: the clock is a parameter of
 * every question, the storage is injected, nothing here sends a request.
 */
import type { Quota } from "../../hackmd/quota";

/** HackMD's short window (HACKMD_API.md §1.8.9): 100 requests per rolling 5 minutes. */
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
  const recent = Array.isArray(state.recent) ? state.recent.filter((t): t is number => typeof t === "number" && Number.isFinite(t)) : [];
  const used = count(state.used);
  return { format: 1, month: state.month, used, rounds: Math.min(count(state.rounds), used), recent: recent.sort((a, b) => a - b) };
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
  private dirty = false;
  private inRound = false;
  private readonly windowLimit: number;
  private readonly windowMs: number;
  private readonly minRoundDelayMs: number;

  constructor(private readonly options: RequestBudgetOptions) {
    this.state = emptyState(0);
    this.windowLimit = options.windowLimit ?? WINDOW_LIMIT;
    this.windowMs = options.windowMs ?? WINDOW_MS;
    this.minRoundDelayMs = options.minRoundDelayMs ?? MIN_ROUND_DELAY_MS;
  }

  /** The budget in force. */
  get monthly(): MonthlyBudget {
    return this.options.monthly;
  }

  /** Reads the saved count (a new month starts at zero). */
  async load(now: number): Promise<void> {
    this.state = parseBudgetState(await this.options.storage.load(), now);
    this.roll(now);
  }

  /** Saves the count when it changed since the last save. */
  async flush(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    await this.options.storage.save(JSON.stringify(this.state));
  }

  /** Counts one request sent at `at`; inside a round it is also counted as the round's. */
  record(at: number): void {
    this.roll(at);
    this.state.used += 1;
    if (this.inRound) this.state.rounds += 1;
    this.state.recent.push(at);
    this.prune(at);
    this.dirty = true;
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
    const room = this.windowLimit - this.state.recent.length;
    if (cost <= room) return 0;
    // The oldest `cost - room` requests must leave the window first.
    const index = Math.min(this.state.recent.length - 1, cost - room - 1);
    const leaves = this.state.recent[index] ?? now;
    return Math.max(1, leaves + this.windowMs - now);
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
    const blockedReason: DelayReason = this.quotaWait(now, cost) >= this.windowWait(now, cost) && blocked > 0 ? "quota" : "window";
    let spread: RoundDelay;
    if (this.options.monthly === "unlimited") {
      spread = { ms: this.minRoundDelayMs, reason: "minimum" };
    } else {
      const left = monthEnd(now) - now;
      if (this.remaining(now) < cost) {
        spread = { ms: Math.max(1, left), reason: "exhausted" };
      } else {
        const ms = Math.min(left, this.paceWait(now, cost));
        spread = ms <= this.minRoundDelayMs ? { ms: this.minRoundDelayMs, reason: "minimum" } : { ms, reason: "spread" };
      }
    }
    return blocked > spread.ms ? { ms: blocked, reason: blockedReason } : spread;
  }

  /** A new month starts the count at zero. */
  private roll(now: number): void {
    const month = monthOf(now);
    if (month !== this.state.month && now > 0) {
      this.state = { ...emptyState(now), recent: this.state.recent };
      this.dirty = true;
    }
  }

  private prune(now: number): void {
    const from = now - this.windowMs;
    let drop = 0;
    while (drop < this.state.recent.length && (this.state.recent[drop] ?? 0) <= from) drop += 1;
    if (drop > 0) {
      this.state.recent.splice(0, drop);
      this.dirty = true;
    }
  }
}
