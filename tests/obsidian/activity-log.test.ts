/** The activity history: kept across restarts in its store, bounded, texts for Undo kept beside it. */
import type { ProposedChange } from "../../src/core/approval";
import { ActivityLog, type ActivityStore } from "../../src/obsidian/activity-log";

function memoryStore(): ActivityStore & { texts: Map<string, string> } {
  const texts = new Map<string, string>();
  let log: string | undefined;
  return {
    texts,
    loadLog: async () => log,
    saveLog: async (text) => void (log = text),
    readText: async (hash) => texts.get(hash),
    writeText: async (hash, text) => void texts.set(hash, text),
    removeText: async (hash) => void texts.delete(hash),
  };
}

const hash = (digit: string): string => `sha256:${digit.repeat(64)}`;

function edit(before: string): ProposedChange {
  return {
    action: "edit_note",
    note: { teamPath: null, noteId: "n1" },
    body: { where: "note", before, after: `${before}!` },
  };
}

describe("ActivityLog history", () => {
  it("keeps calls across a restart and the text before a note write for Undo, and forgets texts with their entries", async () => {
    const store = memoryStore();
    let now = 1000;
    const log = new ActivityLog({ capacity: 2, now: () => now++, store });
    log.record(
      {
        request_id: "req-1",
        tool: "hackmd_update_note",
        ok: true,
        duration_ms: 5,
        note_id: "n1",
        client: "agent",
        body_hash_before: hash("a"),
        body_hash_after: hash("b"),
      },
      edit("one"),
    );
    log.record({
      request_id: "req-1",
      tool: "hackmd_get_note",
      ok: true,
      duration_ms: 5,
      note_id: "n1",
      client: "agent",
    });
    await log.flushed();
    expect(store.texts.get(hash("a"))).toBe("one");

    // A restart (request ids start again): the entries come back with distinct ids, Undo still offered.
    const again = new ActivityLog({ capacity: 2, now: () => now++, store });
    await again.load();
    const [write, read] = again.list();
    expect(write).toMatchObject({ tool: "hackmd_update_note", client: "agent", keptLength: 3 });
    expect(write?.id).not.toBe(read?.id);
    expect(again.canUndo(write!)).toBe(true);
    expect(again.canUndo(read!)).toBe(false);
    expect(await again.textBefore(write!)).toBe("one");

    // Past the capacity the oldest entry goes, and its kept text with it.
    again.record({ request_id: "req-9", tool: "hackmd_list_notes", ok: true, duration_ms: 1 });
    await again.flushed();
    expect(again.list().map((entry) => entry.tool)).toEqual(["hackmd_get_note", "hackmd_list_notes"]);
    expect(store.texts.size).toBe(0);
  });

  it("keeps no text for failed calls, metadata-only updates, creates or pushes", async () => {
    const store = memoryStore();
    const log = new ActivityLog({ capacity: 10, store });
    log.record(
      {
        request_id: "r1",
        tool: "hackmd_update_note",
        ok: false,
        error_kind: "approval_denied",
        duration_ms: 1,
        body_hash_before: hash("a"),
        body_hash_after: hash("b"),
      },
      edit("one"),
    );
    log.record(
      { request_id: "r2", tool: "hackmd_update_note", ok: true, duration_ms: 1, note_id: "n1" },
      { action: "update_note", note: { teamPath: null, noteId: "n1" }, fields: { title: "T" } },
    );
    log.record(
      {
        request_id: "r3",
        tool: "hackmd_push_note",
        ok: true,
        duration_ms: 1,
        note_id: "n1",
        body_hash_before: hash("c"),
        body_hash_after: hash("d"),
      },
      { action: "push_note", body: { where: "note", before: "x", after: "y" } },
    );
    await log.flushed();
    expect(store.texts.size).toBe(0);
    expect(log.list().some((entry) => log.canUndo(entry))).toBe(false);
  });
});
