/**
 * The API quota as HackMD reports it in `X-RateLimit-*` headers (docs/hackmd-api.md §1.8.9), in a
 * shape the UI can show. Whether the numbers describe the 5-minute window or the monthly quota
 * is unknown; `scope` carries `x-target-scope` when HackMD sends it.
 */
import { resetSecondsFromHeader } from "./retry";

/** One observation of the quota headers. */
export interface Quota {
  /** `x-ratelimit-userlimit`, or null when missing. */
  limit: number | null;
  /** `x-ratelimit-userremaining`, or null when missing. */
  remaining: number | null;
  /** Seconds until the reset (epoch values converted, §19.4), or null when missing. */
  reset_seconds: number | null;
  /** `x-target-scope` (`user` or `team`), when present. */
  scope?: string;
  /** Epoch milliseconds when this was observed, so a UI can count the reset down. */
  observed_at: number;
}

/** Reads the quota headers of a response (lower-case names); null when none is present. */
export function parseQuota(headers: Readonly<Record<string, string>>, now: number): Quota | null {
  const limit = readCount(headers["x-ratelimit-userlimit"]);
  const remaining = readCount(headers["x-ratelimit-userremaining"]);
  const resetHeader = headers["x-ratelimit-userreset"];
  const reset = resetHeader === undefined ? undefined : resetSecondsFromHeader(resetHeader, now);
  if (limit === null && remaining === null && reset === undefined) return null;
  const quota: Quota = {
    limit,
    remaining,
    reset_seconds: reset === undefined ? null : Math.ceil(reset),
    observed_at: now,
  };
  const scope = headers["x-target-scope"]?.trim();
  if (scope !== undefined && /^[a-z_-]{1,32}$/i.test(scope)) quota.scope = scope.toLowerCase();
  return quota;
}

/** The fixed 429 fragment of docs/tools.md §6.3, or a note when HackMD sent no quota headers. */
export function quotaFragment(headers: Readonly<Record<string, string>>, now: number): string {
  const quota = parseQuota(headers, now);
  if (quota === null) return "quota headers were unavailable";
  const show = (value: number | null): string => (value === null ? "unknown" : String(value));
  return `remaining ${show(quota.remaining)}/${show(quota.limit)}, reset after ${show(quota.reset_seconds)} seconds`;
}

function readCount(value: string | undefined): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (!/^\d+$/.test(text)) return null;
  const number = Number(text);
  return Number.isSafeInteger(number) ? number : null;
}
