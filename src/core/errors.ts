/**
 * The one error family of the core (docs/style.md rule 8). Every failure the tools and the plugin
 * report is a BridgeError with a stable kind (docs/tools.md §4.1); it becomes an MCP result in
 * src/mcp/result.ts and an Obsidian notice in src/obsidian/notices.ts, nowhere else.
 */

/** Stable snake_case error kinds; a contract: add kinds, never rename or remove them. */
export const ERROR_KINDS = [
  "auth",
  "forbidden",
  "not_found",
  "conflict",
  "rate_limited",
  "network",
  "upstream",
  "api",
  "readback",
  "partial_write",
  "too_large",
  "confirmation_required",
  "unpushed_changes",
  "unverified_local_content",
  "invalid_input",
  "patch_rejected",
  "local_access",
  "local_io",
  "not_tracked",
  "sync_state",
  "internal",
  // The tool policy and the user's approval (docs/tool-contract-extensions.md).
  "tool_denied",
  "approval_denied",
  "approval_timeout",
] as const;

/** One stable error kind of docs/tools.md §4.1. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** The `_meta.retry` block of docs/tools.md §4.3. */
export interface RetryMeta {
  attempts: number;
  total_waited_seconds: number;
  was_rate_limited: boolean;
  readback_attempts: number;
  readback_elapsed_seconds: number;
}

/** Options of a BridgeError beyond its kind and message. */
export interface BridgeErrorOptions {
  /** The underlying failure, kept for debugging; never shown to users. */
  cause?: unknown;
  /** Extra machine-readable facts (e.g. `{ note_id }` for a partial write). */
  details?: Record<string, unknown>;
}

/** A failure with a stable kind and a message that names the fix. Messages are already redacted. */
export class BridgeError extends Error {
  override readonly name = "BridgeError";
  readonly kind: ErrorKind;
  readonly details: Record<string, unknown> | undefined;

  constructor(kind: ErrorKind, message: string, options: BridgeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.details = options.details;
  }
}

/** True for a BridgeError, optionally of one of the given kinds. */
export function isBridgeError(value: unknown, ...kinds: ErrorKind[]): value is BridgeError {
  return value instanceof BridgeError && (kinds.length === 0 || kinds.includes(value.kind));
}

/** Shorthand for the most common refusal: bad arguments, nothing done. */
export function invalidInput(message: string, details?: Record<string, unknown>): BridgeError {
  return new BridgeError("invalid_input", message, details ? { details } : {});
}
