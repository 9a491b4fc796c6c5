/** Rate limiting of §2.9: a rolling per-user window, a monthly per-workspace quota, and headers. */
import type { RateLimitQuirks } from "./types";

/** Whose quota a request spends: the user's, or the team's on team routes. */
export interface RateTarget {
  userId: string;
  scope: "user" | "team";
  id: string;
  upgraded: boolean;
}

/** The limiter's verdict on one request. */
export interface RateVerdict {
  limited: null | "window" | "quota";
  headers: Record<string, string>;
}

function nextMonthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

function monthKey(now: number): string {
  const d = new Date(now);
  return `${d.getUTCFullYear()}-${d.getUTCMonth() + 1}`;
}

/** Counts accepted requests; rejected ones never count. */
export class RateLimiter {
  private readonly windows = new Map<string, number[]>();
  private readonly monthly = new Map<string, number>();

  /** Forgets every count. */
  reset(): void {
    this.windows.clear();
    this.monthly.clear();
  }

  /** Checks and (when accepted) counts one request. */
  check(now: number, target: RateTarget, config: RateLimitQuirks): RateVerdict {
    const stamps = (this.windows.get(target.userId) ?? []).filter((t) => t > now - config.windowMs);
    this.windows.set(target.userId, stamps);
    const quotaKey = `${target.scope}:${target.id}:${monthKey(now)}`;
    const used = this.monthly.get(quotaKey) ?? 0;
    const quota = target.upgraded ? config.monthlyQuota.upgraded : config.monthlyQuota.free;
    let limited: RateVerdict["limited"] = null;
    if (stamps.length >= config.windowLimit) limited = "window";
    else if (used >= quota) limited = "quota";
    else {
      stamps.push(now);
      this.monthly.set(quotaKey, used + 1);
    }
    const headers: Record<string, string> = {};
    const windowReset = (stamps[0] ?? now) + config.windowMs;
    const quotaReset = nextMonthStart(now);
    const sendHeaders = config.headers && !(limited === "window" && !config.headersOnWindow429);
    if (sendHeaders) {
      const describesQuota = config.headersDescribe === "quota";
      const limit = describesQuota ? quota : config.windowLimit;
      const remaining = describesQuota ? quota - (this.monthly.get(quotaKey) ?? 0) : config.windowLimit - stamps.length;
      const reset = describesQuota ? quotaReset : windowReset;
      headers["X-RateLimit-UserLimit"] = String(limit);
      headers["X-RateLimit-UserRemaining"] = String(Math.max(0, remaining));
      headers["X-RateLimit-UserReset"] = String(resetValue(reset, now, config.resetUnit));
      headers["x-target-scope"] = target.scope;
      headers["x-target-id"] = target.id;
    }
    if (limited !== null && config.retryAfter) {
      const until = limited === "window" ? windowReset : quotaReset;
      headers["Retry-After"] = String(Math.max(1, Math.ceil((until - now) / 1000)));
    }
    return { limited, headers };
  }
}

function resetValue(reset: number, now: number, unit: RateLimitQuirks["resetUnit"]): number {
  if (unit === "epoch-s") return Math.ceil(reset / 1000);
  if (unit === "seconds") return Math.max(0, Math.ceil((reset - now) / 1000));
  return reset;
}
