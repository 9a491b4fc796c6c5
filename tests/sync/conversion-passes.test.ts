/**
 * How often a converting pull converts a note's body (docs/conversion-rules.md; the engine's side
 * is src/sync/conversion.ts): once to the vault's form and once back (the round-trip check that
 * also records what the conversion consulted). The download pass for collaborators' images, which
 * converts again, runs only for images on HackMD's own site that the vault has no file for. The
 * converter is observed with a pass-through spy (it still runs); HackMD is the emulator on
 * loopback. A push checks each uploaded image its note embeds for edits by its content hash, and
 * reads a file again only when its stamp changed.
 */
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as convert from "../../src/convert";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { CallContext } from "../../src/hackmd/call-context";
import { ok, startBridge, type TestBridge } from "../helpers/bridge";

const MAIN = DEMO_NOTE_IDS.readingList;
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4, 5, 6, 7, 8]);

describe("a converting pull converts the body once each way", () => {
  let bridge: TestBridge;
  let root: string;
  const local = (path: string): string => join(bridge.root, path);
  const remote = (): string => bridge.emu.inspect().notes.find((note) => note.id === MAIN)?.content ?? "";
  const check = async (path: string): Promise<string> =>
    (await bridge.core.deps.sync.check({ localPath: path, call: new CallContext() })).status;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "hb-passes-"));
    await mkdir(join(root, ".obsidian"));
    bridge = await startBridge({ root, convertByDefault: () => true });
    ok(await bridge.call("hackmd_pull_note", { note_ref: MAIN, local_path: "Main.md" }));
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await bridge.close();
    await rm(root, { recursive: true, force: true });
  });

  it("an image from another site is not a reason to convert again (it cannot be downloaded)", async () => {
    bridge.emu.collaboratorEdit(MAIN, {
      content: `${remote()}\n![a chart](https://example.com/chart.png)\n\n%% not a comment on HackMD %%\n`,
    });
    const toLocal = jest.spyOn(convert, "toLocal");
    ok(await bridge.call("hackmd_pull_note", { note_ref: MAIN, local_path: "Main.md", overwrite_local: true }));
    expect(toLocal).toHaveBeenCalledTimes(1);
    expect(await readFile(local("Main.md"), "utf8")).toContain("![a chart](https://example.com/chart.png)");
    expect(await check("Main.md")).toBe("in_sync");
  });

  it("an image on HackMD the vault has no file for is downloaded, and the body converted with it", async () => {
    await mkdir(local("incoming"), { recursive: true });
    await writeBytes(local("incoming/photo.png"), PNG);
    const { link } = ok(
      await bridge.call("hackmd_upload_note_image", { note_ref: MAIN, image_path: "incoming/photo.png" }),
    ) as { link: string };
    await rm(local("incoming/photo.png"));
    bridge.emu.collaboratorEdit(MAIN, { content: `${remote()}\n![a photo](${link})\n` });
    const toLocal = jest.spyOn(convert, "toLocal");
    ok(await bridge.call("hackmd_pull_note", { note_ref: MAIN, local_path: "Main.md", overwrite_local: true }));
    // The first pass found the image unknown; the second converts with the downloaded file.
    expect(toLocal).toHaveBeenCalledTimes(2);
    const name = new URL(link).pathname.split("/").pop() ?? "";
    expect(await readFile(local(name))).toEqual(Buffer.from(PNG));
    expect(await readFile(local("Main.md"), "utf8")).toContain(`![a photo](${name})`);
    expect(await check("Main.md")).toBe("in_sync");
  });
});

async function writeBytes(path: string, bytes: Uint8Array): Promise<void> {
  const { writeFile } = await import("node:fs/promises");
  await writeFile(path, bytes);
}

describe("a push checks its uploaded images for edits", () => {
  let bridge: TestBridge;
  let root: string;
  const local = (path: string): string => join(bridge.root, path);
  const uploads = (): number =>
    bridge.requestsSinceMark().filter((route) => route === "POST /notes/:noteId/images").length;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "hb-passes-"));
    await mkdir(join(root, ".obsidian"));
    bridge = await startBridge({ root, convertByDefault: () => true });
    ok(await bridge.call("hackmd_pull_note", { note_ref: MAIN, local_path: "Main.md" }));
    await writeBytes(local("pic.png"), PNG);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await bridge.close();
    await rm(root, { recursive: true, force: true });
  });

  it("reads an unchanged image once, and uploads it again once it changed", async () => {
    const text = await readFile(local("Main.md"), "utf8");
    const push = async (line: string): Promise<void> => {
      await writeBytes(local("Main.md"), new TextEncoder().encode(`${text}\n![[pic.png]]\n${line}\n`));
      expect(ok(await bridge.call("hackmd_push_note", { local_path: "Main.md" })).status).toBe("pushed");
    };
    bridge.mark();
    await push("first");
    expect(uploads()).toBe(1);
    const read = jest.spyOn(bridge.core.deps.files, "read");
    const imageReads = (): number => read.mock.calls.filter(([path]) => path === "pic.png").length;
    await push("second");
    await push("third");
    expect(imageReads()).toBe(0);
    expect(uploads()).toBe(1);
    // An edited image (new bytes, so a new stamp) is read, hashed and uploaded again.
    await writeBytes(local("pic.png"), Uint8Array.from([...PNG, 9]));
    await push("fourth");
    expect(imageReads()).toBeGreaterThan(0);
    expect(uploads()).toBe(2);
  });
});
