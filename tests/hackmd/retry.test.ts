import { CallContext, retryMetaForResult } from "../../src/hackmd/call-context";
import { parseQuota, quotaFragment } from "../../src/hackmd/quota";
import {
  backoffMs,
  decideRetry,
  MODE_RETRIES,
  parseRetryAfterMs,
  resetSecondsFromHeader,
  serverWaitHintMs,
  type AttemptOutcome,
  type RequestMode,
  type RetryPolicy,
} from "../../src/hackmd/retry";

const NOW = 1_750_000_000_000;
const policy: RetryPolicy = { maxRetries: 3, baseMs: 500, capMs: 5_000, transportRetryMaxBodyBytes: 1_048_576 };

function decide(
  outcome: AttemptOutcome,
  extra: { mode?: RequestMode; retriesSoFar?: number; bodyBytes?: number; random?: () => number } = {},
): ReturnType<typeof decideRetry> {
  return decideRetry({
    policy,
    mode: extra.mode ?? "read",
    retriesSoFar: extra.retriesSoFar ?? 0,
    outcome,
    requestBodyBytes: extra.bodyBytes ?? 0,
    now: NOW,
    random: extra.random ?? (() => 0.5),
  });
}

const status = (code: number, headers: Record<string, string> = {}): AttemptOutcome => ({
  kind: "response",
  status: code,
  headers,
});

describe("retry policy (docs/tools.md §6.2)", () => {
  it("is data: reads and idempotent writes retry, plain writes never", () => {
    expect(MODE_RETRIES).toEqual({ read: true, idempotent_write: true, plain_write: false });
    expect(decide(status(500), { mode: "plain_write" })).toEqual({ retry: false, reason: "mode" });
    expect(decide(status(429, { "retry-after": "0" }), { mode: "plain_write" })).toEqual({
      retry: false,
      reason: "mode",
    });
    expect(decide({ kind: "transport", failure: "timeout" }, { mode: "plain_write" }).retry).toBe(false);
    expect(decide(status(503), { mode: "idempotent_write" }).retry).toBe(true);
  });

  it("retries 429, every 5xx and transport failures, but not other statuses or oversized responses", () => {
    for (const code of [429, 500, 502, 503, 599]) expect(decide(status(code)).retry).toBe(true);
    for (const code of [400, 401, 403, 404, 409, 413, 422, 302]) {
      expect(decide(status(code))).toEqual({ retry: false, reason: "not_retryable" });
    }
    for (const failure of ["connect", "timeout", "reset"] as const)
      expect(decide({ kind: "transport", failure }).retry).toBe(true);
    expect(decide({ kind: "transport", failure: "too_large" }).retry).toBe(false);
  });

  it("retries transport failures only for request bodies up to 1 MiB", () => {
    expect(decide({ kind: "transport", failure: "reset" }, { bodyBytes: 1_048_576 }).retry).toBe(true);
    expect(decide({ kind: "transport", failure: "reset" }, { bodyBytes: 1_048_577 })).toEqual({
      retry: false,
      reason: "body_too_large",
    });
    expect(decide(status(500), { bodyBytes: 5_000_000 }).retry).toBe(true);
  });

  it("stops after three retries", () => {
    expect(decide(status(500), { retriesSoFar: 2 }).retry).toBe(true);
    expect(decide(status(500), { retriesSoFar: 3 })).toEqual({ retry: false, reason: "exhausted" });
  });

  it("uses full-jitter exponential back-off capped at 5 s", () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffMs(n, policy, () => 0.999999))).toEqual([
      500, 1000, 2000, 4000, 5000, 5000,
    ]);
    expect(backoffMs(3, policy, () => 0)).toBe(0);
    expect(backoffMs(1, policy, () => 0.25)).toBe(250);
    expect(decide(status(500), { retriesSoFar: 1, random: () => 0.5 })).toEqual({
      retry: true,
      waitMs: 500,
      rateLimited: false,
      hinted: false,
    });
  });

  it("obeys Retry-After in seconds or as an HTTP date, and marks 429 retries as rate limited", () => {
    expect(decide(status(429, { "retry-after": "0" }))).toEqual({
      retry: true,
      waitMs: 0,
      rateLimited: true,
      hinted: true,
    });
    expect(decide(status(503, { "retry-after": "2" }))).toEqual({
      retry: true,
      waitMs: 2000,
      rateLimited: false,
      hinted: true,
    });
    const date = new Date(NOW + 3_000).toUTCString();
    expect(decide(status(429, { "retry-after": date }))).toMatchObject({ retry: true, waitMs: 3000 });
    expect(parseRetryAfterMs(new Date(NOW - 60_000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfterMs("soon", NOW)).toBeUndefined();
    expect(parseRetryAfterMs("-1", NOW)).toBeUndefined();
  });

  it("does not retry when the hint exceeds the cap (no waiting out a long reset)", () => {
    expect(decide(status(429, { "retry-after": "60" }))).toEqual({
      retry: false,
      reason: "hint_exceeds_cap",
      hintMs: 60_000,
    });
    expect(decide(status(429, { "retry-after": "5" })).retry).toBe(true);
    expect(decide(status(500, { "x-ratelimit-userreset": "120" })).retry).toBe(false);
  });

  it("falls back to x-ratelimit-userreset in seconds, epoch seconds or epoch ms (§19.4)", () => {
    expect(serverWaitHintMs({ "x-ratelimit-userreset": "3" }, NOW)).toBe(3000);
    expect(serverWaitHintMs({ "x-ratelimit-userreset": String(NOW / 1000 + 4) }, NOW)).toBe(4000);
    expect(serverWaitHintMs({ "x-ratelimit-userreset": String(NOW + 2_000) }, NOW)).toBe(2000);
    expect(serverWaitHintMs({ "x-ratelimit-userreset": String(NOW - 10_000) }, NOW)).toBe(0);
    expect(serverWaitHintMs({ "retry-after": "1", "x-ratelimit-userreset": "4" }, NOW)).toBe(1000);
    expect(serverWaitHintMs({ "retry-after": "bogus", "x-ratelimit-userreset": "4" }, NOW)).toBe(4000);
    expect(serverWaitHintMs({ "x-ratelimit-userreset": "soon" }, NOW)).toBeUndefined();
    expect(resetSecondsFromHeader("1000000000", NOW)).toBe(1_000_000_000);
    expect(decide(status(429, { "x-ratelimit-userreset": "1" }))).toEqual({
      retry: true,
      waitMs: 1000,
      rateLimited: true,
      hinted: true,
    });
  });
});

