import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "../../src/core/hash";
import type { LocalFiles } from "../../src/core/local-files";
import { DEMO_NOTE_IDS, type RequestLogEntry } from "../../src/emulator";
import { CallContext } from "../../src/hackmd/call-context";
import {
  decideSyncAll,
  LocalHashCache,
  syncAll,
  type SyncAllDeps,
  type SyncAllFacts,
  type SyncAllItem,
  type SyncAllOptions,
  type SyncAllProgress,
  type SyncAllResult,
} from "../../src/sync/sync-all";
import { baselineFile, recordKey } from "../../src/sync/store";
import { startBridge, type TestBridge } from "../helpers/bridge";
import { SETTLE_MS } from "../../src/sync/service";

const READING = DEMO_NOTE_IDS.readingList;
const WEEKLY = DEMO_NOTE_IDS.weeklySync;
const CS101 = DEMO_NOTE_IDS.cs101;
const SPEC = DEMO_NOTE_IDS.spec;
const TEAM = "sandbox-team";
const GET = "GET /notes/:noteId";
const LIST = "GET /notes";
const TEAM_LIST = "GET /teams/:teamPath/notes";
const PATCH = "PATCH /notes/:noteId";
const STATE = ".hackmd-bridge/sync";
const ZERO = {
  in_sync: 0,
  pulled: 0,
  pushed: 0,
  merged: 0,
  conflicts: 0,
  missing_local: 0,
  missing_remote: 0,
  errors: 0,
  skipped: 0,
};

// ---------------------------------------------------------------------------------------------
// The table (docs/sync-decision-table.md, "Sync-all plan") against decideSyncAll
// ---------------------------------------------------------------------------------------------

type Row = Record<string, string>;

/** The first table under `## Sync-all plan`. */
function planTable(): Row[] {
  const text = readFileSync(join(__dirname, "../../docs/sync-decision-table.md"), "utf8");
  const section = text.split(/^## /m).find((part) => part.startsWith("Sync-all plan"));
  if (section === undefined) throw new Error("no Sync-all plan section");
  const lines = section.split("\n");
  const start = lines.findIndex((line) => line.startsWith("|"));
  const end = lines.findIndex((line, i) => i > start && !line.startsWith("|"));
  const table = lines.slice(start, end);
  const cells = (line: string): string[] =>
    line
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim());
  const header = cells(table[0] ?? "");
  return table.slice(2).map((line) => Object.fromEntries(cells(line).map((cell, i) => [header[i] ?? `${i}`, cell])));
}

/** A relation cell: `—` holds when the relation is unknown, `any` always, `=`/`≠` on a known one. */
function holds(cell: string | undefined, equal: boolean | undefined): boolean {
  if (cell === "—") return equal === undefined;
  if (cell === "any") return true;
  if (equal === undefined) return false;
  if (cell === "=") return equal;
  if (cell === "≠") return !equal;
  throw new Error(`unknown condition ${cell}`);
}

/** Every combination of facts the planner can produce (baseline h0; hashes h0–h2). */
function allFacts(): SyncAllFacts[] {
  const hashes = ["h0", "h1", "h2"];
  const out: SyncAllFacts[] = [
    { record: "damaged", error_kind: "sync_state", message: "damaged" },
    { record: "ok", baseline: "h0", local: { kind: "missing" } },
    { record: "ok", baseline: "h0", local: { kind: "unreadable", error_kind: "invalid_input", message: "not UTF-8" } },
  ];
  for (const hash of hashes) {
    for (const remote of [
      { kind: "unchanged" as const },
      { kind: "moved" as const },
      { kind: "gone" as const },
      { kind: "failed" as const, error_kind: "forbidden" as const, message: "no", rate_limited: false },
      ...hashes.map((r) => ({ kind: "fetched" as const, hash: r })),
    ]) {
      out.push({ record: "ok", baseline: "h0", local: { kind: "hashed", hash }, remote });
    }
  }
  return out;
}

describe("the sync-all plan table (docs/sync-decision-table.md)", () => {
  const rows = planTable();

  it("documents the fourteen branches", () => {
    expect(rows.map((row) => row.Branch)).toEqual([
      "A1",
      "A2",
      "A3",
      "A4",
      "B1",
      "B2",
      "B3",
      "B4",
      "B5",
      "M1",
      "M2",
      "E1",
      "E2",
      "E3",
    ]);
  });

  it("matches exactly one row for every combination of facts, and decideSyncAll agrees", () => {
    const reached = new Set<string>();
    for (const facts of allFacts()) {
      const local = facts.record === "ok" ? facts.local : undefined;
      const remote = facts.record === "ok" ? facts.remote : undefined;
      const l = local?.kind === "hashed" ? local.hash : undefined;
      const r = remote?.kind === "fetched" ? remote.hash : undefined;
      const b = facts.record === "ok" ? facts.baseline : undefined;
      const matching = rows.filter(
        (row) =>
          row.Record === facts.record &&
          (row.Local === "—" ? local === undefined : row.Local === local?.kind) &&
          (row.Remote === "—" ? remote === undefined : row.Remote === remote?.kind) &&
          holds(row["L vs B"], l === undefined ? undefined : l === b) &&
          holds(row["R vs B"], r === undefined ? undefined : r === b) &&
          holds(row["L vs R"], l === undefined || r === undefined ? undefined : l === r),
      );
      expect({ facts, rows: matching.map((row) => row.Branch) }).toEqual({ facts, rows: [expect.any(String)] });
      const row = matching[0] as Row;
      const plan = decideSyncAll(facts);
      expect({ facts, branch: plan.branch, plan: plan.id }).toEqual({ facts, branch: row.Branch, plan: row.Plan });
      reached.add(plan.branch);
    }
    expect([...reached].sort()).toEqual(rows.map((row) => row.Branch).sort());
  });

  it("refuses to decide a readable file without remote facts (a planner bug)", () => {
    expect(() => decideSyncAll({ record: "ok", baseline: "h0", local: { kind: "hashed", hash: "h0" } })).toThrow(/bug/);
  });
});

