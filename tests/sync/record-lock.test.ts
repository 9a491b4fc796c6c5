/**
 * The record lock (src/sync/record-lock.ts): record rewrites of two processes over one state
 * folder do not interleave. Two stores over two NodeLocalFiles instances stand in for the plugin
 * and the command; the lock file is real, created with O_EXCL.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../../src/core/hash";
import { silentLogger, type Logger } from "../../src/core/ports";
import type { StateFiles } from "../../src/core/local-files";
import { NodeLocalFiles } from "../../src/node/local-files";
import {
  BREAK_STALE_MS,
  breakIfUnchanged,
  LOCK_STALE_MS,
  LOCK_WAIT_MS,
  type LockTiming,
} from "../../src/sync/record-lock";
import {
  baselineFile,
  RecordChangedError,
  recordKey,
  SaveSkipped,
  SyncStateStore,
  type SyncRecord,
} from "../../src/sync/store";

const STATE = ".hackmd-bridge/sync";
const KEY = recordKey(null, "n1");

describe("the record lock (one record rewrite at a time across processes)", () => {
  let root: string;
  const warnings: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (event) => void warnings.push(event) };
  const lockFile = (): string => join(root, STATE, "locks", `${KEY}.lock`);

  /** A fake clock whose sleeps move it, with a hook run at each sleep. */
  function fakeTiming(
    onSleep: (now: number) => Promise<void> = async () => undefined,
  ): LockTiming & { sleeps: number } {
    let now = 1_000_000;
    const timing = {
      sleeps: 0,
      now: () => now,
      sleep: async (ms: number) => {
        timing.sleeps += 1;
        now += ms;
        await onSleep(now);
      },
    };
    return timing;
  }

  async function storeOver(timing?: LockTiming): Promise<SyncStateStore> {
    const files = await NodeLocalFiles.open({ root });
    return new SyncStateStore({ files: files.state, logger, stateFolder: STATE, ...(timing ? { timing } : {}) });
  }

  async function readStored(): Promise<{ record: SyncRecord; baselineHash: string }> {
    const record = JSON.parse(await readFile(join(root, STATE, "tracked", `${KEY}.json`), "utf8")) as SyncRecord;
    const baseline = await readFile(join(root, STATE, baselineFile(KEY)));
    return { record, baselineHash: `sha256:${await sha256Hex(baseline)}` };
  }

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "hb-lock-"));
    warnings.length = 0;
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("exclusive create: the second create of one file is refused; the file is private and the lock goes when the save ends", async () => {
    const files = await NodeLocalFiles.open({ root });
    expect(await files.state.create("locks/x.lock", "a 1\n")).toBe(true);
    expect(await files.state.create("locks/x.lock", "b 2\n")).toBe(false);
    expect(await readFile(join(root, STATE, "locks/x.lock"), "utf8")).toBe("a 1\n");
    expect((await stat(join(root, STATE, "locks/x.lock"))).mode & 0o777).toBe(0o600);
    const store = await storeOver();
    await store.save({
      teamPath: null,
      noteId: "n1",
      localPath: "a.md",
      baseline: "one\n",
      timestamp: "",
      expect: "absent",
    });
    expect(await readdir(join(root, STATE, "locks"))).toEqual(["x.lock"]);
  });

  it("a save whose working file is gone by the time it holds the lock writes nothing (the take-back of a file another pull created)", async () => {
    const store = await storeOver();
    await writeFile(join(root, "a.md"), "one\n");
    let checkedUnderLock = false;
    await expect(
      store.save({
        teamPath: null,
        noteId: "n1",
        localPath: "a.md",
        baseline: "one\n",
        timestamp: "",
        expect: "absent",
        fileStillThere: async () => {
          checkedUnderLock = (await readdir(join(root, STATE, "locks"))).includes(`${KEY}.lock`);
          await rm(join(root, "a.md"));
          return false;
        },
      }),
    ).rejects.toThrow(SaveSkipped);
    expect(checkedUnderLock).toBe(true);
    await expect(readFile(join(root, STATE, "tracked", `${KEY}.json`), "utf8")).rejects.toThrow();
    expect(await store.findByPath("a.md")).toBeUndefined();
  });

  it("two processes saving one note at once: one wins, the other is told the record changed, and record and baseline agree", async () => {
    // Without the lock the two saves interleave (baseline A, baseline B, record B, record A) and
    // leave a record whose hash is not its baseline's. Many rounds make that interleaving likely.
    for (let round = 0; round < 30; round += 1) {
      await rm(join(root, STATE), { recursive: true, force: true });
      const [plugin, command] = [await storeOver(), await storeOver()];
      const outcomes = await Promise.allSettled([
        plugin.save({
          teamPath: null,
          noteId: "n1",
          localPath: "a.md",
          baseline: `plugin ${round}\n`,
          timestamp: "",
          expect: "absent",
        }),
        command.save({
          teamPath: null,
          noteId: "n1",
          localPath: "b.md",
          baseline: `command ${round}\n`,
          timestamp: "",
          expect: "absent",
        }),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      const refused = outcomes.find((outcome) => outcome.status === "rejected");
      expect(refused?.reason).toBeInstanceOf(RecordChangedError);
      const { record, baselineHash } = await readStored();
      expect(record.baseline_body_hash).toBe(baselineHash);
    }
  });

  it("a save waits while another process holds the lock and proceeds once it is released", async () => {
    await mkdir(join(root, STATE, "locks"), { recursive: true });
    const timing = fakeTiming(async () => {
      if (timing.sleeps === 5) await rm(lockFile());
    });
    await writeFile(lockFile(), `other ${timing.now()}\n`);
    const store = await storeOver(timing);
    await store.save({ teamPath: null, noteId: "n1", localPath: "a.md", baseline: "one\n", timestamp: "" });
    expect(timing.sleeps).toBe(5);
    expect((await readStored()).record.local_path).toBe("a.md");
    expect(warnings).not.toContain("sync_lock_broken");
  });

  it("a lock older than the stale age (a process died in a rewrite) is broken, logged and taken", async () => {
    await mkdir(join(root, STATE, "locks"), { recursive: true });
    const timing = fakeTiming();
    await writeFile(lockFile(), `dead ${timing.now() - LOCK_STALE_MS - 1}\n`);
    const store = await storeOver(timing);
    await store.save({ teamPath: null, noteId: "n1", localPath: "a.md", baseline: "one\n", timestamp: "" });
    expect(warnings).toContain("sync_lock_broken");
    expect(timing.sleeps).toBe(0);
    await expect(stat(lockFile())).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("a lock with no readable time is broken once it has stayed the same for the stale age", async () => {
    await mkdir(join(root, STATE, "locks"), { recursive: true });
    await writeFile(lockFile(), "");
    const timing = fakeTiming();
    const store = await storeOver(timing);
    await store.move(
      await store.save({ teamPath: null, noteId: "n1", localPath: "a.md", baseline: "one\n", timestamp: "" }),
      "b.md",
    );
    expect(warnings.filter((event) => event === "sync_lock_broken")).toHaveLength(1);
    expect((await readStored()).record.local_path).toBe("b.md");
  });

  it("a lock whose time lies in the future (the clock was set back since a process died in a rewrite) is broken once it has stayed the same for the stale age", async () => {
    await mkdir(join(root, STATE, "locks"), { recursive: true });
    const timing = fakeTiming();
    await writeFile(lockFile(), `dead ${timing.now() + 365 * 24 * 3_600_000}\n`);
    const store = await storeOver(timing);
    await store.save({ teamPath: null, noteId: "n1", localPath: "a.md", baseline: "one\n", timestamp: "" });
    expect(warnings).toContain("sync_lock_broken");
    expect(timing.now() - 1_000_000).toBeLessThan(LOCK_WAIT_MS);
    expect((await readStored()).record.local_path).toBe("a.md");
  });

  it("a lock that is taken again and again gives up after the wait with local_io naming the lock file, and writes nothing", async () => {
    await mkdir(join(root, STATE, "locks"), { recursive: true });
    const timing = fakeTiming(async (now) => writeFile(lockFile(), `busy-${now} ${now}\n`));
    await writeFile(lockFile(), `busy ${timing.now()}\n`);
    const store = await storeOver(timing);
    const failure = await store
      .save({ teamPath: null, noteId: "n1", localPath: "a.md", baseline: "one\n", timestamp: "" })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: "local_io" });
    expect((failure as Error).message).toContain(`${STATE}/locks/${KEY}.lock`);
    expect(timing.now() - 1_000_000).toBeGreaterThan(LOCK_WAIT_MS);
    await expect(stat(join(root, STATE, "tracked"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("loading a record another process saved again since it was read gives the newer record, not a false 'damaged'", async () => {
    const store = await storeOver();
    const first = await store.save({
      teamPath: null,
      noteId: "n1",
      localPath: "a.md",
      baseline: "one\n",
      timestamp: "",
    });
    const other = await storeOver();
    await other.save({
      teamPath: null,
      noteId: "n1",
      localPath: "a.md",
      baseline: "two\n",
      timestamp: "",
      expect: { local_path: "a.md", baseline_body_hash: first.record.baseline_body_hash },
    });
    const loaded = await store.load(first);
    expect(loaded.baseline).toBe("two\n");
    expect(loaded.record.baseline_body_hash).not.toBe(first.record.baseline_body_hash);
    // Saved for another file meanwhile: the caller is told its view is stale.
    const moved = await other.move(loaded, "b.md");
    await other.save({
      teamPath: null,
      noteId: "n1",
      localPath: "b.md",
      baseline: "three\n",
      timestamp: "",
      expect: { local_path: "b.md", baseline_body_hash: moved.record.baseline_body_hash },
    });
    await expect(store.load(loaded)).rejects.toBeInstanceOf(RecordChangedError);
    // A baseline really damaged stays reported.
    await writeFile(join(root, STATE, baselineFile(KEY)), "garbage\n");
    const current = await store.findByNote(null, "n1");
    await expect(store.load(current!)).rejects.toMatchObject({ kind: "sync_state" });
  });

  it("untrack with an expectation refuses a record another process changed, and removes nothing", async () => {
    const store = await storeOver();
    const saved = await store.save({
      teamPath: null,
      noteId: "n1",
      localPath: "a.md",
      baseline: "one\n",
      timestamp: "",
    });
    const other = await storeOver();
    await other.move(saved, "b.md");
    await expect(
      store.remove(null, "n1", { local_path: "a.md", baseline_body_hash: saved.record.baseline_body_hash }),
    ).rejects.toBeInstanceOf(RecordChangedError);
    expect((await readStored()).record.local_path).toBe("b.md");
  });

  it("two waiters breaking one stale lock: the second cannot remove the lock while the first re-reads and removes it, so a retaken lock is never removed by the other", async () => {
    const files = await NodeLocalFiles.open({ root });
    const lock = "locks/race.lock";
    expect(await files.state.create(lock, "dead 1\n")).toBe(true);
    // The first waiter stops between its re-read and its removal.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const state = files.state;
    const paused: StateFiles = Object.assign(Object.create(state) as StateFiles, {
      remove: async (path: string) => {
        if (path === lock) await gate;
        return state.remove(path);
      },
    });
    const broken: string[] = [];
    const first = breakIfUnchanged({
      files: paused,
      lock,
      judged: "dead 1\n",
      now: 1_000_000,
      onBreak: () => void broken.push("first"),
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(broken).toEqual(["first"]);
    // The second waiter judged the same stale lock: it must not remove it now (before, it did,
    // took the lock afresh, and the first then removed that fresh lock).
    const second = await breakIfUnchanged({
      files: files.state,
      lock,
      judged: "dead 1\n",
      now: 1_000_000,
      onBreak: () => void broken.push("second"),
    });
    expect(second).toBe(false);
    expect(await readFile(join(root, STATE, lock), "utf8")).toBe("dead 1\n");
    open();
    expect(await first).toBe(true);
    expect(broken).toEqual(["first"]);
    // The second takes the lock now; a later break judged on the dead text leaves it alone.
    expect(await files.state.create(lock, "second 2\n")).toBe(true);
    expect(
      await breakIfUnchanged({
        files: files.state,
        lock,
        judged: "dead 1\n",
        now: 1_000_001,
        onBreak: () => void broken.push("late"),
      }),
    ).toBe(false);
    expect(await readFile(join(root, STATE, lock), "utf8")).toBe("second 2\n");
    expect(broken).toEqual(["first"]);
  });

  it("a breaker file left by a process killed while breaking is cleared once old (or dated after now), so the lock can still be broken", async () => {
    const files = await NodeLocalFiles.open({ root });
    const lock = "locks/left.lock";
    expect(await files.state.create(lock, "dead 1\n")).toBe(true);
    expect(await files.state.create(`${lock}.break`, "1000000\n")).toBe(true);
    const tryAt = (now: number): Promise<boolean> =>
      breakIfUnchanged({ files: files.state, lock, judged: "dead 1\n", now, onBreak: () => undefined });
    expect(await tryAt(1_000_000 + BREAK_STALE_MS)).toBe(false); // fresh: another waiter may be breaking
    expect(await tryAt(1_000_000 + BREAK_STALE_MS + 1)).toBe(false); // old: cleared, look again
    expect(await tryAt(1_000_000 + BREAK_STALE_MS + 2)).toBe(true);
    expect(await files.state.create(`${lock}.break`, "9999999999999\n")).toBe(true);
    expect(await files.state.create(lock, "dead 2\n")).toBe(true);
    const next = (now: number): Promise<boolean> =>
      breakIfUnchanged({ files: files.state, lock, judged: "dead 2\n", now, onBreak: () => undefined });
    expect(await next(2_000_000)).toBe(false); // dated after now: cleared
    expect(await next(2_000_001)).toBe(true);
  });
});
