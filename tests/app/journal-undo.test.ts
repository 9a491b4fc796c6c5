/**
 * An agent session's writes as a change set (src/app/journal-undo.ts): undoing a 10-write session
 * newest first restores every note and file to its state before the session when nobody else
 * edited, and refuses — naming the note — where someone did, writing nothing for it. Every undo
 * that writes adds one journal entry.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { applyMergedUndo, undoJournalEntry, undoSession } from "../../src/app/journal-undo";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { CallContext } from "../../src/hackmd/call-context";
import { ok, startBridge, type TestBridge } from "../helpers/bridge";

const TEAM = "sandbox-team";
const A = DEMO_NOTE_IDS.readingList;
const B = DEMO_NOTE_IDS.cs101;
const C = DEMO_NOTE_IDS.weeklySync;
const D = DEMO_NOTE_IDS.spec;
const G = "journal-undo-g";

describe("undoing an agent session", () => {
  let bridge: TestBridge;
  const body = (id: string): string | undefined => bridge.emu.inspect().notes.find((note) => note.id === id)?.content;
  const exists = (id: string): boolean =>
    bridge.emu.inspect().notes.some((note) => note.id === id && note.trashedAt === null);
  const local = (path: string): string => join(bridge.root, path);
  const hashOf = async (id: string, teamPath?: string): Promise<string> =>
    ok(await bridge.call("hackmd_get_note", { note_ref: id, ...(teamPath ? { team_path: teamPath } : {}) }))
      .body_hash as string;
  const update = async (id: string, content: string, teamPath?: string) =>
    ok(
      await bridge.call("hackmd_update_note", {
        note_ref: id,
        content,
        expected_hash: await hashOf(id, teamPath),
        ...(teamPath ? { team_path: teamPath } : {}),
      }),
    );

  beforeEach(async () => {
    bridge = await startBridge({ cacheTtlMs: 0 });
    bridge.emu.seed({ notes: [{ id: G, title: "G", content: "# G\n\nfirst\n" }] });
    // Before the session, the user pulled G and edited the file (not pushed yet).
    await bridge.core.deps.sync.pull({
      localPath: "g.md",
      resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: null, noteId: G }),
      overwriteLocal: false,
      discardLocalChanges: false,
      createParentDirs: false,
      confirmLargeFile: false,
      call: new CallContext(),
    });
    await writeFile(local("g.md"), "# G\n\nthe user's edit\n");
  });
  afterEach(async () => {
    await bridge.close();
  });

  /** The agent's ten writes; returns the session id and the notes it created. */
  const session = async (): Promise<{ id: string; created: string[] }> => {
    ok(await bridge.call("hackmd_pull_note", { note_ref: A, local_path: "a.md" }));
    ok(await bridge.call("hackmd_pull_note", { note_ref: B, local_path: "b.md" }));
    await update(C, "# C by the agent\n");
    await update(D, "# D by the agent\n", TEAM);
    const e = ok(await bridge.call("hackmd_create_note", { title: "E", content: "# E\n" }));
    const f = ok(await bridge.call("hackmd_create_note", { title: "F", content: "# F\n" }));
    await update(C, "# C by the agent, again\n");
    await update(A, "# A by the agent\n");
    ok(await bridge.call("hackmd_pull_note", { note_ref: A, local_path: "a.md", overwrite_local: true }));
    ok(await bridge.call("hackmd_push_note", { local_path: "g.md" }));
    const entries = await bridge.core.deps.journal.read({ actorKind: "agent" });
    expect(entries).toHaveLength(10);
    const ids = new Set(entries.map((entry) => entry.actor.session));
    expect(ids.size).toBe(1);
    const noteOf = (result: Record<string, unknown>) => (result.note as { id: string } | undefined)?.id ?? "";
    return { id: [...ids][0] ?? "", created: [noteOf(e), noteOf(f)] };
  };

  it("restores every note and file to its state before the session when nobody else edited", async () => {
    const before = { A: body(A), B: body(B), C: body(C), D: body(D), G: body(G) };
    const { id, created } = await session();
    expect(body(C)).toBe("# C by the agent, again\n");
    expect(created.every((note) => exists(note))).toBe(true);

    const results = await undoSession(bridge.core.deps, id);
    expect(results.map((result) => [result.entry.kind, result.undone])).toEqual([
      ["push", true],
      ["pull", true],
      ["update_note", true],
      ["update_note", true],
      ["create_note", true],
      ["create_note", true],
      ["update_note", true],
      ["update_note", true],
      ["pull", true],
      ["pull", true],
    ]);
    expect({ A: body(A), B: body(B), C: body(C), D: body(D), G: body(G) }).toEqual(before);
    expect(created.some((note) => exists(note))).toBe(false);
    expect(existsSync(local("a.md"))).toBe(false);
    expect(existsSync(local("b.md"))).toBe(false);
    // The user's unpushed edit is still in the file, and reads as a local change again.
    expect(await readFile(local("g.md"), "utf8")).toBe("# G\n\nthe user's edit\n");
    expect(ok(await bridge.call("hackmd_get_note", { local_path: "g.md" })).status).toBe("local_changed");
    expect((await bridge.core.deps.sync.listTracked()).map((entry) => entry.local_path)).toEqual(["g.md"]);
    // One journal entry per undo.
    const undos = await bridge.core.deps.journal.read({ kind: "undo" });
    expect(undos.map((entry) => entry.undoes).sort()).toEqual(results.map((result) => result.entry.id).sort());
  });

  it("refuses, naming the note, where someone edited after the agent, and undoes the rest", async () => {
    const before = { A: body(A), D: body(D) };
    const { id } = await session();
    const theirs = "# C, edited by a collaborator after the agent\n";
    bridge.emu.collaboratorEdit(C, { content: theirs }, { as: "ada" });
    const results = await undoSession(bridge.core.deps, id);
    const refused = results.filter((result) => !result.undone);
    expect(refused.map((result) => result.entry.kind)).toEqual(["update_note", "update_note"]);
    expect(refused[0]?.message).toContain("Weekly sync");
    expect(refused[0]?.message).toContain("changed after this write");
    expect(body(C)).toBe(theirs);
    expect({ A: body(A), D: body(D) }).toEqual(before);
    expect(results.filter((result) => result.undone)).toHaveLength(8);
  });

  it("a personal note's deletion undoes by restoring it from HackMD's trash", async () => {
    const text = body(A);
    ok(await bridge.call("hackmd_delete_note", { note_ref: A }));
    expect(exists(A)).toBe(false);
    const deleted = (await bridge.core.deps.journal.read({ kind: "delete_note" })).at(-1);
    if (deleted === undefined) throw new Error("no entry");
    const result = await undoJournalEntry(bridge.core.deps, deleted);
    expect(result.undone).toBe(true);
    expect(exists(A)).toBe(true);
    expect(body(A)).toBe(text);
  });

  it("offers a merge when someone edited another part of the note after the agent, and applying it keeps their edit", async () => {
    const original = "# C\n\nfirst line\n\nmiddle\n\nlast line\n";
    bridge.emu.collaboratorEdit(C, { content: original }, { as: "ada" });
    await update(C, original.replace("first line", "first line, by the agent"));
    const agentWrite = (await bridge.core.deps.journal.read({ kind: "update_note" })).at(-1);
    if (agentWrite === undefined) throw new Error("no entry");
    const theirs = original.replace("first line", "first line, by the agent").replace("last line", "last line, by ada");
    bridge.emu.collaboratorEdit(C, { content: theirs }, { as: "ada" });
    const refused = await undoJournalEntry(bridge.core.deps, agentWrite);
    expect(refused.undone).toBe(false);
    expect(body(C)).toBe(theirs);
    expect(refused.merge?.text).toBe(original.replace("last line", "last line, by ada"));
    const merged = await applyMergedUndo(bridge.core.deps, agentWrite, refused.merge!);
    expect(merged.undone).toBe(true);
    expect(body(C)).toBe(original.replace("last line", "last line, by ada"));
    expect((await bridge.core.deps.journal.read()).at(-1)).toMatchObject({ kind: "undo", undoes: agentWrite.id });
  });
});
