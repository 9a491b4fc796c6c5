/**
 * Undo from the sync journal (src/app/journal-undo.ts) of pulls and pushes of notes synced with
 * conversion (docs/conversion-rules.md), as in an Obsidian vault where conversion is on by default:
 * HackMD's side is restored in HackMD's form, the file's in Obsidian's, the baseline is saved with
 * the record's conversion, and an edit made after the write is never written over.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { undoJournalEntry } from "../../src/app/journal-undo";
import { CallContext } from "../../src/hackmd/call-context";
import type { JournalEntry } from "../../src/sync/journal";
import { ok, startBridge, type TestBridge } from "../helpers/bridge";

const N = "journal-undo-converted";
const REMOTE = ":::info\nfirst text\n:::\n";
const LOCAL = "> [!info]\n> first text\n";

describe("undo of pulls and pushes of a note synced with conversion", () => {
  let bridge: TestBridge;
  let root: string;
  const file = (): Promise<string> => readFile(join(root, "n.md"), "utf8");
  const body = (): string | undefined => bridge.emu.inspect().notes.find((note) => note.id === N)?.content;
  const status = async (): Promise<string> =>
    (await bridge.core.deps.sync.check({ localPath: "n.md", call: new CallContext() })).status;
  const last = async (kind: JournalEntry["kind"]): Promise<JournalEntry> => {
    const entry = (await bridge.core.deps.journal.read({ kind })).at(-1);
    if (entry === undefined) throw new Error(`no ${kind} entry`);
    return entry;
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "hb-undo-convert-"));
    await mkdir(join(root, ".obsidian"));
    bridge = await startBridge({ root, convertByDefault: () => true, cacheTtlMs: 0 });
    bridge.emu.seed({ notes: [{ id: N, title: "N", content: REMOTE }] });
    ok(await bridge.call("hackmd_pull_note", { note_ref: N, local_path: "n.md" }));
    expect(await file()).toBe(LOCAL);
  });
  afterEach(async () => {
    await bridge.close();
    await rm(root, { recursive: true, force: true });
  });

  it("undoes an agent's push: HackMD gets its text back, the file keeps its edit, which still converts", async () => {
    const edited = "> [!info]\n> the agent's text\n";
    await writeFile(join(root, "n.md"), edited);
    ok(await bridge.call("hackmd_push_note", { local_path: "n.md" }));
    expect(body()).toBe(":::info\nthe agent's text\n:::\n");

    const result = await undoJournalEntry(bridge.core.deps, await last("push"));
    expect(result).toMatchObject({ undone: true });
    expect(body()).toBe(REMOTE);
    expect(await file()).toBe(edited);
    // The file reads as a local edit through the conversion (not as a conflict of two syntaxes).
    expect(await status()).toBe("local_changed");
    ok(await bridge.call("hackmd_push_note", { local_path: "n.md" }));
    expect(body()).toBe(":::info\nthe agent's text\n:::\n");
  });

  it("refuses to undo a push when HackMD changed after it, and writes nothing", async () => {
    await writeFile(join(root, "n.md"), "> [!info]\n> the agent's text\n");
    ok(await bridge.call("hackmd_push_note", { local_path: "n.md" }));
    const theirs = ":::info\nada's text\n:::\n";
    bridge.emu.collaboratorEdit(N, { content: theirs }, { as: "ada" });
    const result = await undoJournalEntry(bridge.core.deps, await last("push"));
    expect(result.undone).toBe(false);
    expect(result.message).toContain("changed after this write");
    expect(body()).toBe(theirs);
    expect(await file()).toBe("> [!info]\n> the agent's text\n");
  });

  it("undoes an agent's pull: the file gets its Obsidian text back and compares through the conversion", async () => {
    bridge.emu.collaboratorEdit(N, { content: ":::info\nada's text\n:::\n" }, { as: "ada" });
    ok(await bridge.call("hackmd_pull_note", { note_ref: N, local_path: "n.md", overwrite_local: true }));
    expect(await file()).toBe("> [!info]\n> ada's text\n");

    const result = await undoJournalEntry(bridge.core.deps, await last("pull"));
    expect(result).toMatchObject({ undone: true });
    expect(await file()).toBe(LOCAL);
    // The baseline is the file's text in HackMD's form: the file is clean, HackMD's edit is new again.
    expect(await status()).toBe("remote_changed");
    expect(body()).toBe(":::info\nada's text\n:::\n");
  });

  it("refuses to undo a pull when the file changed after it, and writes nothing", async () => {
    bridge.emu.collaboratorEdit(N, { content: ":::info\nada's text\n:::\n" }, { as: "ada" });
    ok(await bridge.call("hackmd_pull_note", { note_ref: N, local_path: "n.md", overwrite_local: true }));
    const mine = "> [!info]\n> ada's text, and mine\n";
    await writeFile(join(root, "n.md"), mine);
    const result = await undoJournalEntry(bridge.core.deps, await last("pull"));
    expect(result.undone).toBe(false);
    expect(result.message).toContain("n.md");
    expect(await file()).toBe(mine);
    expect(await status()).toBe("local_changed");
  });

  it("undoes an agent's merge: HackMD and the file each get their text back in their own form", async () => {
    const remoteBefore = ":::info\nfirst text\n:::\n\nA line by ada.\n";
    bridge.emu.collaboratorEdit(N, { content: remoteBefore }, { as: "ada" });
    const mine = "> [!warning]\n> mine\n\n> [!info]\n> first text\n";
    await writeFile(join(root, "n.md"), mine);
    const pushed = ok(await bridge.call("hackmd_push_note", { local_path: "n.md", strategy: "merge" }));
    expect(pushed.merged).toBe(true);
    expect(body()).toBe(":::warning\nmine\n:::\n\n:::info\nfirst text\n:::\n\nA line by ada.\n");
    expect(await file()).toContain("> [!warning]");

    const result = await undoJournalEntry(bridge.core.deps, await last("merge"));
    expect(result).toMatchObject({ undone: true });
    expect(body()).toBe(remoteBefore);
    expect(await file()).toBe(mine);
    expect(await status()).toBe("local_changed");
  });

  it("refuses to undo a merge when HackMD changed after it, and leaves the file as the merge wrote it", async () => {
    bridge.emu.collaboratorEdit(N, { content: ":::info\nfirst text\n:::\n\nA line by ada.\n" }, { as: "ada" });
    await writeFile(join(root, "n.md"), "> [!warning]\n> mine\n\n> [!info]\n> first text\n");
    expect(ok(await bridge.call("hackmd_push_note", { local_path: "n.md", strategy: "merge" })).merged).toBe(true);
    const merged = await file();
    const theirs = ":::info\nada's later text\n:::\n";
    bridge.emu.collaboratorEdit(N, { content: theirs }, { as: "ada" });

    const result = await undoJournalEntry(bridge.core.deps, await last("merge"));
    expect(result.undone).toBe(false);
    expect(result.message).toContain("changed after this write");
    expect(body()).toBe(theirs);
    expect(await file()).toBe(merged);
    expect(await bridge.core.deps.journal.read({ kind: "undo" })).toEqual([]);
  });
});
