import { startEmulator, type Emulator } from "../../src/emulator";
import { api, fakeClock, type FakeClock } from "./helpers";

let emu: Emulator;
let clock: FakeClock;

beforeAll(async () => {
  clock = fakeClock();
  emu = await startEmulator({ clock, quirks: { visibilityDelayMs: 500 } });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => emu.reset());

async function createNote(body: Record<string, unknown>): Promise<string> {
  const res = await api(emu, "POST", "/notes", body);
  return res.json.id as string;
}

test("a PATCH is invisible until the clock passes the delay, then visible; inspect sees it at once", async () => {
  const id = await createNote({ title: "T", content: "old" });
  clock.advance(500);
  const before = await api(emu, "GET", `/notes/${id}`);
  expect(before.json.content).toBe("old");
  expect((await api(emu, "PATCH", `/notes/${id}`, { title: "New", content: "new" })).status).toBe(202);
  const during = await api(emu, "GET", `/notes/${id}`);
  expect(during.json).toMatchObject({ title: "T", content: "old" });
  expect(during.headers.get("etag")).toBe(before.headers.get("etag"));
  expect((await api(emu, "GET", "/notes")).json[0].title).toBe("T");
  expect(emu.inspect().notes[0]).toMatchObject({ title: "New", content: "new" });
  clock.advance(499);
  expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("old");
  clock.advance(1);
  const after = await api(emu, "GET", `/notes/${id}`);
  expect(after.json).toMatchObject({ title: "New", content: "new" });
  expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
});

test("a new note reads with an empty body until the delay passes; the POST reply is full", async () => {
  const res = await api(emu, "POST", "/notes", { title: "Fresh", content: "body" });
  expect(res.json.content).toBe("body");
  const id = res.json.id as string;
  const early = await api(emu, "GET", `/notes/${id}`);
  expect(early.json).toMatchObject({ title: "Fresh", content: "" });
  clock.advance(500);
  expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("body");
});

test("visibilityScope content: metadata at once, body later", async () => {
  emu.setQuirks({ visibilityScope: "content" });
  const id = await createNote({ title: "T", content: "old" });
  clock.advance(500);
  const before = await api(emu, "GET", `/notes/${id}`);
  await api(emu, "PATCH", `/notes/${id}`, { title: "New", tags: ["k"], content: "new" });
  const during = await api(emu, "GET", `/notes/${id}`);
  expect(during.json).toMatchObject({ title: "New", tags: ["k"], content: "old" });
  expect(during.headers.get("etag")).not.toBe(before.headers.get("etag"));
  clock.advance(500);
  const after = await api(emu, "GET", `/notes/${id}`);
  expect(after.json).toMatchObject({ title: "New", content: "new" });
  expect(after.headers.get("etag")).not.toBe(during.headers.get("etag"));
});

test("pending writes become visible in commit order", async () => {
  const id = await createNote({ title: "T", content: "v0" });
  clock.advance(500);
  await api(emu, "PATCH", `/notes/${id}`, { content: "v1" });
  clock.advance(200);
  await api(emu, "PATCH", `/notes/${id}`, { content: "v2" });
  clock.advance(300);
  expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("v1");
  clock.advance(200);
  expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("v2");
});

test("flushPending makes everything visible now", async () => {
  const id = await createNote({ title: "T", content: "old" });
  await api(emu, "PATCH", `/notes/${id}`, { content: "new" });
  expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("");
  expect(emu.inspect().pending.notes).toBeGreaterThan(0);
  emu.flushPending();
  expect(emu.inspect().pending.notes).toBe(0);
  expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("new");
});

test("deletes and collaborator edits are visible immediately", async () => {
  const id = await createNote({ title: "T", content: "old" });
  const edited = await createNote({ title: "E", content: "x" });
  emu.collaboratorEdit(edited, { content: "from the web", title: "Web" });
  expect((await api(emu, "GET", `/notes/${edited}`)).json).toMatchObject({ content: "from the web", title: "Web" });
  expect((await api(emu, "DELETE", `/notes/${id}`)).status).toBe(204);
  expect((await api(emu, "GET", "/notes")).json.map((n: { id: string }) => n.id)).toEqual([edited]);
  expect((await api(emu, "GET", `/notes/${id}`)).status).toBe(404);
});

test("folder PATCH is delayed too", async () => {
  const folder = await api(emu, "POST", "/teams/sandbox-team/folders", { name: "Old" });
  const id = folder.json.id as string;
  expect((await api(emu, "GET", `/teams/sandbox-team/folders/${id}`)).json.name).toBe("Old");
  await api(emu, "PATCH", `/teams/sandbox-team/folders/${id}`, { name: "New" });
  expect((await api(emu, "GET", `/teams/sandbox-team/folders/${id}`)).json.name).toBe("Old");
  clock.advance(500);
  expect((await api(emu, "GET", `/teams/sandbox-team/folders/${id}`)).json.name).toBe("New");
});

test("with no delay, writes are visible at once", async () => {
  emu.setQuirks({ visibilityDelayMs: 0 });
  const id = await createNote({ content: "a" });
  expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("a");
  await api(emu, "PATCH", `/notes/${id}`, { content: "b" });
  expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("b");
});

test("collaborator edit bumps lastChangedAt, sets lastChangeUser (as), logs nothing", async () => {
  emu.reset("demo");
  const id = emu.inspect().notes.find((n) => n.title === "Reading list")?.id ?? "";
  emu.flushPending();
  const before = await api(emu, "GET", `/notes/${id}`);
  clock.advance(1000);
  emu.clearRequests();
  emu.collaboratorEdit(id, { content: "edited", tags: ["x"] }, { as: "ada" });
  expect(emu.requests()).toHaveLength(0);
  const after = await api(emu, "GET", `/notes/${id}`);
  expect(after.json.lastChangedAt).toBe(clock.now());
  expect(after.json.lastChangedAt).toBeGreaterThan(before.json.lastChangedAt);
  expect(after.json.lastChangeUser.userPath).toBe("ada");
  expect(after.json.tags).toEqual(["x"]);
  emu.collaboratorDelete(id);
  expect((await api(emu, "GET", `/notes/${id}`)).status).toBe(404);
  expect((await api(emu, "GET", "/trash")).json.map((n: { id: string }) => n.id)).toContain(id);
  expect(() => emu.collaboratorEdit("missing", { content: "x" })).toThrow(/unknown note/);
});
