/**
 * The engine's side of two rules for real vaults (docs/conversion-rules.md): a heading link
 * written in another case gets the anchor HackMD gives the heading as the target note spells it
 * (the engine reads the linked note's headings), and a relative Markdown image is resolved
 * against the note's own folder and uploaded. Real HTTP to the emulator.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishFile } from "../../src/app/publish";
import { CallContext } from "../../src/hackmd/call-context";
import { atxHeadings } from "../../src/sync/conversion";
import { ok, startBridge, type TestBridge } from "../helpers/bridge";

/** A PNG signature and header: enough for the upload's type sniffing. */
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");

describe("heading anchors and relative images through publish and pull", () => {
  let bridge: TestBridge;
  let root: string;
  const publish = async (path: string): Promise<string> =>
    (
      await publishFile(bridge.core.deps, new CallContext(), {
        path,
        teamPath: null,
        readPermission: "owner",
        writePermission: "owner",
      })
    ).noteId;
  const onHackmd = (id: string): string => bridge.emu.inspect().notes.find((note) => note.id === id)?.content ?? "";

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "hb-anchors-"));
    await mkdir(join(root, ".obsidian"));
    await mkdir(join(root, "Notes"));
    await mkdir(join(root, "images"));
    bridge = await startBridge({ root, convertByDefault: () => true });
  });
  afterEach(async () => {
    await bridge.close();
    await rm(root, { recursive: true, force: true });
  });

  it("links to the target's heading as the target spells it, uploads ../images/p.png, and pulls the file back unchanged", async () => {
    await writeFile(
      join(root, "Sorting.md"),
      "# Sorting\n\n```\n## default sort order\n```\n\n## Default sort order\n",
    );
    await writeFile(join(root, "images", "p.png"), PNG);
    const text = "See [[Sorting#default sort order]].\n\n![Photo](../images/p.png)\n";
    await writeFile(join(root, "Notes", "Idea.md"), text);
    const sorting = await publish("Sorting.md");
    const idea = await publish("Notes/Idea.md");
    const origin = new URL(bridge.emu.url).origin;
    const sent = onHackmd(idea);
    expect(sent).toContain(`[Sorting > default sort order](${origin}/${sorting}#Default-sort-order)`);
    expect(sent).toMatch(/!\[Photo\]\(\S+#\.\.\/images\/p\.png\)/);
    expect(sent).not.toContain("](../images/p.png)");
    // A pull of the note writes the file exactly as it was.
    ok(await bridge.call("hackmd_pull_note", { note_ref: idea, local_path: "Notes/Idea.md", overwrite_local: true }));
    expect(await readFile(join(root, "Notes", "Idea.md"), "utf8")).toBe(text);
    expect((await bridge.core.deps.sync.check({ localPath: "Notes/Idea.md", call: new CallContext() })).status).toBe(
      "in_sync",
    );
  }, 20_000);
});

describe("atxHeadings", () => {
  it("lists ATX headings as written, outside front matter and fenced code, closing hashes removed", () => {
    expect(
      atxHeadings("---\n# not: a heading\n---\n# One\n```\n## Code\n```\n  ## Two ##\n#No\n###### Six\n~~~\n# x\n"),
    ).toEqual(["One", "Two", "Six"]);
  });
});
