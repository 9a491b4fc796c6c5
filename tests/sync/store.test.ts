import { mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../../src/core/hash";
import { silentLogger, type Logger } from "../../src/core/ports";
import { NodeLocalFiles } from "../../src/node/local-files";
import {
  encodeKeyPart,
  expectationOf,
  isWellFormedKey,
  RecordChangedError,
  recordKey,
  SyncStateStore,
} from "../../src/sync/store";

describe("the sync state store (docs/tools.md §13)", () => {
  let root: string;
  let files: NodeLocalFiles;
  let store: SyncStateStore;
  const warnings: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (event) => void warnings.push(event) };
  const state = (): string => join(root, ".hackmd-bridge/sync");

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "hb-store-"));
    files = await NodeLocalFiles.open({ root });
    store = new SyncStateStore({ files: files.state, logger });
    warnings.length = 0;
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const save = (noteId: string, localPath: string, baseline = "body\n", teamPath: string | null = null) =>
    store.save({ teamPath, noteId, localPath, baseline, timestamp: "123" });

  /** Replaces a state file as every writer of docs/tools.md §13.6 does: a temporary file, then a rename. */
  const replaceFile = async (file: string, text: string): Promise<void> => {
    await writeFile(`${file}.tmp`, text);
    await rename(`${file}.tmp`, file);
  };

  it("encodes keys: personal--note%2Fid, team--team%2Fpath--note%2Fid, note-id → note%2Did", () => {
    expect(recordKey(null, "note/id")).toBe("personal--note%2Fid");
    expect(recordKey("team/path", "note/id")).toBe("team--team%2Fpath--note%2Fid");
    expect(encodeKeyPart("note-id")).toBe("note%2Did");
    expect(encodeKeyPart("Az09_.é ")).toBe("Az09_.%C3%A9%20");
    expect(isWellFormedKey("personal--a%2Fb")).toBe(true);
    for (const bad of ["other--x", "personal--a/b", "personal--%2", "personal--%zz", "personal--%2f"])
      expect(isWellFormedKey(bad)).toBe(false);
  });

  it("writes nothing when created; the first save writes baseline, pretty record and hint with 0600/0700", async () => {
    expect(await readdir(root)).toEqual([]);
    await save("aB3", "Notes/a.md", "exact\r\nbytes\n");
    const key = "personal--aB3";
    expect(await readFile(join(state(), `tracked/${key}.baseline.md`), "utf8")).toBe("exact\r\nbytes\n");
    const text = await readFile(join(state(), `tracked/${key}.json`), "utf8");
    expect(JSON.parse(text)).toEqual({
      format: 1,
      internal_id: "aB3",
      team_path: null,
      local_path: "Notes/a.md",
      baseline_body_hash: `sha256:${await sha256Hex("exact\r\nbytes\n")}`,
      last_observed_remote_timestamp: "123",
    });
    expect(text).toContain('\n  "format": 1,');
    const hint = join(state(), `by-path/${await sha256Hex("Notes/a.md")}`);
    expect(await readFile(hint, "utf8")).toBe(key);
    if (process.platform !== "win32") {
      expect((await stat(join(state(), `tracked/${key}.json`))).mode & 0o777).toBe(0o600);
      expect((await stat(join(state(), "tracked"))).mode & 0o777).toBe(0o700);
      expect((await stat(hint)).mode & 0o777).toBe(0o600);
    }
  });

  it("a save that only moves the timestamp rewrites the record alone; a baseline or hint that differs on disk is rewritten", async () => {
    const key = "personal--aB3";
    const baseline = join(state(), `tracked/${key}.baseline.md`);
    const hint = join(state(), `by-path/${await sha256Hex("Notes/a.md")}`);
    await save("aB3", "Notes/a.md", "same\n");
    const [baselineBefore, hintBefore] = [await stat(baseline), await stat(hint)];
    await store.save({ teamPath: null, noteId: "aB3", localPath: "Notes/a.md", baseline: "same\n", timestamp: "456" });
    expect((await stat(baseline)).ino).toBe(baselineBefore.ino);
    expect((await stat(hint)).ino).toBe(hintBefore.ino);
    expect(JSON.parse(await readFile(join(state(), `tracked/${key}.json`), "utf8"))).toMatchObject({
      last_observed_remote_timestamp: "456",
    });

    // Damaged on disk while the record keeps the same hash (a crash, another writer): both rewritten.
    await replaceFile(baseline, "damaged\n");
    await replaceFile(hint, "personal--other");
    await store.save({ teamPath: null, noteId: "aB3", localPath: "Notes/a.md", baseline: "same\n", timestamp: "789" });
    expect(await readFile(baseline, "utf8")).toBe("same\n");
    expect(await readFile(hint, "utf8")).toBe(key);
    expect((await store.load((await store.findByPath("Notes/a.md"))!)).baseline).toBe("same\n");
  });

  it("never stores a token or unknown fields, and ignores unknown fields when reading", async () => {
    await save("n1", "a.md");
    const file = join(state(), "tracked/personal--n1.json");
    expect(await readFile(file, "utf8")).not.toMatch(/token|authorization|bearer/i);
    const json = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...json, future_field: 1 }));
    expect((await store.findByPath("a.md"))?.record.internal_id).toBe("n1");
  });

  it("finds by the hint, survives a lost, stale or malformed hint by scanning, and loads the verified baseline", async () => {
    await save("n1", "a.md", "one\n");
    await save("n2", "b.md", "two\n", "team/x");
    const loaded = await store.load((await store.findByPath("b.md"))!);
    expect(loaded).toMatchObject({ key: "team--team%2Fx--n2", baseline: "two\n" });
    const hint = join(state(), `by-path/${await sha256Hex("a.md")}`);
    await rm(hint);
    expect((await store.findByPath("a.md"))?.key).toBe("personal--n1");
    await writeFile(hint, "team--team%2Fx--n2"); // a hint to another file
    expect((await store.findByPath("a.md"))?.key).toBe("personal--n1");
    await writeFile(hint, "../../etc/passwd");
    expect((await store.findByPath("a.md"))?.key).toBe("personal--n1");
    expect(await store.findByPath("c.md")).toBeUndefined();
    expect((await store.findByNote("team/x", "n2"))?.record.local_path).toBe("b.md");
  });

  it("skips unrelated corrupt records with a warning, but a corrupt record behind the hint is sync_state", async () => {
    await save("n1", "a.md");
    await writeFile(join(state(), "tracked/personal--junk.json"), "{not json");
    expect((await store.findByPath("a.md"))?.key).toBe("personal--n1");
    await rm(join(state(), `by-path/${await sha256Hex("a.md")}`));
    expect((await store.findByPath("a.md"))?.key).toBe("personal--n1");
    expect(warnings).toContain("sync_record_skipped");
    await writeFile(join(state(), "tracked/personal--n1.json"), "{broken");
    await writeFile(join(state(), `by-path/${await sha256Hex("a.md")}`), "personal--n1");
    await expect(store.findByPath("a.md")).rejects.toMatchObject({
      kind: "sync_state",
      message: expect.stringMatching(/corrupt/),
    });
    // A corrupt record is repaired by saving over it.
    await save("n1", "a.md");
    expect((await store.findByPath("a.md"))?.key).toBe("personal--n1");
  });

  it("treats a higher format and a key that does not match its record as damaged", async () => {
    await save("n1", "a.md");
    const file = join(state(), "tracked/personal--n1.json");
    const json = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...json, format: 2 }));
    expect(await store.readRecord("personal--n1")).toMatch(/newer version/);
    await expect(store.findByPath("a.md")).rejects.toMatchObject({ kind: "sync_state" });
    await writeFile(file, JSON.stringify({ ...json, internal_id: "other" }));
    expect(await store.readRecord("personal--n1")).toMatch(/key does not match/);
  });

  it("refuses two records naming one file with sync_state", async () => {
    await save("n1", "a.md");
    await save("n2", "b.md");
    const file = join(state(), "tracked/personal--n2.json");
    const json = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    await replaceFile(file, JSON.stringify({ ...json, local_path: "a.md" }));
    await rm(join(state(), `by-path/${await sha256Hex("a.md")}`));
    await expect(store.findByPath("a.md")).rejects.toMatchObject({
      kind: "sync_state",
      message: expect.stringMatching(/More than one sync record.*untrack/),
    });
    expect(await store.inspectPath("a.md")).toEqual({ kind: "several", keys: ["personal--n1", "personal--n2"] });
  });

  it("names the repair when the baseline is missing, and refuses a baseline that does not match", async () => {
    await save("n1", "Notes/a.md", "one\n", "team-x");
    const found = (await store.findByPath("Notes/a.md"))!;
    await writeFile(join(state(), "tracked/team--team%2Dx--n1.baseline.md"), "changed\n");
    await expect(store.load(found)).rejects.toMatchObject({
      kind: "sync_state",
      message: expect.stringMatching(/does not match its recorded hash; pull/),
    });
    await rm(join(state(), "tracked/team--team%2Dx--n1.baseline.md"));
    await expect(store.load(found)).rejects.toMatchObject({
      kind: "sync_state",
      message: "The baseline of Notes/a.md is missing; pull note n1 from team team-x to Notes/a.md again.",
    });
  });

  it("on save removes displaced records of other notes and the old hint, and carries the snapshot hash only for the same file", async () => {
    const first = await save("n1", "a.md");
    await store.setSnapshotHash(first, "sha256:" + "a".repeat(64));
    await save("n1", "a.md", "again\n");
    expect((await store.findByPath("a.md"))?.record.remote_snapshot_hash).toBe("sha256:" + "a".repeat(64));
    await save("n1", "moved.md");
    expect((await store.findByPath("moved.md"))?.record.remote_snapshot_hash).toBeUndefined();
    const hints = await readdir(join(state(), "by-path"));
    expect(hints).toEqual([await sha256Hex("moved.md")]);
    await save("n2", "moved.md");
    expect(await readdir(join(state(), "tracked"))).toEqual(["personal--n2.baseline.md", "personal--n2.json"]);
  });

  it("removes record, baseline and own hint; lists personal first, then teams by path, each by note id", async () => {
    await save("b", "1.md", "x", "zeta");
    await save("z", "2.md");
    await save("a", "3.md", "x", "alpha");
    await save("Y", "4.md");
    expect((await store.list()).map((entry) => entry.key)).toEqual([
      "personal--Y",
      "personal--z",
      "team--alpha--a",
      "team--zeta--b",
    ]);
    expect(await store.remove(null, "z")).toEqual({ localPath: "2.md" });
    expect(await store.remove(null, "z")).toBeUndefined();
    expect(await store.findByPath("2.md")).toBeUndefined();
    expect(await readdir(join(state(), "by-path"))).toHaveLength(3);
    await writeFile(join(state(), "tracked/personal--Y.json"), "garbage");
    expect(await store.remove(null, "Y")).toEqual({ localPath: "" });
    expect(await readdir(join(state(), "by-path"))).toHaveLength(2);
  });

  it("scans the records once for its index, then each save reads only its own record and still drops displaced ones", async () => {
    for (let i = 0; i < 20; i += 1) await save(`n${i}`, `notes/${i}.md`);
    const counting = new SyncStateStore({ files: files.state, logger });
    await counting.batch(async () => {
      expect(counting.counters).toEqual({ recordReads: 20, indexBuilds: 1 });
      await counting.save({
        teamPath: null,
        noteId: "n3",
        localPath: "notes/3.md",
        baseline: "v2\n",
        timestamp: "124",
      });
      await counting.save({ teamPath: null, noteId: "new", localPath: "notes/5.md", baseline: "x\n", timestamp: "1" });
      await counting.save({
        teamPath: null,
        noteId: "newer",
        localPath: "notes/5.md",
        baseline: "y\n",
        timestamp: "1",
      });
      // Each save reads its own record, plus the displaced record it confirms before deleting it.
      expect(counting.counters).toEqual({ recordReads: 20 + 3 + 2, indexBuilds: 1 });
    });
    const keys = (await store.list()).map((entry) => `${entry.key}=${entry.record.local_path}`);
    expect(keys).not.toContain("personal--n5=notes/5.md");
    expect(keys).not.toContain("personal--new=notes/5.md");
    expect(keys).toContain("personal--newer=notes/5.md");
    expect(keys).toHaveLength(20);
    // Outside a batch too: a save, a lookup of an untracked path, a list and a status peek read
    // no other record once the index is warm.
    const before = counting.counters.recordReads;
    await counting.save({ teamPath: null, noteId: "n1", localPath: "notes/1.md", baseline: "z\n", timestamp: "2" });
    expect(await counting.findByPath("notes/untracked.md")).toBeUndefined();
    expect(await counting.list()).toHaveLength(20);
    expect(await counting.peekPath("notes/2.md")).toMatchObject({ kind: "one", key: "personal--n2" });
    expect(await counting.peekPath("notes/untracked.md")).toEqual({ kind: "none" });
    expect(counting.counters).toEqual({ recordReads: before + 1, indexBuilds: 1 });
  });

  describe("the record index across processes (two stores over one state folder)", () => {
    let other: SyncStateStore;
    beforeEach(async () => {
      // Another process: its own LocalFiles and store over the same ROOT.
      other = new SyncStateStore({ files: (await NodeLocalFiles.open({ root })).state, logger });
    });
    const saveOther = (noteId: string, localPath: string, baseline = "theirs\n") =>
      other.save({ teamPath: null, noteId, localPath, baseline, timestamp: "9" });

    it("sees a record the other store saved after the index was warm, even with its hint gone", async () => {
      await save("n1", "a.md");
      expect(await store.peekPath("b.md")).toEqual({ kind: "none" });
      await saveOther("n2", "b.md");
      await rm(join(state(), `by-path/${await sha256Hex("b.md")}`));
      expect(await store.peekPath("b.md")).toMatchObject({ kind: "one", key: "personal--n2" });
      expect((await store.findByPath("b.md"))?.record.baseline_body_hash).toBe(`sha256:${await sha256Hex("theirs\n")}`);
      expect((await store.list()).map((entry) => entry.key)).toEqual(["personal--n1", "personal--n2"]);
      expect(store.counters.indexBuilds).toBe(2);
    });

    it("sees the other store's rewrite, move and removal of a record it had indexed", async () => {
      await save("n1", "a.md", "mine\n");
      expect(await store.peekPath("a.md")).toMatchObject({ kind: "one" });
      await saveOther("n1", "a.md");
      expect(await store.peekPath("a.md")).toMatchObject({
        kind: "one",
        record: { baseline_body_hash: `sha256:${await sha256Hex("theirs\n")}` },
      });
      const found = (await other.findByPath("a.md"))!;
      await other.move(found, "moved.md");
      expect(await store.peekPath("a.md")).toEqual({ kind: "none" });
      expect(await store.findByPath("a.md")).toBeUndefined();
      expect(await store.peekPath("moved.md")).toMatchObject({ kind: "one", key: "personal--n1" });
      await other.remove(null, "n1");
      expect(await store.peekPath("moved.md")).toEqual({ kind: "none" });
      expect(await store.list()).toEqual([]);
    });

    it("a save drops the record another store saved for the same file after the index was warm", async () => {
      await save("n1", "a.md");
      await saveOther("n2", "b.md");
      await store.save({ teamPath: null, noteId: "n3", localPath: "b.md", baseline: "mine\n", timestamp: "1" });
      expect(await readdir(join(state(), "tracked"))).not.toContain("personal--n2.json");
      expect((await other.list()).map((entry) => `${entry.key}=${entry.record.local_path}`)).toEqual([
        "personal--n1=a.md",
        "personal--n3=b.md",
      ]);
      expect((await other.findByPath("b.md"))?.key).toBe("personal--n3");
    });

    it("a candidate the index names that no longer matches on disk is read again, never trusted", async () => {
      await save("n1", "a.md");
      expect(await store.peekPath("a.md")).toMatchObject({ kind: "one" });
      // The record changes in place (no rename, so the folder's stamp stays): the index is wrong now.
      const file = join(state(), "tracked/personal--n1.json");
      const json = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
      await writeFile(file, JSON.stringify({ ...json, local_path: "elsewhere.md" }));
      await rm(join(state(), `by-path/${await sha256Hex("a.md")}`));
      expect(await store.findByPath("a.md")).toBeUndefined();
      expect((await store.findByPath("elsewhere.md"))?.key).toBe("personal--n1");
    });
  });

  it("rewrites a record only if it is still the one the operation read (compare-and-swap, docs/tools.md §13.8)", async () => {
    const first = await save("n1", "Notes/a.md", "one\n");
    const seen = expectationOf(first.record);
    // Another process saves the note meanwhile.
    await save("n1", "Notes/a.md", "two\n");
    const late = {
      teamPath: null,
      noteId: "n1",
      localPath: "Notes/a.md",
      baseline: "stale\n",
      timestamp: "1",
      expect: seen,
    };
    await expect(store.save(late)).rejects.toBeInstanceOf(RecordChangedError);
    await expect(store.setSnapshotHash(first, "sha256:x")).rejects.toBeInstanceOf(RecordChangedError);
    await expect(store.move(first, "Notes/b.md")).rejects.toBeInstanceOf(RecordChangedError);
    await expect(store.save({ ...late, noteId: "n2", expect: expectationOf(first.record) })).rejects.toBeInstanceOf(
      RecordChangedError,
    );
    // Nothing was written by the refused rewrites: the other process's save stands, baseline and hash agree.
    const found = await store.findByPath("Notes/a.md");
    expect(found?.record.baseline_body_hash).toBe(`sha256:${await sha256Hex("two\n")}`);
    expect((await store.load(found!)).baseline).toBe("two\n");
    expect(found?.record.remote_snapshot_hash).toBeUndefined();
    // A save that read the current record goes through; one that read no record needs none there.
    await store.save({ ...late, baseline: "three\n", expect: expectationOf(found?.record) });
    await store.save({ ...late, noteId: "n3", localPath: "Notes/c.md", expect: "absent" });
    await expect(
      store.save({ ...late, noteId: "n3", localPath: "Notes/c.md", expect: "absent" }),
    ).rejects.toBeInstanceOf(RecordChangedError);
  });
});
