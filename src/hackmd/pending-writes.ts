/**
 * Body writes whose outcome is unknown (docs/tools.md §4.2), remembered per note by one core instance.
 *
 * HackMD offers no conditional write, so a write that ended as `readback` may still land after a
 * later read showed the old body. Without this memory the next push or patch would read that
 * old body, find nothing changed, and overwrite the pending edit unseen (found by the reliability
 * harness). With it, the next body write to the note is refused until a read shows the pending
 * body (it landed: the usual three-way rules then see it) or the horizon passes (it did not).
 */
import { BridgeError, isBridgeError } from "../core/errors";
import type { Clock } from "../core/ports";

/** A note in a workspace. */
export interface NoteAddress {
  teamPath: string | null;
  noteId: string;
}

interface Pending {
  sent: string;
  at: number;
}

/** How long an unconfirmed write is assumed able to land: far above any delay seen on HackMD. */
export const PENDING_WRITE_HORIZON_MS = 60_000;

/** Unconfirmed body writes of one core instance. */
export class PendingWrites {
  private readonly entries = new Map<string, Pending>();

  constructor(
    private readonly clock: Clock,
    private readonly horizonMs = PENDING_WRITE_HORIZON_MS,
  ) {}

  /**
   * Throws `readback` when an earlier unconfirmed write to the note may still land. `current` is
   * the body a fresh read just showed, or undefined when the caller read nothing.
   */
  assertClear(address: NoteAddress, current: string | undefined): void {
    const key = keyOf(address);
    const pending = this.entries.get(key);
    if (!pending) return;
    const age = this.clock.now() - pending.at;
    if (current === pending.sent || age >= this.horizonMs) {
      this.entries.delete(key);
      return;
    }
    const wait = Math.ceil((this.horizonMs - age) / 1000);
    throw new BridgeError(
      "readback",
      `An earlier write to note ${address.noteId} was accepted but has not shown on HackMD yet, so writing now could overwrite it unseen; nothing was written. Read the note again (it may show the earlier write shortly) and retry, or retry after ${wait} seconds.`,
    );
  }

  /**
   * Whether an unconfirmed write to the note may still land over `current` (a body just read that
   * does not show it), without refusing or forgetting anything.
   */
  mayStillLand(address: NoteAddress, current: string): boolean {
    const pending = this.entries.get(keyOf(address));
    return pending !== undefined && pending.sent !== current && this.clock.now() - pending.at < this.horizonMs;
  }

  /** Whether `sent` is the note's remembered unconfirmed write (its outcome is unknown). */
  holds(address: NoteAddress, sent: string): boolean {
    return this.entries.get(keyOf(address))?.sent === sent;
  }

  /**
   * Runs a body write in its two steps. The send's own failure is remembered only when it is
   * `readback` (any other failure means HackMD did not apply it); once the send was accepted,
   * any failure of the confirmation is remembered, since the body was applied and may still show.
   * A confirmed write clears the note.
   */
  async track<T>(
    address: NoteAddress,
    sent: string,
    steps: { send: () => Promise<void>; confirm: () => Promise<T> },
  ): Promise<T> {
    const key = keyOf(address);
    try {
      await steps.send();
    } catch (error) {
      if (isBridgeError(error, "readback")) this.remember(key, sent);
      throw error;
    }
    try {
      const result = await steps.confirm();
      this.entries.delete(key);
      return result;
    } catch (error) {
      this.remember(key, sent);
      throw error;
    }
  }

  private remember(key: string, sent: string): void {
    this.entries.set(key, { sent, at: this.clock.now() });
  }
}

function keyOf(address: NoteAddress): string {
  return JSON.stringify([address.teamPath, address.noteId]);
}