describe("quota headers", () => {
  it("parses limit, remaining, reset and scope; null without any header", () => {
    expect(
      parseQuota(
        {
          "x-ratelimit-userlimit": "100",
          "x-ratelimit-userremaining": "7",
          "x-ratelimit-userreset": String(NOW + 42_000),
          "x-target-scope": "Team",
        },
        NOW,
      ),
    ).toEqual({ limit: 100, remaining: 7, reset_seconds: 42, scope: "team", observed_at: NOW });
    expect(parseQuota({}, NOW)).toBeNull();
    expect(parseQuota({ "x-ratelimit-userremaining": "x" }, NOW)).toBeNull();
  });

  it("builds the fixed 429 fragment with unknown for missing numbers", () => {
    expect(
      quotaFragment(
        { "x-ratelimit-userlimit": "100", "x-ratelimit-userremaining": "0", "x-ratelimit-userreset": "42" },
        NOW,
      ),
    ).toBe("remaining 0/100, reset after 42 seconds");
    expect(quotaFragment({ "x-ratelimit-userlimit": "100" }, NOW)).toBe(
      "remaining unknown/100, reset after unknown seconds",
    );
    expect(quotaFragment({}, NOW)).toBe("quota headers were unavailable");
  });
});

describe("call context (docs/tools.md §4.3)", () => {
  it("starts at one attempt and omits _meta.retry until something was retried or read back", () => {
    const context = new CallContext();
    expect(context.snapshot()).toEqual({
      attempts: 1,
      total_waited_seconds: 0,
      was_rate_limited: false,
      readback_attempts: 0,
      readback_elapsed_seconds: 0,
    });
    expect(retryMetaForResult(context)).toBeUndefined();
    context.recordRetry(1500, false);
    context.recordRetry(0, true);
    expect(retryMetaForResult(context)).toEqual({
      attempts: 3,
      total_waited_seconds: 1.5,
      was_rate_limited: true,
      readback_attempts: 0,
      readback_elapsed_seconds: 0,
    });
  });

  it("reports read-back activity alone", () => {
    const context = new CallContext();
    context.recordReadbackAttempt();
    context.recordReadbackElapsed(300);
    expect(retryMetaForResult(context)).toMatchObject({
      attempts: 1,
      readback_attempts: 1,
      readback_elapsed_seconds: 0.3,
    });
  });

  it("keeps concurrent calls apart", () => {
    const a = new CallContext();
    const b = new CallContext();
    a.recordRetry(10, true);
    expect(b.snapshot().attempts).toBe(1);
    expect(b.snapshot().was_rate_limited).toBe(false);
  });
});
