/**
 * The sync serialisation of docs/tools.md §13.8: one in-process queue per core instance in which an
 * operation waits for every earlier operation that shares one of its keys (a note or a path).
 * Waiting only on earlier entries keeps the wait graph acyclic, so it cannot deadlock.
 */

/** A queue serialising operations per key; operations with disjoint keys run concurrently. */
export class SyncQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `task` after every earlier task sharing a key has settled; its outcome is returned. */
  async run<T>(keys: readonly string[], task: () => Promise<T>): Promise<T> {
    const unique = [...new Set(keys)];
    const earlier = unique
      .map((key) => this.tails.get(key))
      .filter((tail): tail is Promise<void> => tail !== undefined);
    let release: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    for (const key of unique) this.tails.set(key, done);
    try {
      await Promise.all(earlier);
      return await task();
    } finally {
      release();
      for (const key of unique) if (this.tails.get(key) === done) this.tails.delete(key);
    }
  }

  /** Keys of this many operations are currently held or awaited (for tests). */
  get size(): number {
    return this.tails.size;
  }
}

/** The queue key of a note. */
export function noteQueueKey(key: string): string {
  return `note:${key}`;
}

/** The queue key of a local path. */
export function pathQueueKey(path: string): string {
  return `path:${path}`;
}
