import { startEmulator, DEMO_NOTE_IDS, type Emulator } from "../../src/emulator";
import { api } from "./helpers";

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ seed: "empty" });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => emu.reset("empty"));

describe("basics", () => {
  test("url, origin and GET /me", async () => {
    expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(emu.url.startsWith(emu.origin)).toBe(true);
    const me = await api(emu, "GET", "/me");
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ userPath: "sandbox", name: "Sandbox User", email: null, upgraded: false });
    expect(me.json.teams.map((t: { path: string }) => t.path)).toEqual(["sandbox-team"]);
    const teams = await api(emu, "GET", "/teams");
    expect(teams.json[0]).toMatchObject({ path: "sandbox-team", visibility: "private" });
  });

  test("401 as plain text, or JSON under unauthorizedBody", async () => {
    const res = await api(emu, "GET", "/me", undefined, { token: "wrong" });
    expect(res.status).toBe(401);
    expect(res.text).toBe("Unauthorized");
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect((await api(emu, "GET", "/me", undefined, { token: null })).status).toBe(401);
    emu.setQuirks({ unauthorizedBody: "json" });
    const json = await api(emu, "GET", "/me", undefined, { token: "wrong" });
    expect(json.json).toEqual({ error: "Unauthorized" });
  });

  test("unknown and unimplemented routes are 404 {error: Not found}", async () => {
    for (const [method, path] of [
      ["GET", "/nope"],
      ["PUT", "/notes/abc"],
      ["PUT", "/trash/batch-restore"],
      ["GET", "/webhooks"],
      ["GET", "/teams/sandbox-team/notes/abc/versions"],
      ["POST", "/teams/sandbox-team/notes/abc/images"],
    ] as const) {
      const res = await api(emu, method, path, method === "GET" ? undefined : {});
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ error: "Not found" });
    }
    const outside = await fetch(`${emu.origin}/v2/me`, { headers: { authorization: `Bearer ${emu.token}` } });
    expect(outside.status).toBe(404);
  });

  test("hiddenRouteFamilies hides a family", async () => {
    expect((await api(emu, "GET", "/folders")).status).toBe(200);
    emu.setQuirks({ hiddenRouteFamilies: ["folders"] });
    const res = await api(emu, "GET", "/folders");
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: "Not found" });
    expect((await api(emu, "GET", "/notes")).status).toBe(200);
  });

  test("invalid JSON is 400", async () => {
    const res = await api(emu, "POST", "/notes", undefined, {
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: "Invalid JSON" });
  });

  test("body over maxRequestBytes is 413", async () => {
    emu.setQuirks({ maxRequestBytes: 100 });
    const res = await api(emu, "POST", "/notes", { content: "x".repeat(500) });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ error: "Payload too large" });
  });

  test("latencyMs delays every request", async () => {
    emu.setQuirks({ latencyMs: 150 });
    const start = Date.now();
    await api(emu, "GET", "/me");
    expect(Date.now() - start).toBeGreaterThanOrEqual(140);
  });
});

