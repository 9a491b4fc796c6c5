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
import { toRemote } from "../../src/convert";
import { atxHeadings, atxText, headingLinks } from "../../src/sync/conversion";
import { context } from "../convert/fixtures";
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

describe("atxText", () => {
  it("reads a heading line as the heading regex did, closing hashes and trailing blanks removed", () => {
    expect(atxText("## Two ##")).toBe("Two");
    expect(atxText("# a ## #")).toBe("a ##");
    expect(atxText("# ##")).toBe("##");
    expect(atxText("# x#")).toBe("x#");
    expect(atxText("#\ta \t")).toBe("a");
    expect(atxText("#No")).toBeUndefined();
    expect(atxText("    # code")).toBeUndefined();
  });

  it("reads a heading holding a long run of spaces (a backtracking regex was quadratic on it)", () => {
    const spaces = " ".repeat(200_000);
    expect(atxText(`# a${spaces}b`)).toBe(`a${spaces}b`);
    expect(atxText(`# a${spaces}#`)).toBe("a");
    expect(atxHeadings(`# a${spaces}b${spaces}\n`)).toEqual([`a${spaces}b`]);
  });
});

describe("headingLinks", () => {
  it("lists wikilink and link headings, the last section of a nested one, a table's alias separator left out", () => {
    expect(
      headingLinks("[[Note#A#B]] | [[T#h\\|alias]] | [Note > H](https://h/n#H) [[Plain]] [x](https://h/m)\n"),
    ).toEqual([
      { name: "Note", heading: "B" },
      { name: "T", heading: "h" },
      { url: "https://h/n", heading: "H" },
    ]);
  });

  it("asks about the heading after a link label's first ` > `, as the converter records it; a label without one asks about none", () => {
    // toRemote writes `[[Other note#a > b]]` as `[Other note > a > b](…#a--b)` and records
    // `heading:Other note.md#a > b` (decodeLink cuts the label at its first ` > `).
    const remote = toRemote("[[Other note#a > b]]", context());
    const asked = remote.dependencies.answers
      .map(([question]) => question)
      .filter((question) => question.startsWith("heading:"))
      .map((question) => question.slice(question.indexOf("#") + 1));
    expect(asked).toEqual(["a > b"]);
    expect(headingLinks(remote.text).map((link) => link.heading)).toEqual(asked);
    expect(headingLinks("[plain](https://h/n#frag)")).toEqual([]);
  });

  it("reads a title's &#96; as a backtick, as the converter does, so a note already answered is not read again", () => {
    expect(headingLinks('[x](https://h/n#c "Note#&#96;code&#96;|x")')).toEqual([
      { url: "https://h/n", heading: "`code`" },
    ]);
    expect(headingLinks('[x](https://h/n#b "!Note#A#B")')).toEqual([{ url: "https://h/n", heading: "B" }]);
  });

  it("scans a line of `[` or of `[[#` (the regexes were quadratic on them) and finds the link after it", () => {
    const tail = "[[Note#End]] [N > E](https://h/n#E)";
    expect(headingLinks(`#\n${"[".repeat(300_000)}${tail}`)).toEqual([
      { name: "[".repeat(300_000 - 2) + "[[Note", heading: "End" },
      { url: "https://h/n", heading: "E" },
    ]);
    // The first `[[#` takes the rest of the line as its heading, as the regex did.
    expect(headingLinks(`${"[[#".repeat(100_000)}\n${tail}`)).toEqual([
      { name: "", heading: "" },
      { name: "Note", heading: "End" },
      { url: "https://h/n", heading: "E" },
    ]);
    expect(headingLinks(`${"[a](u#x ".repeat(100_000)}`)).toEqual([]);
  });
});
