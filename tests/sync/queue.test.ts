import { SyncQueue } from "../../src/sync/queue";

describe("the sync queue (docs/tools.md §13.8)", () => {
  const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

  it("runs operations sharing a key one after another, in arrival order, even when one fails", async () => {
    const queue = new SyncQueue();
    const events: string[] = [];
    const op = (name: string, keys: string[], fail = false) =>
      queue.run(keys, async () => {
        events.push(`${name}:start`);
        await tick();
        events.push(`${name}:end`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([
      op("a", ["note:1", "path:x"], true),
      op("b", ["path:x"]),
      op("c", ["note:1", "path:y"]),
    ]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect(events.indexOf("b:start")).toBeGreaterThan(events.indexOf("a:end"));
    expect(events.indexOf("c:start")).toBeGreaterThan(events.indexOf("a:end"));
    expect(queue.size).toBe(0);
  });

  it("lets operations with disjoint keys overlap", async () => {
    const queue = new SyncQueue();
    const events: string[] = [];
    const op = (name: string, key: string) =>
      queue.run([key], async () => {
        events.push(`${name}:start`);
        await tick();
        events.push(`${name}:end`);
      });
    await Promise.all([op("a", "note:1"), op("b", "note:2")]);
    expect(events.slice(0, 2)).toEqual(["a:start", "b:start"]);
  });
});
