/**
 * Acceptance: a HackMD workspace mirrored into a folder with the built `dist/cli.js`
 * (./checkout.ts) against the built emulator, both sides' changes carried by `sync`, and `search`
 * over the result. Request counts come from the emulator's log (its control API).
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { userCheckout } from "./checkout";
import { sh, startEmulator } from "./run";

let checkout: string;
let work: string;
let emu: Awaited<ReturnType<typeof startEmulator>>;

beforeAll(async () => {
  checkout = await userCheckout();
  work = await mkdtemp(join(tmpdir(), "hb-accept-mirror-"));
  emu = await startEmulator(checkout);
}, 240_000);

afterAll(async () => {
  await emu?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

async function allFiles(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    if (entry.isDirectory()) found.push(...(await allFiles(join(dir, entry.name), `${prefix}${entry.name}/`)));
    else found.push(`${prefix}${entry.name}`);
  }
  return found.sort();
}

it("mirrors 200 notes in nested folders, carries both sides' changes at the next sync, and searches them", async () => {
  const origin = emu.url.replace(/\/v1$/, "");
  const control = async (path: string, init: { method?: string; body?: unknown } = {}): Promise<unknown> => {
    const response = await fetch(`${origin}/__emulator/${path}`, {
      method: init.method ?? "GET",
      headers: { Authorization: `Bearer ${emu.token}`, "content-type": "application/json" },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    return response.status === 204 ? undefined : response.json();
  };
  const api = (path: string, init: { method: string; body: unknown }) =>
    fetch(`${emu.url}${path}`, {
      method: init.method,
      headers: { Authorization: `Bearer ${emu.token}`, "content-type": "application/json" },
      body: JSON.stringify(init.body),
    });
  await control("reset", { method: "POST", body: { seed: "empty" } });
  const past = Date.now() - 120_000;
  const seeded = (await control("seed", {
    method: "POST",
    body: {
      folders: [
        { ref: "a", name: "Area" },
        { ref: "b", name: "Books", parent: "a" },
        { ref: "c", name: "Chapters", parent: "b" },
      ],
      notes: Array.from({ length: 200 }, (_, i) => ({
        title: `Page ${i}`,
        content: `# Page ${i}\n\ntext of page ${i}\n`,
        lastChangedAt: past,
        ...(i % 4 === 0 ? {} : { folder: ["a", "b", "c"][(i % 4) - 1] }),
      })),
    },
  })) as { noteIds: string[]; folderIds: string[] };
  const ids = seeded.noteIds;
  const requestsSince = async (seq: number): Promise<Record<string, number>> => {
    const log = (await control(`requests?since=${seq}`)) as Array<{ seq: number; route: string | null }>;
    const counts: Record<string, number> = {};
    for (const entry of log.filter((e) => e.seq > seq))
      counts[entry.route ?? "?"] = (counts[entry.route ?? "?"] ?? 0) + 1;
    return counts;
  };
  const lastSeq = async (): Promise<number> => ((await control("requests")) as Array<{ seq: number }>).at(-1)?.seq ?? 0;

  const vault = join(work, "vault");
  await mkdir(vault);
  const env = { PATH: process.env.PATH ?? "", HOME: work, HACKMD_API_URL: emu.url, HACKMD_API_TOKEN: emu.token };
  const cli = (args: string) => sh(`node ${join(checkout, "dist", "cli.js")} ${args}`, { cwd: vault, env });

  let mark = await lastSeq();
  const mirrored = await cli("mirror personal Pages --json");
  expect({ status: mirrored.status, stderr: mirrored.stderr }).toMatchObject({ status: 0 });
  expect(await requestsSince(mark)).toEqual({ "GET /notes": 1, "GET /folders": 1, "GET /notes/:noteId": 200 });
  const files = await allFiles(join(vault, "Pages"));
  expect(files).toHaveLength(200);
  expect(files).toContain("Page 0.md");
  expect(files).toContain("Area/Page 1.md");
  expect(files).toContain("Area/Books/Page 2.md");
  expect(files).toContain("Area/Books/Chapters/Page 3.md");

  mark = await lastSeq();
  expect((await cli("sync")).status).toBe(0);
  expect(await requestsSince(mark)).toEqual({ "GET /notes": 1 });

  // On HackMD: a note created, one edited, one moved to another folder, one trashed.
  await control("seed", {
    method: "POST",
    body: { notes: [{ title: "New page", content: "# New page\n", folder: seeded.folderIds[2] }] },
  });
  await control(`notes/${ids[8]}/collaborator-edit`, {
    method: "POST",
    body: { content: "# Page 8\n\nedited on HackMD\n" },
  });
  expect(
    (
      await api(`/notes/${ids[4]}`, {
        method: "PATCH",
        body: { content: "# Page 4\n\ntext of page 4\n", parentFolderId: seeded.folderIds[0] },
      })
    ).status,
  ).toBeLessThan(300);
  await control(`notes/${ids[12]}/collaborator-delete`, { method: "POST" });
  // In the vault: a file created, one edited, one renamed, one deleted.
  await writeFile(join(vault, "Pages/Area/Books/Written here.md"), "# Written here\n\nfrom the vault\n");
  await writeFile(join(vault, "Pages/Page 16.md"), "# Page 16\n\nedited in the vault\n");
  await rename(join(vault, "Pages/Page 20.md"), join(vault, "Pages/Renamed 20.md"));
  await rm(join(vault, "Pages/Page 24.md"));

  const synced = await cli("sync --json");
  expect({ status: synced.status, stderr: synced.stderr }).toMatchObject({ status: 0 });
  // HackMD → vault.
  expect(await readFile(join(vault, "Pages/Area/Books/Chapters/New page.md"), "utf8")).toBe("# New page\n");
  expect(await readFile(join(vault, "Pages/Page 8.md"), "utf8")).toContain("edited on HackMD");
  expect(existsSync(join(vault, "Pages/Page 4.md"))).toBe(false);
  expect(await readFile(join(vault, "Pages/Area/Page 4.md"), "utf8")).toBe("# Page 4\n\ntext of page 4\n");
  expect(existsSync(join(vault, "Pages/Page 12.md"))).toBe(false);
  expect(await readFile(join(vault, ".trash/Page 12.md"), "utf8")).toBe("# Page 12\n\ntext of page 12\n");
  // Vault → HackMD, nothing deleted unasked.
  const state = (await control("state")) as {
    notes: Array<{
      id: string;
      title: string;
      content: string;
      trashedAt: number | null;
      folderId: string | null;
      readPermission: string;
    }>;
  };
  const note = (id: string | undefined) => state.notes.find((n) => n.id === id);
  expect(note(ids[16])?.content).toContain("edited in the vault");
  expect(note(ids[24])?.trashedAt).toBeNull();
  expect(note(ids[20])?.trashedAt).toBeNull();
  const written = state.notes.find((n) => n.title === "Written here");
  expect(written).toMatchObject({ folderId: seeded.folderIds[1], readPermission: "owner", trashedAt: null });
  expect(state.notes.filter((n) => n.trashedAt !== null).map((n) => n.id)).toEqual([ids[12]]);
  // The sync records, as the command keeps them in a folder that is not a vault (docs/tools.md §13).
  const recordsDir = join(vault, ".hackmd-bridge/sync/tracked");
  const trackedNotes = await Promise.all(
    (await readdir(recordsDir))
      .filter((name) => name.endsWith(".json"))
      .map(async (name) => {
        const record = JSON.parse(await readFile(join(recordsDir, name), "utf8")) as {
          internal_id: string;
          local_path: string;
        };
        return { note_id: record.internal_id, local_path: record.local_path };
      }),
  );
  expect(trackedNotes.find((t) => t.note_id === ids[20])?.local_path).toBe("Pages/Renamed 20.md");
  expect(trackedNotes.find((t) => t.note_id === ids[24])).toBeUndefined();

  // Search: the phrase, with its line and its file's state, no request to HackMD.
  mark = await lastSeq();
  const search = await cli('search "edited in the vault" --json');
  expect(search.status).toBe(0);
  expect(JSON.parse(search.stdout)).toMatchObject({
    total: 1,
    results: [{ note_id: ids[16], local_path: "Pages/Page 16.md", state: "in_sync", matches: [{ line: 3 }] }],
  });
  expect(await requestsSince(mark)).toEqual({});
}, 180_000);
