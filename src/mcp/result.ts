import { BridgeError, type ErrorKind, type RetryMeta } from "../core/errors";
import { scrubSecrets } from "../core/secrets";
import type { ToolSuccess } from "./define-tool";

/** The MCP `tools/call` result shape we produce (docs/tools.md §3.2, §3.4). */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError: boolean;
  _meta?: { error_kind?: ErrorKind; retry?: RetryMeta; [key: string]: unknown };
}

/** A success result: summary block, JSON block, the same object as structuredContent. */
export function successResult(success: ToolSuccess, retry: RetryMeta | undefined): ToolResult {
  const result: ToolResult = {
    content: [
      { type: "text", text: success.summary },
      { type: "text", text: JSON.stringify(success.output) },
    ],
    structuredContent: success.output,
    isError: false,
  };
  if (retry || success.meta) result._meta = { ...success.meta, ...(retry ? { retry } : {}) };
  return result;
}

/**
 * The one place a failure becomes an MCP result (docs/style.md rule 8). Unknown failures are
 * `internal`; every message passes a last scrub of the given secrets, although messages are
 * already redacted where they are created.
 */
export function errorResult(error: unknown, retry: RetryMeta | undefined, secrets: readonly string[]): ToolResult {
  const failure =
    error instanceof BridgeError
      ? error
      : new BridgeError(
          "internal",
          "An internal error stopped this call; nothing further was attempted. Report it with the log line of this request.",
          {
            cause: error,
          },
        );
  const result: ToolResult = {
    content: [{ type: "text", text: scrubSecrets(failure.message, secrets) }],
    isError: true,
    _meta: { error_kind: failure.kind },
  };
  if (retry) result._meta = { error_kind: failure.kind, retry };
  return result;
}
