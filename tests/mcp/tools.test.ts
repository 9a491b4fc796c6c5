import { DEMO_NOTE_IDS } from "../../src/emulator";
import { errorKind, ok, seenErrorTexts, seenTokens, startBridge, type TestBridge } from "../helpers/bridge";

const WEEKLY = DEMO_NOTE_IDS.weeklySync;
const READING = DEMO_NOTE_IDS.readingList;

describe("the HackMD tools through a real MCP client against the emulator", () => {
  let bridge: TestBridge;
  beforeEach(async () => {
    bridge = await startBridge();
    bridge.mark();
  });
  afterEach(async () => {
    await bridge.close();
  });

  describe("hackmd_get_me", () => {
    it("returns the profile and teams with one GET /me, and refreshes the account cache", async () => {
      const out = ok(await bridge.call("hackmd_get_me"));
      expect(out).toMatchObject({ name: "Sandbox User", user_path: "sandbox", email: null });
      expect((out.teams as Array<{ path: string }>).map((team) => team.path)).toEqual(["sandbox-team"]);
      expect(bridge.requestsSinceMark()).toEqual(["GET /me"]);
      // The account cache now knows the user path: a scoped reference needs no /me.
      bridge.mark();
      ok(await bridge.call("hackmd_get_note", { note_ref: "https://hackmd.io/@sandbox/BkWs7yncA" }));
      expect(bridge.requestsSinceMark()).toEqual(["GET /notes", "GET /notes/:noteId"]);
    });
  });

  describe("hackmd_list_notes", () => {
    it("lists the workspace with paging fields, sorted by last change, and reuses the list within 60 s", async () => {
      const first = ok(await bridge.call("hackmd_list_notes", { limit: 2 }));
      expect(first).toMatchObject({ mode: "notes", total: 3, count: 2, offset: 0, has_more: true, next_offset: 2 });
      const notes = first.notes as Array<Record<string, unknown>>;
      expect(notes[0]).not.toHaveProperty("content");
      expect(notes[0]).not.toHaveProperty("note_url");
      expect((notes[0]?.last_changed_at as number) >= (notes[1]?.last_changed_at as number)).toBe(true);
      const second = ok(await bridge.call("hackmd_list_notes", { offset: 2, limit: 2 }));
      expect(second).toMatchObject({ total: 3, count: 1, has_more: false, next_offset: null });
      const past = ok(await bridge.call("hackmd_list_notes", { offset: 10 }));
      expect(past).toMatchObject({ total: 3, count: 0, notes: [] });
      expect(bridge.requestsSinceMark()).toEqual(["GET /notes"]);
      ok(await bridge.call("hackmd_list_notes", { refresh: true }));
      expect(bridge.requestsSinceMark()).toEqual(["GET /notes", "GET /notes"]);
    });

    it("filters by case-folded query and by all tags, and lists a team with team_path on each note", async () => {
      const byQuery = ok(await bridge.call("hackmd_list_notes", { query: "WEEKLY SYNC" }));
      expect((byQuery.notes as Array<{ id: string }>).map((note) => note.id)).toEqual([WEEKLY]);
      const byTags = ok(await bridge.call("hackmd_list_notes", { tags: ["CS101", "teaching"] }));
      expect((byTags.notes as Array<{ id: string }>).map((note) => note.id)).toEqual([DEMO_NOTE_IDS.cs101]);
      const none = ok(await bridge.call("hackmd_list_notes", { tags: ["cs101", "missing"] }));
      expect(none.total).toBe(0);
      const team = ok(await bridge.call("hackmd_list_notes", { team_path: "sandbox-team" }));
      expect(team.notes).toEqual([expect.objectContaining({ id: DEMO_NOTE_IDS.spec, team_path: "sandbox-team" })]);
    });

    it("reads history and trash fresh each time, and refuses team_path and refresh there before any request", async () => {
      ok(await bridge.call("hackmd_get_note", { note_ref: READING }));
      const history = ok(await bridge.call("hackmd_list_notes", { source: "history" }));
      expect((history.notes as Array<{ id: string; last_visit?: number }>)[0]).toMatchObject({
        id: READING,
        last_visit: expect.any(Number),
      });
      const trash = ok(await bridge.call("hackmd_list_notes", { source: "trash" }));
      expect(trash.notes).toEqual([expect.objectContaining({ id: DEMO_NOTE_IDS.oldDraft })]);
      bridge.mark();
      expect(errorKind(await bridge.call("hackmd_list_notes", { source: "history", team_path: "sandbox-team" }))).toBe(
        "invalid_input",
      );
      expect(errorKind(await bridge.call("hackmd_list_notes", { source: "trash", refresh: true }))).toBe(
        "invalid_input",
      );
      expect(bridge.requestsSinceMark()).toEqual([]);
    });

    it("refuses bad arguments as invalid_input results, never as protocol errors, with no request", async () => {
      for (const args of [
        { limit: 101 },
        { limit: 0 },
        { offset: -1 },
        { bogus: 1 },
        { team_path: "  " },
        { team_path: 3 },
        { source: "everything" },
      ]) {
        const result = await bridge.call("hackmd_list_notes", args);
        expect(errorKind(result)).toBe("invalid_input");
        expect(result.structuredContent).toBeUndefined();
      }
      expect(bridge.requestsSinceMark()).toEqual([]);
    });
  });

  describe("hackmd_get_note", () => {
    it("gets a note by id with exactly one GET, with body, body_hash and an unencoded patch_path", async () => {
      const out = ok(await bridge.call("hackmd_get_note", { note_ref: READING }));
      expect(out).toMatchObject({ mode: "note", id: READING, patch_path: `notes/${READING}.md`, team_path: null });
      expect(out.body_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(typeof out.content).toBe("string");
      expect((out.content as string).endsWith("\n")).toBe(false);
      expect(out).not.toHaveProperty("note_url");
      expect(bridge.requestsSinceMark()).toEqual(["GET /notes/:noteId"]);
    });

    it("resolves a scoped URL with cold caches as me + list + item, then from the caches", async () => {
      ok(await bridge.call("hackmd_get_note", { note_ref: "https://hackmd.io/@sandbox/cs101-sorting" }));
      expect(bridge.requestsSinceMark()).toEqual(["GET /me", "GET /notes", "GET /notes/:noteId"]);
      bridge.mark();
      ok(await bridge.call("hackmd_get_note", { note_ref: "hackmd.io/@sandbox/BkWs7yncA" }));
      expect(bridge.requestsSinceMark()).toEqual(["GET /notes/:noteId"]);
      bridge.mark();
      const team = ok(await bridge.call("hackmd_get_note", { note_ref: "https://hackmd.io/@sandbox-team/HkSpecOfs" }));
      expect(team).toMatchObject({
        team_path: "sandbox-team",
        patch_path: `teams/sandbox-team/notes/${DEMO_NOTE_IDS.spec}.md`,
      });
      // GET /me already brought the teams into the account cache: no GET /teams.
      expect(bridge.requestsSinceMark()).toEqual(["GET /teams/:teamPath/notes", "GET /teams/:teamPath/notes/:noteId"]);
    });

    it("reports unresolved references as a resolution, not an error", async () => {
      const missing = ok(await bridge.call("hackmd_get_note", { note_ref: "https://hackmd.io/@sandbox/nope" }));
      expect(missing).toEqual({ resolution: { status: "not_found", query: "nope" } });
      const owner = ok(await bridge.call("hackmd_get_note", { note_ref: "https://hackmd.io/@stranger/x" }));
      expect(owner).toEqual({ resolution: { status: "not_found", query: "@stranger/x" } });
    });

    it("needs exactly one of note_ref and local_path", async () => {
      expect(errorKind(await bridge.call("hackmd_get_note", {}))).toBe("invalid_input");
      expect(errorKind(await bridge.call("hackmd_get_note", { note_ref: READING, local_path: "a.md" }))).toBe(
        "invalid_input",
      );
      expect(bridge.requestsSinceMark()).toEqual([]);
    });

    it("maps HackMD errors to kinds with the METHOD path prefix", async () => {
      const missing = await bridge.call("hackmd_get_note", { note_ref: "doesNotExist" });
      expect(errorKind(missing)).toBe("not_found");
      expect(missing.content[0]?.text).toMatch(/^GET \/v1\/notes\/doesNotExist:/);
    });
  });

  describe("hackmd_update_note", () => {
    const patchFor = (id: string, from: string, to: string): string =>
      ["*** Begin Patch", `*** Update File: notes/${id}.md`, "@@", `-${from}`, `+${to}`, "*** End Patch"].join("\n");

    it("edits with GET + PATCH(content) + read-back, and a no-op patch costs one GET", async () => {
      const before = ok(await bridge.call("hackmd_get_note", { note_ref: WEEKLY }));
      const firstLine = (before.content as string).split("\n")[0] ?? "";
      bridge.mark();
      const edited = ok(
        await bridge.call("hackmd_update_note", {
          note_ref: WEEKLY,
          patch: patchFor(WEEKLY, firstLine, "# Weekly sync (edited)"),
          expected_hash: before.body_hash,
        }),
      );
      expect(edited).toMatchObject({
        mode: "patched",
        changed: true,
        note_id: WEEKLY,
        patch_path: `notes/${WEEKLY}.md`,
      });
      expect(bridge.requestsSinceMark()).toEqual(["GET /notes/:noteId", "PATCH /notes/:noteId", "GET /notes/:noteId"]);
      expect(bridge.emu.requests({ method: "PATCH" }).at(-1)?.bodyKeys).toEqual(["content"]);
      expect(
        bridge.emu
          .inspect()
          .notes.find((note) => note.id === WEEKLY)
          ?.content.startsWith("# Weekly sync (edited)\n"),
      ).toBe(true);

      bridge.mark();
      const context = [
        "*** Begin Patch",
        `*** Update File: notes/${WEEKLY}.md`,
        "@@",
        " # Weekly sync (edited)",
        "*** End Patch",
      ].join("\n");
      const noop = ok(await bridge.call("hackmd_update_note", { note_ref: WEEKLY, patch: context }));
      expect(noop).toMatchObject({ changed: false });
      expect(bridge.requestsSinceMark()).toEqual(["GET /notes/:noteId"]);
    });

    it("stops a stale edit after one GET (conflict) and refuses a patch that does not apply", async () => {
      const stale = await bridge.call("hackmd_update_note", {
        note_ref: WEEKLY,
        patch: patchFor(WEEKLY, "x", "y"),
        expected_hash: `sha256:${"0".repeat(64)}`,
      });
      expect(errorKind(stale)).toBe("conflict");
      const wrongTarget = await bridge.call("hackmd_update_note", {
        note_ref: WEEKLY,
        patch: patchFor("other", "x", "y"),
      });
      expect(errorKind(wrongTarget)).toBe("patch_rejected");
      expect(wrongTarget.content[0]?.text).toContain(`notes/${WEEKLY}.md`);
      expect(bridge.requestsSinceMark()).toEqual(["GET /notes/:noteId", "GET /notes/:noteId"]);
      expect(bridge.emu.requests({ method: "PATCH" })).toHaveLength(0);
    });

    it("refuses contradictory or impossible arguments before any request", async () => {
      const cases: Array<Record<string, unknown>> = [
        { note_ref: WEEKLY, patch: "x", title: "t" },
        { note_ref: WEEKLY, patch: "x", parent_folder_id: null },
        { note_ref: WEEKLY },
        { note_ref: WEEKLY, title: "t", comment_permission: "everyone" },
        { note_ref: WEEKLY, read_permission: "owner", write_permission: "guest" },
        { note_ref: WEEKLY, content: "x", expected_hash: "SHA256:abc" },
        { note_ref: WEEKLY, content: "x", expected_hash: `sha256:${"A".repeat(64)}` },
      ];
      for (const args of cases) expect(errorKind(await bridge.call("hackmd_update_note", args))).toBe("invalid_input");
      expect(bridge.requestsSinceMark()).toEqual([]);
    });

    it("updates metadata by resending the body it read, and confirms by reading back", async () => {
      const out = ok(
        await bridge.call("hackmd_update_note", {
          note_ref: READING,
          title: "Reading list 2026",
          tags: ["links", " books "],
          description: "d",
        }),
      );
      expect(out).toMatchObject({
        mode: "updated",
        folder_placement_confirmed: null,
        note: expect.objectContaining({ title: "Reading list 2026", description: "d" }),
      });
      const patch = bridge.emu.requests({ method: "PATCH" })[0];
      expect(patch?.bodyKeys?.sort()).toEqual(["content", "description", "tags", "title"]);
      const stored = bridge.emu.inspect().notes.find((note) => note.id === READING);
      expect(stored?.content.endsWith("\n")).toBe(false);
      expect(stored?.content.length).toBeGreaterThan(0);
    });

    it("replaces the body with normalised line endings and moves between folders with a flag", async () => {
      const out = ok(await bridge.call("hackmd_update_note", { note_ref: READING, content: "a\r\nb\rc\n" }));
      expect(out.mode).toBe("updated");
      // A blind replacement names HackMD's text first (docs/tool-contract-extensions.md, docs/versions-and-comments.md).
      expect(bridge.requestsSinceMark()).toEqual([
        "POST /notes/:noteId/versions",
        "PATCH /notes/:noteId",
        "GET /notes/:noteId",
      ]);
      expect(bridge.emu.inspect().notes.find((note) => note.id === READING)?.content).toBe("a\nb\nc\n");
      const folders = ok(await bridge.call("hackmd_list_folders")).folders as Array<{ id: string; name: string }>;
      const meetings = folders.find((folder) => folder.name === "Meetings")?.id;
      const moved = ok(await bridge.call("hackmd_update_note", { note_ref: READING, parent_folder_id: meetings }));
      expect(moved.folder_placement_confirmed).toBe(true);
      const back = ok(await bridge.call("hackmd_update_note", { note_ref: READING, parent_folder_id: null }));
      expect(back.folder_placement_confirmed).toBe(true);
    });

    it("confirms an edit that becomes visible only after a delay, counting read-backs", async () => {
      bridge.emu.setQuirks({ visibilityDelayMs: 250 });
      const result = await bridge.call("hackmd_update_note", { note_ref: READING, content: "later\n" });
      ok(result);
      const retry = result._meta?.retry as { readback_attempts: number; attempts: number } | undefined;
      expect(retry?.readback_attempts).toBeGreaterThan(1);
      expect(retry?.attempts).toBe(1);
    });

    it("reports a PATCH whose connection dropped after commit as readback, sent exactly once", async () => {
      bridge.emu.injectFault({ match: { method: "PATCH" }, action: { drop: true }, when: "after-commit" });
      const result = await bridge.call("hackmd_update_note", { note_ref: READING, content: "landed\n" });
      expect(errorKind(result)).toBe("readback");
      expect(bridge.emu.requests({ method: "PATCH" })).toHaveLength(1);
    });

    it("reports an edit that never shows as readback", async () => {
      bridge.emu.setQuirks({ visibilityDelayMs: 60_000 });
      const result = await bridge.call("hackmd_update_note", { note_ref: READING, content: "never visible\n" });
      expect(errorKind(result)).toBe("readback");
      expect(result.content[0]?.text).toMatch(/compare before writing again/);
    }, 15_000);
  });

  describe("hackmd_create_note", () => {
    it("creates with one POST carrying only the given fields, then places it in a folder with one GET", async () => {
      const folders = ok(await bridge.call("hackmd_list_folders")).folders as Array<{ id: string; name: string }>;
      const meetings = folders.find((folder) => folder.name === "Meetings")?.id;
      bridge.mark();
      const out = ok(
        await bridge.call("hackmd_create_note", {
          title: "Plan",
          content: "# Plan\r\n",
          read_permission: "guest",
          write_permission: "owner",
          tags: ["a"],
          parent_folder_id: meetings,
        }),
      );
      expect(out).toMatchObject({
        folder_placement_requested: true,
        folder_placement_confirmed: true,
        compatibility_patch_applied: false,
        unconfirmed_fields: [],
      });
      expect(out.note).not.toHaveProperty("content");
      expect(bridge.requestsSinceMark()).toEqual(["POST /notes", "GET /notes/:noteId"]);
      const post = bridge.emu.requests({ method: "POST" })[0];
      expect(post?.bodyKeys?.sort()).toEqual([
        "content",
        "parentFolderId",
        "readPermission",
        "tags",
        "title",
        "writePermission",
      ]);
      const id = (out.note as { id: string }).id;
      expect(bridge.emu.inspect().notes.find((note) => note.id === id)?.content).toBe("# Plan\n");
    });

    it("falls back to a compatibility PATCH when the POST ignored the folder", async () => {
      bridge.emu.setQuirks({ createHonoursParentFolderId: false });
      const folders = ok(await bridge.call("hackmd_list_folders")).folders as Array<{ id: string; name: string }>;
      const meetings = folders.find((folder) => folder.name === "Meetings")?.id;
      bridge.mark();
      const out = ok(await bridge.call("hackmd_create_note", { content: "body", parent_folder_id: meetings }));
      expect(out).toMatchObject({ folder_placement_confirmed: true, compatibility_patch_applied: true });
      expect(bridge.requestsSinceMark().slice(0, 4)).toEqual([
        "POST /notes",
        "GET /notes/:noteId",
        "PATCH /notes/:noteId",
        "GET /notes/:noteId",
      ]);
      expect(bridge.emu.requests({ method: "PATCH" })[0]?.bodyKeys?.sort()).toEqual(["content", "parentFolderId"]);
    });

    it("refuses unsettable permissions and an unknown team, never POSTing", async () => {
      expect(errorKind(await bridge.call("hackmd_create_note", { comment_permission: "everyone" }))).toBe(
        "invalid_input",
      );
      expect(
        errorKind(await bridge.call("hackmd_create_note", { read_permission: "signed_in", write_permission: "guest" })),
      ).toBe("invalid_input");
      expect(bridge.requestsSinceMark()).toEqual([]);
      expect(errorKind(await bridge.call("hackmd_create_note", { team_path: "not-mine" }))).toBe("not_found");
      expect(bridge.requestsSinceMark()).toEqual(["GET /teams"]);
    });

    it("reports a POST whose reply was lost as readback, sent once", async () => {
      bridge.emu.injectFault({ match: { method: "POST" }, action: { drop: true }, when: "after-commit" });
      expect(errorKind(await bridge.call("hackmd_create_note", { title: "Lost" }))).toBe("readback");
      expect(bridge.emu.requests({ method: "POST" })).toHaveLength(1);
    });
  });

  describe("hackmd_delete_note", () => {
    it("deletes a personal note into the trash and restores it; the note_id alias works", async () => {
      expect(ok(await bridge.call("hackmd_delete_note", { note_ref: READING }))).toEqual({
        team_path: null,
        note_id: READING,
        restored: false,
      });
      expect(bridge.requestsSinceMark()).toEqual(["DELETE /notes/:noteId"]);
      const restored = ok(await bridge.call("hackmd_delete_note", { note_id: READING, restore: true }));
      expect(restored).toEqual({ team_path: null, note_id: READING, restored: true });
      expect(ok(await bridge.call("hackmd_get_note", { note_ref: READING })).id).toBe(READING);
      bridge.mark();
      expect(errorKind(await bridge.call("hackmd_delete_note", { note_ref: READING, note_id: READING }))).toBe(
        "invalid_input",
      );
      expect(
        errorKind(
          await bridge.call("hackmd_delete_note", { note_ref: READING, restore: true, team_path: "sandbox-team" }),
        ),
      ).toBe("invalid_input");
      expect(
        errorKind(await bridge.call("hackmd_delete_note", { note_ref: "https://hackmd.io/@sandbox/x", restore: true })),
      ).toBe("invalid_input");
      expect(bridge.requestsSinceMark()).toEqual([]);
    });
  });

  describe("folder tools", () => {
    it("creates a top-level folder without parentFolderId, lists it, and deletes it", async () => {
      const created = ok(await bridge.call("hackmd_create_folder", { name: "Drafts", icon: "1F600" }));
      const folder = created.folder as { id: string; parent_folder_id: string | null };
      expect(folder.parent_folder_id).toBeNull();
      expect(bridge.emu.requests({ method: "POST" })[0]?.bodyKeys?.sort()).toEqual(["icon", "name"]);
      const listed = ok(await bridge.call("hackmd_list_folders", { limit: 100 }));
      expect((listed.folders as Array<{ id: string }>).some((entry) => entry.id === folder.id)).toBe(true);
      expect(ok(await bridge.call("hackmd_delete_folder", { folder_id: folder.id }))).toMatchObject({
        deleted: true,
        child_count: 0,
      });
      expect(errorKind(await bridge.call("hackmd_delete_folder", { folder_id: folder.id }))).toBe("not_found");
    });

    it("asks for confirmation before deleting a folder with child folders, sending no DELETE", async () => {
      const folders = ok(await bridge.call("hackmd_list_folders")).folders as Array<{ id: string; name: string }>;
      const teaching = folders.find((folder) => folder.name === "Teaching")?.id;
      const first = ok(await bridge.call("hackmd_delete_folder", { folder_id: teaching }));
      expect(first).toMatchObject({ deleted: false, child_count: 1, confirmation_required: true });
      expect(bridge.emu.requests({ method: "DELETE" })).toHaveLength(0);
      expect(ok(await bridge.call("hackmd_delete_folder", { folder_id: teaching, confirm: true }))).toMatchObject({
        deleted: true,
      });
    });

    it("updates a team folder's fields with read-back, refuses personal updates and moves before any request", async () => {
      const team = ok(await bridge.call("hackmd_list_folders", { team_path: "sandbox-team" })).folders as Array<{
        id: string;
      }>;
      const specs = team[0]?.id;
      bridge.mark();
      const out = ok(
        await bridge.call("hackmd_update_folder", {
          team_path: "sandbox-team",
          folder_id: specs,
          name: "Specifications",
          color: null,
        }),
      );
      expect(out.folder).toMatchObject({ id: specs, name: "Specifications", color: null });
      expect(bridge.requestsSinceMark()).toEqual([
        "PATCH /teams/:teamPath/folders/:folderId",
        "GET /teams/:teamPath/folders/:folderId",
      ]);
      bridge.mark();
      expect(errorKind(await bridge.call("hackmd_update_folder", { folder_id: specs, name: "x" }))).toBe(
        "invalid_input",
      );
      expect(
        errorKind(
          await bridge.call("hackmd_update_folder", {
            team_path: "sandbox-team",
            folder_id: specs,
            parent_folder_id: null,
          }),
        ),
      ).toBe("invalid_input");
      expect(errorKind(await bridge.call("hackmd_update_folder", { child_order: ["a", "a"] }))).toBe("invalid_input");
      expect(errorKind(await bridge.call("hackmd_update_folder", {}))).toBe("invalid_input");
      expect(bridge.requestsSinceMark()).toEqual([]);
    });

    it("sets a child order by read-modify-write that keeps other entries, using the folder_ids alias", async () => {
      const folders = ok(await bridge.call("hackmd_list_folders")).folders as Array<{
        id: string;
        name: string;
        parent_folder_id: string | null;
      }>;
      const top = folders
        .filter((folder) => folder.parent_folder_id === null)
        .map((folder) => folder.id)
        .reverse();
      bridge.mark();
      const out = ok(await bridge.call("hackmd_update_folder", { folder_ids: top }));
      expect(out).toEqual({ team_path: null, child_order: { parent: "root", folder_ids: top } });
      expect(bridge.requestsSinceMark()).toEqual([
        "GET /folders/folder-order",
        "PUT /folders/folder-order",
        "GET /folders/folder-order",
      ]);
      const order = bridge.emu.inspect().folderOrders;
      expect(JSON.stringify(order)).toContain(JSON.stringify(top));
    });
  });

  describe("argument checks shared by every tool", () => {
    it("accepts the hidden workspace alias wherever team_path is accepted, and refuses both together", async () => {
      const viaAlias = ok(await bridge.call("hackmd_list_notes", { workspace: "sandbox-team" }));
      expect(viaAlias.notes).toEqual([expect.objectContaining({ team_path: "sandbox-team" })]);
      const personal = ok(await bridge.call("hackmd_list_folders", { workspace: { kind: "personal" } }));
      expect(personal.team_path).toBeNull();
      const team = ok(
        await bridge.call("hackmd_list_folders", { workspace: { kind: "team", team_path: "sandbox-team" } }),
      );
      expect(team.team_path).toBe("sandbox-team");
      bridge.mark();
      expect(errorKind(await bridge.call("hackmd_list_notes", { workspace: null, team_path: null }))).toBe(
        "invalid_input",
      );
      expect(bridge.requestsSinceMark()).toEqual([]);
    });

    it("refuses dot, blank and control-character team paths and folder ids before any request, even without a token", async () => {
      const tokenless = await startBridge({ token: null });
      try {
        const cases: Array<[string, Record<string, unknown>]> = [
          ["hackmd_create_note", { team_path: ".." }],
          ["hackmd_create_folder", { name: "x", team_path: "." }],
          ["hackmd_list_notes", { team_path: "a\u0085b" }],
          ["hackmd_delete_folder", { folder_id: ".." }],
          ["hackmd_delete_folder", { folder_id: "  " }],
          ["hackmd_update_folder", { folder_id: " ", child_order: [] }],
        ];
        for (const [name, args] of cases)
          expect([name, errorKind(await tokenless.call(name, args))]).toEqual([name, "invalid_input"]);
        expect(tokenless.emu.requests()).toHaveLength(0);
      } finally {
        await tokenless.close();
      }
    });
  });

  describe("without a token", () => {
    it("fails with auth naming the request and the fix, and list refusals still cost nothing", async () => {
      const tokenless = await startBridge({ token: null });
      try {
        const result = await tokenless.call("hackmd_get_me");
        expect(errorKind(result)).toBe("auth");
        expect(result.content[0]?.text).toMatch(/^GET \/v1\/me:/);
        expect(result.content[0]?.text).toContain("HACKMD_API_TOKEN");
        expect(tokenless.emu.requests()).toHaveLength(0);
      } finally {
        await tokenless.close();
      }
    });
  });

  it("never showed a token in any error text of this suite (runs last)", () => {
    expect(seenErrorTexts.length).toBeGreaterThan(10);
    for (const text of seenErrorTexts) for (const token of seenTokens) expect(text).not.toContain(token);
  });
});
