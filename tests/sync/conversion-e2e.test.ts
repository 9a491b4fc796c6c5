/**
 * Conversion end to end: a vault file in Obsidian's syntax goes to HackMD through the real MCP
 * tools, the client and the emulator over loopback, and comes back byte for byte. The rules are
 * docs/conversion-rules.md; this checks the engine's side (compare in one form, uploads once,
 * records what a conversion consulted, the per-note switch).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { CallContext } from "../../src/hackmd/call-context";
import { syncAll } from "../../src/sync/sync-all";
import { ok, startBridge, type TestBridge } from "../helpers/bridge";

const MAIN = DEMO_NOTE_IDS.readingList;
const OTHER = DEMO_NOTE_IDS.cs101;
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4, 5, 6, 7, 8]);
const UPLOAD = "POST /notes/:noteId/images";

const OBSIDIAN_PART = [
  "",
  "![[pic.png]]",
  "",
  "See [[Other note]] for the details, and here it is in full:",
  "",
  "![[Other note]]",
  "",
  "> [!warning] Careful",
  "> The oven is hot.",
  "",
  "%%remember to ask Sam about the budget%%",
  "",
].join("\n");

describe("Obsidian content survives the trip to HackMD and back", () => {
  let bridge: TestBridge;
  const local = (path: string): string => join(bridge.root, path);
  const remote = (id = MAIN): string => bridge.emu.inspect().notes.find((note) => note.id === id)?.content ?? "";
  const uploads = (): number => bridge.requestsSinceMark().filter((route) => route === UPLOAD).length;
  const check = async (path: string): Promise<string> =>
    (await bridge.core.deps.sync.check({ localPath: path, call: new CallContext() })).status;

  let root: string;
  beforeEach(async () => {
    // A vault: the state folder and the attachment setting live in its .obsidian folder.
    root = await mkdtemp(join(tmpdir(), "hb-convert-"));
    await mkdir(join(root, ".obsidian"));
    bridge = await startBridge({ root, convertByDefault: () => true });
    await mkdir(local("attachments"), { recursive: true });
    await writeFile(local("attachments/pic.png"), PNG);
    ok(await bridge.call("hackmd_pull_note", { note_ref: OTHER, local_path: "Other note.md" }));
    ok(await bridge.call("hackmd_pull_note", { note_ref: MAIN, local_path: "Main.md" }));
  });
  afterEach(async () => {
    await bridge.close();
    await rm(root, { recursive: true, force: true });
  });

  it("pushes the image link, the note's URL, the embed, a :::warning container and no readable comment; pulls back byte for byte; uploads once", async () => {
    const written = `${await readFile(local("Main.md"), "utf8")}${OBSIDIAN_PART}`;
    await writeFile(local("Main.md"), written);
    expect(await check("Main.md")).toBe("local_changed");

    bridge.mark();
    expect(ok(await bridge.call("hackmd_push_note", { local_path: "Main.md" })).status).toBe("pushed");
    expect(uploads()).toBe(1);
    const body = remote();
    const origin = new URL(bridge.emu.url).origin;
    expect(body).toMatch(new RegExp(`!\\[[^\\]]*\\]\\(${origin.replace(/[.:/]/g, "\\$&")}/_uploads/[^)]+\\)`));
    expect(body).toContain(`(${origin}/${OTHER})`);
    expect(body).toContain(`{%hackmd ${OTHER} %}`);
    expect(body).toContain(":::warning");
    expect(body).not.toContain("remember to ask Sam");
    expect(body).not.toContain("[[");
    // The file is left as the user wrote it, and it is in sync with what HackMD now holds.
    expect(await readFile(local("Main.md"), "utf8")).toBe(written);
    expect(await check("Main.md")).toBe("in_sync");

    ok(await bridge.call("hackmd_pull_note", { note_ref: MAIN, local_path: "Main.md", overwrite_local: true }));
    expect(await readFile(local("Main.md"), "utf8")).toBe(written);
    expect(await check("Main.md")).toBe("in_sync");
    // What `diff` and "Compare with HackMD" show against: the body in the file's syntax.
    const found = (await bridge.core.deps.sync.listTracked()).find((entry) => entry.note_id === MAIN);
    expect(found).toBeDefined();
    const keyed = {
      key: `personal--${MAIN}`,
      record: {
        format: 1,
        internal_id: MAIN,
        team_path: null,
        local_path: "Main.md",
        baseline_body_hash: found?.baseline_hash ?? "",
        last_observed_remote_timestamp: "",
      },
    };
    expect(await bridge.core.deps.sync.localFormOf(keyed, remote())).toBe(written);

    bridge.mark();
    expect(ok(await bridge.call("hackmd_push_note", { local_path: "Main.md" })).status).toBe("nothing_to_push");
    await writeFile(local("Main.md"), `${written}One more line.\n`);
    expect(ok(await bridge.call("hackmd_push_note", { local_path: "Main.md" })).status).toBe("pushed");
    expect(uploads()).toBe(0);
    expect(remote()).toContain("One more line.");

    // The image itself was edited: the next push of the note uploads it again, under a new link.
    const before = remote().match(/\/_uploads\/[^)]+/)?.[0];
    await writeFile(local("attachments/pic.png"), Uint8Array.from([...PNG, 9, 9]));
    await writeFile(local("Main.md"), `${written}One more line.\nAnd another.\n`);
    bridge.mark();
    expect(ok(await bridge.call("hackmd_push_note", { local_path: "Main.md" })).status).toBe("pushed");
    expect(uploads()).toBe(1);
    expect(remote().match(/\/_uploads\/[^)]+/)?.[0]).not.toBe(before);
  });

  it("a name two tracked notes share links to the one beside the file, as Obsidian resolves it; back byte for byte", async () => {
    const GUIDE = DEMO_NOTE_IDS.weeklySync;
    const SPEC = DEMO_NOTE_IDS.spec;
    await mkdir(local("Sync"));
    await mkdir(local("Publish"));
    ok(
      await bridge.call("hackmd_pull_note", { note_ref: OTHER, local_path: "Sync/Security.md", overwrite_local: true }),
    );
    ok(await bridge.call("hackmd_pull_note", { note_ref: SPEC, local_path: "Publish/Security.md" }));
    ok(await bridge.call("hackmd_pull_note", { note_ref: GUIDE, local_path: "Sync/Guide.md" }));
    const written = `${await readFile(local("Sync/Guide.md"), "utf8")}\nRead [[Security]] first.\n`;
    await writeFile(local("Sync/Guide.md"), written);
    expect(ok(await bridge.call("hackmd_push_note", { local_path: "Sync/Guide.md" })).status).toBe("pushed");
    const origin = new URL(bridge.emu.url).origin;
    expect(bridge.emu.inspect().notes.find((note) => note.id === GUIDE)?.content).toContain(
      `Read [Security](${origin}/${OTHER}) first.`,
    );
    expect(await check("Sync/Guide.md")).toBe("in_sync");
    ok(await bridge.call("hackmd_pull_note", { note_ref: GUIDE, local_path: "Sync/Guide.md", overwrite_local: true }));
    expect(await readFile(local("Sync/Guide.md"), "utf8")).toBe(written);
  });

  it("a file nobody edited stays in sync when the note it links to is untracked, and Sync all agrees", async () => {
    await writeFile(local("Main.md"), `${await readFile(local("Main.md"), "utf8")}${OBSIDIAN_PART}`);
    ok(await bridge.call("hackmd_push_note", { local_path: "Main.md" }));
    ok(await bridge.call("hackmd_untrack_note", { note_id: OTHER, confirm: true }));
    expect(await check("Main.md")).toBe("in_sync");
    const plan = await syncAll(bridge.core.deps, { dryRun: true });
    expect(plan.items.find((item) => item.note_id === MAIN)).toMatchObject({ plan: "in_sync" });
  });

  it("a collaborator's :::info container arrives as a callout; an edit around it goes back as a container", async () => {
    bridge.emu.collaboratorEdit(MAIN, { content: `${remote()}\n:::info\nFrom HackMD.\n:::\n` });
    ok(await bridge.call("hackmd_pull_note", { note_ref: MAIN, local_path: "Main.md", overwrite_local: true }));
    const text = await readFile(local("Main.md"), "utf8");
    expect(text).toContain("> [!info]\n> From HackMD.");
    // After a blank line: a line right after a callout would continue it (Markdown's lazy quote).
    await writeFile(local("Main.md"), `${text}\nAdded in Obsidian.\n`);
    expect(ok(await bridge.call("hackmd_push_note", { local_path: "Main.md" })).status).toBe("pushed");
    expect(remote()).toContain(":::info\nFrom HackMD.\n:::\n");
    expect(remote()).toContain("Added in Obsidian.");
  });

  it("an image a collaborator added on HackMD is saved in the attachment folder and embedded; nothing churns", async () => {
    await writeFile(local(".obsidian/app.json"), JSON.stringify({ attachmentFolderPath: "./assets" }));
    await mkdir(local("incoming"), { recursive: true });
    await writeFile(local("incoming/photo.png"), Uint8Array.from([...PNG, 42]));
    const { link } = ok(
      await bridge.call("hackmd_upload_note_image", { note_ref: MAIN, image_path: "incoming/photo.png" }),
    ) as { link: string };
    // Not in the vault any more (see the next test for an image that is).
    await rm(local("incoming/photo.png"));
    bridge.emu.collaboratorEdit(MAIN, { content: `${remote()}\n![a photo](${link})\n` });
    ok(await bridge.call("hackmd_pull_note", { note_ref: MAIN, local_path: "Main.md", overwrite_local: true }));
    const text = await readFile(local("Main.md"), "utf8");
    // Obsidian's attachment setting is "./assets": the note's folder (the top), then assets/; the
    // embed names it the shortest way Obsidian would (its name alone, being the only such file).
    const name = text.match(/!\[a photo\]\(([^)/]+\.png)\)/)?.[1];
    expect(name).toBeDefined();
    expect([...(await readFile(local(`assets/${decodeURIComponent(name ?? "")}`)))]).toEqual([...PNG, 42]);
    expect(await check("Main.md")).toBe("in_sync");
    bridge.mark();
    expect(ok(await bridge.call("hackmd_push_note", { local_path: "Main.md" })).status).toBe("nothing_to_push");
    await writeFile(local("Main.md"), `${text}\nA caption.\n`);
    expect(ok(await bridge.call("hackmd_push_note", { local_path: "Main.md" })).status).toBe("pushed");
    expect(uploads()).toBe(0);
    expect(remote()).toContain(`![a photo](${link})`);
  });

  it("an image HackMD shows whose bytes are already in the vault is linked to that file, not downloaded again", async () => {
    await writeFile(local(".obsidian/app.json"), JSON.stringify({ attachmentFolderPath: "./assets" }));
    await mkdir(local("incoming"), { recursive: true });
    await writeFile(local("incoming/photo.png"), Uint8Array.from([...PNG, 42]));
    const { link } = ok(
      await bridge.call("hackmd_upload_note_image", { note_ref: MAIN, image_path: "incoming/photo.png" }),
    ) as { link: string };
    bridge.emu.collaboratorEdit(MAIN, { content: `${remote()}\n![a photo](${link})\n` });
    ok(await bridge.call("hackmd_pull_note", { note_ref: MAIN, local_path: "Main.md", overwrite_local: true }));
    expect(await readFile(local("Main.md"), "utf8")).toContain("![a photo](photo.png)");
    await expect(readFile(local(`assets/${new URL(link).pathname.split("/").pop() ?? ""}`))).rejects.toThrow();
    expect(await check("Main.md")).toBe("in_sync");
  });

  it("a conflict's .remote.md snapshot is written in the file's syntax", async () => {
    await writeFile(local("Main.md"), `${await readFile(local("Main.md"), "utf8")}${OBSIDIAN_PART}`);
    ok(await bridge.call("hackmd_push_note", { local_path: "Main.md" }));
    const mine = await readFile(local("Main.md"), "utf8");
    await writeFile(local("Main.md"), mine.replace("The oven is hot.", "The oven is very hot."));
    bridge.emu.collaboratorEdit(MAIN, { content: remote().replace("The oven is hot.", "The oven is off.") });
    const pushed = ok(await bridge.call("hackmd_push_note", { local_path: "Main.md" }));
    expect(pushed.status).toBe("conflict");
    const snapshot = await readFile(local("Main.remote.md"), "utf8");
    expect(snapshot).toContain("> [!warning] Careful\n> The oven is off.");
    expect(snapshot).toContain("[[Other note]]");
  });

  it("a conflict's snapshot of a note in a folder links a shared name as the file does (resolved beside the note)", async () => {
    await mkdir(local("Sync"));
    await mkdir(local("Publish"));
    ok(
      await bridge.call("hackmd_pull_note", { note_ref: OTHER, local_path: "Sync/Security.md", overwrite_local: true }),
    );
    ok(await bridge.call("hackmd_pull_note", { note_ref: DEMO_NOTE_IDS.spec, local_path: "Publish/Security.md" }));
    ok(await bridge.call("hackmd_pull_note", { note_ref: DEMO_NOTE_IDS.weeklySync, local_path: "Sync/Guide.md" }));
    const written = await readFile(local("Sync/Guide.md"), "utf8");
    await writeFile(local("Sync/Guide.md"), `${written}Mine.\n`);
    const theirs = bridge.emu.inspect().notes.find((note) => note.id === DEMO_NOTE_IDS.weeklySync)?.content ?? "";
    // Theirs adds a link to the note beside it: no answer the baseline's conversion recorded covers it.
    const origin = new URL(bridge.emu.url).origin;
    bridge.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, {
      content: `${theirs}Also [Security](${origin}/${OTHER}).\n`,
    });
    expect(ok(await bridge.call("hackmd_push_note", { local_path: "Sync/Guide.md" })).status).toBe("conflict");
    expect(await readFile(local("Sync/Guide.remote.md"), "utf8")).toBe(`${written}Also [[Security]].\n`);
  });

  it("--no-convert (convert: false) syncs that note byte for byte from then on", async () => {
    bridge.emu.collaboratorEdit(MAIN, { content: `${remote()}\n:::info\nRaw.\n:::\n` });
    const pulled = await bridge.core.deps.sync.pull({
      localPath: "Main.md",
      resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: null, noteId: MAIN }),
      overwriteLocal: true,
      discardLocalChanges: false,
      createParentDirs: false,
      confirmLargeFile: false,
      convert: false,
      call: new CallContext(),
    });
    expect(pulled.kind).toBe("pulled");
    expect(await readFile(local("Main.md"), "utf8")).toBe(remote());
    // A later pull without the switch keeps the note byte for byte.
    bridge.emu.collaboratorEdit(MAIN, { content: `${remote()}:::warning\nStill raw.\n:::\n` });
    ok(await bridge.call("hackmd_pull_note", { note_ref: MAIN, local_path: "Main.md", overwrite_local: true }));
    expect(await readFile(local("Main.md"), "utf8")).toBe(remote());
    expect(await check("Main.md")).toBe("in_sync");
  });
});
