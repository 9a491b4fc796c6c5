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

/** A breaker file (`<lock>.break`) this old was left by a process killed while breaking a lock. */
export const BREAK_STALE_MS = 5_000;

/**
 * Removes a lock judged stale, unless it changed since it was judged (another waiter broke it and
 * a new holder took it). A waiter first takes `<lock>.break` with an exclusive create, so no two
 * waiters re-read and remove at once: without it, one waiter could remove the fresh lock another
 * had just broken and retaken, and both would hold it. A breaker file left by a process killed in
 * between (older than `BREAK_STALE_MS`, or dated after now) is removed; only then, with a dead
 * breaker and two waiters at the same instant, can the race come back. Resolves true when this
 * call removed the lock; false when the caller should wait and look again.
 */
export async function breakIfUnchanged(options: {
  files: StateFiles;
  lock: string;
  /** The lock's text when it was judged stale. */
  judged: string;
  now: number;
  /** Called just before the stale lock is removed (to log it). */
  onBreak: () => void;
}): Promise<boolean> {
  const { files, lock, judged, now } = options;
  const breaker = `${lock}.break`;
  if (!(await files.create(breaker, `${now}\n`))) {
    const held = await files.read(breaker, { maxBytes: 64 });
    const since = held === undefined ? NaN : Number(decoder.decode(held.bytes).trim());
    if (held !== undefined && (!Number.isFinite(since) || since > now || now - since > BREAK_STALE_MS)) {
      await files.remove(breaker);
    }
    return false;
  }
  try {
    const again = await files.read(lock, { maxBytes: 256 });
    if (again === undefined || decoder.decode(again.bytes) !== judged) return false;
    options.onBreak();
    await files.remove(lock);
    return true;
  } finally {
    await files.remove(breaker);
  }
}

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
        const broken = await breakIfUnchanged({
          files: this.files,
          lock: file,
          judged: text,
          now,
          onBreak: () => this.logger.warn("sync_lock_broken", { lock: file }),
        });
        if (!broken) await this.timing.sleep(delay);
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
