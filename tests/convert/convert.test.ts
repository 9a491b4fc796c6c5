import { createHash } from "node:crypto";
import {
  buildConversionContext,
  contextFromDependencies,
  dependenciesHold,
  preferRecorded,
  toLocal,
  toRemote,
  type ConversionDependencies,
  type ConversionInput,
} from "../../src/convert";
import { sha256Hasher, sha256HexSync } from "../../src/convert/sha256";
import { context, INPUT, NOTES } from "./fixtures";

const ISSUE_NOTE = [
  "# Plan",
  "",
  "![[diagram.png]]",
  "",
  "See [[Other note]] and below:",
  "",
  "![[Other note]]",
  "",
  "> [!warning] Mind the gap",
  "> Do not push %%the secret plan%% yet.",
  "",
  "%%",
  "private",
  "%%",
  "",
].join("\n");

describe("preferRecorded: what the engine compares and pushes in", () => {
  const other = { url: "https://hackmd.io/OTHER", id: "OTHER" };
  const third = { url: "https://hackmd.io/THIRD", id: "THIRD" };
  it("converts an unedited text as it was converted, whatever changed; converts what an edit added as things are now", () => {
    const then = buildConversionContext({ notes: new Map([["Other note.md", other]]) });
    const text = "See [[Other note]].\n";
    const pushed = toRemote(text, then);
    expect(pushed.text).toBe("See [Other note](https://hackmd.io/OTHER).\n");
    // Other note untracked since, Third note tracked since.
    const now = buildConversionContext({ notes: new Map([["Third note.md", third]]) });
    expect(toRemote(text, now).text).toBe(text);
    expect(toRemote(text, preferRecorded(pushed.dependencies, now)).text).toBe(pushed.text);
    expect(toRemote(`${text}And [[Third note]].\n`, preferRecorded(pushed.dependencies, now)).text).toBe(
      `${pushed.text}And [Third note](https://hackmd.io/THIRD).\n`,
    );
  });
  it("is byte for byte when the saved conversion was switched off", () => {
    const off: ConversionDependencies = { enabled: false, linkFormat: "shortest", answers: [], comments: [] };
    const now = buildConversionContext({ notes: new Map([["Other note.md", other]]) });
    expect(toRemote("See [[Other note]].\n", preferRecorded(off, now)).text).toBe("See [[Other note]].\n");
  });
});

