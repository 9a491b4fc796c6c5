/**
 * The `short_id` hackmd_list_notes returns works as a `note_ref`, resolved through
 * the note list the client caches (after a listing it costs no request), and an id keeps
 * resolving with no request at all. Through the SDK's real client.
 */
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { looksLikeShortId, resolveNoteRef, type ListedNoteRef } from "../../src/hackmd/note-ref";
import { ok, startBridge, type TestBridge } from "../helpers/bridge";

let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startBridge();
});

afterAll(async () => {
  await bridge.close();
});

describe("a short id as note_ref", () => {
  it("resolves to the listed note, with no request beyond the cached list", async () => {
    const listed = ok(await bridge.call("hackmd_list_notes", {})) as { notes: Array<{ id: string; short_id: string }> };
    const weekly = listed.notes.find((note) => note.id === DEMO_NOTE_IDS.weeklySync);
    expect(weekly?.short_id).toMatch(/^[A-Za-z0-9_-]{9}$/);
    bridge.mark();
    const got = ok(await bridge.call("hackmd_get_note", { note_ref: weekly?.short_id }));
    expect(got).toMatchObject({ id: DEMO_NOTE_IDS.weeklySync });
    expect(bridge.requestsSinceMark()).toEqual(["GET /notes/:noteId"]);
  });

  it("without a cached list costs one list request; a note id still costs none", async () => {
    const fresh = await startBridge();
    try {
      const listed = ok(await fresh.call("hackmd_list_notes", {})) as {
        notes: Array<{ id: string; short_id: string }>;
      };
      const cs101 = listed.notes.find((note) => note.id === DEMO_NOTE_IDS.cs101);
      fresh.mark();
      ok(await fresh.call("hackmd_get_note", { note_ref: cs101?.short_id, refresh: true }));
      expect(fresh.requestsSinceMark()).toEqual(["GET /notes", "GET /notes/:noteId"]);
      fresh.mark();
      ok(await fresh.call("hackmd_get_note", { note_ref: DEMO_NOTE_IDS.cs101 }));
      expect(fresh.requestsSinceMark()).toEqual(["GET /notes/:noteId"]);
    } finally {
      await fresh.close();
    }
  });

  it("a short-id-shaped value that no note has is used as an id, as before", async () => {
    const missing = await bridge.call("hackmd_get_note", { note_ref: "ZZZZZZZZZ" });
    expect(missing.isError).toBe(true);
    expect((missing._meta as { error_kind?: string }).error_kind).toBe("not_found");
  });
});

describe("resolveNoteRef with short ids", () => {
  const note = (id: string, shortId: string | null): ListedNoteRef => ({
    id,
    title: `T ${id}`,
    shortId,
    permalink: null,
  });
  const sources = (notes: ListedNoteRef[] | Error) => ({
    userPath: () => Promise.resolve("me"),
    teamPaths: () => Promise.resolve([]),
    listNotes: () => (notes instanceof Error ? Promise.reject(notes) : Promise.resolve(notes)),
  });

  it("only 9-character values are looked up; a listing failure falls back to the id", async () => {
    expect(looksLikeShortId("SysJb0yAY")).toBe(true);
    expect(looksLikeShortId(DEMO_NOTE_IDS.cs101)).toBe(false);
    expect(looksLikeShortId("nope")).toBe(false);
    const options = { teamPath: "core", refresh: false };
    await expect(
      resolveNoteRef({ kind: "direct", id: "SysJb0yAY" }, options, sources([note("full-id", "SysJb0yAY")])),
    ).resolves.toEqual({ status: "resolved", teamPath: "core", noteId: "full-id" });
    await expect(
      resolveNoteRef({ kind: "direct", id: "SysJb0yAY" }, options, sources(new Error("offline"))),
    ).resolves.toEqual({ status: "resolved", teamPath: "core", noteId: "SysJb0yAY" });
    const twice = await resolveNoteRef(
      { kind: "direct", id: "SysJb0yAY" },
      options,
      sources([note("a", "SysJb0yAY"), note("b", "SysJb0yAY")]),
    );
    expect(twice).toMatchObject({ status: "ambiguous", query: "SysJb0yAY" });
  });
});
