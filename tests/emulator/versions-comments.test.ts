import { DEMO_COMMENT_IDS, DEMO_NOTE_IDS, startEmulator, type Emulator } from "../../src/emulator";
import { api, fakeClock } from "./helpers";

let emu: Emulator;
const clock = fakeClock();

beforeAll(async () => {
  emu = await startEmulator({ seed: "demo", clock, control: true });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => emu.reset());

const NOTE = DEMO_NOTE_IDS.readingList;

describe("versions", () => {
  test("a seeded note has one system version; every body write adds one, newest first", async () => {
    const first = await api(emu, "GET", `/notes/${NOTE}/versions`);
    expect(first.status).toBe(200);
    expect(first.json.meta).toEqual({ total_pages: 1, total: 1, limit: 50, page: 1 });
    expect(first.json.data[0]).toMatchObject({
      name_source: "system",
      content_available: true,
      authorship: [expect.any(Object)],
    });
    clock.advance(1000);
    expect((await api(emu, "PATCH", `/notes/${NOTE}`, { content: "two" })).status).toBe(202);
    clock.advance(1000);
    emu.collaboratorEdit(NOTE, { content: "three" }, { as: "ada" });
    const list = await api(emu, "GET", `/notes/${NOTE}/versions`);
    expect(list.json.data.map((v: { created_by: { display_name: string } }) => v.created_by.display_name)).toEqual([
      "Ada Collaborator",
      "Sandbox User",
      "Sandbox User",
    ]);
    const newest = await api(emu, "GET", `/notes/${NOTE}/versions/${list.json.data[1].id as string}`);
    expect(newest.json).toMatchObject({
      content: "two",
      created_at: new Date(Date.UTC(2024, 5, 1) + 1000).toISOString(),
    });
  });

  test("autoVersions none keeps only named versions; a PATCH that changes nothing makes none", async () => {
    emu.setQuirks({ autoVersions: "none" });
    await api(emu, "PATCH", `/notes/${NOTE}`, { content: "changed" });
    expect((await api(emu, "GET", `/notes/${NOTE}/versions`)).json.meta.total).toBe(1);
    emu.setQuirks({ autoVersions: "per-write" });
    await api(emu, "PATCH", `/notes/${NOTE}`, { content: "changed" });
    expect((await api(emu, "GET", `/notes/${NOTE}/versions`)).json.meta.total).toBe(1);
  });

  test("create names the live body: new content → a new version; same as the latest system one → named in place; same as a named one → 409", async () => {
    const seeded = (await api(emu, "GET", `/notes/${NOTE}/versions`)).json.data[0].id as string;
    const inPlace = await api(emu, "POST", `/notes/${NOTE}/versions`, { base: "note_content", name: "Milestone" });
    expect(inPlace.status).toBe(201);
    expect(inPlace.json).toMatchObject({ id: seeded, name: "Milestone", name_source: "user" });
    const again = await api(emu, "POST", `/notes/${NOTE}/versions`, { name: "Again" });
    expect(again.status).toBe(409);
    expect(again.json).toEqual({
      error_code: "no_content_change",
      message: expect.any(String),
      latest_version_id: seeded,
      latest_name_source: "user",
    });
    const named = await api(emu, "POST", `/notes/${NOTE}/versions`, { base: `version:${seeded}`, name: "Twice" });
    expect(named.json).toMatchObject({ error_code: "version_already_named", version_id: seeded, name: "Milestone" });
    emu.setQuirks({ autoVersions: "none" });
    await api(emu, "PATCH", `/notes/${NOTE}`, { content: "new body" });
    const fresh = await api(emu, "POST", `/notes/${NOTE}/versions`, { name: "Fresh" });
    expect(fresh.status).toBe(201);
    expect(fresh.json.id).not.toBe(seeded);
    expect((await api(emu, "GET", `/notes/${NOTE}/versions/${fresh.json.id as string}`)).json.content).toBe("new body");
  });

  test("rename, compare, filters and errors in the versions dialect", async () => {
    const id = (await api(emu, "POST", `/notes/${NOTE}/versions`, { name: "Milestone" })).json.id as string;
    const renamed = await api(emu, "PATCH", `/notes/${NOTE}/versions`, { base: `version:${id}`, name: "Renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.json.name).toBe("Renamed");
    await api(emu, "PATCH", `/notes/${NOTE}`, { content: "# Reading list\n- one\n" });
    const system = (await api(emu, "GET", `/notes/${NOTE}/versions?named_only=false`)).json.data[0].id as string;
    expect(
      (await api(emu, "PATCH", `/notes/${NOTE}/versions`, { base: `version:${system}`, name: "x" })).json.error_code,
    ).toBe("version_not_named");
    expect(
      (await api(emu, "GET", `/notes/${NOTE}/versions?named_only=true`)).json.data.map((v: { id: string }) => v.id),
    ).toEqual([id]);
    expect((await api(emu, "GET", `/notes/${NOTE}/versions?q=RENAM`)).json.meta.total).toBe(1);
    expect((await api(emu, "GET", `/notes/${NOTE}/versions?limit=1&page=2`)).json).toMatchObject({
      data: [{ id }],
      meta: { total_pages: 2, page: 2 },
    });
    const diff = await api(emu, "GET", `/notes/${NOTE}/versions/compare?base=version:${id}&target=note_content`);
    expect(diff.json.unified_diff).toContain("+- one");
    expect((await api(emu, "GET", `/notes/${NOTE}/versions/compare?base=note_content`)).status).toBe(400);
    expect((await api(emu, "GET", `/notes/${NOTE}/versions/nope`)).json).toEqual({
      error_code: "not_found",
      message: "Version not found",
    });
    expect((await api(emu, "POST", `/notes/${NOTE}/versions`, { name: "   " })).status).toBe(400);
    expect((await api(emu, "GET", `/notes/${NOTE}/versions?limit=0`)).status).toBe(400);
    expect((await api(emu, "GET", `/notes/unknown-note-id-aaaaaaa/versions`)).status).toBe(404);
  });

  test("the personal route serves team notes; there is no team form; a hidden family answers 404", async () => {
    expect((await api(emu, "GET", `/notes/${DEMO_NOTE_IDS.spec}/versions`)).status).toBe(200);
    expect((await api(emu, "GET", `/teams/sandbox-team/notes/${DEMO_NOTE_IDS.spec}/versions`)).status).toBe(404);
    emu.setQuirks({ hiddenRouteFamilies: ["versions", "comments"] });
    expect((await api(emu, "GET", `/notes/${NOTE}/versions`)).json).toEqual({ error: "Not found" });
    expect((await api(emu, "GET", `/notes/${DEMO_NOTE_IDS.weeklySync}/comments`)).status).toBe(404);
  });
});

describe("comments", () => {
  const WEEKLY = DEMO_NOTE_IDS.weeklySync;

  test("the demo note lists its threads and replies in the documented shapes", async () => {
    const list = await api(emu, "GET", `/notes/${WEEKLY}/comments?isThreadHead=true`);
    expect(list.status).toBe(200);
    expect(list.json.pagination).toEqual({ page: 1, limit: 50, hasNext: false });
    const heads = list.json.comments as Array<Record<string, unknown>>;
    expect(heads.map((c) => c.id).sort()).toEqual(
      [DEMO_COMMENT_IDS.checklist, DEMO_COMMENT_IDS.headings, DEMO_COMMENT_IDS.lab].sort(),
    );
    const checklist = heads.find((c) => c.id === DEMO_COMMENT_IDS.checklist);
    expect(checklist).toMatchObject({
      threadId: DEMO_COMMENT_IDS.checklist,
      isThreadHead: true,
      replyCount: 1,
      contentType: "plain_text",
      actor: { kind: "user", displayName: "Ada Collaborator" },
      excerpt: "Draft the field-test checklist",
      threadState: { status: "open", reason: null, sourceCommentId: DEMO_COMMENT_IDS.checklist },
    });
    const open = await api(emu, "GET", `/notes/${WEEKLY}/comments?isThreadHead=true&threadStatus=open`);
    expect(open.json.comments).toHaveLength(2);
    const reply = await api(emu, "GET", `/notes/${WEEKLY}/comments/${DEMO_COMMENT_IDS.checklistReply}`);
    expect(reply.json).toMatchObject({ isThreadHead: false, threadState: { status: "open" } });
    expect(reply.json).not.toHaveProperty("replyCount");
    const paged = await api(emu, "GET", `/notes/${WEEKLY}/comments?limit=2&sort=desc`);
    expect(paged.json.pagination.hasNext).toBe(true);
  });

  test("resolve and reopen a thread; repeating either is a 409 resolution_conflict", async () => {
    const path = `/notes/${WEEKLY}/comments/${DEMO_COMMENT_IDS.headings}/resolution`;
    const resolved = await api(emu, "PUT", path);
    expect(resolved.status).toBe(200);
    expect(resolved.json).toMatchObject({
      comment: { threadState: { status: "hidden", reason: "resolved" } },
      cascade: { threadId: DEMO_COMMENT_IDS.headings },
    });
    const twice = await api(emu, "PUT", path);
    expect(twice.status).toBe(409);
    expect(twice.json).toMatchObject({ errorCode: "resolution_conflict", commentState: { status: "open" } });
    expect((await api(emu, "DELETE", path)).json.comment.threadState.status).toBe("open");
    expect((await api(emu, "DELETE", path)).status).toBe(409);
    expect((await api(emu, "GET", `/notes/${WEEKLY}/comments/not-a-comment`)).json).toEqual({
      errorCode: "not_found",
      message: "Comment not found",
    });
    expect((await api(emu, "GET", `/notes/${WEEKLY}/comments?threadId=nope`)).status).toBe(400);
  });

  test("the control interface replaces a note's threads", async () => {
    const res = await fetch(`${emu.origin}/__emulator/notes/${NOTE}/comments`, {
      method: "PUT",
      headers: { authorization: `Bearer ${emu.token}`, "content-type": "application/json" },
      body: JSON.stringify({ threads: [{ author: "ada", body: "Add a link?", excerpt: "Reading list" }] }),
    });
    expect(res.status).toBe(204);
    const list = await api(emu, "GET", `/notes/${NOTE}/comments`);
    expect(list.json.comments).toEqual([
      expect.objectContaining({ body: "Add a link?", isThreadHead: true, replyCount: 0 }),
    ]);
    emu.setComments(NOTE, []);
    expect((await api(emu, "GET", `/notes/${NOTE}/comments`)).json.comments).toEqual([]);
  });
});
