import { BodyLoader, type BodyLoaderOptions } from "../../src/obsidian/body-loader";

interface Body {
  heard: string[];
}

/** A loader whose start the test finishes (or fails) when it chooses. */
function loaderFor(overrides: Partial<BodyLoaderOptions<Body>> = {}) {
  const log: string[] = [];
  let finish: (body: Body) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  let starts = 0;
  let stoppedAtStart: (() => boolean) | undefined;
  const loader = new BodyLoader<Body>({
    start: (stopped) => {
      starts += 1;
      stoppedAtStart = stopped;
      return new Promise<Body>((resolve, reject) => {
        finish = resolve;
        fail = reject;
      });
    },
    ready: (body) => {
      log.push(`ready after ${body.heard.length} events`);
      return Promise.resolve();
    },
    failed: (error) => log.push(`failed: ${(error as Error).message}`),
    ...overrides,
  });
  return { loader, log, finish: (body: Body) => finish(body), fail: (error: Error) => fail(error), starts: () => starts, stopped: () => stoppedAtStart?.() };
}

it("starts once for every caller, hands the kept events over in order, then delivers at once", async () => {
  const t = loaderFor();
  t.loader.deliver((body) => body.heard.push("rename"));
  t.loader.deliver((body) => body.heard.push("modify"));
  expect(t.loader.kept).toBe(2);
  const first = t.loader.load();
  const second = t.loader.load();
  expect(t.loader.current).toBeUndefined();
  const body: Body = { heard: [] };
  t.finish(body);
  await expect(first).resolves.toBe(body);
  await expect(second).resolves.toBe(body);
  expect(t.starts()).toBe(1);
  expect(t.log).toEqual(["ready after 2 events"]);
  expect(body.heard).toEqual(["rename", "modify"]);
  expect(t.loader.kept).toBe(0);
  t.loader.deliver((b) => b.heard.push("typed"));
  expect(body.heard).toEqual(["rename", "modify", "typed"]);
});

it("a failed start is reported at each use, and nothing more is kept for the body", async () => {
  const t = loaderFor();
  t.loader.deliver((body) => body.heard.push("modify"));
  const first = t.loader.load();
  t.fail(new Error("data.json is unreadable"));
  await expect(first).rejects.toThrow("data.json is unreadable");
  expect(t.loader.kept).toBe(0);
  t.loader.deliver((body) => body.heard.push("typed"));
  expect(t.loader.kept).toBe(0);
  await expect(t.loader.load()).rejects.toThrow("data.json is unreadable");
  expect(t.starts()).toBe(1);
  expect(t.log).toEqual(["failed: data.json is unreadable", "failed: data.json is unreadable"]);
  expect(t.loader.current).toBeUndefined();
});

it("stopped while starting: the start sees it, nothing is kept, and its failure is not reported", async () => {
  const t = loaderFor();
  const loading = t.loader.load();
  t.loader.deliver((body) => body.heard.push("modify"));
  t.loader.stop();
  expect(t.stopped()).toBe(true);
  expect(t.loader.kept).toBe(0);
  t.loader.deliver((body) => body.heard.push("typed"));
  expect(t.loader.kept).toBe(0);
  t.fail(new Error("HackMD Bridge was unloaded while it started"));
  await expect(loading).rejects.toThrow(/unloaded/);
  expect(t.log).toEqual([]);
});
