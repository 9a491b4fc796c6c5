/**
 * `hackmd_push_note` with strategy `merge` (docs/sync-decision-table.md G1–G8, docs/tool-contract-extensions.md): edits on
 * both sides that do not overlap are merged into the file and pushed, the baseline moving only
 * after the confirmed write; overlapping edits are a conflict exactly as with `safe`.
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "../../src/core/hash";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { errorKind, ok, startBridge, type TestBridge } from "../helpers/bridge";

const NOTE = DEMO_NOTE_IDS.readingList;
const FILE = "reading.md";
const GET = "GET /notes/:noteId";
const PATCH = "PATCH /notes/:noteId";

describe("hackmd_push_note strategy merge", () => {
  let bridge: TestBridge;
  let body: string;
  const local = (path: string): string => join(bridge.root, path);
  const remote = (): string => bridge.emu.inspect().notes.find((note) => note.id === NOTE)?.content ?? "";
  const baselineHash = async (): Promise<string> =>
    (
      JSON.parse(await readFile(local(`.hackmd-bridge/sync/tracked/personal--${NOTE}.json`), "utf8")) as {
        baseline_body_hash: string;
      }
    ).baseline_body_hash;
  const push = (args: Record<string, unknown> = {}) =>
    bridge.call("hackmd_push_note", { local_path: FILE, strategy: "merge", ...args });

  beforeEach(async () => {
    bridge = await startBridge();
    ok(await bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: FILE }));
    body = remote();
  });
  afterEach(async () => {
    await bridge.close();
  });

  it("G7 clean: writes the merge to the file, PATCHes it, and only then moves the baseline", async () => {
    await writeFile(local(FILE), `mine first\n${body}`);
    bridge.emu.collaboratorEdit(NOTE, { content: `${body}theirs last\n` });
    const merged = `mine first\n${body}theirs last\n`;
    bridge.mark();
    const out = ok(await push());
    expect(out).toMatchObject({ status: "pushed", merged: true, body_hash: `sha256:${await sha256Hex(merged)}` });
    expect(bridge.requestsSinceMark()).toEqual([GET, PATCH, GET]);
    expect(await readFile(local(FILE), "utf8")).toBe(merged);
    expect(remote()).toBe(merged);
    expect(await baselineHash()).toBe(out.body_hash);
    expect(ok(await push()).status).toBe("nothing_to_push");
  });

  it("G7 clean where HackMD already holds every local edit: the file catches up, nothing is sent", async () => {
    await writeFile(local(FILE), `shared edit\n${body}`);
    bridge.emu.collaboratorEdit(NOTE, { content: `shared edit\n${body}and theirs\n` });
    bridge.mark();
    const out = ok(await push());
    expect(out).toMatchObject({ status: "nothing_to_push", merged: true });
    expect(bridge.requestsSinceMark()).toEqual([GET]);
    expect(await readFile(local(FILE), "utf8")).toBe(remote());
    expect(await baselineHash()).toBe(`sha256:${await sha256Hex(remote())}`);
  });

  it("G7 overlapping: a conflict with the .remote.md snapshot, nothing sent, file and baseline kept", async () => {
    await writeFile(local(FILE), `${body}mine\n`);
    bridge.emu.collaboratorEdit(NOTE, { content: `${body}theirs\n` });
    const before = await baselineHash();
    bridge.mark();
    const out = ok(await push());
    expect(out).toMatchObject({ status: "conflict", snapshot_path: "reading.remote.md" });
    expect(out.merged).toBeUndefined();
    expect(bridge.requestsSinceMark()).toEqual([GET]);
    expect(await readFile(local(FILE), "utf8")).toBe(`${body}mine\n`);
    expect(remote()).toBe(`${body}theirs\n`);
    expect(await baselineHash()).toBe(before);
  });

  it("G8: an expected_remote_hash that does not match refuses even a clean merge", async () => {
    await writeFile(local(FILE), `mine first\n${body}`);
    bridge.emu.collaboratorEdit(NOTE, { content: `${body}theirs last\n` });
    const out = ok(await push({ expected_remote_hash: `sha256:${"0".repeat(64)}` }));
    expect(out.status).toBe("conflict");
    expect(remote()).toBe(`${body}theirs last\n`);
    expect(await readFile(local(FILE), "utf8")).toBe(`mine first\n${body}`);
  });

  it("strategy safe keeps its contract: the same clean edits are a conflict", async () => {
    await writeFile(local(FILE), `mine first\n${body}`);
    bridge.emu.collaboratorEdit(NOTE, { content: `${body}theirs last\n` });
    expect(ok(await push({ strategy: "safe" })).status).toBe("conflict");
    await stat(local("reading.remote.md"));
  });

  it("a failed PATCH leaves the merged file unpushed and the baseline where it was; the next merge push sends it", async () => {
    await writeFile(local(FILE), `mine first\n${body}`);
    bridge.emu.collaboratorEdit(NOTE, { content: `${body}theirs last\n` });
    const before = await baselineHash();
    bridge.emu.injectFault({ match: { route: PATCH }, action: { status: 400 }, when: "before-commit" });
    expect(errorKind(await push())).toBe("api");
    expect(await readFile(local(FILE), "utf8")).toBe(`mine first\n${body}theirs last\n`);
    expect(await baselineHash()).toBe(before);
    expect(ok(await push())).toMatchObject({ status: "pushed", merged: true });
    expect(remote()).toBe(`mine first\n${body}theirs last\n`);
  });
});
