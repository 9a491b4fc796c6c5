import type { Clock, Sleep } from "../../../src/core/ports";

/**
 * A clock shared by the emulator and the core that moves only when someone sleeps or calls
 * `advance`: visibility delays and read-back polls run at full speed and replay identically.
 */
export class VirtualClock implements Clock {
  private current: number;

  constructor(start: number) {
    this.current = start;
  }

  /** Virtual time in epoch milliseconds. */
  now(): number {
    return this.current;
  }

  /** Moves time forward by `ms` (never backwards). */
  advance(ms: number): void {
    this.current += Math.max(0, ms);
  }

  /** The core's sleep: advances virtual time, then yields once to the event loop. */
  readonly sleep: Sleep = async (ms) => {
    this.advance(ms);
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
}
