/**
 * Exit codes of the human subcommands (pull, push, status, sync): 0 done, 1 conflict, refusal or
 * something that needs attention, 2 usage error or failure.
 */
import { isBridgeError, type ErrorKind } from "../../core/errors";

/** What a human subcommand's exit code says. */
export const EXIT = {
  /** Done; everything is in sync. */
  ok: 0,
  /** A conflict, a refusal (a flag is needed, edits are protected), or notes that need attention. */
  attention: 1,
  /** A usage error, or a failure (auth, network, HackMD, local I/O, damaged sync state). */
  error: 2,
} as const;

/** One of the exit codes in EXIT. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * Error kinds that are refusals: the engine declined on purpose and its message names the fix
 * (a flag, a push first, a merge). Every other kind is a failure (exit 2).
 */
const REFUSAL_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  "confirmation_required",
  "unpushed_changes",
  "unverified_local_content",
  "local_access",
  "conflict",
  "not_tracked",
  "too_large",
  "forbidden",
  "not_found",
  "patch_rejected",
]);

/** The exit code for an error kind: refusals exit 1, failures 2. */
export function exitCodeForKind(kind: ErrorKind): ExitCode {
  return REFUSAL_KINDS.has(kind) ? EXIT.attention : EXIT.error;
}

/** The exit code for a thrown error: refusals exit 1, everything else (unknown errors too) 2. */
export function exitCodeForError(error: unknown): ExitCode {
  return isBridgeError(error) ? exitCodeForKind(error.kind) : EXIT.error;
}
