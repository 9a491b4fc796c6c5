/** The client's versions and comments methods against the emulator: the request pipeline's rules. */
import { DEMO_COMMENT_IDS, DEMO_NOTE_IDS, startEmulator, type Emulator } from "../../src/emulator";
import { CallContext } from "../../src/hackmd/call-context";
import { checkNoTokenLeaks, failure, makeClient } from "./helpers";

let emu: Emulator;
const NOTE = DEMO_NOTE_IDS.readingList;
const client = (): ReturnType<typeof makeClient>["client"] => makeClient({ url: emu.url, token: emu.token }).client;

beforeAll(async () => {
  emu = await startEmulator({ seed: "demo" });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => {
  emu.reset();
  emu.clearRequests();
});
checkNoTokenLeaks();

test("a version list sends its query and is retried after a 503 (a GET)", async () => {
  emu.injectFault({ match: { route: "GET /notes/:noteId/versions" }, action: { status: 503 } });
  const page = await client().listVersions(new CallContext(), { noteId: NOTE, namedOnly: false, q: "T", limit: 5 });
  expect(page.versions).toHaveLength(1);
  const sent = emu.requests({ route: "GET /notes/:noteId/versions" });
  expect(sent).toHaveLength(2);
  expect(sent[1]?.path).toBe(`/v1/notes/${NOTE}/versions?named_only=false&q=T&limit=5`);
});

test("creating a version is never retried: a 500 after the commit is readback, and the version exists", async () => {
  emu.injectFault({ match: { route: "POST /notes/:noteId/versions" }, action: { status: 500 }, when: "after-commit" });
  const error = await failure(client().createVersion(new CallContext(), { noteId: NOTE, name: "Before push" }));
  expect(error.kind).toBe("readback");
  expect(emu.requests({ route: "POST /notes/:noteId/versions" })).toHaveLength(1);
  expect(emu.inspect().versions.filter((v) => v.noteId === NOTE && v.name === "Before push")).toHaveLength(1);
});

test("a lost answer to a version POST is readback too, sent once", async () => {
  emu.injectFault({ match: { route: "POST /notes/:noteId/versions" }, action: { drop: true }, when: "after-commit" });
  expect((await failure(client().createVersion(new CallContext(), { noteId: NOTE, name: "x" }))).kind).toBe("readback");
  expect(emu.requests({ route: "POST /notes/:noteId/versions" })).toHaveLength(1);
});

test("without the versions API a version request is not_found and says why", async () => {
  emu.setQuirks({ hiddenRouteFamilies: ["versions"] });
  const error = await failure(client().createVersion(new CallContext(), { noteId: NOTE, name: "x" }));
  expect(error.kind).toBe("not_found");
  expect(error.message).toContain("no versions API");
});

test("resolve and reopen are single requests; a repeat is a conflict that names the state", async () => {
  const c = client();
  const args = { noteId: DEMO_NOTE_IDS.weeklySync, commentId: DEMO_COMMENT_IDS.headings };
  expect((await c.setCommentResolved(new CallContext(), { ...args, resolved: true })).cascade_thread_id).toBe(
    DEMO_COMMENT_IDS.headings,
  );
  const again = await failure(c.setCommentResolved(new CallContext(), { ...args, resolved: true }));
  expect(again.kind).toBe("conflict");
  expect(again.message).toContain("already resolved");
  emu.injectFault({ match: { method: "DELETE" }, action: { status: 503 } });
  expect((await failure(c.setCommentResolved(new CallContext(), { ...args, resolved: false }))).kind).toBe("readback");
  expect(emu.requests({ method: "DELETE" })).toHaveLength(1);
});

test("comments read as snake_case with authors, excerpts and thread states", async () => {
  const page = await client().listComments(new CallContext(), {
    noteId: DEMO_NOTE_IDS.weeklySync,
    threadHeadsOnly: true,
    threadStatus: "open",
  });
  expect(page.comments.map((c) => c.id).sort()).toEqual([DEMO_COMMENT_IDS.checklist, DEMO_COMMENT_IDS.headings].sort());
  expect(page.comments.find((c) => c.id === DEMO_COMMENT_IDS.checklist)).toMatchObject({
    is_thread_head: true,
    reply_count: 1,
    author: { display_name: "Ada Collaborator" },
    excerpt: "Draft the field-test checklist",
    thread_state: { status: "open", reason: null },
  });
});
