/**
 * Open comment threads per file, as the comments view last fetched them: the status bar shows the
 * active file's count without a request of its own (no requests at load, none per keystroke).
 */

/** Counts by vault path, with change listeners. */
export class OpenThreadCounts {
  private readonly counts = new Map<string, number>();
  private readonly listeners = new Set<() => void>();

  /** The count last seen for a path, or undefined when the comments were never fetched. */
  get(path: string): number | undefined {
    return this.counts.get(path);
  }

  /** Records a fresh count and tells the listeners. */
  set(path: string, count: number): void {
    if (this.counts.get(path) === count) return;
    this.counts.set(path, count);
    for (const listener of this.listeners) listener();
  }

  /** Calls `listener` after every change; returns the function that stops it. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
