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

const T = "/teams/sandbox-team";

async function folder(prefix: string, body: Record<string, unknown>): Promise<string> {
  const res = await api(emu, "POST", `${prefix}/folders`, body);
  expect(res.status).toBe(201);
  return res.json.id as string;
}

test("create, list, get; defaults and order map", async () => {
  const a = await folder("", { name: "A", icon: "1F525", color: "#fff" });
  const b = await folder("", { parentFolderId: a });
  const list = await api(emu, "GET", "/folders");
  expect(list.json).toHaveLength(2);
  expect(list.json[1]).toMatchObject({ id: b, name: "Untitled", parentFolderId: a, description: null, icon: null });
  expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect((await api(emu, "GET", `/folders/${a}`)).json).toMatchObject({ name: "A", icon: "1F525", color: "#fff" });
  expect((await api(emu, "GET", "/folders/folder-order")).json).toEqual({ root: [a], [a]: [b] });
  expect((await api(emu, "GET", `${T}/folders/folder-order`)).json).toEqual({});
});

test("validation: parentFolderId null and bad colour are 422; unknown parent 404", async () => {
  const res = await api(emu, "POST", "/folders", { name: "x", parentFolderId: null, color: "red" });
  expect(res.status).toBe(422);
  expect(Object.keys(res.json.details).sort()).toEqual(["requestBody.color", "requestBody.parentFolderId"]);
  const missing = await api(emu, "POST", "/folders", { parentFolderId: "nope" });
  expect(missing.status).toBe(404);
  expect(missing.json).toEqual({ error: "Folder not found" });
});

test("PUT folder-order replaces the map; bad shape 422", async () => {
  const order = { root: ["x", "y"], x: ["z"] };
  expect((await api(emu, "PUT", "/folders/folder-order", { order })).status).toBe(204);
  expect((await api(emu, "GET", "/folders/folder-order")).json).toEqual(order);
  expect((await api(emu, "PUT", "/folders/folder-order", { order: { root: "x" } })).status).toBe(422);
  expect((await api(emu, "PUT", "/folders/folder-order", [])).status).toBe(422);
});

test("unknown folder: 404, or 200 {} under unknownFolderEmptyObject; personal routes see only own folders", async () => {
  const team = await folder(T, { name: "TeamF" });
  const res = await api(emu, "GET", `/folders/${team}`);
  expect(res.status).toBe(404);
  expect(res.json).toEqual({ error: "Folder not found" });
  emu.setQuirks({ unknownFolderEmptyObject: true });
  const empty = await api(emu, "GET", "/folders/nope");
  expect(empty.status).toBe(200);
  expect(empty.json).toEqual({});
});

test("personal folder PATCH is 404 while unsupported; works when the switch is off", async () => {
  const id = await folder("", { name: "A" });
  const res = await api(emu, "PATCH", `/folders/${id}`, { name: "B" });
  expect(res.status).toBe(404);
  expect(res.json).toEqual({ error: "Not found" });
  expect((await api(emu, "GET", `/folders/${id}`)).json.name).toBe("A");
  emu.setQuirks({ personalFolderPatchUnsupported: false });
  expect((await api(emu, "PATCH", `/folders/${id}`, { name: "B" })).status).toBe(202);
  expect((await api(emu, "GET", `/folders/${id}`)).json.name).toBe("B");
});

test("team folder PATCH: 202 empty, null clears, validation 422", async () => {
  const id = await folder(T, { name: "A", description: "d", icon: "1F525", color: "#123456" });
  const res = await api(emu, "PATCH", `${T}/folders/${id}`, { name: "B", icon: null });
  expect(res.status).toBe(202);
  expect(res.text).toBe("");
  expect((await api(emu, "GET", `${T}/folders/${id}`)).json).toMatchObject({
    name: "B",
    icon: null,
    description: "d",
    color: "#123456",
  });
  expect((await api(emu, "PATCH", `${T}/folders/${id}`, { color: "blue" })).status).toBe(422);
  expect((await api(emu, "PATCH", `${T}/folders/nope`, { name: "x" })).status).toBe(404);
});

test("folder moves are ignored by default, applied (with cycle check) when the switch is off", async () => {
  const a = await folder(T, { name: "A" });
  const b = await folder(T, { name: "B" });
  expect((await api(emu, "PATCH", `${T}/folders/${b}`, { parentFolderId: a })).status).toBe(202);
  expect((await api(emu, "GET", `${T}/folders/${b}`)).json.parentFolderId).toBeNull();
  emu.setQuirks({ folderMoveIgnored: false });
  expect((await api(emu, "PATCH", `${T}/folders/${b}`, { parentFolderId: a })).status).toBe(202);
  expect((await api(emu, "GET", `${T}/folders/${b}`)).json.parentFolderId).toBe(a);
  expect((await api(emu, "GET", `${T}/folders/folder-order`)).json).toEqual({ root: [a], [a]: [b] });
  const cycle = await api(emu, "PATCH", `${T}/folders/${a}`, { parentFolderId: b });
  expect(cycle.status).toBe(400);
  expect((await api(emu, "PATCH", `${T}/folders/${b}`, { parentFolderId: null })).status).toBe(202);
  expect((await api(emu, "GET", `${T}/folders/${b}`)).json.parentFolderId).toBeNull();
});

describe("delete with children", () => {
  async function tree(): Promise<{ a: string; b: string; c: string; note: string }> {
    const a = await folder("", { name: "A" });
    const b = await folder("", { name: "B", parentFolderId: a });
    const c = await folder("", { name: "C", parentFolderId: b });
    const note = (await api(emu, "POST", "/notes", { content: "n", parentFolderId: b })).json.id as string;
    return { a, b, c, note };
  }

  test("orphan (default): subfolders dangle, notes go to the root, id leaves the order map", async () => {
    const { a, b, c, note } = await tree();
    expect((await api(emu, "DELETE", `/folders/${b}`)).status).toBe(204);
    expect((await api(emu, "GET", `/folders/${b}`)).status).toBe(404);
    expect((await api(emu, "GET", `/folders/${c}`)).json.parentFolderId).toBe(b);
    expect((await api(emu, "GET", `/notes/${note}`)).json.folderPaths).toEqual([]);
    expect(JSON.stringify((await api(emu, "GET", "/folders/folder-order")).json)).not.toContain(b);
    expect((await api(emu, "GET", "/folders/folder-order")).json.root).toEqual([a]);
  });

  test("reparent: children move to the deleted folder's parent", async () => {
    emu.setQuirks({ folderDeleteChildren: "reparent" });
    const { a, b, c, note } = await tree();
    expect((await api(emu, "DELETE", `/folders/${b}`)).status).toBe(204);
    expect((await api(emu, "GET", `/folders/${c}`)).json.parentFolderId).toBe(a);
    expect((await api(emu, "GET", `/notes/${note}`)).json.folderPaths.map((f: { id: string }) => f.id)).toEqual([a]);
    expect((await api(emu, "GET", "/folders/folder-order")).json[a]).toEqual([c]);
  });

  test("refuse: 400 while not empty", async () => {
    emu.setQuirks({ folderDeleteChildren: "refuse" });
    const { b, c } = await tree();
    expect((await api(emu, "DELETE", `/folders/${b}`)).status).toBe(400);
    expect((await api(emu, "DELETE", `/folders/${c}`)).status).toBe(204);
    expect((await api(emu, "DELETE", `/folders/${c}`)).status).toBe(404);
  });
});
