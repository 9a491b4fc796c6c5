/**
 * Relink (docs/conversion-rules.md, "Relink"): when a pull tracks a note, unedited files whose
 * links point at it turn back into wikilinks; a file edited since its baseline is never rewritten.
 * Real HTTP to the emulator, through the MCP tools.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishFile } from "../../src/app/publish";
import { bodyHash } from "../../src/core/hash";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { CallContext } from "../../src/hackmd/call-context";
import { ok, startBridge, type TestBridge } from "../helpers/bridge";

const MAIN = DEMO_NOTE_IDS.readingList;
const SECOND = DEMO_NOTE_IDS.weeklySync;
const OTHER = DEMO_NOTE_IDS.cs101;

describe("relink after a note becomes tracked", () => {
  let bridge: TestBridge;
  let root: string;
  const local = (path: string): string => join(root, path);
  const check = async (path: string): Promise<string> =>
    (await bridge.core.deps.sync.check({ localPath: path, call: new CallContext() })).status;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "hb-relink-"));
    await mkdir(join(root, ".obsidian"));
    bridge = await startBridge({ root, convertByDefault: () => true });
    const origin = new URL(bridge.emu.url).origin;
    // Two notes on HackMD link a third one, which this vault does not track yet.
    for (const id of [MAIN, SECOND])
      bridge.emu.collaboratorEdit(id, { content: `# Note ${id}\n\nSee [Other note](${origin}/${OTHER}).\n` });
    ok(await bridge.call("hackmd_pull_note", { note_ref: MAIN, local_path: "Main.md" }));
    ok(await bridge.call("hackmd_pull_note", { note_ref: SECOND, local_path: "Second.md" }));
  });
  afterEach(async () => {
    await bridge.close();
    await rm(root, { recursive: true, force: true });
  });

  it("turns the unedited file's link into the wikilink, leaves the edited file as the user wrote it, and sends nothing", async () => {
    const origin = new URL(bridge.emu.url).origin;
    expect(await readFile(local("Main.md"), "utf8")).toContain(`[Other note](${origin}/${OTHER})`);
    const edited = `${await readFile(local("Second.md"), "utf8")}My own line.\n`;
    await writeFile(local("Second.md"), edited);
    bridge.mark();
    ok(await bridge.call("hackmd_pull_note", { note_ref: OTHER, local_path: "Other note.md" }));
    expect(bridge.requestsSinceMark().filter((route) => !route.startsWith("GET"))).toEqual([]);
    expect(await readFile(local("Main.md"), "utf8")).toBe(`# Note ${MAIN}\n\nSee [[Other note]].\n`);
    expect(await check("Main.md")).toBe("in_sync");
    expect(await readFile(local("Second.md"), "utf8")).toBe(edited);
    expect(await check("Second.md")).toBe("local_changed");
    // The rewrite is a write: one journal entry (src/sync/journal.ts), and the journal keeps the
    // file's text from before it.
    await bridge.core.deps.journal.flushed();
    const relinks = (await bridge.core.deps.journal.read()).filter((entry) => entry.branch === "relink");
    expect(relinks.map((entry) => [entry.kind, entry.file, entry.outcome])).toEqual([["pull", "Main.md", "rewritten"]]);
    const kept = relinks[0]?.replaced?.find((place) => place.side === "local" && place.where === "journal");
    expect(await bridge.core.deps.journal.keptText(kept?.hash ?? "")).toBe(
      `# Note ${MAIN}\n\nSee [Other note](${origin}/${OTHER}).\n`,
    );
  });

  it("journals a relink's send to HackMD whose outcome is unknown as unconfirmed, as push does", async () => {
    await writeFile(local("Idea.md"), "# Idea\n\nSee [[Other note]].\n");
    const { noteId } = await publishFile(bridge.core.deps, new CallContext(), {
      path: "Idea.md",
      teamPath: null,
      readPermission: "owner",
      writePermission: "owner",
    });
    const sent = bridge.emu.inspect().notes.find((note) => note.id === noteId)?.content ?? "";
    // Sent while Other note was untracked: the wikilink went as text.
    expect(sent).toContain("[[Other note]]");
    // Tracking it by a pull relinks files only; the relink of Idea.md then sends the link.
    ok(await bridge.call("hackmd_pull_note", { note_ref: OTHER, local_path: "Other note.md" }));
    bridge.emu.setQuirks({ visibilityDelayMs: 600_000 });
    const relinked = bridge.core.deps.sync.relink!({ localPath: "Idea.md", call: new CallContext() });
    await expect(relinked).rejects.toMatchObject({ kind: "readback" });

    await bridge.core.deps.journal.flushed();
    const entry = (await bridge.core.deps.journal.read()).at(-1);
    expect(entry).toMatchObject({
      kind: "push",
      branch: "relink",
      outcome: "unconfirmed (readback)",
      file: "Idea.md",
      note: { note_id: noteId },
      remote: { before: await bodyHash(sent) },
    });
    expect(entry?.baseline?.after).toBe(entry?.baseline?.before);
    expect(await bridge.core.deps.journal.keptText(entry?.written?.hash ?? "")).toContain(`/${OTHER})`);
  }, 20_000);
});