describe("create", () => {
  test("201 with the full note; defaults; list omits content and folderPaths", async () => {
    const res = await api(emu, "POST", "/notes", { content: "# Hello\nbody\n", tags: ["a"] });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      title: "Hello",
      content: "# Hello\nbody\n",
      tags: ["a"],
      description: "",
      readPermission: "owner",
      writePermission: "owner",
      publishType: "view",
      publishedAt: null,
      permalink: null,
      userPath: "sandbox",
      teamPath: null,
      folderPaths: [],
      titleUpdatedAt: null,
    });
    expect(res.json.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(res.json.shortId).toMatch(/^[A-Za-z0-9_-]{9}$/);
    expect(res.json.tagsUpdatedAt).toEqual(expect.any(Number));
    expect(res.json.publishLink).toBe(`https://hackmd.io/@sandbox/${res.json.shortId as string}`);
    const list = await api(emu, "GET", "/notes");
    expect(list.json).toHaveLength(1);
    expect(list.json[0]).not.toHaveProperty("content");
    expect(list.json[0]).not.toHaveProperty("folderPaths");
  });

  test("a bare JSON string is the content; no body is an empty note; other bodies are 422", async () => {
    const str = await api(emu, "POST", "/notes", "just text");
    expect(str.status).toBe(201);
    expect(str.json.content).toBe("just text");
    const none = await api(emu, "POST", "/notes");
    expect(none.status).toBe(201);
    expect(none.json).toMatchObject({ content: "", title: "Untitled" });
    const arr = await api(emu, "POST", "/notes", [1, 2]);
    expect(arr.status).toBe(422);
    expect(arr.json.message).toBe("Validation Failed");
  });

  test("title derivation: explicit, front matter, H1 outside fences, Untitled; off gives empty", async () => {
    const explicit = await api(emu, "POST", "/notes", { title: "Given", content: "# Other" });
    expect(explicit.json.title).toBe("Given");
    expect(explicit.json.titleUpdatedAt).toEqual(expect.any(Number));
    const fm = await api(emu, "POST", "/notes", { content: '---\ntitle: "From YAML"\n---\n# Heading' });
    expect(fm.json.title).toBe("From YAML");
    const fenced = await api(emu, "POST", "/notes", { content: "```\n# not this\n```\n# Real one ##\n" });
    expect(fenced.json.title).toBe("Real one");
    const none = await api(emu, "POST", "/notes", { content: "plain" });
    expect(none.json.title).toBe("Untitled");
    emu.setQuirks({ deriveTitleAtCreate: false });
    const off = await api(emu, "POST", "/notes", { content: "# Heading" });
    expect(off.json.title).toBe("");
  });

  test("line endings are normalised unless the switch is off; BOM and trailing space kept", async () => {
    const res = await api(emu, "POST", "/notes", { content: "\uFEFFa\r\nb\rc  \n\n" });
    expect(res.json.content).toBe("\uFEFFa\nb\nc  \n\n");
    emu.setQuirks({ normalizeLineEndings: false });
    const raw = await api(emu, "POST", "/notes", { content: "a\r\nb" });
    expect(raw.json.content).toBe("a\r\nb");
  });

  test("validation failures use the tsoa shape, one entry per field", async () => {
    const res = await api(emu, "POST", "/notes", {
      title: 5,
      readPermission: "everyone",
      tags: "x",
      permalink: "bad link",
    });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe("Validation Failed");
    expect(Object.keys(res.json.details).sort()).toEqual([
      "requestBody.permalink",
      "requestBody.readPermission",
      "requestBody.tags",
      "requestBody.title",
    ]);
    expect(res.json.details["requestBody.title"].value).toBe(5);
  });

  test("permalink taken is 409 within the workspace only", async () => {
    expect((await api(emu, "POST", "/notes", { permalink: "weekly" })).status).toBe(201);
    const dup = await api(emu, "POST", "/notes", { permalink: "weekly" });
    expect(dup.status).toBe(409);
    expect(dup.json).toEqual({ error: "Permalink already in use" });
    expect((await api(emu, "POST", "/teams/sandbox-team/notes", { permalink: "weekly" })).status).toBe(201);
  });

  test("parentFolderId places the note; unknown folder gives 207 at the root", async () => {
    const folder = await api(emu, "POST", "/folders", { name: "F" });
    const placed = await api(emu, "POST", "/notes", { parentFolderId: folder.json.id, content: "x" });
    expect(placed.status).toBe(201);
    expect(placed.json.folderPaths.map((f: { id: string }) => f.id)).toEqual([folder.json.id]);
    const missing = await api(emu, "POST", "/notes", { parentFolderId: "00000000-0000-4000-8000-000000000000" });
    expect(missing.status).toBe(207);
    expect(missing.json.error).toBe("Failed to add note to folder");
    expect(missing.json.note.folderPaths).toEqual([]);
  });

  test("createHonoursParentFolderId off drops the folder silently", async () => {
    emu.setQuirks({ createHonoursParentFolderId: false });
    const folder = await api(emu, "POST", "/folders", { name: "F" });
    const res = await api(emu, "POST", "/notes", { parentFolderId: folder.json.id });
    expect(res.status).toBe(201);
    expect(res.json.folderPaths).toEqual([]);
  });

  test("tagsNullOnCreate answers tags null in the create reply only", async () => {
    emu.setQuirks({ tagsNullOnCreate: true });
    const res = await api(emu, "POST", "/notes", { tags: ["t"] });
    expect(res.json.tags).toBeNull();
    expect((await api(emu, "GET", `/notes/${res.json.id as string}`)).json.tags).toEqual(["t"]);
  });

  test("fractionalTimestamps adds a fraction; off they are integers", async () => {
    const plain = await api(emu, "POST", "/notes", {});
    expect(Number.isInteger(plain.json.createdAt)).toBe(true);
    emu.setQuirks({ fractionalTimestamps: true });
    const frac = await api(emu, "GET", `/notes/${plain.json.id as string}`);
    expect(Number.isInteger(frac.json.createdAt)).toBe(false);
    expect(Math.round(frac.json.createdAt)).toBe(plain.json.createdAt);
  });
});

