/**
 * A cache of working-file body hashes keyed by path and file stamp (size, modification time and,
 * where the host has one, file identity), so a sync-all run re-reads and re-hashes only the
 * files that changed since the last run. It also remembers which baselines were verified against
 * their record's hash, by the baseline file's stamp, so an unchanged baseline is not re-read. Host-neutral; the state lives in the instance, which
 * the caller owns (the plugin keeps one for its lifetime, the command builds one per run).
 *
 * Safety: a stale hit (an edit that kept size, mtime and identity) can only make sync-all
 * believe a file is unchanged. Every write still re-reads the file (pull refuses a file that
 * differs from its baseline, push hashes what it sends), so a stale hit can delay a push by one
 * run, never lose an edit.
 */
import { sameStamp, type FileStamp } from "../core/local-files";

/** One cached hash: the body hash of a file as it was when it had `stamp`. */
interface CachedHash {
  stamp: FileStamp;
  hash: string;
}

/** Body hashes of working files by ROOT-relative path, valid while the file's stamp is unchanged. */
export class LocalHashCache {
  private readonly entries = new Map<string, CachedHash>();
  /** Baselines (state-folder paths) whose bytes were seen to hash to the recorded hash, by stamp. */
  private readonly baselines = new Map<string, CachedHash>();
  private readonly maxEntries: number;

  /** An empty cache; beyond `maxEntries` (default 100,000) the oldest entries are dropped. */
  constructor(options: { maxEntries?: number } = {}) {
    this.maxEntries = Math.max(1, options.maxEntries ?? 100_000);
  }

  /** Whether anything is cached for `path` (whatever its stamp). */
  has(path: string): boolean {
    return this.entries.has(path);
  }

  /** The hash recorded for `path` when its stamp still equals `stamp`, else undefined. */
  lookup(path: string, stamp: FileStamp): string | undefined {
    const entry = this.entries.get(path);
    return entry !== undefined && sameStamp(entry.stamp, stamp) ? entry.hash : undefined;
  }

  /** Records the body hash of `path` as read with `stamp` (the stamp of the read, not of an earlier stat). */
  remember(path: string, stamp: FileStamp, hash: string): void {
    this.entries.delete(path);
    this.entries.set(path, { stamp: { ...stamp }, hash });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  /** Whether any verification of the baseline at `path` is remembered (whatever its stamp). */
  hasBaseline(path: string): boolean {
    return this.baselines.has(path);
  }

  /**
   * Whether the baseline at `path` (state-folder relative) was verified to hash to `hash` while it
   * had `stamp` (the state folder's stat stamp, which includes the change time).
   */
  baselineVerified(path: string, stamp: FileStamp, hash: string): boolean {
    const entry = this.baselines.get(path);
    return entry !== undefined && entry.hash === hash && sameStamp(entry.stamp, stamp);
  }

  /** Records that the baseline at `path` hashed to `hash` while it had `stamp`. */
  rememberBaseline(path: string, stamp: FileStamp, hash: string): void {
    this.baselines.delete(path);
    this.baselines.set(path, { stamp: { ...stamp }, hash });
    while (this.baselines.size > this.maxEntries) {
      const oldest = this.baselines.keys().next();
      if (oldest.done === true) break;
      this.baselines.delete(oldest.value);
    }
  }

  /** Forgets one baseline (its check failed). */
  forgetBaseline(path: string): void {
    this.baselines.delete(path);
  }

  /** Forgets one path (after a write this process made, or when a read failed). */
  forget(path: string): void {
    this.entries.delete(path);
  }

  /** Keeps only the given paths (the tracked files of the last run, and their baselines); everything else is dropped. */
  retain(paths: Iterable<string>, baselinePaths: Iterable<string> = []): void {
    const keep = new Set(paths);
    for (const path of [...this.entries.keys()]) if (!keep.has(path)) this.entries.delete(path);
    const keepBaselines = new Set(baselinePaths);
    for (const path of [...this.baselines.keys()]) if (!keepBaselines.has(path)) this.baselines.delete(path);
  }

  /** Number of cached paths. */
  get size(): number {
    return this.entries.size;
  }
}
