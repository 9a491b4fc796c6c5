/**
 * An automatic-sync world for tests: the emulator and a core sharing one virtual clock, tracked
 * notes pulled for real, and a runner over the core's SyncService with its budget in memory and
 * its outbox in the state folder. The loop advances the clock to the runner's next wake-up or the
 * next scripted event, whichever comes first; nothing waits for real time.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CallContext } from "../../../src/hackmd/call-context";
import { RequestBudget, type BudgetStorage, type MonthlyBudget } from "../../../src/sync/auto/budget";
import { Outbox } from "../../../src/sync/auto/outbox";
import { AutoSyncRunner, type AutoSyncOptions, type StepReport } from "../../../src/sync/auto/runner";
import { startBridge, type TestBridge } from "../../helpers/bridge";
import { VirtualClock } from "./virtual-clock";

export const TEAM = "sandbox-team";

/** A tracked note of the world. */
export interface WorldNote {
  id: string;
  teamPath: string | null;
  localPath: string;
}

export interface AutoWorld {
  bridge: TestBridge;
  clock: VirtualClock;
  notes: WorldNote[];
  budget: RequestBudget;
  outbox: Outbox;
  runner: AutoSyncRunner;
  storage: BudgetStorage & { text: string | undefined };
  /** A new runner over the same state folder and budget storage (a restart). */
  restart(options?: AutoSyncOptions & { monthly?: MonthlyBudget }): Promise<void>;
  /** Edits a working file and tells the runner, as a host's file watcher would. */
  editLocal(note: WorldNote, text: string): Promise<void>;
  readLocal(note: WorldNote): Promise<string>;
  remoteBody(note: WorldNote): string;
  /** Steps the runner whenever it is due until `until`, calling `onReport` per step. */
  runUntil(until: number, onReport?: (report: StepReport) => unknown): Promise<void>;
  close(): Promise<void>;
}

/** Starts a world of `count` tracked notes, half personal and half in the team (two workspaces). */
export async function startAutoWorld(options: {
  start: number;
  count: number;
  monthly?: MonthlyBudget;
  runner?: AutoSyncOptions;
  windowLimit?: number;
}): Promise<AutoWorld> {
  // Setup happens ten minutes before `start`, so its pulls are out of HackMD's window by then.
  const clock = new VirtualClock(options.start - 10 * 60_000);
  const bridge = await startBridge({
    emulator: {
      seed: "demo",
      clock: () => clock.now(),
      ...(options.windowLimit === undefined
        ? {}
        : { quirks: { rateLimit: { enabled: true, windowLimit: options.windowLimit } } }),
    },
    clock,
    sleep: clock.sleep,
    cacheTtlMs: 0,
  });
  const past = options.start - 3_600_000;
  const specs = Array.from({ length: options.count }, (_, i) => ({
    id: `auto-note-${String(i).padStart(4, "0")}`,
    teamPath: i % 2 === 0 ? null : TEAM,
  }));
  bridge.emu.seed({
    notes: specs.map((spec, i) => ({
      id: spec.id,
      title: `Auto ${i}`,
      content: `# Auto ${i}\n\nFirst line of note ${i}.\n`,
      createdAt: past,
      lastChangedAt: past,
      ...(spec.teamPath === null ? {} : { workspace: { team: spec.teamPath } }),
    })),
  });
  const notes: WorldNote[] = [];
  for (const [i, spec] of specs.entries()) {
    const localPath = `auto/note-${i}.md`;
    await bridge.core.deps.sync.pull({
      localPath,
      resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: spec.teamPath, noteId: spec.id }),
      overwriteLocal: false,
      discardLocalChanges: false,
      createParentDirs: true,
      confirmLargeFile: false,
      call: new CallContext(),
    });
    notes.push({ ...spec, localPath });
  }
  bridge.emu.clearRequests();
  clock.advance(options.start - clock.now());
  const storage: BudgetStorage & { text: string | undefined } = {
    text: undefined,
    load: () => Promise.resolve(storage.text),
    save: (text) => {
      storage.text = text;
      return Promise.resolve();
    },
  };
  const outbox = new Outbox(bridge.core.deps.files.state);
  const make = async (
    monthly: MonthlyBudget,
    runnerOptions: AutoSyncOptions | undefined,
  ): Promise<{ budget: RequestBudget; runner: AutoSyncRunner }> => {
    const budget = new RequestBudget({
      monthly,
      storage,
      ...(options.windowLimit === undefined ? {} : { windowLimit: options.windowLimit }),
    });
    await budget.load(clock.now());
    const { client, files, sync } = bridge.core.deps;
    const runner = new AutoSyncRunner(
      { client, files, sync, clock, sleep: clock.sleep, budget, outbox },
      runnerOptions,
    );
    runner.start(clock.now());
    return { budget, runner };
  };
  const first = await make(options.monthly ?? 2_000, options.runner);
  const world: AutoWorld = {
    bridge,
    clock,
    notes,
    budget: first.budget,
    outbox,
    runner: first.runner,
    storage,
    restart: async (again = {}) => {
      world.runner.stop();
      const next = await make(again.monthly ?? options.monthly ?? 2_000, { ...options.runner, ...again });
      world.budget = next.budget;
      world.runner = next.runner;
    },
    editLocal: async (note, text) => {
      await writeFile(join(bridge.root, note.localPath), text);
      world.runner.fileChanged(note.localPath, clock.now());
    },
    readLocal: (note) => readFile(join(bridge.root, note.localPath), "utf8"),
    remoteBody: (note) => bridge.emu.inspect().notes.find((state) => state.id === note.id)?.content ?? "",
    runUntil: async (until, onReport) => {
      for (;;) {
        const wake = await world.runner.nextWake(clock.now());
        if (wake > until) {
          clock.advance(until - clock.now());
          return;
        }
        clock.advance(wake - clock.now());
        const report = await world.runner.step(clock.now());
        await onReport?.(report);
      }
    },
    close: async () => {
      world.runner.stop();
      await bridge.close();
    },
  };
  return world;
}