describe("PATCH", () => {
  async function create(
    body: Record<string, unknown> = { title: "T", content: "one\ntwo\n", description: "d", tags: ["x"] },
  ): Promise<string> {
    return (await api(emu, "POST", "/notes", body)).json.id as string;
  }

  test("202 with an empty body and no Content-Type", async () => {
    const id = await create();
    const res = await fetch(`${emu.url}/notes/${id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${emu.token}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "new" }),
    });
    expect(res.status).toBe(202);
    expect(res.headers.get("content-type")).toBeNull();
    expect(await res.text()).toBe("");
    expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("new");
  });

  test("no body is 400", async () => {
    const id = await create();
    const res = await api(emu, "PATCH", `/notes/${id}`);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: "Request body is required" });
  });

  test("PATCH without content blanks the body by default, and not when the switch is off", async () => {
    const id = await create();
    expect((await api(emu, "PATCH", `/notes/${id}`, { title: "New" })).status).toBe(202);
    const blanked = await api(emu, "GET", `/notes/${id}`);
    expect(blanked.json).toMatchObject({ title: "New", content: "", description: "d", tags: ["x"] });
    emu.setQuirks({ patchWithoutContentBlanksBody: false });
    const id2 = await create();
    await api(emu, "PATCH", `/notes/${id2}`, { title: "New" });
    expect((await api(emu, "GET", `/notes/${id2}`)).json).toMatchObject({ title: "New", content: "one\ntwo\n" });
  });

  test("body edits keep the title unless contentPatchClearsTitle", async () => {
    const id = await create();
    await api(emu, "PATCH", `/notes/${id}`, { content: "# Different\n" });
    expect((await api(emu, "GET", `/notes/${id}`)).json.title).toBe("T");
    emu.setQuirks({ contentPatchClearsTitle: true });
    await api(emu, "PATCH", `/notes/${id}`, { content: "changed again" });
    expect((await api(emu, "GET", `/notes/${id}`)).json.title).toBe("");
  });

  test("a no-op PATCH keeps lastChangedAt and the ETag", async () => {
    const id = await create();
    const before = await api(emu, "GET", `/notes/${id}`);
    await api(emu, "PATCH", `/notes/${id}`, { content: "one\ntwo\n", title: "T" });
    const after = await api(emu, "GET", `/notes/${id}`);
    expect(after.headers.get("etag")).toBe(before.headers.get("etag"));
    expect(after.json.lastChangedAt).toBe(before.json.lastChangedAt);
    expect(emu.requests({ route: "PATCH /notes/:noteId" })[0]?.committed).toBe(false);
  });

  test("validation, unknown fields and strictPatchFields", async () => {
    const id = await create();
    const bad = await api(emu, "PATCH", `/notes/${id}`, { content: 1 });
    expect(bad.status).toBe(422);
    const extra = await api(emu, "PATCH", `/notes/${id}`, { content: "a", noteFeatures: {}, bogus: 1 });
    expect(extra.status).toBe(202);
    emu.setQuirks({ strictPatchFields: true });
    const strict = await api(emu, "PATCH", `/notes/${id}`, { content: "b", commentPermission: "everyone", bogus: 1 });
    expect(strict.status).toBe(422);
    expect(Object.keys(strict.json.details).sort()).toEqual(["requestBody.bogus", "requestBody.commentPermission"]);
    expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("a");
  });

  test("write wider than read is 400; permalink conflict 409; unknown folder 404", async () => {
    const id = await create();
    await create({ permalink: "taken" });
    const perms = await api(emu, "PATCH", `/notes/${id}`, { content: "x", writePermission: "guest" });
    expect(perms.status).toBe(400);
    expect(perms.json.error).toBe("writePermission cannot be more permissive than readPermission");
    expect((await api(emu, "PATCH", `/notes/${id}`, { content: "x", permalink: "taken" })).status).toBe(409);
    const folder = await api(emu, "PATCH", `/notes/${id}`, { content: "x", parentFolderId: "nope" });
    expect(folder.status).toBe(404);
    expect(folder.json).toEqual({ error: "Folder not found" });
    expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("one\ntwo\n");
  });

  test("parentFolderId moves a note and null sends it to the root", async () => {
    const id = await create();
    const a = (await api(emu, "POST", "/folders", { name: "A" })).json.id as string;
    const b = (await api(emu, "POST", "/folders", { name: "B", parentFolderId: a })).json.id as string;
    await api(emu, "PATCH", `/notes/${id}`, { content: "x", parentFolderId: b });
    const moved = await api(emu, "GET", `/notes/${id}`);
    expect(moved.json.folderPaths.map((f: { name: string }) => f.name)).toEqual(["A", "B"]);
    expect(moved.json.folderPaths[1]).toMatchObject({ parentId: a, clientId: expect.any(String) });
    await api(emu, "PATCH", `/notes/${id}`, { content: "x", parentFolderId: null });
    expect((await api(emu, "GET", `/notes/${id}`)).json.folderPaths).toEqual([]);
  });
});

describe("access and teams", () => {
  test("other users: 403 on owner-only notes, read with signed_in, limited edit with write permission", async () => {
    const { tokens } = emu.seed({ users: [{ userPath: "eve" }] });
    const eve = tokens.eve?.[0] ?? "";
    const id = (await api(emu, "POST", "/notes", { content: "secret" })).json.id as string;
    const denied = await api(emu, "GET", `/notes/${id}`, undefined, { token: eve });
    expect(denied.status).toBe(403);
    expect(denied.json).toEqual({ error: "Forbidden" });
    await api(emu, "PATCH", `/notes/${id}`, {
      content: "secret",
      readPermission: "signed_in",
      writePermission: "signed_in",
    });
    expect((await api(emu, "GET", `/notes/${id}`, undefined, { token: eve })).status).toBe(200);
    expect((await api(emu, "PATCH", `/notes/${id}`, { content: "by eve" }, { token: eve })).status).toBe(202);
    expect(
      (await api(emu, "PATCH", `/notes/${id}`, { content: "x", readPermission: "guest" }, { token: eve })).status,
    ).toBe(403);
    expect((await api(emu, "DELETE", `/notes/${id}`, undefined, { token: eve })).status).toBe(403);
    const note = await api(emu, "GET", `/notes/${id}`);
    expect(note.json).toMatchObject({ content: "by eve", readPermission: "signed_in" });
    expect(note.json.lastChangeUser.userPath).toBe("eve");
  });

  test("forbiddenButApplied: a limited editor's PATCH is applied and answered 403", async () => {
    const { tokens } = emu.seed({ users: [{ userPath: "eve" }] });
    const eve = tokens.eve?.[0] ?? "";
    const id = (
      await api(emu, "POST", "/notes", { content: "a", readPermission: "signed_in", writePermission: "signed_in" })
    ).json.id as string;
    emu.setQuirks({ forbiddenButApplied: true });
    const res = await api(emu, "PATCH", `/notes/${id}`, { content: "b" }, { token: eve });
    expect(res.status).toBe(403);
    expect((await api(emu, "GET", `/notes/${id}`)).json.content).toBe("b");
    expect((await api(emu, "PATCH", `/notes/${id}`, { content: "c" })).status).toBe(202);
  });

  test("team routes: membership, wrong team, case sensitivity", async () => {
    const created = await api(emu, "POST", "/teams/sandbox-team/notes", { title: "Team note", content: "t" });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ teamPath: "sandbox-team", userPath: null });
    const id = created.json.id as string;
    expect((await api(emu, "GET", `/teams/sandbox-team/notes/${id}`)).json.content).toBe("t");
    expect((await api(emu, "GET", `/notes/${id}`)).status).toBe(200);
    expect((await api(emu, "GET", "/teams/sandbox-team/notes")).json).toHaveLength(1);
    expect((await api(emu, "GET", "/notes")).json).toHaveLength(0);
    const personal = (await api(emu, "POST", "/notes", {})).json.id as string;
    const wrong = await api(emu, "GET", `/teams/sandbox-team/notes/${personal}`);
    expect(wrong.status).toBe(404);
    expect(wrong.json).toEqual({ error: "Note not found" });
    const noTeam = await api(emu, "GET", "/teams/other/notes");
    expect(noTeam.status).toBe(404);
    expect(noTeam.json).toEqual({ error: "Team not found" });
    expect((await api(emu, "GET", "/teams/Sandbox-Team/notes")).status).toBe(404);
    emu.setQuirks({ teamPathCaseSensitive: false });
    expect((await api(emu, "GET", "/teams/Sandbox-Team/notes")).status).toBe(200);
    const { tokens } = emu.seed({ users: [{ userPath: "outsider" }] });
    const out = await api(emu, "GET", "/teams/sandbox-team/notes", undefined, { token: tokens.outsider?.[0] ?? "" });
    expect(out.status).toBe(404);
  });

  test("path segments are percent-decoded", async () => {
    emu.seed({ teams: [{ path: "café team", members: [{ userPath: "sandbox", role: "owner" }] }] });
    const res = await api(emu, "GET", `/teams/${encodeURIComponent("café team")}/notes`);
    expect(res.status).toBe(200);
  });
});

describe("ETag", () => {
  test("weak ETag, 304 on If-None-Match and *, changes after an edit; off sends none", async () => {
    const id = (await api(emu, "POST", "/notes", { content: "a" })).json.id as string;
    const first = await api(emu, "GET", `/notes/${id}`);
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(new RegExp(`^W/"${id}\\.\\d+"$`));
    const cached = await api(emu, "GET", `/notes/${id}`, undefined, { headers: { "if-none-match": etag } });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe("");
    expect(cached.headers.get("etag")).toBe(etag);
    expect((await api(emu, "GET", `/notes/${id}`, undefined, { headers: { "if-none-match": "*" } })).status).toBe(304);
    await api(emu, "PATCH", `/notes/${id}`, { content: "b" }, { headers: { "if-match": '"nonsense"' } });
    const changed = await api(emu, "GET", `/notes/${id}`, undefined, { headers: { "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    emu.setQuirks({ etag: false });
    const none = await api(emu, "GET", `/notes/${id}`, undefined, { headers: { "if-none-match": "*" } });
    expect(none.status).toBe(200);
    expect(none.headers.get("etag")).toBeNull();
  });
});

describe("demo seed", () => {
  test("notes, folders, trash and byte-exact content", async () => {
    emu.reset("demo");
    const notes = await api(emu, "GET", "/notes");
    expect(notes.json.map((n: { title: string }) => n.title).sort()).toEqual([
      "CS101 handout: sorting algorithms",
      "Reading list",
      "Weekly sync — Project Aurora",
    ]);
    const reading = await api(emu, "GET", `/notes/${DEMO_NOTE_IDS.readingList}`);
    expect(reading.json.content.endsWith("\n")).toBe(false);
    expect(reading.json.content).toContain("](https://");
    const cs = await api(emu, "GET", `/notes/${DEMO_NOTE_IDS.cs101}`);
    expect(cs.json).toMatchObject({ readPermission: "guest", writePermission: "owner", permalink: "cs101-sorting" });
    expect(cs.json.content).toContain("```python");
    expect(cs.json.content.startsWith("---\ntitle:")).toBe(true);
    expect(cs.json.folderPaths.map((f: { name: string }) => f.name)).toEqual(["Teaching", "CS101"]);
    expect(cs.json.folderPaths[1].color).toBe("#4F46E5");
    const weekly = await api(emu, "GET", `/notes/${DEMO_NOTE_IDS.weeklySync}`);
    expect(weekly.json.tags).toEqual(["meeting"]);
    expect(weekly.json.content).toMatch(/- \[ \] .*@ada/);
    const spec = await api(emu, "GET", `/teams/sandbox-team/notes/${DEMO_NOTE_IDS.spec}`);
    expect(spec.json.lastChangeUser.userPath).toBe("ada");
    expect(spec.json.content).toContain("```mermaid");
    expect(spec.json.content).toContain("```ts");
    const trash = await api(emu, "GET", "/trash");
    expect(trash.json.map((n: { title: string }) => n.title)).toEqual(["Old draft"]);
    const folders = await api(emu, "GET", "/folders");
    expect(folders.json.map((f: { name: string }) => f.name)).toEqual(["Meetings", "Teaching", "CS101"]);
    expect(folders.json[0].icon).toBe("1F4C5");
    expect((await api(emu, "GET", "/teams/sandbox-team/folders")).json.map((f: { name: string }) => f.name)).toEqual([
      "Specs",
    ]);
    const now = Date.now();
    expect(weekly.json.createdAt).toBeLessThan(now - 86_400_000);
    expect(weekly.json.createdAt).toBeGreaterThan(now - 31 * 86_400_000);
  });
});
