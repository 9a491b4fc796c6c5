/**
 * Retry policy as data (docs/tools.md §6.2, §19.4; docs/style.md rule 13): which requests are retried,
 * when, and how long to wait. Pure functions; the state of one request lives with its sender.
 */
import type { Random, TransportFailure } from "../core/ports";
import type { ClientConfig } from "./config";

/** How a request may be repeated. */
export type RequestMode =
  /** Every API GET: retried. */
  | "read"
  /** Payload built purely from the caller's arguments (team folder PATCH, trash restore): retried. */
  | "idempotent_write"
  /** Note PATCH, every DELETE, folder-order PUT, every POST: never retried. */
  | "plain_write";

/** Whether each mode is retried at all. */
export const MODE_RETRIES: Readonly<Record<RequestMode, boolean>> = {
  read: true,
  idempotent_write: true,
  plain_write: false,
};

/** The numbers of the retry policy. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** Base of the exponential back-off. */
  readonly baseMs: number;
  /** Cap of the back-off; a server hint longer than this is not waited out. */
  readonly capMs: number;
  /** Transport failures are retried only for request bodies up to this size. */
  readonly transportRetryMaxBodyBytes: number;
}

/** The retry policy of a client configuration. */
export function retryPolicyFromConfig(config: ClientConfig): RetryPolicy {
  return {
    maxRetries: config.maxRetries,
    baseMs: config.retryBaseMs,
    capMs: config.retryCapMs,
    transportRetryMaxBodyBytes: config.transportRetryMaxBodyBytes,
  };
}

/** What one attempt ended with, as far as retrying is concerned. */
export type AttemptOutcome =
  | { kind: "response"; status: number; headers: Readonly<Record<string, string>> }
  | { kind: "transport"; failure: TransportFailure };

/** Why a failed attempt is not retried. */
export type NoRetryReason = "mode" | "not_retryable" | "exhausted" | "body_too_large" | "hint_exceeds_cap";

/** The decision after a failed attempt. */
export type RetryDecision =
  | { retry: false; reason: NoRetryReason; hintMs?: number }
  | { retry: true; waitMs: number; rateLimited: boolean; hinted: boolean };

/** Inputs of `decideRetry`. */
export interface RetryQuestion {
  policy: RetryPolicy;
  mode: RequestMode;
  /** Retries already made for this request (0 after the first attempt). */
  retriesSoFar: number;
  outcome: AttemptOutcome;
  requestBodyBytes: number;
  /** Current epoch milliseconds (for HTTP dates and epoch reset values). */
  now: number;
  random: Random;
}

/** Decides whether a failed attempt is retried and how long to wait first. */
export function decideRetry(question: RetryQuestion): RetryDecision {
  const { policy, mode, retriesSoFar, outcome } = question;
  if (outcome.kind === "response" && !isRetryableStatus(outcome.status)) {
    return { retry: false, reason: "not_retryable" };
  }
  if (outcome.kind === "transport" && outcome.failure === "too_large") {
    return { retry: false, reason: "not_retryable" };
  }
  if (!MODE_RETRIES[mode]) return { retry: false, reason: "mode" };
  if (outcome.kind === "transport" && question.requestBodyBytes > policy.transportRetryMaxBodyBytes) {
    return { retry: false, reason: "body_too_large" };
  }
  const hintMs = outcome.kind === "response" ? serverWaitHintMs(outcome.headers, question.now) : undefined;
  if (hintMs !== undefined && hintMs > policy.capMs) return { retry: false, reason: "hint_exceeds_cap", hintMs };
  if (retriesSoFar >= policy.maxRetries) return { retry: false, reason: "exhausted" };
  const rateLimited = outcome.kind === "response" && outcome.status === 429;
  if (hintMs !== undefined) return { retry: true, waitMs: hintMs, rateLimited, hinted: true };
  return { retry: true, waitMs: backoffMs(retriesSoFar, policy, question.random), rateLimited, hinted: false };
}

/** Statuses worth another attempt: 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** Full-jitter back-off for the n-th retry counted from 0: uniform in [0, min(base × 2^n, cap)]. */
export function backoffMs(retryIndex: number, policy: RetryPolicy, random: Random): number {
  const ceiling = Math.min(policy.baseMs * 2 ** retryIndex, policy.capMs);
  return Math.round(random() * ceiling);
}

/** The server's wait hint: `Retry-After`, else `x-ratelimit-userreset`; undefined when neither reads. */
export function serverWaitHintMs(headers: Readonly<Record<string, string>>, now: number): number | undefined {
  const retryAfter = headers["retry-after"];
  if (retryAfter !== undefined) {
    const ms = parseRetryAfterMs(retryAfter, now);
    if (ms !== undefined) return ms;
  }
  const reset = headers["x-ratelimit-userreset"];
  if (reset !== undefined) {
    const seconds = resetSecondsFromHeader(reset, now);
    if (seconds !== undefined) return Math.round(seconds * 1000);
  }
  return undefined;
}

/** `Retry-After` as milliseconds: integer seconds or an HTTP date (past dates wait 0). */
export function parseRetryAfterMs(value: string, now: number): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * `x-ratelimit-userreset` as seconds still to wait (docs/tools.md §19.4): a plain number of seconds,
 * or — above 10⁹, where it can only be an epoch time — epoch seconds or, above 10¹², epoch ms.
 */
export function resetSecondsFromHeader(value: string, now: number): number | undefined {
  const text = value.trim();
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  const number = Number(text);
  if (!Number.isFinite(number)) return undefined;
  if (number <= 1e9) return number;
  const epochMs = number > 1e12 ? number : number * 1000;
  return Math.max(0, Math.ceil((epochMs - now) / 1000));
}
