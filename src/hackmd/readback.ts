/**
 * Write confirmation by polling (docs/tools.md §7): read at once, then after 100 ms, doubling, until
 * the predicate holds or the next wait would reach the window's end. Generic over the read.
 */
import { BridgeError, isBridgeError } from "../core/errors";
import type { Clock, Sleep } from "../core/ports";
import type { CallContext } from "./call-context";

const MIB = 1_048_576;

/** Numbers of the poll; defaults follow docs/tools.md §7 and §6.1. */
export interface ReadbackTiming {
  /** Window for an empty write. */
  baseWindowMs: number;
  /** Added per whole MiB written. */
  perMibMs: number;
  /** Longest window. */
  maxWindowMs: number;
  /** First wait after an unmatched read; doubles each time. */
  firstWaitMs: number;
  /** Time a read in flight may take past its start (plus the transfer allowance). */
  inFlightMs: number;
  /** Transfer allowance rate for the written size. */
  transferBytesPerSecond: number;
}

/** The documented read-back timing. */
export const READBACK_TIMING: ReadbackTiming = {
  baseWindowMs: 2_000,
  perMibMs: 1_000,
  maxWindowMs: 30_000,
  firstWaitMs: 100,
  inFlightMs: 30_000,
  transferBytesPerSecond: 262_144,
};

/** The poll window for a write of `writtenBytes` (2 s + 1 s per whole MiB, at most 30 s). */
export function readbackWindowMs(writtenBytes: number, timing: ReadbackTiming = READBACK_TIMING): number {
  return Math.min(timing.maxWindowMs, timing.baseWindowMs + Math.floor(writtenBytes / MIB) * timing.perMibMs);
}

/** Options of `pollUntil`. */
export interface PollOptions<T> {
  context: CallContext;
  clock: Clock;
  sleep: Sleep;
  /** Size of the write being confirmed (sizes the window and the in-flight allowance). */
  writtenBytes: number;
  /** One read; it receives the epoch-ms deadline by which it must complete (pass it to the client). */
  read: (deadlineAt: number) => Promise<T>;
  /** Whether an observation shows the write. */
  matches: (value: T) => boolean;
  /** Words for the `readback` error of a read that ran past its time, e.g. "the note". */
  subject?: string;
  timing?: ReadbackTiming;
}

/** The outcome of a poll: whether the write showed, and the last observation. */
export interface PollResult<T> {
  confirmed: boolean;
  last: T;
}

/**
 * Polls until `matches` holds or the window ends. A failing read ends the poll with its own
 * kind, except a read that ran past its allowance, which becomes `readback`.
 */
export async function pollUntil<T>(options: PollOptions<T>): Promise<PollResult<T>> {
  const { context, clock, sleep, writtenBytes, read, matches } = options;
  const timing = options.timing ?? READBACK_TIMING;
  const started = clock.now();
  const windowEnd = started + readbackWindowMs(writtenBytes, timing);
  const allowanceMs = timing.inFlightMs + Math.ceil((writtenBytes / timing.transferBytesPerSecond) * 1000);
  let waitMs = timing.firstWaitMs;
  try {
    for (;;) {
      const readStart = clock.now();
      const deadlineAt = Math.max(windowEnd, readStart + allowanceMs);
      context.recordReadbackAttempt();
      let value: T;
      try {
        value = await read(deadlineAt);
      } catch (error) {
        if (isBridgeError(error, "network") && clock.now() >= deadlineAt) {
          // Keep the `<METHOD> <path>:` prefix of the read that ran out.
          const prefix = /^[A-Z]+ \S+: /.exec(error.message)?.[0] ?? "";
          throw new BridgeError(
            "readback",
            `${prefix}the write was accepted, but the read confirming it never completed; look at ${options.subject ?? "the note or folder"} and compare before writing again.`,
            { cause: error },
          );
        }
        throw error;
      }
      if (matches(value)) return { confirmed: true, last: value };
      if (clock.now() + waitMs >= windowEnd) return { confirmed: false, last: value };
      await sleep(waitMs);
      waitMs *= 2;
    }
  } finally {
    context.recordReadbackElapsed(clock.now() - started);
  }
}
