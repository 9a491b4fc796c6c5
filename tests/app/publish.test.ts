/**
 * Publish converts first (src/app/publish.ts, the sync engine's publishForm/adopt): a new note
 * gets the file's HackMD form, comments never leave the vault, the record's baseline is what was
 * sent, and a failed link-up leaves no note behind on HackMD. Real HTTP to the emulator.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { undoJournalEntry } from "../../src/app/journal-undo";
import { publishFile } from "../../src/app/publish";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { CallContext } from "../../src/hackmd/call-context";
import { ok, startBridge, type TestBridge } from "../helpers/bridge";

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4, 5, 6, 7, 8]);

const FILE = [
  "# Idea",
  "",
  "See [[Other note]] and [[Functions]].",
  "",
  "![[pic.png]]",
  "",
  "%%only for me: the budget is 12k%%",
  "",
  "> [!warning] Careful",
  "> The oven is hot.",
  "",
].join("\n");

describe("publish converts first", () => {
  let bridge: TestBridge;
  let root: string;
  const local = (path: string): string => join(root, path);
  // The emulator's note list as HackMD shows it: a deleted note goes to the trash.
  const notes = (): Array<{ id: string; content: string }> =>
    bridge.emu.inspect().notes.filter((note) => note.trashedAt === null);
  const publish = (path: string) =>
    publishFile(bridge.core.deps, new CallContext(), {
      path,
      teamPath: null,
      readPermission: "owner",
      writePermission: "owner",
    });
  const check = async (path: string): Promise<string> =>
    (await bridge.core.deps.sync.check({ localPath: path, call: new CallContext() })).status;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "hb-publish-"));
    await mkdir(join(root, ".obsidian"));
    bridge = await startBridge({ root, convertByDefault: () => true });
    await writeFile(local("pic.png"), PNG);
    ok(await bridge.call("hackmd_pull_note", { note_ref: DEMO_NOTE_IDS.cs101, local_path: "Other note.md" }));
  });
  afterEach(async () => {
    await bridge.close();
    await rm(root, { recursive: true, force: true });
  });

  it("creates the note in HackMD's form, keeps the comment local, tracks what it sent, and leaves the file alone", async () => {
    await writeFile(local("Idea.md"), FILE);
    const published = await publish("Idea.md");
    const body = notes().find((note) => note.id === published.noteId)?.content ?? "";
    expect(body).not.toContain("budget");
    expect(body).not.toContain("[[Other note]]");
    expect(body).toContain(`(${new URL(bridge.emu.url).origin}/${DEMO_NOTE_IDS.cs101})`);
    expect(body).toContain(":::warning");
    expect(body).toMatch(/!\[pic\.png\]\([^)]*\/_uploads\//);
    // Not tracked on HackMD yet: stays a wikilink there.
    expect(body).toContain("[[Functions]]");
    expect(await readFile(local("Idea.md"), "utf8")).toBe(FILE);
    expect(await check("Idea.md")).toBe("in_sync");
    const tracked = (await bridge.core.deps.sync.listTracked()).find((entry) => entry.note_id === published.noteId);
    expect(tracked?.local_path).toBe("Idea.md");
  });

  it("deletes the note it created when the link-up fails, so HackMD's list has no orphan", async () => {
    await writeFile(local("Idea.md"), FILE);
    const before = notes().map((note) => note.id);
    bridge.mark();
    bridge.emu.injectFault({ match: { route: "POST /notes/:noteId/images" }, action: { status: 500 } });
    await expect(publish("Idea.md")).rejects.toThrow(/nothing is left on HackMD/);
    expect(notes().map((note) => note.id)).toEqual(before);
    expect(bridge.requestsSinceMark()).toContain("DELETE /notes/:noteId");
    expect(await bridge.core.deps.sync.listTracked()).toHaveLength(1);
    expect(await readFile(local("Idea.md"), "utf8")).toBe(FILE);
  });

  it("a collaborator's edit after the linked note became tracked does not respell [[Functions]] in the file", async () => {
    await writeFile(local("Idea.md"), FILE);
    const { noteId } = await publish("Idea.md");
    // Functions becomes a tracked note after the publish.
    ok(await bridge.call("hackmd_pull_note", { note_ref: DEMO_NOTE_IDS.readingList, local_path: "Functions.md" }));
    const body = notes().find((note) => note.id === noteId)?.content ?? "";
    bridge.emu.collaboratorEdit(noteId, { content: `${body}\nAdded on HackMD.\n` });
    ok(await bridge.call("hackmd_pull_note", { note_ref: noteId, local_path: "Idea.md", overwrite_local: true }));
    const text = await readFile(local("Idea.md"), "utf8");
    expect(text).toBe(`${FILE}\nAdded on HackMD.\n`);
    expect(text).not.toContain("<!---->");
    expect(await check("Idea.md")).toBe("in_sync");
  });

  it("undoing a publish's create deletes the note and untracks the file, which stays", async () => {
    const PLAIN = "# Plain\n\nhello\n";
    await writeFile(local("Idea.md"), PLAIN);
    const published = await publish("Idea.md");
    const created = (await bridge.core.deps.journal.read({ kind: "create_note" })).find(
      (entry) => entry.note?.note_id === published.noteId,
    );
    expect(created?.branch).toBe("publish");

    const result = await undoJournalEntry(bridge.core.deps, created!);
    expect(result.message).toContain("Idea.md is kept and no longer tracked");
    expect(result.undone).toBe(true);
    expect(notes().some((note) => note.id === published.noteId)).toBe(false);
    expect(await readFile(local("Idea.md"), "utf8")).toBe(PLAIN);
    const tracked = await bridge.core.deps.sync.listTracked();
    expect(tracked.some((entry) => entry.note_id === published.noteId || entry.local_path === "Idea.md")).toBe(false);
    const untracks = await bridge.core.deps.journal.read({ kind: "untrack" });
    expect(untracks.map((entry) => entry.file)).toEqual(["Idea.md"]);
  });
});
