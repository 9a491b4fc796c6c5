/**
 * The sync journal's store (src/sync/journal.ts): entries appended and read back filtered,
 * bounded with the oldest dropped first, lines that do not parse skipped, and a process killed
 * with SIGKILL in the middle of its appends leaves every segment parseable.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import esbuild from "esbuild";
import { bodyHash } from "../../src/core/hash";
import { silentLogger, systemSleep } from "../../src/core/ports";
import { NodeLocalFiles } from "../../src/node/local-files";
import { SyncJournal, type JournalDraft } from "../../src/sync/journal";

const STATE = ".hackmd-bridge/sync";

describe("sync journal store", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "hb-journal-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const open = async (bounds: { segmentBytes?: number; maxBytes?: number; later?: number } = {}) => {
    const files = await NodeLocalFiles.open({ root });
    return new SyncJournal({
      files: files.state,
      logger: silentLogger,
      stateFolder: files.root.stateFolder,
      defaultActor: { kind: "user", door: "command" },
      ...(bounds.segmentBytes === undefined ? {} : { segmentBytes: bounds.segmentBytes }),
      ...(bounds.maxBytes === undefined ? {} : { maxBytes: bounds.maxBytes }),
      // Time as a later process sees it: a lock left by a killed writer is stale by then.
      timing: { now: () => Date.now() + (bounds.later ?? 0), sleep: systemSleep },
    });
  };
  const draft = (n: number, extra: Partial<JournalDraft> = {}): JournalDraft => ({
    actor: { kind: n % 2 === 0 ? "agent" : "user", client: "Claude", session: "s1" },
    kind: "push",
    branch: "S3",
    note: { team_path: null, note_id: `n${n}` },
    file: `f${n}.md`,
    ...extra,
  });

  it("appends entries, reads them back oldest first, filters by file, note, actor and kind", async () => {
    const journal = await open();
    for (let n = 0; n < 5; n += 1) await journal.append(draft(n));
    await journal.append(draft(9, { kind: "pull" }));
    const all = await journal.read();
    expect(all.map((entry) => entry.note?.note_id)).toEqual(["n0", "n1", "n2", "n3", "n4", "n9"]);
    expect(new Set(all.map((entry) => entry.id)).size).toBe(6);
    expect((await journal.read({ path: "f3.md" })).map((entry) => entry.file)).toEqual(["f3.md"]);
    expect((await journal.read({ noteId: "n1" })).length).toBe(1);
    expect((await journal.read({ actorKind: "agent" })).length).toBe(3);
    expect((await journal.read({ kind: "pull" })).length).toBe(1);
    expect((await journal.read({ limit: 2 })).map((entry) => entry.note?.note_id)).toEqual(["n4", "n9"]);
  });

  it("keeps replaced text by hash and names the file that holds it", async () => {
    const journal = await open();
    const entry = await journal.append(draft(1, { keep: [{ side: "local", text: "old text\n" }] }));
    const hash = await bodyHash("old text\n");
    expect(entry?.replaced).toEqual([{ side: "local", hash, where: "journal", path: expect.any(String) }]);
    const path = entry?.replaced?.[0]?.path ?? "";
    expect(await readFile(join(root, STATE, path), "utf8")).toBe("old text\n");
    expect(await journal.keptText(hash)).toBe("old text\n");
  });

  it("writes a kept text once: a later entry naming the same text leaves its file alone, one cut short is written anew", async () => {
    const journal = await open();
    const text = "kept body\n".repeat(100);
    const first = await journal.append(draft(1, { keepWritten: text }));
    const file = join(root, STATE, first?.written?.path ?? "");
    const before = await stat(file);
    const second = await journal.append(draft(2, { keep: [{ side: "remote", text }] }));
    expect(second?.replaced?.[0]?.path).toBe(first?.written?.path);
    const after = await stat(file);
    // The atomic write renames a new file into place: another inode had it been written again.
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    await writeFile(file, "kept");
    await journal.append(draft(3, { keepWritten: text }));
    expect(await readFile(file, "utf8")).toBe(text);
    expect(await journal.keptText(await bodyHash(text))).toBe(text);
  });

  it("is bounded: the oldest segment goes first, with the texts only it named", async () => {
    const journal = await open({ segmentBytes: 1024, maxBytes: 4096 });
    for (let n = 0; n < 60; n += 1) await journal.append(draft(n, { keep: [{ side: "remote", text: `t${n}` }] }));
    const segments = (await readdir(join(root, STATE, "journal"))).filter((name) => name.endsWith(".jsonl"));
    expect(segments.length).toBeLessThanOrEqual(4);
    const kept = await journal.read();
    expect(kept.length).toBeLessThan(60);
    expect(kept.at(-1)?.note?.note_id).toBe("n59");
    const ids = kept.map((entry) => Number(entry.note?.note_id.slice(1)));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(await journal.keptText(await bodyHash("t0"))).toBeUndefined();
    expect(await journal.keptText(await bodyHash("t59"))).toBe("t59");
    const texts = await readdir(join(root, STATE, "journal", "text"));
    expect(texts.length).toBe(kept.length);
  });

  it("skips lines that do not parse and appends after them", async () => {
    const journal = await open();
    await journal.append(draft(1));
    const dir = join(root, STATE, "journal");
    const [segment] = await readdir(dir);
    const file = join(dir, segment ?? "");
    await writeFile(file, `${await readFile(file, "utf8")}{"v":1,"id":"cut`);
    await journal.append(draft(2));
    expect((await journal.read()).map((entry) => entry.note?.note_id)).toEqual(["n1", "n2"]);
  });

  it("never holds a token or a body: only what the draft names", async () => {
    const journal = await open();
    await journal.append(draft(1, { keep: [{ side: "remote", text: "secret body" }] }));
    const dir = join(root, STATE, "journal");
    const segment = (await readdir(dir)).find((name) => name.endsWith(".jsonl")) ?? "";
    expect(await readFile(join(dir, segment), "utf8")).not.toContain("secret body");
  });

  it("a process killed with SIGKILL while appending leaves every segment parseable", async () => {
    const build = await mkdtemp(join(tmpdir(), "hb-journal-writer-"));
    try {
      const outfile = join(build, "writer.js");
      await esbuild.build({
        entryPoints: ["tests/sync/helpers/journal-writer.ts"],
        outfile,
        bundle: true,
        platform: "node",
        format: "cjs",
        target: "node20",
        logLevel: "silent",
      });
      for (let round = 0; round < 3; round += 1) {
        const child = spawn(process.execPath, [outfile, root], { stdio: ["ignore", "pipe", "inherit"] });
        // Killed at a different point each round: after 40, 90 and 140 appends (segments rotate every few).
        const target = 40 + round * 50;
        await new Promise<void>((resolve) => {
          let seen = 0;
          child.stdout.on("data", (chunk: Buffer) => {
            seen += chunk.toString().split("\n").length - 1;
            if (seen >= target) {
              child.kill("SIGKILL");
              resolve();
            }
          });
        });
        await new Promise((resolve) => child.once("exit", resolve));
        const dir = join(root, STATE, "journal");
        for (const name of (await readdir(dir)).filter((entry) => entry.endsWith(".jsonl"))) {
          const text = await readFile(join(dir, name), "utf8");
          for (const line of text.split("\n").filter((candidate) => candidate !== ""))
            expect(() => {
              JSON.parse(line);
            }).not.toThrow();
        }
      }
      // A later process (its lock left by the killed writer is stale by its clock) reads and appends.
      const journal = await open({ segmentBytes: 4096, maxBytes: 16384, later: 60_000 });
      const before = (await journal.read()).length;
      expect(before).toBeGreaterThan(0);
      await journal.append(draft(1));
      expect((await journal.read()).at(-1)?.note?.note_id).toBe("n1");
    } finally {
      await rm(build, { recursive: true, force: true });
    }
  });
});
