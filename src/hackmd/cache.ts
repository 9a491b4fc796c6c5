import type { Clock } from "../core/ports";

/** Settings of the note-list cache (docs/tools.md §6.5). */
export interface NoteListCacheOptions<T> {
  clock: Clock;
  /** Time to live; 0 disables the cache. */
  ttlMs?: number;
  maxEntries?: number;
  maxBytes?: number;
  /** Estimated size of a list in bytes, for the size cap. */
  estimate: (list: readonly T[]) => number;
}

interface Entry<T> {
  list: T[];
  bytes: number;
  storedAt: number;
  usedAt: number;
}

/**
 * Per-workspace note lists kept for 60 s. Concurrent misses share one request (and its failure);
 * writes clear every entry before and after they run, and a list whose request overlapped a
 * write is fetched again rather than stored.
 */
export class NoteListCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly inflight = new Map<string, Promise<T[]>>();
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly estimate: (list: readonly T[]) => number;
  /** Bumped by every invalidation; a fetch that saw another generation is stale. */
  private generation = 0;
  private writesInFlight = 0;

  constructor(options: NoteListCacheOptions<T>) {
    this.clock = options.clock;
    this.ttlMs = options.ttlMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 32;
    this.maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
    this.estimate = options.estimate;
  }

  /** The cached list of a workspace, or a fresh one (`refresh` bypasses and replaces). */
  async get(key: string, fetch: () => Promise<T[]>, refresh = false): Promise<T[]> {
    const now = this.clock.now();
    const entry = this.entries.get(key);
    if (!refresh && entry && now - entry.storedAt < this.ttlMs) {
      entry.usedAt = now;
      return entry.list;
    }
    const pending = this.inflight.get(key);
    if (pending && !refresh) return pending;
    const request = this.fetchFresh(key, fetch).finally(() => {
      if (this.inflight.get(key) === request) this.inflight.delete(key);
    });
    this.inflight.set(key, request);
    return request;
  }

  /** Clears every entry (a confirmed read-back calls this too). */
  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
    this.inflight.clear();
  }

  /** Runs a write that can change note lists, clearing the cache before and after, on every path. */
  async aroundWrite<R>(write: () => Promise<R>): Promise<R> {
    this.writesInFlight += 1;
    this.invalidate();
    try {
      return await write();
    } finally {
      this.writesInFlight -= 1;
      this.invalidate();
    }
  }

  private async fetchFresh(key: string, fetch: () => Promise<T[]>): Promise<T[]> {
    const generation = this.generation;
    const list = await fetch();
    if (generation === this.generation && this.writesInFlight === 0) {
      this.store(key, list);
      return list;
    }
    // The list overlapped a write. While the write is still running a new fetch could predate
    // it too, so the list is returned unstored; once it has ended, one fresh fetch is stored.
    if (this.writesInFlight > 0) return list;
    const again = this.generation;
    const fresh = await fetch();
    if (again === this.generation && this.writesInFlight === 0) this.store(key, fresh);
    return fresh;
  }

  private store(key: string, list: T[]): void {
    if (this.ttlMs <= 0) return;
    const bytes = this.estimate(list);
    if (bytes > this.maxBytes) return;
    const now = this.clock.now();
    this.entries.delete(key);
    this.entries.set(key, { list, bytes, storedAt: now, usedAt: now });
    this.evict(now);
  }

  private evict(now: number): void {
    for (const [key, entry] of this.entries) {
      if (now - entry.storedAt >= this.ttlMs) this.entries.delete(key);
    }
    let total = [...this.entries.values()].reduce((sum, entry) => sum + entry.bytes, 0);
    while (this.entries.size > this.maxEntries || total > this.maxBytes) {
      const oldest = [...this.entries].sort((a, b) => a[1].usedAt - b[1].usedAt)[0];
      if (!oldest) break;
      this.entries.delete(oldest[0]);
      total -= oldest[1].bytes;
    }
  }
}

/** The account's user path and teams, kept 60 s (docs/tools.md §6.5). */
export class AccountCache<Team> {
  private userPath: { value: string; at: number } | undefined;
  private teams: { value: Team[]; at: number } | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = 60_000,
  ) {}

  /** The cached user path, if fresh. */
  freshUserPath(): string | undefined {
    return this.isFresh(this.userPath) ? this.userPath?.value : undefined;
  }

  /** The cached teams, if fresh. */
  freshTeams(): Team[] | undefined {
    return this.isFresh(this.teams) ? this.teams?.value : undefined;
  }

  /** Records what `/me` (and `/teams`) said. */
  remember(update: { userPath?: string; teams?: Team[] }): void {
    const at = this.clock.now();
    if (update.userPath !== undefined) this.userPath = { value: update.userPath, at };
    if (update.teams !== undefined) this.teams = { value: update.teams, at };
  }

  private isFresh(entry: { at: number } | undefined): boolean {
    return entry !== undefined && this.ttlMs > 0 && this.clock.now() - entry.at < this.ttlMs;
  }
}
