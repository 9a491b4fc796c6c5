/**
 * Folders that appear between two checks are not dangling symlinks. Many writers
 * creating the same sync-state folder or the same parent folder at once must all succeed, through
 * one adapter, through two adapters on one ROOT (standing in for two processes) and through the
 * MCP tools; a genuinely dangling symlink is still refused.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { BridgeError } from "../../src/core/errors";
import { NodeLocalFiles } from "../../src/node/local-files";
import { ok, startBridge, type CallResult } from "../helpers/bridge";

/** Parallel writers per round; several rounds, each into a fresh ROOT or a fresh folder. */
const WIDTH = 8;
const ROUNDS = 8;

let base: string;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "hackmd-local-files-race-")));
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function freshRoot(name: string): Promise<string> {
  const root = path.join(base, name);
  await fs.mkdir(root);
  return root;
}

/** Settles every promise and returns the messages of the ones that failed. */
async function failures(promises: Array<Promise<unknown>>): Promise<string[]> {
  const settled = await Promise.allSettled(promises);
  return settled.flatMap((entry) =>
    entry.status === "rejected" ? [entry.reason instanceof Error ? entry.reason.message : String(entry.reason)] : [],
  );
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/**
 * Resolves after `n` turns of the event loop. Starting caller i after i turns spreads the callers
 * over each other's check-then-create steps, so some of them look for a folder just before
 * another one creates it (what the network's jitter does to parallel pulls).
 */
function turns(n: number): Promise<void> {
  return new Promise((resolve) => {
    let left = n;
    const step = (): void => {
      if (left-- <= 0) resolve();
      else setImmediate(step);
    };
    step();
  });
}

/** Caller i of a parallel batch, started after i turns of the event loop. */
function staggered<T>(count: number, run: (i: number) => Promise<T>): Array<Promise<T>> {
  return range(count).map((i) => turns(i).then(() => run(i)));
}

describe("concurrent creation of the same folder through the Node adapter", () => {
  it("parallel state writes into a fresh ROOT all succeed and all land", async () => {
    for (const round of range(ROUNDS)) {
      const files = await NodeLocalFiles.open({ root: await freshRoot(`state-${round}`) });
      const writes = staggered(WIDTH, (i) => files.state.write(`tracked/note-${i}.json`, `{"i":${i}}`));
      expect(await failures(writes)).toEqual([]);
      const listed = (await files.state.list("tracked")).map((entry) => entry.name).sort();
      expect(listed).toEqual(
        range(WIDTH)
          .map((i) => `note-${i}.json`)
          .sort(),
      );
      expect((await fs.stat(path.join(files.rootPath, ".hackmd-bridge"))).isDirectory()).toBe(true);
    }
  });

  it("parallel createFolders of one new nested folder all succeed and report the same path", async () => {
    for (const round of range(ROUNDS)) {
      const files = await NodeLocalFiles.open({ root: await freshRoot(`folders-${round}`) });
      const settled = await Promise.allSettled(staggered(WIDTH, () => files.createFolders("a/b/c")));
      expect(settled.flatMap((entry) => (entry.status === "rejected" ? [String(entry.reason)] : []))).toEqual([]);
      for (const entry of settled) expect(entry).toMatchObject({ status: "fulfilled", value: { path: "a/b/c" } });
      // Every level was created by exactly one of the callers; the others found it there.
      const created = settled.flatMap((entry) => (entry.status === "fulfilled" ? entry.value.created : [])).sort();
      expect(created).toEqual(["a", "a/b", "a/b/c"]);
    }
  });

  it("two adapters on one ROOT (two processes) creating the same folders and state at once all succeed", async () => {
    for (const round of range(ROUNDS)) {
      const root = await freshRoot(`two-${round}`);
      const [one, two] = await Promise.all([NodeLocalFiles.open({ root }), NodeLocalFiles.open({ root })]);
      const work = staggered(WIDTH, async (i) => {
        const files = i % 2 === 0 ? one : two;
        await Promise.all([
          files.state.write(`tracked/n-${i}.json`, "{}"),
          files
            .createFolders(`Notes/deep/${i % 3}`)
            .then(() => files.write(`Notes/deep/${i % 3}/f-${i}.md`, `${i}`, { expect: "absent" })),
        ]);
      });
      expect(await failures(work)).toEqual([]);
      expect((await one.state.list("tracked")).length).toBe(WIDTH);
    }
  });

  it("still refuses a genuinely dangling symlink as a parent and as the state folder", async () => {
    const root = await freshRoot("dangling");
    await fs.symlink(path.join(base, "not-there"), path.join(root, "gone"));
    await fs.symlink(path.join(base, "state-not-there"), path.join(root, ".hackmd-bridge"));
    const files = await NodeLocalFiles.open({ root });
    const refusals = await Promise.allSettled([
      files.createFolders("gone/sub"),
      files.write("gone/x.md", "x", { expect: "absent" }),
      files.state.write("tracked/x.json", "{}"),
    ]);
    for (const entry of refusals) {
      expect(entry.status).toBe("rejected");
      const reason = (entry as PromiseRejectedResult).reason as unknown;
      expect(reason).toBeInstanceOf(BridgeError);
      expect(reason).toMatchObject({ kind: "local_access" });
      expect((reason as Error).message).toMatch(/symlink whose target does not exist/);
    }
    await expect(fs.lstat(path.join(base, "not-there"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(fs.lstat(path.join(base, "state-not-there"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("parallel hackmd_pull_note calls through the MCP tools", () => {
  const failedTexts = (results: CallResult[]): string[] =>
    results.filter((result) => result.isError).map((result) => result.content[0]?.text ?? "?");

  async function trackedPaths(
    call: (name: string, args?: Record<string, unknown>) => Promise<CallResult>,
  ): Promise<string[]> {
    const tracked = ok(await call("hackmd_list_notes", { source: "tracked", limit: 100 })) as {
      notes: Array<{ local_path: string }>;
    };
    return tracked.notes.map((note) => note.local_path).sort();
  }

  it("pulls into a fresh ROOT all succeed and every pulled file is tracked", async () => {
    for (const round of range(ROUNDS)) {
      const bridge = await startBridge({ root: await freshRoot(`pull-${round}`) });
      try {
        const { noteIds } = bridge.emu.seed({
          notes: range(WIDTH).map((i) => ({ title: `Race ${i}`, content: `# Race ${i}\n\nbody ${i}\n` })),
        });
        const results = await Promise.all(
          noteIds.map((id, i) => bridge.call("hackmd_pull_note", { note_ref: id, local_path: `race-${i}.md` })),
        );
        expect(failedTexts(results)).toEqual([]);
        const expected = range(WIDTH)
          .map((i) => `race-${i}.md`)
          .sort();
        expect(await trackedPaths(bridge.call)).toEqual(expected);
        for (const i of range(WIDTH))
          expect(await fs.readFile(path.join(bridge.root, `race-${i}.md`), "utf8")).toBe(`# Race ${i}\n\nbody ${i}\n`);
      } finally {
        await bridge.close();
      }
    }
  });

  it("pulls with create_parent_dirs into one new folder all succeed and every pulled file is tracked", async () => {
    const bridge = await startBridge({ root: await freshRoot("pull-dirs") });
    try {
      const { noteIds } = bridge.emu.seed({
        notes: range(WIDTH * ROUNDS).map((i) => ({ title: `Dirs ${i}`, content: `dirs ${i}\n` })),
      });
      const expected: string[] = [];
      for (const round of range(ROUNDS)) {
        const batch = noteIds.slice(round * WIDTH, (round + 1) * WIDTH);
        const paths = batch.map((_, i) => `Round ${round}/sub/pulled-${i}.md`);
        expected.push(...paths);
        const results = await Promise.all(
          batch.map((id, i) =>
            bridge.call("hackmd_pull_note", { note_ref: id, local_path: paths[i], create_parent_dirs: true }),
          ),
        );
        expect(failedTexts(results)).toEqual([]);
      }
      expect(await trackedPaths(bridge.call)).toEqual(expected.sort());
    } finally {
      await bridge.close();
    }
  });
});
