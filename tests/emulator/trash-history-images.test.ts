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

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

async function upload(noteId: string, data: Buffer | null, part = "image", token = emu.token): Promise<Response> {
  const form = new FormData();
  if (data) form.append(part, new Blob([new Uint8Array(data)], { type: "image/png" }), "pic.png");
  return fetch(`${emu.url}/notes/${noteId}/images`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
}

test("delete moves to the trash; restore brings it back to its folder", async () => {
  const f = (await api(emu, "POST", "/folders", { name: "F" })).json.id as string;
  const id = (await api(emu, "POST", "/notes", { title: "Gone", content: "x", parentFolderId: f, tags: ["t"] })).json
    .id as string;
  expect((await api(emu, "DELETE", `/notes/${id}`)).status).toBe(204);
  expect((await api(emu, "GET", "/notes")).json).toEqual([]);
  expect((await api(emu, "DELETE", `/notes/${id}`)).status).toBe(404);
  const trash = await api(emu, "GET", "/trash");
  expect(trash.json).toEqual([
    expect.objectContaining({
      id,
      title: "Gone",
      tags: ["t"],
      teamId: null,
      permanentDeletedAt: null,
      deletedAt: expect.any(Number),
    }),
  ]);
  expect((await api(emu, "PUT", `/trash/${id}/restore`)).status).toBe(204);
  const back = await api(emu, "GET", `/notes/${id}`);
  expect(back.json.folderPaths.map((p: { id: string }) => p.id)).toEqual([f]);
  expect((await api(emu, "GET", "/trash")).json).toEqual([]);
  expect((await api(emu, "PUT", `/trash/${id}/restore`)).status).toBe(404);
});

test("restore to the root when the folder is gone; trash newest first", async () => {
  const f = (await api(emu, "POST", "/folders", { name: "F" })).json.id as string;
  const a = (await api(emu, "POST", "/notes", { title: "A", parentFolderId: f })).json.id as string;
  const b = (await api(emu, "POST", "/notes", { title: "B" })).json.id as string;
  await api(emu, "DELETE", `/notes/${a}`);
  await new Promise((r) => setTimeout(r, 5));
  await api(emu, "DELETE", `/notes/${b}`);
  expect((await api(emu, "GET", "/trash")).json.map((n: { title: string }) => n.title)).toEqual(["B", "A"]);
  await api(emu, "DELETE", `/folders/${f}`);
  await api(emu, "PUT", `/trash/${a}/restore`);
  expect((await api(emu, "GET", `/notes/${a}`)).json.folderPaths).toEqual([]);
});

test("team trash: owners list it, members get plain-text 403, team notes cannot be restored", async () => {
  const { tokens } = emu.seed({ users: [{ userPath: "bob" }] });
  emu.seed({
    teams: [
      {
        path: "crew",
        members: [
          { userPath: "sandbox", role: "admin" },
          { userPath: "bob", role: "member" },
        ],
      },
    ],
  });
  const id = (await api(emu, "POST", "/teams/crew/notes", { title: "TN" })).json.id as string;
  await api(emu, "DELETE", `/teams/crew/notes/${id}`);
  const list = await api(emu, "GET", "/teams/crew/trash");
  expect(list.status).toBe(200);
  expect(list.json[0]).toMatchObject({ id, teamId: expect.any(String) });
  const member = await api(emu, "GET", "/teams/crew/trash", undefined, { token: tokens.bob?.[0] ?? "" });
  expect(member.status).toBe(403);
  expect(member.text).toBe("Forbidden");
  expect(member.headers.get("content-type")).toMatch(/^text\/plain/);
  expect((await api(emu, "PUT", `/trash/${id}/restore`)).status).toBe(404);
  expect((await api(emu, "GET", "/trash")).json).toEqual([]);
});

test("history: visits by GET and create, newest first, limit, trashed left out", async () => {
  const a = (await api(emu, "POST", "/notes", { title: "A" })).json.id as string;
  const b = (await api(emu, "POST", "/notes", { title: "B" })).json.id as string;
  const c = (await api(emu, "POST", "/notes", { title: "C" })).json.id as string;
  await api(emu, "GET", `/notes/${a}`);
  const all = await api(emu, "GET", "/history");
  expect(all.json.map((n: { id: string }) => n.id)).toEqual([a, c, b]);
  expect(all.json[0].lastVisit).toEqual(expect.any(Number));
  expect((await api(emu, "GET", "/history?limit=2")).json).toHaveLength(2);
  expect((await api(emu, "GET", "/history?limit=abc")).json).toHaveLength(3);
  await api(emu, "DELETE", `/notes/${c}`);
  expect((await api(emu, "GET", "/history")).json.map((n: { id: string }) => n.id)).toEqual([a, b]);
});

test("image upload: 201 link served without auth; errors in dialect B", async () => {
  const id = (await api(emu, "POST", "/notes", { content: "x" })).json.id as string;
  const res = await upload(id, PNG);
  expect(res.status).toBe(201);
  const body = (await res.json()) as { data: { link: string } };
  expect(body.data.link).toMatch(new RegExp(`^${emu.origin}/_uploads/[A-Za-z0-9_-]{22}\\.png$`));
  const served = await fetch(body.data.link);
  expect(served.status).toBe(200);
  expect(served.headers.get("content-type")).toBe("image/png");
  expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
  const noPart = await upload(id, PNG, "file");
  expect(noPart.status).toBe(400);
  expect(await noPart.json()).toEqual({ message: "No image provided" });
  const notImage = await upload(id, Buffer.from("hello world, not an image"));
  expect(notImage.status).toBe(415);
  expect(await notImage.json()).toEqual({ message: "Unsupported image type" });
  const missing = await upload("missing", PNG);
  expect(missing.status).toBe(404);
  expect(await missing.json()).toEqual({ message: "Note not found" });
  emu.setQuirks({ imageMaxBytes: 8 });
  const big = await upload(id, PNG);
  expect(big.status).toBe(413);
  expect(await big.json()).toEqual({ message: "Image too large" });
  emu.setQuirks({ imageOrigin: "https://cdn.example" });
  emu.setQuirks({ imageMaxBytes: 1000 });
  const elsewhere = (await (await upload(id, PNG)).json()) as { data: { link: string } };
  expect(elsewhere.data.link.startsWith("https://cdn.example/_uploads/")).toBe(true);
});

test("image upload: 403 for other users' notes", async () => {
  const { tokens } = emu.seed({ users: [{ userPath: "eve" }] });
  const id = (await api(emu, "POST", "/notes", { content: "x", readPermission: "guest" })).json.id as string;
  const res = await upload(id, PNG, "image", tokens.eve?.[0] ?? "");
  expect(res.status).toBe(403);
  expect(await res.json()).toEqual({ message: "Forbidden" });
});
