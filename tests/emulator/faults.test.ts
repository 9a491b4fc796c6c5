import { startEmulator, type Emulator } from "../../src/emulator";
import { api } from "./helpers";

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => emu.reset());

async function createNote(content = "old"): Promise<string> {
  return (await api(emu, "POST", "/notes", { title: "T", content })).json.id as string;
}

test("status before the commit: nothing changes", async () => {
  const id = await createNote();
  const fault = emu.injectFault({ match: { route: "PATCH /notes/:noteId" }, action: { status: 500 } });
  const res = await api(emu, "PATCH", `/notes/${id}`, { content: "new" });
  expect(res.status).toBe(500);
  expect(res.json).toEqual({ error: "Failed to update note" });
  expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("old");
  expect(fault.hits).toBe(1);
  expect(fault.remaining).toBe(0);
  const entry = emu.requests({ route: "PATCH /notes/:noteId" })[0];
  expect(entry).toMatchObject({ status: 500, fault: fault.id, committed: false });
});

test("after-commit 500 on PATCH leaves the change stored, logged once", async () => {
  const id = await createNote();
  const fault = emu.injectFault({ match: { method: "PATCH" }, action: { status: 500 }, when: "after-commit" });
  const res = await api(emu, "PATCH", `/notes/${id}`, { content: "new" });
  expect(res.status).toBe(500);
  expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("new");
  const patches = emu.requests({ method: "PATCH" });
  expect(patches).toHaveLength(1);
  expect(patches[0]).toMatchObject({ status: 500, committed: true, fault: fault.id });
});

test("custom body and headers; string body is plain text; other routes use {error}", async () => {
  emu.injectFault({ match: { route: "GET /me" }, action: { status: 503, body: "down", headers: { "x-why": "test" } } });
  const res = await api(emu, "GET", "/me");
  expect(res.status).toBe(503);
  expect(res.text).toBe("down");
  expect(res.headers.get("x-why")).toBe("test");
  emu.injectFault({ match: { route: "GET /notes" }, action: { status: 502 } });
  expect((await api(emu, "GET", "/notes")).json).toEqual({ error: "Bad Gateway" });
});

test("drop before the commit: no response, nothing stored; log status null", async () => {
  const fault = emu.injectFault({ match: { route: "POST /notes" }, action: { drop: true } });
  await expect(api(emu, "POST", "/notes", { content: "lost" })).rejects.toThrow();
  expect(emu.inspect().notes).toHaveLength(0);
  await new Promise((r) => setTimeout(r, 20));
  expect(emu.requests({ route: "POST /notes" })[0]).toMatchObject({ status: null, fault: fault.id, committed: false });
});

test("drop after the commit: stored, answer lost", async () => {
  emu.injectFault({ match: { route: "POST /notes" }, action: { drop: true }, when: "after-commit" });
  await expect(api(emu, "POST", "/notes", { content: "landed" })).rejects.toThrow();
  expect(emu.inspect().notes.map((n) => n.content)).toEqual(["landed"]);
  await new Promise((r) => setTimeout(r, 20));
  expect(emu.requests({ route: "POST /notes" })[0]).toMatchObject({ status: null, committed: true });
});

test("latency faults add up, before and after the commit", async () => {
  emu.injectFault({ match: { route: "GET /me" }, action: { latencyMs: 100 } });
  emu.injectFault({ match: { route: "GET /me" }, action: { latencyMs: 100 } });
  let start = Date.now();
  await api(emu, "GET", "/me");
  expect(Date.now() - start).toBeGreaterThanOrEqual(190);
  start = Date.now();
  await api(emu, "GET", "/me");
  expect(Date.now() - start).toBeLessThan(150);
  const id = await createNote();
  emu.injectFault({ match: { method: "PATCH" }, action: { latencyMs: 150 }, when: "after-commit" });
  const pending = api(emu, "PATCH", `/notes/${id}`, { content: "new" });
  await new Promise((r) => setTimeout(r, 60));
  expect(emu.inspect().notes[0]?.content).toBe("new");
  expect((await pending).status).toBe(202);
});

