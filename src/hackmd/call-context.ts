/**
 * The per-call context (docs/tools.md §4.3): one per tool call or plugin command, passed to every
 * request that call makes, so concurrent calls never mix their retry counters.
 */
import type { ChangeEdit, ChangeGuard, ProposedChange } from "../core/approval";
import type { RetryMeta } from "../core/errors";
import type { NoteDetail } from "./types";

/** Who makes a call's writes, as the sync journal names them (src/sync/journal.ts). */
export interface CallActor {
  kind: "user" | "agent" | "auto";
  /** Which door: the plugin, the command, or an MCP tool call. */
  door?: "obsidian" | "command" | "mcp";
  /** The MCP client's name, for an agent. */
  client?: string;
  /** The agent's MCP session (one server per session), to group its writes as a change set. */
  session?: string;
  /** The MCP tool, for an agent. */
  tool?: string;
}

/** Counters of one call; create one with `new CallContext()` at the start of each call. */
export class CallContext {
  private attempts = 1;
  private waitedMs = 0;
  private rateLimited = false;
  private readbackAttempts = 0;
  private readbackElapsedMs = 0;
  private readonly guard: ChangeGuard | undefined;
  private readonly noteRead: ((note: NoteDetail) => void) | undefined;

  /** Who makes the call's writes (the sync journal's actor); undefined: the host's user. */
  readonly actor: CallActor | undefined;

  /**
   * `guard` sees every change the call is about to make (the tool policy, docs/tool-contract-extensions.md); none lets all through.
   * `onNoteRead` sees every note a `GET` of this call read (a mirror learns a note's folders from the
   * reads a sync round makes anyway, src/app/mirror.ts); it must not throw.
   * `actor` names who writes (docs/sync-journal.md).
   */
  constructor(options: { guard?: ChangeGuard; onNoteRead?: (note: NoteDetail) => void; actor?: CallActor } = {}) {
    this.guard = options.guard;
    this.noteRead = options.onNoteRead;
    this.actor = options.actor;
  }

  /** Called by the client with each note a `GET` of this call read. */
  observeNote(note: NoteDetail): void {
    this.noteRead?.(note);
  }

  /**
   * Called just before the call changes something, with the change; resolves to go on, throws to
   * stop with nothing written. Call it inside the hold the write is decided under.
   */
  beforeChange(change: ProposedChange): Promise<void | ChangeEdit> {
    return this.guard === undefined ? Promise.resolve() : this.guard(change);
  }

  /** Records one retry of any request of this call and the wait before it. */
  recordRetry(waitMs: number, causedBy429: boolean): void {
    this.attempts += 1;
    this.waitedMs += Math.max(0, waitMs);
    if (causedBy429) this.rateLimited = true;
  }

  /** Records one read-back fetch. */
  recordReadbackAttempt(): void {
    this.readbackAttempts += 1;
  }

  /** Records time spent in read-back polling. */
  recordReadbackElapsed(elapsedMs: number): void {
    this.readbackElapsedMs += Math.max(0, elapsedMs);
  }

  /** A snapshot of the counters as the `_meta.retry` block. */
  snapshot(): RetryMeta {
    return {
      attempts: this.attempts,
      total_waited_seconds: roundSeconds(this.waitedMs),
      was_rate_limited: this.rateLimited,
      readback_attempts: this.readbackAttempts,
      readback_elapsed_seconds: roundSeconds(this.readbackElapsedMs),
    };
  }
}

/** The `_meta.retry` object to attach to a result, or undefined when nothing was retried or read back. */
export function retryMetaForResult(context: CallContext): RetryMeta | undefined {
  const meta = context.snapshot();
  return meta.attempts > 1 || meta.readback_attempts > 0 ? meta : undefined;
}

function roundSeconds(ms: number): number {
  return Math.round(ms) / 1000;
}
