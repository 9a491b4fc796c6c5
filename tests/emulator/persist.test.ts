/**
 * An emulator with a state file keeps its data across a restart: what a client
 * wrote over HTTP, in-process changes, tokens and ids, in a file only its owner can read. A file
 * it cannot use stops the start with an error naming it.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_NOTE_IDS, EmulatorStateError, startEmulator } from "../../src/emulator";

let dir: string;
let file: string;
const token = "persist-test-token-0123456789abcdefghijklmn";

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "hb-emu-state-"));
  file = join(dir, "emulator.json");
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function api(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === "" ? null : (JSON.parse(text) as unknown) };
}

describe("an emulator with a state file", () => {
  it("serves after a restart what was written before it, with the same ids, and keeps the file private", async () => {
    const before = await startEmulator({ seed: "demo", token, stateFile: file });
    const created = await api(before.url, "POST", "/notes", {
      title: "Written over HTTP",
      content: "# Written over HTTP\n\nbody\n",
    });
    expect(created.status).toBe(201);
    const id = (created.json as { id: string }).id;
    const patched = await api(before.url, "PATCH", `/notes/${DEMO_NOTE_IDS.readingList}`, {
      content: "# Reading list\n\nchanged\n",
    });
    expect(patched.status).toBeLessThan(300);
    before.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: "# Weekly\n\nedited on the web\n" });
    const snapshot = before.inspect();
    await before.close();
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    // A different seed is ignored: the file wins.
    const after = await startEmulator({ seed: "empty", token, stateFile: file });
    try {
      expect(after.inspect().notes).toEqual(snapshot.notes);
      const note = await api(after.url, "GET", `/notes/${id}`);
      expect(note.status).toBe(200);
      expect((note.json as { content: string }).content).toBe("# Written over HTTP\n\nbody\n");
      expect(
        ((await api(after.url, "GET", `/notes/${DEMO_NOTE_IDS.weeklySync}`)).json as { content: string }).content,
      ).toBe("# Weekly\n\nedited on the web\n");
      expect((await api(after.url, "GET", "/me")).status).toBe(200);
    } finally {
      await after.close();
    }
  });

  it("without a file, a start writes the seed to it", async () => {
    const emu = await startEmulator({ seed: "demo", token, stateFile: file });
    await emu.close();
    const saved = JSON.parse(await readFile(file, "utf8")) as { kind: string; notes: Array<{ id: string }> };
    expect(saved.kind).toBe("hackmd-emulator-state");
    expect(saved.notes.map((note) => note.id)).toContain(DEMO_NOTE_IDS.cs101);
  });

  it("refuses a damaged file, a foreign one and another token's, naming the file", async () => {
    await writeFile(file, "{ not json");
    await expect(startEmulator({ token, stateFile: file })).rejects.toThrow(EmulatorStateError);
    await expect(startEmulator({ token, stateFile: file })).rejects.toThrow(file);
    await writeFile(file, JSON.stringify({ kind: "something-else" }));
    await expect(startEmulator({ token, stateFile: file })).rejects.toThrow(/not an emulator state file/);
    await rm(file);
    const emu = await startEmulator({ seed: "demo", token, stateFile: file });
    await emu.close();
    await expect(
      startEmulator({ token: "another-token-entirely-0123456789abcdefghij", stateFile: file }),
    ).rejects.toThrow(/another token/);
  });
});
