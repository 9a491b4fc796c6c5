/**
 * Automatic rounds keep a mirror whole within the request budget (src/app/mirror-sync.ts
 * `mirrorRoundHook`, src/sync/auto/runner.ts): a first mirror left unfinished is completed by
 * later rounds, at most 25 reads per round, every request counted by the budget; a note created on
 * HackMD appears at the next round; a round with nothing new costs one list. Virtual time.
 */
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { CallContext } from "../../src/hackmd/call-context";
import { RoundLists, startMirror } from "../../src/app/mirror";
import { AUTOMATIC_MIRROR_READS, mirrorRoundHook } from "../../src/app/mirror-sync";
import { RequestBudget } from "../../src/sync/auto/budget";
import { Outbox } from "../../src/sync/auto/outbox";
import { AutoSyncRunner } from "../../src/sync/auto/runner";
import { startBridge, type TestBridge } from "../helpers/bridge";
import { VirtualClock } from "./helpers/virtual-clock";

let bridge: TestBridge;
let clock: VirtualClock;

beforeAll(async () => {
  clock = new VirtualClock(Date.UTC(2026, 5, 10, 12));
  bridge = await startBridge({
    emulator: { seed: "empty", clock: () => clock.now() },
    clock,
    sleep: clock.sleep,
    cacheTtlMs: 0,
  });
});

afterAll(async () => {
  await bridge.close();
});

test("rounds finish a mirror 25 reads at a time, take new notes, and cost one list when nothing changed", async () => {
  const past = clock.now() - 3_600_000;
  bridge.emu.seed({
    notes: Array.from({ length: 60 }, (_, i) => ({
      title: `Auto ${i}`,
      content: `# Auto ${i}\n`,
      lastChangedAt: past,
    })),
  });
  const deps = bridge.core.deps;
  const trash = { trash: () => Promise.resolve("the trash") };
  // Bound by hand with no read yet: the rounds do the fetching.
  const call = new CallContext();
  const bound = await startMirror(deps, {
    target: { teamPath: null, folderPath: "" },
    localDir: "Mirror",
    host: trash,
    lists: new RoundLists(deps, call),
    call,
    maxReads: 0,
  });
  expect(bound.complete).toBe(false);
  bridge.emu.clearRequests();
  const storage = {
    text: undefined as string | undefined,
    load: () => Promise.resolve(storage.text),
    save: (text: string) => {
      storage.text = text;
      return Promise.resolve();
    },
  };
  const budget = new RequestBudget({ monthly: "unlimited", storage });
  await budget.load(clock.now());
  const runner = new AutoSyncRunner(
    {
      client: deps.client,
      files: deps.files,
      sync: deps.sync,
      clock,
      sleep: clock.sleep,
      budget,
      outbox: new Outbox(deps.files.state),
      roundMirrors: () => mirrorRoundHook(deps, { host: trash }),
    },
    {},
  );
  runner.start(clock.now());
  const round = async (): Promise<string[]> => {
    const before = bridge.emu.requests().at(-1)?.seq ?? 0;
    for (let steps = 0; steps < 50; steps += 1) {
      const wake = await runner.nextWake(clock.now());
      clock.advance(Math.max(0, wake - clock.now()));
      const report = await runner.step(clock.now());
      if (report.round !== undefined) break;
    }
    return bridge.emu
      .requests({ since: before })
      .filter((e) => e.seq > before)
      .map((e) => e.route ?? e.path);
  };
  const files = async (): Promise<number> =>
    existsSync(join(bridge.root, "Mirror")) ? (await readdir(join(bridge.root, "Mirror"))).length : 0;

  const first = await round();
  expect(first.filter((r) => r === "GET /notes")).toHaveLength(1);
  expect(first.filter((r) => r === "GET /notes/:noteId")).toHaveLength(AUTOMATIC_MIRROR_READS);
  expect(await files()).toBe(25);
  await round();
  await round();
  expect(await files()).toBe(60);
  // The budget counted every request the rounds sent.
  expect(budget.used(clock.now())).toBe(bridge.emu.requests().length);

  bridge.emu.seed({ notes: [{ title: "Fresh", content: "# Fresh\n", lastChangedAt: clock.now() }] });
  const withNew = await round();
  expect(withNew.filter((r) => r === "GET /notes")).toHaveLength(1);
  expect(await files()).toBe(61);
  clock.advance(60_000);
  await round(); // the new note's timestamp settles (SETTLE_MS): one more read of it
  expect(await round()).toEqual(["GET /notes"]);
  runner.stop();
});