test("times and skip", async () => {
  const fault = emu.injectFault({ match: { route: "GET /me" }, action: { status: 503 }, skip: 1, times: 2 });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await api(emu, "GET", "/me")).status);
  expect(statuses).toEqual([200, 503, 503, 200]);
  expect(fault.hits).toBe(2);
  expect(fault.remaining).toBe(0);
});

test("Infinity times and remove()", async () => {
  const fault = emu.injectFault({ match: { path: /\/me$/ }, action: { status: 500 }, times: Infinity });
  for (let i = 0; i < 3; i++) expect((await api(emu, "GET", "/me")).status).toBe(500);
  expect(fault.remaining).toBe(Infinity);
  fault.remove();
  expect((await api(emu, "GET", "/me")).status).toBe(200);
});

test("first matching status fault wins; the second keeps its count", async () => {
  const first = emu.injectFault({ match: { method: "GET" }, action: { status: 500 } });
  const second = emu.injectFault({ match: { method: "GET" }, action: { status: 503 } });
  expect((await api(emu, "GET", "/me")).status).toBe(500);
  expect((await api(emu, "GET", "/me")).status).toBe(503);
  expect(first.hits).toBe(1);
  expect(second.hits).toBe(1);
  expect((await api(emu, "GET", "/me")).status).toBe(200);
});

test("match by user and path string; non-matching requests pass", async () => {
  const { tokens } = emu.seed({ users: [{ userPath: "eve" }] });
  emu.injectFault({ match: { user: "eve", path: "/v1/me" }, action: { status: 500 }, times: 5 });
  expect((await api(emu, "GET", "/me")).status).toBe(200);
  expect((await api(emu, "GET", "/me", undefined, { token: tokens.eve?.[0] ?? "" })).status).toBe(500);
  emu.clearFaults();
  expect((await api(emu, "GET", "/me", undefined, { token: tokens.eve?.[0] ?? "" })).status).toBe(200);
});

test("image route faults answer in dialect B", async () => {
  emu.injectFault({ match: { route: "POST /notes/:noteId/images" }, action: { status: 429 } });
  const res = await api(emu, "POST", "/notes/x/images", {});
  expect(res.json).toEqual({ message: "Too Many Requests" });
});

test("placementFailure: the note is created at the root, 207", async () => {
  const folder = (await api(emu, "POST", "/folders", { name: "F" })).json.id as string;
  const fault = emu.injectFault({ match: { route: "POST /notes" }, action: { placementFailure: true } });
  const res = await api(emu, "POST", "/notes", { content: "x", parentFolderId: folder });
  expect(res.status).toBe(207);
  expect(res.json).toMatchObject({ error: "Failed to add note to folder", note: { folderPaths: [] } });
  expect(emu.inspect().notes[0]?.folderId).toBeNull();
  expect(emu.requests({ route: "POST /notes" }).at(-1)?.fault).toBe(fault.id);
  expect((await api(emu, "POST", "/notes", { content: "y", parentFolderId: folder })).status).toBe(201);
});

test("partialApply: the last changed line keeps its old text", async () => {
  const id = await createNote("a\nb\nc\nd\n");
  emu.injectFault({ match: { method: "PATCH" }, action: { partialApply: true } });
  expect((await api(emu, "PATCH", `/notes/${id}`, { content: "a\nB\nc\nD\n" })).status).toBe(202);
  expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("a\nB\nc\nd\n");
  expect((await api(emu, "PATCH", `/notes/${id}`, { content: "a\nB\nc\nD\n" })).status).toBe(202);
  expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("a\nB\nc\nD\n");
});

test("an after-commit 429 carries rate headers when limiting is on", async () => {
  emu.setQuirks({ rateLimit: { enabled: true } });
  emu.injectFault({ match: { route: "GET /me" }, action: { status: 429 }, when: "after-commit" });
  const res = await api(emu, "GET", "/me");
  expect(res.status).toBe(429);
  expect(res.headers.get("x-ratelimit-userlimit")).toBe("100");
  expect(emu.requests().at(-1)?.rateLimited).toBe(false);
});
