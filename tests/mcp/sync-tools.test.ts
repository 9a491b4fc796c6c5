import { mkdir, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { sha256Hex } from "../../src/core/hash";
import { errorKind, ok, startBridge, type TestBridge } from "../helpers/bridge";

const READING = DEMO_NOTE_IDS.readingList;
const WEEKLY = DEMO_NOTE_IDS.weeklySync;
const SPEC = DEMO_NOTE_IDS.spec;
const GET = "GET /notes/:noteId";
const PATCH = "PATCH /notes/:noteId";
const STATE = ".hackmd-bridge/sync";

describe("the sync tools through a real MCP client against the emulator", () => {
  let bridge: TestBridge;
  const local = (path: string): string => join(bridge.root, path);
  const readLocal = (path: string): Promise<string> => readFile(local(path), "utf8");
  const writeLocal = async (path: string, text: string): Promise<void> => {
    await mkdir(join(local(path), ".."), { recursive: true });
    await writeFile(local(path), text);
  };
  const remote = (id: string): string => bridge.emu.inspect().notes.find((note) => note.id === id)?.content ?? "";
  const pull = (args: Record<string, unknown>) =>
    bridge.call("hackmd_pull_note", { note_ref: READING, local_path: "reading.md", ...args });
  const push = (args: Record<string, unknown> = {}) =>
    bridge.call("hackmd_push_note", { local_path: "reading.md", ...args });
  const check = (path = "reading.md") => bridge.call("hackmd_get_note", { local_path: path });
  const baseline = (key = `personal--${READING}`): Promise<string> => readLocal(`${STATE}/tracked/${key}.baseline.md`);

  beforeEach(async () => {
    bridge = await startBridge();
    bridge.mark();
  });
  afterEach(async () => {
    await bridge.close();
  });

  it("runs the whole lifecycle: pull, check, push, conflict with snapshot, merge, push, untrack", async () => {
    const pulled = ok(await pull({ local_path: "Notes/reading.md", create_parent_dirs: true }));
    const body = remote(READING);
    expect(pulled).toEqual({
      team_path: null,
      note_id: READING,
      title: "Reading list",
      local_path: "Notes/reading.md",
      bytes: Buffer.byteLength(body),
      body_hash: `sha256:${await sha256Hex(body)}`,
    });
    expect(await readLocal("Notes/reading.md")).toBe(body);
    expect(bridge.requestsSinceMark()).toEqual([GET]);
    const lastChanged = bridge.emu.inspect().notes.find((note) => note.id === READING)?.lastChangedAt;
    const tracked = ok(await bridge.call("hackmd_list_notes", { source: "tracked" }));
    expect(tracked.notes).toEqual([
      {
        team_path: null,
        note_id: READING,
        local_path: "Notes/reading.md",
        baseline_hash: pulled.body_hash,
        last_observed_remote_timestamp: String(lastChanged),
      },
    ]);

    bridge.mark();
    const inSync = ok(await check("Notes/reading.md"));
    expect(inSync).toMatchObject({
      mode: "sync",
      status: "in_sync",
      local_path: "Notes/reading.md",
      baseline_path: `${STATE}/tracked/personal--${READING}.baseline.md`,
    });
    expect(bridge.requestsSinceMark()).toEqual([GET]);

    const edited = `${body}\n- One more book\n`;
    await writeLocal("Notes/reading.md", edited);
    expect(ok(await check("Notes/reading.md")).status).toBe("local_changed");
    bridge.mark();
    const pushed = ok(await push({ local_path: "Notes/reading.md" }));
    expect(pushed).toMatchObject({
      status: "pushed",
      note_id: READING,
      local_path: "Notes/reading.md",
      body_hash: `sha256:${await sha256Hex(edited)}`,
    });
    expect(bridge.requestsSinceMark()).toEqual([GET, PATCH, GET]);
    expect(bridge.emu.requests({ method: "PATCH" }).at(-1)?.bodyKeys).toEqual(["content"]);
    expect(remote(READING)).toBe(edited);
    expect(await baseline()).toBe(edited);

    await writeLocal("Notes/reading.md", `LOCAL\n${edited}`);
    bridge.emu.collaboratorEdit(READING, { content: `${edited}REMOTE\n` });
    expect(ok(await check("Notes/reading.md")).status).toBe("conflict");
    bridge.mark();
    const conflict = ok(await push({ local_path: "Notes/reading.md" }));
    expect(bridge.requestsSinceMark()).toEqual([GET]);
    expect(conflict).toMatchObject({
      status: "conflict",
      snapshot_path: "Notes/reading.remote.md",
      remote_body_hash: `sha256:${await sha256Hex(`${edited}REMOTE\n`)}`,
    });
    expect(conflict.diff_summary).toMatch(
      /^LOCAL CHANGES\n--- baseline\n\+\+\+ local\n[\s\S]*\+LOCAL[\s\S]*\nREMOTE CHANGES\n--- baseline\n\+\+\+ remote\n[\s\S]*\+REMOTE/,
    );
    expect(conflict.instructions).toMatch(/expected_remote_hash/);
    expect(await readLocal("Notes/reading.remote.md")).toBe(`${edited}REMOTE\n`);
    expect(await baseline()).toBe(edited);

    const merged = `LOCAL\n${edited}REMOTE\n`;
    await writeLocal("Notes/reading.md", merged);
    bridge.mark();
    ok(await push({ local_path: "Notes/reading.md", expected_remote_hash: conflict.remote_body_hash }));
    // Over a remote change: HackMD's text is named as a version first (docs/versions-and-comments.md), and the version list checked after the write.
    expect(bridge.requestsSinceMark()).toEqual([
      GET,
      "POST /notes/:noteId/versions",
      PATCH,
      GET,
      "GET /notes/:noteId/versions",
    ]);
    expect(remote(READING)).toBe(merged);
    expect(await baseline()).toBe(merged);

    bridge.mark();
    expect(errorKind(await bridge.call("hackmd_untrack_note", { note_id: READING }))).toBe("confirmation_required");
    expect(ok(await bridge.call("hackmd_untrack_note", { note_id: READING, confirm: true }))).toEqual({
      team_path: null,
      note_id: READING,
      local_path: "Notes/reading.md",
    });
    expect(errorKind(await bridge.call("hackmd_untrack_note", { note_id: READING, confirm: true }))).toBe(
      "not_tracked",
    );
    expect(errorKind(await bridge.call("hackmd_untrack_note", { note_id: "  ", confirm: true }))).toBe("invalid_input");
    expect(bridge.requestsSinceMark()).toEqual([]);
    expect(await readLocal("Notes/reading.md")).toBe(merged);
    expect(ok(await bridge.call("hackmd_list_notes", { source: "tracked" })).notes).toEqual([]);
    expect(await readdir(local(`${STATE}/by-path`))).toEqual([]);
  });

  it("spends exactly one GET on every push that writes nothing, and advances the baseline when both sides agree", async () => {
    ok(await pull({}));
    const body = remote(READING);
    bridge.mark();
    expect(ok(await push())).toMatchObject({ status: "nothing_to_push", body_hash: `sha256:${await sha256Hex(body)}` }); // S1
    expect(bridge.requestsSinceMark()).toEqual([GET]);

    bridge.emu.collaboratorEdit(READING, { content: `${body}\nremote\n` });
    bridge.mark();
    const remoteChanged = ok(await push({ expected_remote_hash: `sha256:${await sha256Hex(`${body}\nremote\n`)}` })); // S2, E ignored
    expect(remoteChanged).toMatchObject({
      status: "remote_changed",
      instructions: expect.stringMatching(/overwrite_local: true/),
    });
    expect(bridge.requestsSinceMark()).toEqual([GET]);

    await writeLocal("reading.md", `${body}\nremote\n`);
    bridge.mark();
    expect(ok(await push())).toMatchObject({ status: "nothing_to_push" }); // S5
    expect(bridge.requestsSinceMark()).toEqual([GET]);
    expect(await baseline()).toBe(`${body}\nremote\n`);

    await writeLocal("reading.md", "mine\n");
    bridge.mark();
    const moved = ok(await push({ expected_remote_hash: `sha256:${"0".repeat(64)}` })); // S4
    expect(moved).toMatchObject({ status: "conflict", snapshot_path: "reading.remote.md" });
    expect(bridge.requestsSinceMark()).toEqual([GET]);
    expect(bridge.emu.requests({ method: "PATCH" })).toHaveLength(0);
  });

  it("refuses before any request: overwrite without confirm, a malformed expected_remote_hash, an untracked file", async () => {
    ok(await pull({}));
    bridge.mark();
    expect(errorKind(await push({ strategy: "overwrite" }))).toBe("confirmation_required");
    for (const bad of [
      "SHA256:" + "a".repeat(64),
      "sha256:" + "A".repeat(64),
      "sha256:" + "a".repeat(63),
      " sha256:" + "a".repeat(64),
      "sha256:x",
    ]) {
      expect(errorKind(await push({ expected_remote_hash: bad }))).toBe("invalid_input");
    }
    await writeLocal("other.md", "x\n");
    expect(errorKind(await push({ local_path: "other.md" }))).toBe("not_tracked");
    // The check loads the record before the file: a missing untracked file is not_tracked too.
    expect(errorKind(await check("missing.md"))).toBe("not_tracked");
    expect(bridge.requestsSinceMark()).toEqual([]);
  });

  it("overwrites with confirm, and cross-checks note_ref in the tracked note's workspace", async () => {
    ok(await pull({}));
    bridge.emu.collaboratorEdit(READING, { content: "theirs\n" });
    await writeLocal("reading.md", "mine\n");
    expect(errorKind(await push({ note_ref: WEEKLY }))).toBe("invalid_input");
    bridge.mark();
    expect(ok(await push({ strategy: "overwrite", confirm: true, note_ref: READING }))).toMatchObject({
      status: "pushed",
    });
    expect(bridge.requestsSinceMark()).toEqual([
      GET,
      "POST /notes/:noteId/versions",
      PATCH,
      GET,
      "GET /notes/:noteId/versions",
    ]);
    expect(remote(READING)).toBe("mine\n");
    expect(ok(await push({ note_ref: "https://hackmd.io/@sandbox/nope" }))).toEqual({
      resolution: { status: "not_found", query: "nope" },
    });
  });

  it("refuses pull destinations with no request at all", async () => {
    await writeLocal("exists.md", "x\n");
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ local_path: "exists.md" }, "confirmation_required"],
      [{ local_path: "missing/dir/a.md" }, "confirmation_required"],
      [{ local_path: "notes.txt" }, "invalid_input"],
      [{ local_path: ".hackmd-bridge/x.md" }, "local_access"],
      [{ local_path: ".TRASH/x.md" }, "local_access"],
      [{ local_path: "a/../b.md" }, "local_access"],
      [{ local_path: "CLAUDE.md" }, "local_access"],
      [{ local_path: "x/.github/y.md" }, "local_access"],
      [{ local_path: "/etc/passwd.md" }, "local_access"],
    ];
    for (const [args, kind] of cases)
      expect([args, errorKind(await pull({ note_ref: "https://hackmd.io/@sandbox/cs101-sorting", ...args }))]).toEqual([
        args,
        kind,
      ]);
    expect(bridge.requestsSinceMark()).toEqual([]);
    expect(await readLocal("exists.md")).toBe("x\n");
  });

  it("applies the refusal table of §14.2", async () => {
    const body = remote(READING);
    // An untracked differing file: unverified_local_content, kept and untracked.
    await writeLocal("reading.md", "my own notes\n");
    expect(errorKind(await pull({ overwrite_local: true }))).toBe("unverified_local_content");
    expect(await readLocal("reading.md")).toBe("my own notes\n");
    expect(ok(await bridge.call("hackmd_list_notes", { source: "tracked" })).notes).toEqual([]);
    // A non-UTF-8 untracked file is kept too.
    await writeFile(local("reading.md"), Buffer.from([0xff, 0xfe, 0x00, 0x41]));
    expect(errorKind(await pull({ overwrite_local: true }))).toBe("unverified_local_content");
    expect([...(await readFile(local("reading.md")))]).toEqual([0xff, 0xfe, 0x00, 0x41]);
    // An equal untracked file (saved with CRLF) is adopted by a plain pull with overwrite_local.
    await writeLocal("reading.md", body.replace(/\n/g, "\r\n"));
    expect(ok(await pull({ overwrite_local: true }))).not.toHaveProperty("changes");
    expect(await readLocal("reading.md")).toBe(body);
    // A CRLF-saved tracked file is not an edit.
    await writeLocal("reading.md", body.replace(/\n/g, "\r\n"));
    expect(ok(await check()).status).toBe("in_sync");
    expect(ok(await push()).status).toBe("nothing_to_push");
    // Tracked and only behind: proceeds, reporting the changes.
    bridge.emu.collaboratorEdit(READING, { content: `${body}\nnew\n` });
    expect(ok(await check()).status).toBe("remote_changed");
    const refreshed = ok(await pull({ overwrite_local: true }));
    expect(refreshed.changes).toMatch(/^--- local\n\+\+\+ remote\n@@/);
    // Unpushed edits need discard_local_changes.
    await writeLocal("reading.md", "edited\n");
    bridge.emu.collaboratorEdit(READING, { content: `${body}\nnewer\n` });
    expect(errorKind(await pull({ overwrite_local: true }))).toBe("unpushed_changes");
    expect(await readLocal("reading.md")).toBe("edited\n");
    ok(await pull({ overwrite_local: true, discard_local_changes: true }));
    expect(await readLocal("reading.md")).toBe(`${body}\nnewer\n`);
    // A deleted tracked file comes back without a flag.
    await rm(local("reading.md"));
    ok(await pull({}));
    expect(await readLocal("reading.md")).toBe(`${body}\nnewer\n`);
    // A damaged record still guards: unverified_local_content.
    await writeLocal("reading.md", "edited again\n");
    await writeFile(local(`${STATE}/tracked/personal--${READING}.baseline.md`), "tampered");
    expect(errorKind(await pull({ overwrite_local: true }))).toBe("unverified_local_content");
    expect(errorKind(await check())).toBe("sync_state");
  });

  it("catches an editor save during the GET as unpushed_changes and keeps the saved text", async () => {
    ok(await pull({}));
    bridge.emu.collaboratorEdit(READING, { content: "remote edit\n" });
    bridge.emu.injectFault({ match: { method: "GET" }, action: { latencyMs: 400 }, times: 1 });
    const pending = pull({ overwrite_local: true });
    await new Promise((resolve) => setTimeout(resolve, 150));
    await writeLocal("reading.md", "saved by the editor\n");
    expect(errorKind(await pending)).toBe("unpushed_changes");
    expect(await readLocal("reading.md")).toBe("saved by the editor\n");
  });

  it("reports a PATCH dropped after commit as readback, sent once, with the baseline unchanged", async () => {
    ok(await pull({}));
    const before = await baseline();
    await writeLocal("reading.md", "landed?\n");
    bridge.emu.injectFault({ match: { method: "PATCH" }, action: { drop: true }, when: "after-commit" });
    expect(errorKind(await push())).toBe("readback");
    expect(bridge.emu.requests({ method: "PATCH" })).toHaveLength(1);
    expect(await baseline()).toBe(before);
    // Lost state after a push is repaired by a plain pull: both sides hold the same text.
    expect(ok(await check()).status).toBe("in_sync");
  });

  it("refuses two records for one file: unpushed_changes on pull, sync_state on push and check", async () => {
    ok(await pull({}));
    ok(await pull({ note_ref: WEEKLY, local_path: "weekly.md" }));
    const file = local(`${STATE}/tracked/personal--${WEEKLY}.json`);
    const json = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    // Replaced as every writer replaces a record (temporary file, then rename; docs/tools.md §13.6).
    await writeFile(`${file}.tmp`, JSON.stringify({ ...json, local_path: "reading.md" }));
    await rename(`${file}.tmp`, file);
    await rm(local(`${STATE}/by-path/${await sha256Hex("reading.md")}`));
    await writeLocal("reading.md", "edited\n");
    bridge.mark();
    expect(errorKind(await push())).toBe("sync_state");
    expect(errorKind(await check())).toBe("sync_state");
    expect(bridge.requestsSinceMark()).toEqual([]);
    expect(errorKind(await pull({ overwrite_local: true }))).toBe("unpushed_changes");
  });

  it("leaves a user's own .remote.md alone, and replaces its own snapshot on a later conflict", async () => {
    ok(await pull({}));
    await writeLocal("reading.remote.md", "my file\n");
    await writeLocal("reading.md", "mine\n");
    bridge.emu.collaboratorEdit(READING, { content: "theirs\n" });
    const first = ok(await push());
    expect(first).toMatchObject({
      status: "conflict",
      snapshot_error: expect.stringMatching(/not the snapshot this tool wrote/),
    });
    expect(first).not.toHaveProperty("snapshot_path");
    expect(await readLocal("reading.remote.md")).toBe("my file\n");
    await rm(local("reading.remote.md"));
    expect(ok(await push())).toMatchObject({ snapshot_path: "reading.remote.md" });
    bridge.emu.collaboratorEdit(READING, { content: "theirs again\n" });
    expect(ok(await push())).toMatchObject({ snapshot_path: "reading.remote.md" });
    expect(await readLocal("reading.remote.md")).toBe("theirs again\n");
  });

  it("tracks team notes under their team key and reports title_drift", async () => {
    const pulled = ok(
      await bridge.call("hackmd_pull_note", { note_ref: SPEC, team_path: "sandbox-team", local_path: "spec.md" }),
    );
    expect(pulled).toMatchObject({ team_path: "sandbox-team", note_id: SPEC });
    const body = await readLocal("spec.md");
    await writeLocal("spec.md", body.replace(/^# .*$/m, "# Renamed"));
    bridge.mark();
    const pushed = ok(await bridge.call("hackmd_push_note", { local_path: "spec.md" }));
    expect(pushed).toMatchObject({
      status: "pushed",
      team_path: "sandbox-team",
      title_drift: "Renamed",
      baseline_path: `${STATE}/tracked/team--sandbox%2Dteam--${SPEC}.baseline.md`,
    });
    expect(bridge.requestsSinceMark()).toEqual([
      "GET /teams/:teamPath/notes/:noteId",
      "PATCH /teams/:teamPath/notes/:noteId",
      "GET /teams/:teamPath/notes/:noteId",
    ]);
  });

  it("lets another core instance on the same ROOT see a saved record at once", async () => {
    ok(await pull({}));
    const other = await startBridge({ root: bridge.root });
    try {
      const tracked = ok(await other.call("hackmd_list_notes", { source: "tracked" }));
      expect(tracked.notes).toEqual([expect.objectContaining({ note_id: READING, local_path: "reading.md" })]);
      expect(ok(await other.call("hackmd_get_note", { local_path: "reading.md" })).status).toBe("in_sync");
    } finally {
      await other.close();
    }
  });

  it("never lets a push overwrite an earlier write whose outcome is unknown (found by the reliability harness)", async () => {
    ok(await pull({}));
    const before = remote(READING);
    // The agent's patch is committed but never shows within the read-back window: readback.
    bridge.emu.setQuirks({ visibilityDelayMs: 120_000 });
    const patch = [
      "*** Begin Patch",
      `*** Update File: notes/${READING}.md`,
      "@@",
      ...before
        .split("\n")
        .slice(-1)
        .map((line) => ` ${line}`),
      "+AGENT EDIT",
      "*** End of File",
      "*** End Patch",
    ].join("\n");
    expect(errorKind(await bridge.call("hackmd_update_note", { note_ref: READING, patch }))).toBe("readback");
    expect(bridge.emu.inspect().notes.find((note) => note.id === READING)?.content).toContain("AGENT EDIT");
    // A local edit, then a push: the read still shows the old body, which equals the baseline, so
    // without the memory of the pending write this push would overwrite the agent's edit.
    await writeLocal("reading.md", `${await readLocal("reading.md")}\nLOCAL EDIT`);
    bridge.mark();
    const refused = await push();
    expect(errorKind(refused)).toBe("readback");
    expect(refused.content[0]?.text).toMatch(/has not shown on HackMD yet/);
    expect(bridge.requestsSinceMark()).toEqual([GET]);
    // Once the pending write shows, the push sees a remote change and reports a conflict instead.
    bridge.emu.flushPending();
    bridge.emu.setQuirks({ visibilityDelayMs: 0 });
    const conflict = ok(await push());
    expect(conflict.status).toBe("conflict");
    expect(await readLocal("reading.remote.md")).toContain("AGENT EDIT");
    expect(remote(READING)).toContain("AGENT EDIT");
  }, 20_000);
});
