/**
 * The command's request-budget storage: one JSON file in the sync state folder
 * (`auto-sync/budget.json`), shared by every process over that folder (two watchers, a watcher
 * and the desktop plugin's vault). Every change is a read-modify-write under a lock file
 * (`auto-sync/budget.lock`, created with `StateFiles.create`, i.e. `O_EXCL`, as the record lock
 * of src/sync/record-lock.ts), so two processes add to one count and never overwrite each
 * other's. The file itself is replaced atomically (`StateFiles.write`), so a process killed at
 * any moment leaves either the old count or the new one.
 *
 * The lock is held for one read and one write, never across a request. It names its owner (the
 * host's process id and machine): a lock whose owner the host knows to be dead is broken at once;
 * any other lock older than `BUDGET_LOCK_STALE_MS` is taken as left by a dead process and broken
 * (logged). A waiter gives up after `BUDGET_LOCK_WAIT_MS` with `local_io`, naming the file.
 *
 * Cost: a reservation is one exclusive create, one read, one atomic write and one removal in the
 * state folder, a few hundred microseconds to a few milliseconds; automatic sync sends at most
 * 100 requests per 5 minutes (bench numbers in docs/auto-sync.md).
 */
import { BridgeError } from "../../core/errors";
import type { StateFiles } from "../../core/local-files";
import { silentLogger, type Logger } from "../../core/ports";
import { breakIfUnchanged, REAL_LOCK_TIMING, type LockTiming } from "../record-lock";
import { UNREADABLE_BUDGET, type BudgetStorage } from "./budget";

/** The budget file inside the state folder. */
export const BUDGET_FILE = "auto-sync/budget.json";
/** Its lock. */
export const BUDGET_LOCK = "auto-sync/budget.lock";
/** A lock this old is taken as left by a dead process (it is held for one read and one write). */
export const BUDGET_LOCK_STALE_MS = 5_000;
/** How long a change waits for the lock before it gives up. */
export const BUDGET_LOCK_WAIT_MS = 15_000;
const MAX_BYTES = 64 * 1024;
const strict = new TextDecoder("utf-8", { fatal: true });
const loose = new TextDecoder("utf-8", { fatal: false });

/** Options of the state-file storage. */
export interface BudgetFileOptions {
  /** The file (default `auto-sync/budget.json`); its lock is beside it, named `.lock`. */
  path?: string;
  timing?: LockTiming;
  logger?: Logger;
  /** Who holds the lock, e.g. `<pid>@<host>` (no spaces); default "unknown". */
  owner?: string;
  /** Whether the owner of a lock still runs: false breaks its lock at once; undefined when unknown. */
  isAlive?: (owner: string) => boolean | undefined;
  /** The state folder, ROOT-relative, for the error that names the lock file. */
  stateFolder?: string;
}

let tokens = 0;

/** A budget's storage as one JSON file in the state folder, changed under a cross-process lock. */
export function stateFileBudgetStorage(
  files: StateFiles,
  options: BudgetFileOptions | string = {},
): Required<BudgetStorage> {
  const opts: BudgetFileOptions = typeof options === "string" ? { path: options } : options;
  const path = opts.path ?? BUDGET_FILE;
  const lock = path.endsWith(".json") ? `${path.slice(0, -".json".length)}.lock` : `${path}.lock`;
  const timing = opts.timing ?? REAL_LOCK_TIMING;
  const logger = opts.logger ?? silentLogger;
  const owner = (opts.owner ?? "unknown").replace(/\s/g, "_");

  const load = async (): Promise<string | undefined> => {
    const read = await files.read(path, { maxBytes: MAX_BYTES });
    if (read === undefined) return undefined;
    // A file too large or not UTF-8 is damaged: the budget says so and starts from a safe count.
    if (read.truncated) return UNREADABLE_BUDGET.tooLarge;
    try {
      return strict.decode(read.bytes);
    } catch {
      return UNREADABLE_BUDGET.notUtf8;
    }
  };

  const acquire = async (): Promise<string> => {
    tokens += 1;
    const started = timing.now();
    const token = `${started.toString(36)}-${tokens.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    let delay = 1;
    let seen: { text: string; since: number } | undefined;
    for (;;) {
      const now = timing.now();
      if (await files.create(lock, `${token} ${now} ${owner}\n`)) return token;
      const read = await files.read(lock, { maxBytes: 256 });
      if (read === undefined) continue; // released between the two steps
      const text = loose.decode(read.bytes);
      if (seen?.text !== text) seen = { text, since: now };
      const [, takenText, holder] = text.trim().split(" ");
      const taken = Number(takenText);
      const age = Number.isFinite(taken) && taken > 0 ? now - taken : now - seen.since;
      const dead = holder !== undefined && holder !== owner && opts.isAlive?.(holder) === false;
      // An unreadable lock (created, bytes not yet written) is judged by how long it has looked so.
      if (dead || age > BUDGET_LOCK_STALE_MS || now - seen.since > BUDGET_LOCK_STALE_MS) {
        const broken = await breakIfUnchanged({
          files,
          lock,
          judged: text,
          now,
          onBreak: () => logger.warn("budget_lock_broken", { lock, reason: dead ? "owner_gone" : "stale" }),
        });
        if (!broken) await timing.sleep(delay);
        continue;
      }
      if (now - started > BUDGET_LOCK_WAIT_MS) {
        const where = opts.stateFolder === undefined ? lock : `${opts.stateFolder}/${lock}`;
        throw new BridgeError(
          "local_io",
          `Another HackMD Bridge process has held the request budget's lock ${where} for ${Math.round(age / 1000)} s; try again in a moment, or delete that file if no other HackMD Bridge process is running.`,
          { details: { path: where } },
        );
      }
      await timing.sleep(delay);
      delay = Math.min(50, delay * 2);
    }
  };

  const release = async (token: string, heldMs: number): Promise<void> => {
    try {
      if (heldMs < BUDGET_LOCK_STALE_MS / 2) {
        await files.remove(lock);
        return;
      }
      const read = await files.read(lock, { maxBytes: 256 });
      // Only our own lock: one broken as stale and taken by another process stays theirs.
      if (read !== undefined && loose.decode(read.bytes).startsWith(`${token} `)) await files.remove(lock);
    } catch (error) {
      logger.warn("budget_lock_release_failed", {
        lock,
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  };

  return {
    load,
    save: async (text) => {
      await files.write(path, text);
    },
    update: async (change) => {
      const token = await acquire();
      const taken = timing.now();
      try {
        const next = change(await load());
        if (next !== undefined) await files.write(path, next);
      } finally {
        await release(token, timing.now() - taken);
      }
    },
  };
}
