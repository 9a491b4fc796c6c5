/**
 * A short lock per sync record, shared by every process over one state folder (docs/adr/0004-one-queue.md): the
 * plugin and the standalone command on one vault, two commands on one folder. The queue orders
 * the operations of one core; this lock makes each record rewrite (read, compare, write baseline,
 * record and hint) one step for the other processes too, so a compare-and-swap cannot be undone
 * by a save that lands between its compare and its write.
 *
 * The lock is `locks/<record key>.lock`, created with `StateFiles.create` (exclusive create) and
 * removed when the rewrite ends; it holds a token and the time it was taken. It is held for a
 * handful of file operations, never across a request to HackMD. A lock older than
 * `LOCK_STALE_MS` was left by a process that died in a rewrite: it is broken (logged) and taken.
 * A waiter gives up after `LOCK_WAIT_MS` with `local_io`, naming the lock file.
 */
import { BridgeError } from "../core/errors";
import type { StateFiles } from "../core/local-files";
import { systemSleep, type Logger } from "../core/ports";

/** The lock folder inside the state folder. */
export const LOCKS = "locks";
/** A lock this old is treated as left by a dead process. */
export const LOCK_STALE_MS = 10_000;
/** How long a rewrite waits for a lock before it gives up; longer than the stale age. */
export const LOCK_WAIT_MS = 15_000;
const FIRST_DELAY_MS = 2;
const MAX_DELAY_MS = 100;
const decoder = new TextDecoder("utf-8", { fatal: false });

/** Time as the lock sees it (the core's clock and sleep; virtual in the concurrency harness). */
export interface LockTiming {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Real time, for stores built without a core (the plugin's status reads, CLI commands). */
export const REAL_LOCK_TIMING: LockTiming = {
  now: () => Date.now(),
  sleep: systemSleep,
};

let tokens = 0;

/** Record locks over one state folder. */
export class RecordLocks {
  constructor(
    private readonly files: StateFiles,
    private readonly timing: LockTiming,
    private readonly logger: Logger,
    /** The state folder, ROOT-relative, for the error that names the lock file. */
    private readonly stateFolder: string,
  ) {}

  /** Runs `run` holding the lock of record `key`. */
  async hold<T>(key: string, run: () => Promise<T>): Promise<T> {
    const file = `${LOCKS}/${key}.lock`;
    const token = await this.acquire(file);
    const taken = this.timing.now();
    try {
      return await run();
    } finally {
      await this.release(file, token, this.timing.now() - taken > LOCK_STALE_MS / 2);
    }
  }

  private async acquire(file: string): Promise<string> {
    tokens += 1;
    const started = this.timing.now();
    const token = `${started.toString(36)}-${tokens.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    let delay = FIRST_DELAY_MS;
    // An unreadable lock (created, bytes not yet written) is stale once seen unchanged this long.
    let seen: { text: string; since: number } | undefined;
    for (;;) {
      const now = this.timing.now();
      if (await this.files.create(file, `${token} ${now}\n`)) return token;
      const read = await this.files.read(file, { maxBytes: 256 });
      if (read === undefined) continue; // released between the two steps: try again at once
      const text = decoder.decode(read.bytes);
      if (seen?.text !== text) seen = { text, since: now };
      const taken = Number(text.trim().split(" ")[1]);
      // A time after now (the clock was set back since the lock was taken) says nothing about
      // its age: such a lock, like one without a time, is judged by how long it has looked so.
      const age = Number.isFinite(taken) && taken > 0 && taken <= now ? now - taken : now - seen.since;
      if (age > LOCK_STALE_MS) {
        await this.breakStale(file, text);
        continue;
      }
      if (now - started > LOCK_WAIT_MS) {
        throw new BridgeError(
          "local_io",
          `Another HackMD Bridge process has held the sync record lock ${this.stateFolder}/${file} for ${Math.round(age / 1000)} s; try again in a moment, or delete that file if no other HackMD Bridge process is running.`,
          { details: { path: `${this.stateFolder}/${file}` } },
        );
      }
      await this.timing.sleep(delay);
      delay = Math.min(MAX_DELAY_MS, delay * 2);
    }
  }

  /** Removes a stale lock, unless it changed since it was judged stale (another waiter broke it). */
  private async breakStale(file: string, judged: string): Promise<void> {
    const again = await this.files.read(file, { maxBytes: 256 });
    if (again === undefined || decoder.decode(again.bytes) !== judged) return;
    this.logger.warn("sync_lock_broken", { lock: file });
    await this.files.remove(file);
  }

  /**
   * Removes the lock. A holder that took long enough to be judged stale may have lost it to a
   * waiter: then it removes the lock only if the lock still holds its token.
   */
  private async release(file: string, token: string, slow: boolean): Promise<void> {
    try {
      if (!slow) {
        await this.files.remove(file);
        return;
      }
      const read = await this.files.read(file, { maxBytes: 256 });
      if (read !== undefined && decoder.decode(read.bytes).startsWith(`${token} `)) await this.files.remove(file);
    } catch (error) {
      this.logger.warn("sync_lock_release_failed", {
        lock: file,
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
