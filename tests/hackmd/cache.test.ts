import { AccountCache, NoteListCache } from "../../src/hackmd/cache";

function fakeClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("NoteListCache", () => {
  it("reuses a list within 60 s, refetches after, and refresh bypasses and replaces", async () => {
    const clock = fakeClock();
    const cache = new NoteListCache<string>({ clock, estimate: (list) => list.length });
    let fetches = 0;
    const fetch = () => Promise.resolve([`v${++fetches}`]);
    expect(await cache.get("personal", fetch)).toEqual(["v1"]);
    clock.advance(59_999);
    expect(await cache.get("personal", fetch)).toEqual(["v1"]);
    expect(await cache.get("personal", fetch, true)).toEqual(["v2"]);
    expect(await cache.get("personal", fetch)).toEqual(["v2"]);
    clock.advance(60_000);
    expect(await cache.get("personal", fetch)).toEqual(["v3"]);
  });

  it("keeps personal and team entries apart", async () => {
    const cache = new NoteListCache<string>({ clock: fakeClock(), estimate: () => 1 });
    await cache.get("personal", () => Promise.resolve(["p"]));
    await cache.get("team:core", () => Promise.resolve(["t"]));
    expect(await cache.get("personal", () => Promise.resolve(["changed"]))).toEqual(["p"]);
    expect(await cache.get("team:core", () => Promise.resolve(["changed"]))).toEqual(["t"]);
  });

  it("shares one request between concurrent misses, and its failure", async () => {
    const cache = new NoteListCache<string>({ clock: fakeClock(), estimate: () => 1 });
    const gate = deferred<string[]>();
    let fetches = 0;
    const fetch = () => {
      fetches += 1;
      return gate.promise;
    };
    const first = cache.get("personal", fetch);
    const second = cache.get("personal", fetch);
    gate.reject(new Error("boom"));
    await expect(first).rejects.toThrow("boom");
    await expect(second).rejects.toThrow("boom");
    expect(fetches).toBe(1);
  });

  it("clears before and after a write, even a failed one, and refetches a list that overlapped it", async () => {
    const cache = new NoteListCache<string>({ clock: fakeClock(), estimate: () => 1 });
    await cache.get("personal", () => Promise.resolve(["old"]));
    await expect(cache.aroundWrite(() => Promise.reject(new Error("write failed")))).rejects.toThrow("write failed");
    expect(await cache.get("personal", () => Promise.resolve(["after-failed-write"]))).toEqual(["after-failed-write"]);

    const writeGate = deferred<void>();
    const write = cache.aroundWrite(() => writeGate.promise);
    let fetches = 0;
    const listing = cache.get("personal", () => {
      fetches += 1;
      if (fetches === 1) writeGate.resolve();
      return Promise.resolve([`list${fetches}`]);
    });
    await write;
    const list = await listing;
    expect(fetches).toBeGreaterThan(1);
    expect(list).toEqual([`list${fetches}`]);
  });

  it("does not store when disabled or when a list exceeds the size cap, and evicts least recently used", async () => {
    const disabled = new NoteListCache<string>({ clock: fakeClock(), ttlMs: 0, estimate: () => 1 });
    let n = 0;
    await disabled.get("k", () => Promise.resolve([`${++n}`]));
    expect(await disabled.get("k", () => Promise.resolve([`${++n}`]))).toEqual(["2"]);

    const small = new NoteListCache<string>({
      clock: fakeClock(),
      maxBytes: 10,
      estimate: (list) => list.join("").length,
    });
    await small.get("big", () => Promise.resolve(["x".repeat(11)]));
    expect(await small.get("big", () => Promise.resolve(["fresh"]))).toEqual(["fresh"]);

    const clock = fakeClock();
    const lru = new NoteListCache<string>({ clock, maxEntries: 2, estimate: () => 1 });
    await lru.get("a", () => Promise.resolve(["a"]));
    clock.advance(1);
    await lru.get("b", () => Promise.resolve(["b"]));
    clock.advance(1);
    await lru.get("a", () => Promise.resolve(["unused"]));
    clock.advance(1);
    await lru.get("c", () => Promise.resolve(["c"]));
    expect(await lru.get("a", () => Promise.resolve(["refetched"]))).toEqual(["a"]);
    expect(await lru.get("b", () => Promise.resolve(["refetched"]))).toEqual(["refetched"]);
  });
});

describe("AccountCache", () => {
  it("keeps user path and teams for 60 s", () => {
    const clock = fakeClock();
    const cache = new AccountCache<string>(clock);
    expect(cache.freshUserPath()).toBeUndefined();
    cache.remember({ userPath: "alice", teams: ["core"] });
    clock.advance(59_999);
    expect(cache.freshUserPath()).toBe("alice");
    expect(cache.freshTeams()).toEqual(["core"]);
    clock.advance(1);
    expect(cache.freshUserPath()).toBeUndefined();
    expect(cache.freshTeams()).toBeUndefined();
  });
});
