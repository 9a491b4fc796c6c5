/**
 * Through the agent tools: the `.remote.md` snapshot of a conflict is removed by the sync engine
 * once the conflict is resolved, unless the user edited it (docs/sync-decision-table.md, "The
 * snapshot's end"), and a pull to a second path says where the note's tracking moved from.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { errorKind, ok, startBridge, type TestBridge } from "../helpers/bridge";

const NOTE = DEMO_NOTE_IDS.readingList;
const FILE = "reading.md";
const SNAPSHOT = "reading.remote.md";

describe("the .remote.md snapshot through the tools", () => {
  let bridge: TestBridge;
  let body: string;
  const local = (path: string): string => join(bridge.root, path);
  const remote = (): string => bridge.emu.inspect().notes.find((note) => note.id === NOTE)?.content ?? "";
  const text = (result: { content: Array<{ text?: string }> }): string => result.content[0]?.text ?? "";

  /** An overlapping conflict pushed once: the snapshot is written; returns the remote hash it reported. */
  async function conflict(): Promise<string> {
    await writeFile(local(FILE), `${body}mine\n`);
    bridge.emu.collaboratorEdit(NOTE, { content: `${body}theirs\n` });
    const out = ok(await bridge.call("hackmd_push_note", { local_path: FILE }));
    expect(out).toMatchObject({ status: "conflict", snapshot_path: SNAPSHOT });
    expect(await readFile(local(SNAPSHOT), "utf8")).toBe(`${body}theirs\n`);
    return String(out.remote_body_hash);
  }

  beforeEach(async () => {
    bridge = await startBridge();
    ok(await bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: FILE }));
    body = remote();
  });
  afterEach(async () => {
    await bridge.close();
  });

  it("hackmd_push_note with expected_remote_hash resolves the conflict and removes the snapshot it wrote", async () => {
    const hash = await conflict();
    await writeFile(local(FILE), `${body}theirs\nmine\n`);
    const result = await bridge.call("hackmd_push_note", { local_path: FILE, expected_remote_hash: hash });
    expect(ok(result).status).toBe("pushed");
    expect(existsSync(local(SNAPSHOT))).toBe(false);
    expect(text(result)).toContain(`Removed ${SNAPSHOT}`);
  });

  it("keeps a snapshot the user edited, and says so", async () => {
    const hash = await conflict();
    await writeFile(local(SNAPSHOT), `${body}theirs\nmy notes\n`);
    await writeFile(local(FILE), `${body}theirs\nmine\n`);
    const result = await bridge.call("hackmd_push_note", { local_path: FILE, expected_remote_hash: hash });
    expect(ok(result).status).toBe("pushed");
    expect(await readFile(local(SNAPSHOT), "utf8")).toBe(`${body}theirs\nmy notes\n`);
    expect(text(result)).toContain(`${SNAPSHOT} was kept: you edited it`);
  });

  it("strategy merge that merges after an earlier conflict removes the snapshot", async () => {
    await writeFile(local(FILE), `mine first\n${body}`);
    bridge.emu.collaboratorEdit(NOTE, { content: `${body}theirs last\n` });
    expect(ok(await bridge.call("hackmd_push_note", { local_path: FILE })).status).toBe("conflict");
    expect(existsSync(local(SNAPSHOT))).toBe(true);
    const merged = ok(await bridge.call("hackmd_push_note", { local_path: FILE, strategy: "merge" }));
    expect(merged).toMatchObject({ status: "pushed", merged: true });
    expect(existsSync(local(SNAPSHOT))).toBe(false);
  });

  it("hackmd_pull_note taking HackMD's version resolves the conflict and removes the snapshot", async () => {
    await conflict();
    const result = await bridge.call("hackmd_pull_note", {
      note_ref: NOTE,
      local_path: FILE,
      overwrite_local: true,
      discard_local_changes: true,
    });
    ok(result);
    expect(await readFile(local(FILE), "utf8")).toBe(`${body}theirs\n`);
    expect(existsSync(local(SNAPSHOT))).toBe(false);
    expect(text(result)).toContain(`Removed ${SNAPSHOT}`);
  });

  it("hackmd_pull_note to a second path reports moved_from; the old path's check names the new one", async () => {
    const result = await bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: "elsewhere.md" });
    expect(ok(result)).toMatchObject({ local_path: "elsewhere.md", moved_from: FILE });
    expect(text(result)).toContain(`tracked at ${FILE} until now`);
    // A pull to the file it is tracked at moves nothing.
    expect(
      ok(await bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: "elsewhere.md", overwrite_local: true }))
        .moved_from,
    ).toBeUndefined();
    const check = await bridge.call("hackmd_get_note", { local_path: FILE });
    expect(errorKind(check)).toBe("not_tracked");
    expect(text(check)).toContain(`was pulled to elsewhere.md`);
  });
});