describe("toRemote / toLocal", () => {
  it("carries the issue's example note to HackMD and back byte for byte", () => {
    const remote = toRemote(ISSUE_NOTE, context());
    expect(remote.text).toContain("![diagram.png](https://hackmd.io/_uploads/d.png)");
    expect(remote.text).toContain("[Other note](https://hackmd.io/abc)");
    expect(remote.text).toContain("{%hackmd abc %}");
    expect(remote.text).toContain(":::warning\n**Mind the gap**\n");
    expect(remote.text).not.toMatch(/secret|private|%%/);
    expect(remote.images).toEqual(["diagram.png"]);
    expect(remote.dependencies.comments.map(([, source]) => source).sort()).toEqual([
      "%%\nprivate\n%%",
      "the secret plan",
    ]);
    expect(toLocal(remote.text, context(remote.dependencies.comments)).text).toBe(ISSUE_NOTE);
  });

  it("keeps CRLF line endings, and nested callouts in a CRLF text", () => {
    const local = "> [!info] T\r\n> a [[Other note]]\r\n> > [!danger]\r\n> > b\r\n\r\nend\r\n";
    const remote = toRemote(local, context());
    expect(remote.text).toBe(
      "::::info\r\n**T**\r\na [Other note](https://hackmd.io/abc)\r\n:::danger\r\nb\r\n:::\r\n::::\r\n\r\nend\r\n",
    );
    expect(toLocal(remote.text, context()).text).toBe(local);
  });

  it("uses `\\|` for aliases and sizes inside tables, as Obsidian does", () => {
    const local = "| a | b |\n| --- | --- |\n| [[Other note\\|o]] | ![[diagram.png\\|300]] |\n";
    const remote = toRemote(local, context());
    expect(remote.text).toBe(
      "| a | b |\n| --- | --- |\n| [o](https://hackmd.io/abc) | ![diagram.png](https://hackmd.io/_uploads/d.png =300x) |\n",
    );
    expect(toLocal(remote.text, context()).text).toBe(local);
    // Outside a table the same text is not an alias.
    expect(toRemote("[[Other note\\|o]]", context()).text).toBe("[[Other note\\|o]]");
  });

  it("writes paths the way `linkFormat` says", () => {
    const absolute = buildConversionContext({ ...INPUT, linkFormat: "absolute" });
    expect(toLocal("![x](https://hackmd.io/_uploads/pic.png)", absolute).text).toBe("![x](attachments/pic%20x.png)");
    expect(toLocal("![x](https://hackmd.io/_uploads/pic.png)", context()).text).toBe("![x](pic%20x.png)");
    expect(toLocal("[d](https://hackmd.io/deep)", absolute).text).toBe("[[dir/Deep|d]]");
  });

  it("resolves a name two notes share to the one beside the linking note (Obsidian's rule), and only there", () => {
    const notes = new Map([
      ["Publish/Security.md", { url: "https://hackmd.io/pub", id: "pub" }],
      ["Sync/Security.md", { url: "https://hackmd.io/sync", id: "sync" }],
    ]);
    const inPublish = buildConversionContext({ notes, folder: "Publish" });
    const remote = toRemote("See [[Security]] and [[Security|privacy]].", inPublish);
    expect(remote.text).toBe("See [Security](https://hackmd.io/pub) and [privacy](https://hackmd.io/pub).");
    expect(toLocal(remote.text, inPublish).text).toBe("See [[Security]] and [[Security|privacy]].");
    // From a third folder, or with no folder given, the name stays ambiguous and is left as written.
    for (const elsewhere of [buildConversionContext({ notes, folder: "Other" }), buildConversionContext({ notes })])
      expect(toRemote("See [[Security]].", elsewhere).text).toBe("See [[Security]].");
    // A link HackMD holds to the other one, whose text names this one, stays a link (and round-trips).
    const other = "[Security](https://hackmd.io/sync) and [Sync/Security](https://hackmd.io/sync)";
    const local = toLocal(other, inPublish).text;
    expect(local).toBe("[Security](https://hackmd.io/sync) and [[Sync/Security]]");
    expect(toRemote(local, inPublish).text).toBe(other);
  });

  it("links a nested heading `Note#A#B` to B's anchor, and brings it back as written", () => {
    for (const [local, remote] of [
      ["[[Other note#A#B]]", '[Other note > A > B](https://hackmd.io/abc#B "Other note#A#B")'],
      ["[[Other note#A#B c|x]]", '[x](https://hackmd.io/abc#B-c "Other note#A#B c|x")'],
      ["![[Other note#A#B]]", '[Other note > A > B](https://hackmd.io/abc#B "!Other note#A#B")'],
      ["[[#A#B]]", '[A > B](#B "#A#B")'],
    ]) {
      expect(toRemote(local as string, context()).text).toBe(remote);
      expect(toLocal(remote as string, context()).text).toBe(local);
    }
    // An empty or padded section (the `[[## text]]` search syntax) is left as written.
    for (const text of ["[[Other note##B]]", "[[## team]]", "[[Other note#A# B]]", "[[Other note#A#^b]]"])
      expect(toRemote(text, context()).text).toBe(text);
  });

  it("uploads a Markdown image whose path has a `#fragment` (Obsidian's display hint) and brings the path back as written", () => {
    const local = "![A table](diagram.png#interface)";
    const remote = toRemote(local, context());
    expect(remote.text).toBe("![A table](https://hackmd.io/_uploads/d.png#diagram.png#interface)");
    expect(remote.images).toEqual(["diagram.png"]);
    expect(toLocal(remote.text, context()).text).toBe(local);
  });

  it("converts a callout whose last line is blank whatever line follows it (no lazy continuation can join it)", () => {
    const local = "> [!warning] Encoding\n> Ensure it.\n> \n This is important.\n";
    const remote = toRemote(local, context()).text;
    expect(remote).toBe(":::warning >\n**Encoding**\nEnsure it.\n\n:::\n This is important.\n");
    expect(toLocal(remote, context()).text).toBe(local);
    // Without the blank line the next line would continue the callout's paragraph: left as written.
    expect(toRemote("> [!warning] E\n> x\ntext\n", context()).text).toBe("> [!warning] E\n> x\ntext\n");
  });

  it("links a name written with spaces at its end, as Obsidian does, and keeps the spaces", () => {
    const local = "See [[Other note ]] and [[Other note |x]].";
    const remote = toRemote(local, context()).text;
    expect(remote).toBe(
      'See [Other note](https://hackmd.io/abc "Other note ") and [x](https://hackmd.io/abc "Other note |x").',
    );
    expect(toLocal(remote, context()).text).toBe(local);
    expect(toRemote("See [[ Other note]].", context()).text).toBe("See [[ Other note]].");
  });

  it("returns the text unchanged when conversion is switched off", () => {
    const off = buildConversionContext({ ...INPUT, enabled: false });
    expect(toRemote(ISSUE_NOTE, off).text).toBe(ISSUE_NOTE);
    expect(toLocal(":::info\nx\n:::", off).text).toBe(":::info\nx\n:::");
    expect(toRemote(ISSUE_NOTE, off).dependencies).toEqual({
      enabled: false,
      linkFormat: "shortest",
      answers: [],
      comments: [],
    });
  });

  it("leaves a text with a lone CR alone and says so", () => {
    const result = toRemote("[[Other note]]\rnext", context());
    expect(result.text).toBe("[[Other note]]\rnext");
    expect(result.warnings).toHaveLength(1);
  });

  it("warns when a comment is pushed as written", () => {
    const result = toRemote("a %%starts here\nand ends here%% b\n", context());
    expect(result.text).toBe("a %%starts here\nand ends here%% b\n");
    expect(result.warnings.map((warning) => warning.line)).toEqual([1, 2]);
  });

  it("lists the images a text embeds and the image URLs a HackMD text shows", () => {
    expect(toRemote("![[new.png]] ![x](diagram.png) `![[copy.png]]` ![[notes.pdf]]", context()).images).toEqual([
      "diagram.png",
      "new.png",
    ]);
    expect(
      toLocal("![](https://hackmd.io/_uploads/zz.png) ![[x]] `![](https://a.example/b.png)`", context()).imageUrls,
    ).toEqual(["https://hackmd.io/_uploads/zz.png"]);
  });

  it("gives comment ids that depend on the salt", () => {
    const one = toRemote("%%TODO%%", buildConversionContext({ commentSalt: "one" })).text;
    const two = toRemote("%%TODO%%", buildConversionContext({ commentSalt: "two" })).text;
    expect(one).not.toBe(two);
    expect(one).toMatch(/^<!--obsidian-comment:[0-9a-f]{16}-->$/);
  });
});