describe("LocalHashCache", () => {
  it("hits only on the same path and stamp, and keeps only retained paths", () => {
    const cache = new LocalHashCache({ maxEntries: 2 });
    cache.remember("a.md", { size: 1, mtimeMs: 10, id: "1:2" }, "ha");
    expect(cache.lookup("a.md", { size: 1, mtimeMs: 10, id: "1:2" })).toBe("ha");
    expect(cache.lookup("a.md", { size: 1, mtimeMs: 11, id: "1:2" })).toBeUndefined();
    expect(cache.lookup("a.md", { size: 2, mtimeMs: 10, id: "1:2" })).toBeUndefined();
    expect(cache.lookup("a.md", { size: 1, mtimeMs: 10, id: "1:3" })).toBeUndefined();
    expect(cache.lookup("b.md", { size: 1, mtimeMs: 10, id: "1:2" })).toBeUndefined();
    cache.remember("b.md", { size: 1, mtimeMs: 1 }, "hb");
    cache.remember("c.md", { size: 1, mtimeMs: 1 }, "hc");
    expect(cache.size).toBe(2);
    expect(cache.lookup("a.md", { size: 1, mtimeMs: 10, id: "1:2" })).toBeUndefined();
    cache.retain(["c.md"]);
    expect(cache.size).toBe(1);
    cache.forget("c.md");
    expect(cache.size).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Against the emulator
// ---------------------------------------------------------------------------------------------

/** LocalFiles that records which working files and state files were read. */
function countingFiles(inner: LocalFiles, log: { reads: string[]; stateReads: string[] }): LocalFiles {
  return {
    root: inner.root,
    state: {
      read: (path, options) => {
        log.stateReads.push(path);
        return inner.state.read(path, options);
      },
      write: (path, data) => inner.state.write(path, data),
      remove: (path) => inner.state.remove(path),
      list: (folder) => inner.state.list(folder),
      create: (path, data) => inner.state.create(path, data),
      stat: (path) => inner.state.stat(path),
    },
    resolve: (input, purpose) => inner.resolve(input, purpose),
    stat: (input) => inner.stat(input),
    read: (input, options) => {
      log.reads.push(input);
      return inner.read(input, options);
    },
    readHead: (input, n) => {
      log.reads.push(input);
      return inner.readHead(input, n);
    },
    write: (input, data, options) => inner.write(input, data, options),
    createFolders: (input) => inner.createFolders(input),
    remove: (input, options) => inner.remove(input, options),
    list: (input) => inner.list(input),
  };
}

/** Every file under a folder with its bytes and mtime, for "nothing was written" checks. */
async function tree(root: string, prefix = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) Object.assign(out, await tree(root, path));
    else {
      const info = await stat(join(root, path));
      out[path] = `${info.mtimeMs}:${(await readFile(join(root, path))).toString("base64")}`;
    }
  }
  return out;
}

/** Most requests in flight at once, from the emulator log. */
function maxInFlight(entries: readonly RequestLogEntry[]): number {
  const edges = entries.flatMap((entry) => [
    { at: entry.at, delta: 1 },
    { at: entry.at + (entry.durationMs ?? 0), delta: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let now = 0;
  let max = 0;
  for (const edge of edges) {
    now += edge.delta;
    max = Math.max(max, now);
  }
  return max;
}

/** Progress events form one 0…total run per phase, in phase order. */
function expectConsistentProgress(
  events: readonly SyncAllProgress[],
  totals: Partial<Record<SyncAllProgress["phase"], number>>,
): void {
  const phases = events.map((event) => event.phase).filter((phase, i, all) => all.indexOf(phase) === i);
  expect(phases).toEqual((["listing", "checking", "syncing"] as const).filter((phase) => totals[phase] !== undefined));
  for (const phase of phases) {
    const total = totals[phase] ?? -1;
    const seen = events.filter((event) => event.phase === phase);
    expect(seen.map((event) => event.total)).toEqual(seen.map(() => total));
    expect(seen.map((event) => event.done)).toEqual(Array.from({ length: total + 1 }, (_, i) => i));
    if (phase !== "listing") expect(seen.slice(1).every((event) => typeof event.note_id === "string")).toBe(true);
  }
}

describe("sync-all against the emulator", () => {
  let bridge: TestBridge;
  const local = (path: string): string => join(bridge.root, path);
  const readLocal = (path: string): Promise<string> => readFile(local(path), "utf8");
  const writeLocal = async (path: string, text: string | Buffer): Promise<void> => {
    await mkdir(join(local(path), ".."), { recursive: true });
    await writeFile(local(path), text);
  };
  const remote = (id: string) => {
    const note = bridge.emu.inspect().notes.find((entry) => entry.id === id);
    if (!note) throw new Error(`no note ${id}`);
    return note;
  };
  const keyOf = (id: string, team: string | null = null): string =>
    team === null ? `personal--${id}` : `team--${team.replace(/-/g, "%2D")}--${id}`;
  const recordOf = async (id: string, team: string | null = null): Promise<Record<string, unknown>> =>
    JSON.parse(await readLocal(`${STATE}/tracked/${keyOf(id, team)}.json`)) as Record<string, unknown>;
  const hash = async (text: string): Promise<string> => `sha256:${await sha256Hex(text)}`;
  const track = async (noteId: string, localPath: string, teamPath: string | null = null): Promise<void> => {
    const result = await bridge.core.deps.sync.pull({
      localPath,
      resolveTarget: () => Promise.resolve({ status: "resolved", teamPath, noteId }),
      overwriteLocal: false,
      discardLocalChanges: false,
      createParentDirs: true,
      confirmLargeFile: false,
      call: new CallContext(),
    });
    if (result.kind !== "pulled") throw new Error("setup pull did not resolve");
  };
  const writeTracked = async (note: { id: string; path: string; body: string; timestamp: number }): Promise<void> => {
    const key = recordKey(null, note.id);
    const record = {
      format: 1,
      internal_id: note.id,
      team_path: null,
      local_path: note.path,
      baseline_body_hash: await hash(note.body),
      last_observed_remote_timestamp: String(note.timestamp),
    };
    await writeLocal(note.path, note.body);
    await writeLocal(`${STATE}/${baselineFile(key)}`, note.body);
    await writeLocal(`${STATE}/tracked/${key}.json`, `${JSON.stringify(record, null, 2)}\n`);
    await writeLocal(`${STATE}/by-path/${await sha256Hex(note.path)}`, key);
  };
  const run = (options: SyncAllOptions = {}, deps: Partial<SyncAllDeps> = {}): Promise<SyncAllResult> =>
    syncAll({ ...bridge.core.deps, ...deps }, options);
  const itemOf = (result: SyncAllResult, id: string): SyncAllItem | undefined =>
    result.items.find((item) => item.note_id === id);
  const requests = (): string[] => bridge.requestsSinceMark();
  const sorted = (list: string[]): string[] => [...list].sort();

  beforeEach(async () => {
    // The core's clock runs past SETTLE_MS ahead of the emulator's, so every change is settled and
    // its timestamp recorded (the fresh-change rule has its own test below).
    bridge = await startBridge({ clock: { now: () => Date.now() + 2 * SETTLE_MS } });
  });
  afterEach(async () => {
    await bridge.close();
  });

  it("A1: an untouched note costs one list request and nothing else", async () => {
    await track(READING, "reading.md");
    bridge.mark();
    const result = await run();
    expect(result).toEqual({
      dry_run: false,
      counts: { ...ZERO, in_sync: 1 },
      items: [
        {
          note_id: READING,
          team_path: null,
          local_path: "reading.md",
          plan: "in_sync",
          branch: "A1",
          outcome: "unchanged",
        },
      ],
    });
    expect(requests()).toEqual([LIST]);
  });

  it("A3 (dry run) and A4 (real run): a remote edit is pulled with exactly one GET", async () => {
    await track(READING, "reading.md");
    const body = remote(READING).content;
    const edited = `${body}\n- remote line\n`;
    bridge.emu.collaboratorEdit(READING, { content: edited });

    bridge.mark();
    const dry = await run({ dryRun: true });
    expect(dry.counts).toEqual({ ...ZERO, pulled: 1 });
    expect(itemOf(dry, READING)).toEqual({
      note_id: READING,
      team_path: null,
      local_path: "reading.md",
      plan: "pull",
      branch: "A3",
      outcome: "planned",
    });
    expect(requests()).toEqual([LIST, GET]);
    expect(await readLocal("reading.md")).toBe(body);

    bridge.mark();
    const real = await run();
    expect(real.counts).toEqual({ ...ZERO, pulled: 1 });
    expect(itemOf(real, READING)).toEqual({
      note_id: READING,
      team_path: null,
      local_path: "reading.md",
      plan: "pull",
      branch: "A4",
      outcome: "pulled",
    });
    expect(requests()).toEqual([LIST, GET]);
    expect(await readLocal("reading.md")).toBe(edited);
    expect(await recordOf(READING)).toMatchObject({
      baseline_body_hash: await hash(edited),
      last_observed_remote_timestamp: String(remote(READING).lastChangedAt),
    });

    bridge.mark();
    expect(itemOf(await run(), READING)).toMatchObject({ branch: "A1", outcome: "unchanged" });
    expect(requests()).toEqual([LIST]);
  });

  it("A2 (dry run) and A4 → unchanged: a metadata-only change refreshes the timestamp, the file is untouched", async () => {
    await track(READING, "reading.md");
    const before = await stat(local("reading.md"));
    bridge.emu.collaboratorEdit(READING, { title: "Reading list, renamed" });

    bridge.mark();
    const dry = await run({ dryRun: true });
    expect(itemOf(dry, READING)).toMatchObject({ plan: "in_sync", branch: "A2", outcome: "unchanged" });
    expect(dry.counts).toEqual({ ...ZERO, in_sync: 1 });
    expect(requests()).toEqual([LIST, GET]);

    bridge.mark();
    const real = await run();
    expect(itemOf(real, READING)).toMatchObject({
      plan: "pull",
      branch: "A4",
      outcome: "unchanged",
      message: expect.stringMatching(/timestamp was refreshed/),
    });
    expect(real.counts).toEqual({ ...ZERO, in_sync: 1 });
    expect(requests()).toEqual([LIST, GET]);
    expect((await stat(local("reading.md"))).mtimeMs).toBe(before.mtimeMs);
    expect((await recordOf(READING)).last_observed_remote_timestamp).toBe(String(remote(READING).lastChangedAt));

    bridge.mark();
    expect(itemOf(await run(), READING)).toMatchObject({ branch: "A1" });
    expect(requests()).toEqual([LIST]);
  });

  it("B1: a local edit is pushed (list, GET, PATCH, read-back GET) and the baseline advances", async () => {
    await track(READING, "reading.md");
    const edited = `${remote(READING).content}\n- local line\n`;
    await writeLocal("reading.md", edited.replace(/\n/g, "\r\n"));

    bridge.mark();
    const dry = await run({ dryRun: true });
    expect(itemOf(dry, READING)).toMatchObject({ plan: "push", branch: "B1", outcome: "planned" });
    expect(dry.counts).toEqual({ ...ZERO, pushed: 1 });
    expect(requests()).toEqual([LIST]);

    bridge.mark();
    const real = await run();
    expect(itemOf(real, READING)).toMatchObject({ plan: "push", branch: "B1", outcome: "pushed" });
    expect(requests()).toEqual([LIST, GET, PATCH, GET]);
    expect(remote(READING).content).toBe(edited);
    expect((await recordOf(READING)).baseline_body_hash).toBe(await hash(edited));

    bridge.mark();
    expect(itemOf(await run(), READING)).toMatchObject({ branch: "A1" });
    expect(requests()).toEqual([LIST]);
  });

  it("B2 (dry run) and B5 → pushed: a local edit over a metadata-only remote change", async () => {
    await track(READING, "reading.md");
    const edited = `${remote(READING).content}\n- local line\n`;
    await writeLocal("reading.md", edited);
    bridge.emu.collaboratorEdit(READING, { tags: ["renamed"] });

    bridge.mark();
    expect(itemOf(await run({ dryRun: true }), READING)).toMatchObject({
      plan: "push",
      branch: "B2",
      outcome: "planned",
    });
    expect(requests()).toEqual([LIST, GET]);

    bridge.mark();
    const real = await run();
    expect(itemOf(real, READING)).toMatchObject({ plan: "reconcile", branch: "B5", outcome: "pushed" });
    expect(requests()).toEqual([LIST, GET, PATCH, GET]);
    expect(remote(READING).content).toBe(edited);
  });

  it("B3 (dry run) and B5 → baseline_advanced: the same change on both sides sends nothing", async () => {
    await track(READING, "reading.md");
    const same = `${remote(READING).content}\n- same line\n`;
    await writeLocal("reading.md", same);
    bridge.emu.collaboratorEdit(READING, { content: same });

    bridge.mark();
    const dry = await run({ dryRun: true });
    expect(itemOf(dry, READING)).toMatchObject({ plan: "same_change", branch: "B3", outcome: "planned" });
    expect(dry.counts).toEqual({ ...ZERO, in_sync: 1 });
    expect(requests()).toEqual([LIST, GET]);

    bridge.mark();
    const real = await run();
    expect(itemOf(real, READING)).toMatchObject({ plan: "reconcile", branch: "B5", outcome: "baseline_advanced" });
    expect(real.counts).toEqual({ ...ZERO, in_sync: 1 });
    expect(requests()).toEqual([LIST, GET]);
    expect(await recordOf(READING)).toMatchObject({
      baseline_body_hash: await hash(same),
      last_observed_remote_timestamp: String(remote(READING).lastChangedAt),
    });

    bridge.mark();
    expect(itemOf(await run(), READING)).toMatchObject({ branch: "A1" });
    expect(requests()).toEqual([LIST]);
  });

  it("B4 (dry run) and B5 with edits that do not overlap: merged into the file and pushed; both sides end equal", async () => {
    await track(READING, "reading.md");
    const body = remote(READING).content;
    await writeLocal("reading.md", `LOCAL\n${body}`);
    bridge.emu.collaboratorEdit(READING, { content: `${body}REMOTE\n` });
    const merged = `LOCAL\n${body}REMOTE\n`;

    bridge.mark();
    const dry = await run({ dryRun: true });
    expect(itemOf(dry, READING)).toMatchObject({ plan: "conflict", branch: "B4", outcome: "planned", merges: true });
    expect(dry.counts).toEqual({ ...ZERO, merged: 1 });
    expect(requests()).toEqual([LIST, GET]);
    expect(await readLocal("reading.md")).toBe(`LOCAL\n${body}`);

    bridge.mark();
    const real = await run();
    expect(itemOf(real, READING)).toMatchObject({ plan: "reconcile", branch: "B5", outcome: "merged" });
    expect(real.counts).toEqual({ ...ZERO, merged: 1 });
    expect(requests()).toEqual([LIST, GET, PATCH, GET]);
    expect(await readLocal("reading.md")).toBe(merged);
    expect(remote(READING).content).toBe(merged);
    expect(await recordOf(READING)).toMatchObject({ baseline_body_hash: await hash(merged) });
    await expect(stat(local("reading.remote.md"))).rejects.toThrow();
    // In step: the next run has nothing to do.
    expect(itemOf(await run(), READING)).toMatchObject({ outcome: "unchanged" });
  });

  it("B4 (dry run) and B5 → conflict: nothing is sent, the file is kept, the .remote.md snapshot is written", async () => {
    await track(READING, "reading.md");
    const body = remote(READING).content;
    // Both sides add a line at the same place: overlapping, so no merge is attempted.
    const mine = `${body}LOCAL\n`;
    const theirs = `${body}REMOTE\n`;
    await writeLocal("reading.md", mine);
    bridge.emu.collaboratorEdit(READING, { content: theirs });
    const baselineBefore = await recordOf(READING);

    bridge.mark();
    const dry = await run({ dryRun: true });
    expect(itemOf(dry, READING)).toMatchObject({ plan: "conflict", branch: "B4", outcome: "planned" });
    expect(dry.counts).toEqual({ ...ZERO, conflicts: 1 });
    expect(requests()).toEqual([LIST, GET]);
    await expect(stat(local("reading.remote.md"))).rejects.toThrow();

    bridge.mark();
    const real = await run();
    expect(itemOf(real, READING)).toEqual({
      note_id: READING,
      team_path: null,
      local_path: "reading.md",
      plan: "reconcile",
      branch: "B5",
      outcome: "conflict",
      snapshot_path: "reading.remote.md",
      remote_body_hash: await hash(theirs),
      message: expect.stringMatching(/expected_remote_hash/),
    });
    expect(real.counts).toEqual({ ...ZERO, conflicts: 1 });
    expect(requests()).toEqual([LIST, GET]);
    expect(await readLocal("reading.md")).toBe(mine);
    expect(await readLocal("reading.remote.md")).toBe(theirs);
    expect(remote(READING).content).toBe(theirs);
    expect(await recordOf(READING)).toMatchObject({ baseline_body_hash: baselineBefore.baseline_body_hash });
  });

  it("M1: a deleted file is reported, not recreated, without a GET", async () => {
    await track(READING, "reading.md");
    bridge.emu.collaboratorEdit(READING, { content: "# changed remotely\n" });
    await rm(local("reading.md"));
    bridge.mark();
    const result = await run();
    expect(itemOf(result, READING)).toEqual({
      note_id: READING,
      team_path: null,
      local_path: "reading.md",
      plan: "missing_local",
      branch: "M1",
      outcome: "missing_local",
      message: expect.stringMatching(/reading\.md is missing/),
    });
    expect(result.counts).toEqual({ ...ZERO, missing_local: 1 });
    expect(requests()).toEqual([LIST]);
    await expect(stat(local("reading.md"))).rejects.toThrow();
    expect(await recordOf(READING)).toMatchObject({ local_path: "reading.md" });
  });

  it("M2: a note gone from HackMD is confirmed by one GET (404) and reported; file and record stay", async () => {
    await track(READING, "reading.md");
    const body = await readLocal("reading.md");
    bridge.emu.collaboratorDelete(READING);
    bridge.mark();
    const result = await run();
    expect(itemOf(result, READING)).toMatchObject({
      plan: "missing_remote",
      branch: "M2",
      outcome: "missing_remote",
      message: expect.stringMatching(/untrack/),
    });
    expect(result.counts).toEqual({ ...ZERO, missing_remote: 1 });
    expect(requests()).toEqual([LIST, GET]);
    expect(await readLocal("reading.md")).toBe(body);
    expect(await recordOf(READING)).toMatchObject({ local_path: "reading.md" });
  });

  it("E1: damaged records, a missing baseline and a file named twice are errors; healthy notes still sync", async () => {
    const past = Date.now() - 86_400_000;
    bridge.emu.seed({
      notes: [
        {
          id: "healthy0000000000000001",
          shortId: "healthy01",
          content: "# Healthy\n",
          createdAt: past,
          lastChangedAt: past,
        },
      ],
    });
    await track("healthy0000000000000001", "healthy.md");
    await track(READING, "reading.md");
    await track(WEEKLY, "weekly.md");
    await track(CS101, "cs101.md");
    await track(SPEC, "spec.md", TEAM);
    await writeLocal(`${STATE}/tracked/${keyOf(READING)}.json`, "{ not json");
    await rm(local(`${STATE}/tracked/${keyOf(WEEKLY)}.baseline.md`));
    await writeLocal(
      `${STATE}/tracked/${keyOf(CS101)}.json`,
      JSON.stringify({ ...(await recordOf(CS101)), format: 2 }),
    );
    await writeLocal(`${STATE}/tracked/personal--ghost.baseline.md`, "ghost\n");
    await writeLocal(
      `${STATE}/tracked/personal--ghost.json`,
      JSON.stringify({
        format: 1,
        internal_id: "ghost",
        team_path: null,
        local_path: "spec.md",
        baseline_body_hash: await hash("ghost\n"),
        last_observed_remote_timestamp: "1",
      }),
    );

    bridge.mark();
    const result = await run();
    expect(result.counts).toEqual({ ...ZERO, in_sync: 1, errors: 5 });
    expect(result.items.map((item) => [item.note_id, item.branch, item.outcome, item.error_kind ?? "-"])).toEqual([
      [CS101, "E1", "error", "sync_state"],
      [READING, "E1", "error", "sync_state"],
      [WEEKLY, "E1", "error", "sync_state"],
      ["ghost", "E1", "error", "sync_state"],
      ["healthy0000000000000001", "A1", "unchanged", "-"],
      [SPEC, "E1", "error", "sync_state"],
    ]);
    expect(itemOf(result, READING)).toMatchObject({
      local_path: "",
      message: expect.stringMatching(/is corrupt \(it is not valid JSON\)/),
    });
    expect(itemOf(result, CS101)?.message).toMatch(/newer version/);
    expect(itemOf(result, WEEKLY)).toMatchObject({
      local_path: "weekly.md",
      message: expect.stringMatching(/baseline of weekly\.md is missing/),
    });
    expect(itemOf(result, SPEC)).toMatchObject({
      team_path: TEAM,
      message: expect.stringMatching(/More than one sync record names spec\.md/),
    });
    // Only workspaces with a usable record are listed.
    expect(requests()).toEqual([LIST]);
  });

  it("E2: an unreadable working file (not UTF-8, a folder) is an error without a GET", async () => {
    await track(READING, "reading.md");
    await track(WEEKLY, "weekly.md");
    await writeLocal("reading.md", Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a]));
    await rm(local("weekly.md"));
    await mkdir(local("weekly.md"));
    bridge.emu.collaboratorEdit(READING, { content: "# remote\n" });
    bridge.mark();
    const result = await run();
    expect(itemOf(result, READING)).toMatchObject({
      plan: "error",
      branch: "E2",
      outcome: "error",
      error_kind: "invalid_input",
      message: expect.stringMatching(/not valid UTF-8/),
    });
    expect(itemOf(result, WEEKLY)).toMatchObject({
      plan: "error",
      branch: "E2",
      outcome: "error",
      error_kind: "invalid_input",
      message: expect.stringMatching(/not a regular file/),
    });
    expect(result.counts).toEqual({ ...ZERO, errors: 2 });
    expect(requests()).toEqual([LIST]);
  });

  it("E3: a workspace whose list fails reports its notes; the other workspace still syncs", async () => {
    await track(READING, "reading.md");
    await track(SPEC, "spec.md", TEAM);
    bridge.emu.collaboratorEdit(READING, { content: "# remote\n" });
    bridge.emu.injectFault({ match: { route: TEAM_LIST }, action: { status: 403, body: { error: "Forbidden" } } });
    bridge.mark();
    const result = await run();
    expect(itemOf(result, SPEC)).toMatchObject({
      plan: "error",
      branch: "E3",
      outcome: "error",
      error_kind: "forbidden",
      message: expect.stringMatching(/^Listing the notes of team sandbox-team failed/),
    });
    expect(itemOf(result, READING)).toMatchObject({ branch: "A4", outcome: "pulled" });
    expect(result.counts).toEqual({ ...ZERO, pulled: 1, errors: 1 });
    expect(sorted(requests())).toEqual([LIST, GET, TEAM_LIST]);
  });

  it("a dry run writes nothing: no file, no record, no PATCH, only GETs", async () => {
    await track(READING, "reading.md");
    await track(WEEKLY, "weekly.md");
    await track(CS101, "cs101.md");
    await track(SPEC, "spec.md", TEAM);
    bridge.emu.collaboratorEdit(READING, { content: "# remote edit\n" });
    await writeLocal("weekly.md", "# local edit\n");
    await writeLocal("cs101.md", "# local side\n");
    bridge.emu.collaboratorEdit(CS101, { content: "# remote side\n" });
    await rm(local("spec.md"));
    const before = await tree(bridge.root);
    const patches = bridge.emu.requests({ method: "PATCH" }).length;
    const emulatorBefore = JSON.stringify(bridge.emu.inspect().notes);

    bridge.mark();
    const result = await run({ dryRun: true });
    expect(result.dry_run).toBe(true);
    expect(result.counts).toEqual({ ...ZERO, pulled: 1, pushed: 1, conflicts: 1, missing_local: 1 });
    expect(result.items.map((item) => [item.note_id, item.plan, item.outcome])).toEqual([
      [CS101, "conflict", "planned"],
      [READING, "pull", "planned"],
      [WEEKLY, "push", "planned"],
      [SPEC, "missing_local", "missing_local"],
    ]);
    expect(await tree(bridge.root)).toEqual(before);
    expect(bridge.emu.requests({ method: "PATCH" })).toHaveLength(patches);
    expect(requests().every((request) => request.startsWith("GET "))).toBe(true);
    expect(sorted(requests())).toEqual([LIST, GET, GET, TEAM_LIST]);
    expect(JSON.stringify(bridge.emu.inspect().notes)).toBe(emulatorBefore);
  });

  it("a pull never overwrites a file edited after planning: the service refuses and the edit survives", async () => {
    await track(READING, "reading.md");
    bridge.emu.collaboratorEdit(READING, { content: "# remote edit\n" });
    const result = await run({
      onProgress: (progress) => {
        if (progress.phase === "syncing" && progress.done === 0)
          writeFileSync(local("reading.md"), "# edited while sync-all ran\n");
      },
    });
    expect(itemOf(result, READING)).toMatchObject({ plan: "pull", outcome: "error", error_kind: "unpushed_changes" });
    expect(result.counts).toEqual({ ...ZERO, errors: 1 });
    expect(await readLocal("reading.md")).toBe("# edited while sync-all ran\n");
  });

  it("budget: 200 tracked notes, 3 changed remotely → 1 list + 3 GETs, no writes to HackMD; progress adds up", async () => {
    const past = Date.now() - 86_400_000;
    const ids = Array.from({ length: 200 }, (_, i) => `budget${String(i).padStart(16, "0")}`);
    bridge.emu.seed({
      notes: ids.map((id, i) => ({
        id,
        shortId: `bud${String(i).padStart(6, "0")}`,
        title: `Note ${i}`,
        content: `# Note ${i}\n\nBody ${i}.\n`,
        createdAt: past,
        lastChangedAt: past,
      })),
    });
    // Tracked directly in the on-disk format of docs/tools.md §13 (store.save rescans every record, so
    // 200 pulls would spend most of this test in setup); the pulls below load and verify them.
    for (const [i, id] of ids.entries())
      await writeTracked({ id, path: `many/${id}.md`, body: `# Note ${i}\n\nBody ${i}.\n`, timestamp: past });
    expect(await bridge.core.deps.sync.listTracked()).toHaveLength(200);
    const changed = [ids[3], ids[101], ids[199]] as string[];
    for (const id of changed) bridge.emu.collaboratorEdit(id, { content: `# Changed ${id}\n` });

    bridge.mark();
    const events: SyncAllProgress[] = [];
    const result = await run({ onProgress: (event) => events.push(event) });
    expect(sorted(requests())).toEqual([LIST, GET, GET, GET]);
    expect(result.counts).toEqual({ ...ZERO, in_sync: 197, pulled: 3 });
    expect(result.items.filter((item) => item.outcome === "pulled").map((item) => item.note_id)).toEqual(changed);
    for (const id of changed) expect(await readLocal(`many/${id}.md`)).toBe(`# Changed ${id}\n`);
    expectConsistentProgress(events, { listing: 1, checking: 200, syncing: 3 });
    expect(
      events
        .filter((event) => event.phase === "syncing" && event.note_id !== undefined)
        .map((event) => event.note_id)
        .sort(),
    ).toEqual(changed);
  }, 60_000);

  it("two workspaces cost two list requests; progress of a dry run has no syncing phase", async () => {
    await track(READING, "reading.md");
    await track(SPEC, "spec.md", TEAM);
    bridge.mark();
    const events: SyncAllProgress[] = [];
    const result = await run({ dryRun: true, onProgress: (event) => events.push(event) });
    expect(result.counts).toEqual({ ...ZERO, in_sync: 2 });
    expect(result.items.map((item) => [item.team_path, item.note_id])).toEqual([
      [null, READING],
      [TEAM, SPEC],
    ]);
    expect(sorted(requests())).toEqual([LIST, TEAM_LIST]);
    expectConsistentProgress(events, { listing: 2, checking: 2 });
  });

  it("a body pulled within SETTLE_MS of its change is recorded without a timestamp, so the next run confirms it with one GET", async () => {
    const fresh = await startBridge();
    try {
      const files = fresh.core.deps.files;
      const result = await fresh.core.deps.sync.pull({
        localPath: "reading.md",
        resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: null, noteId: READING }),
        overwriteLocal: false,
        discardLocalChanges: false,
        createParentDirs: false,
        confirmLargeFile: false,
        call: new CallContext(),
      });
      expect(result.kind).toBe("pulled");
      fresh.emu.collaboratorEdit(READING, { content: "# just changed\n" });
      await syncAll(fresh.core.deps, {});
      const record = JSON.parse(
        Buffer.from(
          (await files.state.read(`tracked/personal--${READING}.json`, { maxBytes: 4096 }))?.bytes ?? [],
        ).toString("utf8"),
      ) as Record<string, string>;
      expect(record.last_observed_remote_timestamp).toBe("");
      fresh.mark();
      const next = await syncAll(fresh.core.deps, { dryRun: true });
      expect(next.items[0]).toMatchObject({ branch: "A2", outcome: "unchanged" });
      expect(fresh.requestsSinceMark()).toEqual([LIST, GET]);
    } finally {
      await fresh.close();
    }
  });

  it("the local hash cache: a second run with nothing changed reads no working file and no baseline, and makes only the list requests", async () => {
    await track(READING, "reading.md");
    await track(WEEKLY, "weekly.md");
    await track(SPEC, "spec.md", TEAM);
    const log = { reads: [] as string[], stateReads: [] as string[] };
    const files = countingFiles(bridge.core.deps.files, log);
    const cache = new LocalHashCache();

    bridge.mark();
    expect((await run({ hashCache: cache }, { files })).counts).toEqual({ ...ZERO, in_sync: 3 });
    expect(sorted(log.reads)).toEqual(["reading.md", "spec.md", "weekly.md"]);
    // Each baseline is read once per run to verify its hash (a damaged one is reported, not called in sync).
    const baselines = sorted(log.stateReads.filter((path) => !path.endsWith(".json")));
    expect(baselines).toHaveLength(3);
    expect(baselines.every((path) => path.endsWith(".baseline.md"))).toBe(true);
    expect(cache.size).toBe(3);

    log.reads.length = 0;
    log.stateReads.length = 0;
    bridge.mark();
    expect((await run({ hashCache: cache }, { files })).counts).toEqual({ ...ZERO, in_sync: 3 });
    expect(log.reads).toEqual([]);
    // Each baseline was verified by the first run and is unchanged (by its stamp): not read again.
    expect(log.stateReads.filter((path) => !path.endsWith(".json"))).toEqual([]);
    expect(sorted(requests())).toEqual([LIST, TEAM_LIST]);

    // A baseline rewritten since (a crash between baseline and record) is read again and reported.
    const reading = `${STATE}/tracked/${keyOf(READING)}.baseline.md`;
    const original = await readLocal(reading);
    await writeLocal(reading, "# not the recorded baseline\n");
    log.stateReads.length = 0;
    const damaged = await run({ hashCache: cache, dryRun: true }, { files });
    // (Read again once more under the record's lock, as every damaged baseline is.)
    expect([...new Set(log.stateReads.filter((path) => !path.endsWith(".json")))]).toEqual([
      `tracked/${keyOf(READING)}.baseline.md`,
    ]);
    expect(itemOf(damaged, READING)).toMatchObject({
      branch: "E1",
      message: expect.stringMatching(/does not match its recorded hash/),
    });
    expect(damaged.counts).toEqual({ ...ZERO, in_sync: 2, errors: 1 });
    await writeLocal(reading, original);

    // Only the edited file is read again.
    await writeLocal("weekly.md", "# edited\n");
    log.reads.length = 0;
    const third = await run({ hashCache: cache, dryRun: true }, { files });
    expect(log.reads).toEqual(["weekly.md"]);
    expect(itemOf(third, WEEKLY)).toMatchObject({ plan: "push", branch: "B1" });
  });

  describe("rate limits", () => {
    const sleeps: number[] = [];
    const fakeSleep = (ms: number): Promise<void> => {
      sleeps.push(ms);
      return Promise.resolve();
    };
    beforeEach(() => {
      sleeps.length = 0;
    });

    const threeRemoteEdits = async (): Promise<void> => {
      await track(READING, "reading.md");
      await track(WEEKLY, "weekly.md");
      await track(CS101, "cs101.md");
      for (const id of [READING, WEEKLY, CS101]) bridge.emu.collaboratorEdit(id, { content: `# changed ${id}\n` });
    };

    it("a 429 with Retry-After: 0 on one GET is retried by the client and the run completes", async () => {
      await threeRemoteEdits();
      bridge.emu.injectFault({ match: { route: GET }, action: { status: 429, headers: { "Retry-After": "0" } } });
      bridge.mark();
      const result = await run({}, { sleep: fakeSleep });
      expect(result.counts).toEqual({ ...ZERO, pulled: 3 });
      expect(sorted(requests())).toEqual([LIST, GET, GET, GET, GET]);
      expect(bridge.emu.requests({ route: GET }).filter((entry) => entry.status === 429)).toHaveLength(1);
      expect(sleeps).toEqual([]);
    });

    it("a 429 with a short reset hint beyond the client's cap pauses once (injected sleep) and retries that note", async () => {
      await threeRemoteEdits();
      bridge.emu.injectFault({
        match: { route: GET },
        action: { status: 429, headers: { "Retry-After": "7", "X-RateLimit-UserReset": "7" } },
      });
      bridge.mark();
      const result = await run({}, { sleep: fakeSleep });
      expect(result.counts).toEqual({ ...ZERO, pulled: 3 });
      expect(sleeps).toEqual([7000]);
      expect(sorted(requests())).toEqual([LIST, GET, GET, GET, GET]);
    });

    it("a 429 with a long reset stops the run: no new request, every unfinished note is skipped, nothing written", async () => {
      await threeRemoteEdits();
      const before = await tree(bridge.root);
      bridge.emu.injectFault({
        match: { route: GET },
        action: { status: 429, headers: { "Retry-After": "3600", "X-RateLimit-UserReset": "3600" } },
      });
      bridge.mark();
      const result = await run({ concurrency: 1 }, { sleep: fakeSleep });
      expect(result.counts).toEqual({ ...ZERO, skipped: 3 });
      expect(
        result.items.every(
          (item) =>
            item.outcome === "skipped" && item.error_kind === "rate_limited" && /rate limit/.test(item.message ?? ""),
        ),
      ).toBe(true);
      expect(requests()).toEqual([LIST, GET]);
      expect(sleeps).toEqual([]);
      expect(await tree(bridge.root)).toEqual(before);
    });

    it("a rate-limited list request skips that workspace's notes", async () => {
      await track(READING, "reading.md");
      bridge.emu.injectFault({
        match: { route: LIST },
        action: { status: 429, headers: { "Retry-After": "3600", "X-RateLimit-UserReset": "3600" } },
      });
      bridge.mark();
      const result = await run({ dryRun: true }, { sleep: fakeSleep });
      expect(itemOf(result, READING)).toMatchObject({
        plan: "error",
        branch: "E3",
        outcome: "skipped",
        error_kind: "rate_limited",
      });
      expect(result.counts).toEqual({ ...ZERO, skipped: 1 });
      expect(requests()).toEqual([LIST]);
    });

    it("at most `concurrency` requests are in flight", async () => {
      const past = Date.now() - 86_400_000;
      const ids = Array.from({ length: 12 }, (_, i) => `flight${String(i).padStart(16, "0")}`);
      bridge.emu.seed({
        notes: ids.map((id, i) => ({
          id,
          shortId: `fli${String(i).padStart(6, "0")}`,
          content: `# ${id}\n`,
          createdAt: past,
          lastChangedAt: past,
        })),
      });
      for (const id of ids) await track(id, `flight/${id}.md`);
      for (const id of ids) bridge.emu.collaboratorEdit(id, { content: `# changed ${id}\n` });
      bridge.emu.setQuirks({ latencyMs: 30 });
      const since = bridge.emu.requests().at(-1)?.seq ?? 0;
      const result = await run({ concurrency: 3 });
      expect(result.counts).toEqual({ ...ZERO, pulled: 12 });
      const gets = bridge.emu.requests({ since, route: GET });
      expect(gets).toHaveLength(12);
      expect(maxInFlight(gets)).toBeLessThanOrEqual(3);
      expect(maxInFlight(gets)).toBeGreaterThanOrEqual(2);
      await expect(run({ concurrency: 0 })).rejects.toThrow(/concurrency/);
    });
  });
});