describe("dependencies", () => {
  const untrackedOther: ConversionInput = {
    ...INPUT,
    notes: new Map([...NOTES].filter(([path]) => path !== "Other note.md")),
  };

  it("record the answers a conversion used, as plain JSON", () => {
    const { dependencies } = toRemote("[[Other note]] ![[diagram.png]]", context());
    expect(Object.fromEntries(dependencies.answers)).toMatchObject({
      "target:note:Other note": "Other note.md",
      "note-url:Other note.md": "https://hackmd.io/abc",
      "image-url:diagram.png": "https://hackmd.io/_uploads/d.png",
    });
    const parsed = JSON.parse(JSON.stringify(dependencies)) as ConversionDependencies;
    expect(dependenciesHold(parsed, context())).toBe(true);
  });

  it("tell a context change from an edit", () => {
    const local = "See [[Other note]].\n";
    const baseline = toRemote(local, buildConversionContext(untrackedOther));
    expect(baseline.text).toBe(local);
    // The linked note becomes tracked: the current context would convert the same file differently...
    const now = context();
    expect(dependenciesHold(baseline.dependencies, now)).toBe(false);
    expect(toRemote(local, now).text).not.toBe(baseline.text);
    // ...but under the recorded answers the unedited file is exactly its baseline, and an edit is not.
    const pinned = contextFromDependencies(baseline.dependencies, now);
    expect(toRemote(local, pinned).text).toBe(baseline.text);
    expect(toRemote("See [[Other note]]!\n", pinned).text).not.toBe(baseline.text);
  });

  it("hold when nothing the text uses changed", () => {
    const { dependencies } = toRemote("[[Other note]]", context());
    expect(dependenciesHold(dependencies, buildConversionContext({ ...INPUT, images: new Map() }))).toBe(true);
    expect(dependenciesHold(dependencies, buildConversionContext({ ...INPUT, enabled: false }))).toBe(false);
    expect(dependenciesHold(dependencies, buildConversionContext({ ...INPUT, linkFormat: "absolute" }))).toBe(false);
  });
});

describe("sha256HexSync", () => {
  it.each(["", "abc", "é ✓ 𝄞", "x".repeat(1000)])("agrees with node:crypto for %j", (text) => {
    expect(sha256HexSync(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
  });

  it("keeps agreeing when one hasher is reused across lengths and blocks", () => {
    const hash = sha256Hasher();
    for (const text of [
      "x".repeat(200),
      "",
      "short",
      "é".repeat(70),
      "y".repeat(55),
      "y".repeat(56),
      "z".repeat(64),
      "a",
    ]) {
      expect(hash(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    }
  });
});
