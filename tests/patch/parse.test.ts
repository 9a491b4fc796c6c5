import { BridgeError } from "../../src/core/errors";
import { hunkAnchor, parsePatch, type ParsedPatch } from "../../src/patch";
import { envelope, PATH, patched, rejection } from "./helpers";

const parse = (patch: string, patchPath = PATH): ParsedPatch => parsePatch({ patch, patchPath });
const HUNK = ["@@", "-a", "+b"];

describe("envelope checks (§10.2), in order", () => {
  it.each([
    ["an empty patch", ""],
    ["a patch without Begin", `*** Update File: ${PATH}\n@@\n-a\n+b\n*** End Patch`],
    ["a lower-case Begin", envelope(...HUNK).replace("Begin Patch", "begin patch")],
    ["a Begin with a trailing space", envelope(...HUNK).replace("Begin Patch", "Begin Patch ")],
    ["a blank line ahead of Begin", `\n${envelope(...HUNK)}`],
    ["neither Begin nor End", `*** Update File: ${PATH}\n@@\n-a\n+b`],
  ])("1. refuses %s: the patch has to open with Begin", (_name, patch) => {
    expect(rejection("a\n", patch).message).toContain('the patch has to open with the line "*** Begin Patch"');
  });

  it.each([
    ["no End at all", `*** Begin Patch\n*** Update File: ${PATH}\n@@\n-a\n+b`],
    ["only a Begin line", "*** Begin Patch"],
    ["text after End", `${envelope(...HUNK)}\ntrailing`],
    ["a blank last line after End", `${envelope(...HUNK)}\n\n`],
    ["End with a trailing space", `${envelope(...HUNK)} `],
  ])("2. refuses %s: the patch has to close with End", (_name, patch) => {
    expect(rejection("a\n", patch).message).toContain('the patch has to close with the line "*** End Patch"');
  });

  it("accepts one final newline and CRLF patch lines", () => {
    expect(patched("a\n", `${envelope(...HUNK)}\n`)).toBe("b\n");
    expect(patched("a\n", envelope(...HUNK).replace(/\n/g, "\r\n"))).toBe("b\n");
  });

  it.each([`*** Add File: ${PATH}`, `*** Delete File: ${PATH}`, "*** Move to: notes/elsewhere.md", "*** Add File:"])(
    "3. refuses the unsupported operation %j and quotes it",
    (line) => {
      const asSecondLine = `*** Begin Patch\n${line}\n@@\n-a\n+b\n*** End Patch`;
      const afterUpdate = envelope(line, ...HUNK);
      for (const patch of [asSecondLine, afterUpdate]) {
        expect(rejection("a\n", patch).message).toContain(
          `${JSON.stringify(line)} is an operation that is not supported here`,
        );
      }
    },
  );

  it("3. checks for unsupported operations before the Update File line and the target", () => {
    const patch = `*** Begin Patch\n*** Update File: notes/other.md\n*** Update File: x\n*** Move to: y\n*** End Patch`;
    expect(rejection("a\n", patch).message).toContain('"*** Move to: y" is an operation that is not supported');
  });

  it.each([
    ["no line between Begin and End", "*** Begin Patch\n*** End Patch", "the patch has no such line"],
    ["a hunk right after Begin", "*** Begin Patch\n@@\n-a\n+b\n*** End Patch", 'the second line is "@@"'],
    [
      "an Update File line without target",
      "*** Begin Patch\n*** Update File: \n@@\n-a\n*** End Patch",
      'the second line is "*** Update File: "',
    ],
    [
      "an Update File line without the space",
      `*** Begin Patch\n*** Update File:${PATH}\n@@\n-a\n*** End Patch`,
      "the second line is",
    ],
    [
      "a blank line before Update File",
      `*** Begin Patch\n\n*** Update File: ${PATH}\n@@\n-a\n*** End Patch`,
      'the second line is ""',
    ],
    [
      "two Update File lines",
      envelope(...HUNK, `*** Update File: ${PATH}`, ...HUNK),
      `found a second one, "*** Update File: ${PATH}"`,
    ],
    [
      "a second Update File line without target",
      envelope(...HUNK, "*** Update File:"),
      'found a second one, "*** Update File:"',
    ],
  ])("4. refuses %s", (_name, patch, detail) => {
    const message = rejection("a\n", patch).message;
    expect(message).toContain(
      'exactly one "*** Update File: <patch_path>" line with a target must come right after "*** Begin Patch"',
    );
    expect(message).toContain(detail);
  });

  it("4. checks the Update File lines before the target", () => {
    const patch = `*** Begin Patch\n*** Update File: notes/other.md\n@@\n-a\n*** Update File: notes/other.md\n*** End Patch`;
    expect(rejection("a\n", patch).message).toContain("only one");
  });

  it.each([
    ["another note", "notes/other.md"],
    ["a percent-encoded path", "notes/a%20b.md"],
    ["a team path for a personal note", `teams/team/${PATH}`],
    ["a target with a trailing space", `${PATH} `],
    ["a target in another case", PATH.toUpperCase()],
  ])("5. refuses %s, naming both paths", (_name, target) => {
    const patch = envelope(...HUNK).replace(`Update File: ${PATH}`, `Update File: ${target}`);
    expect(rejection("a\n", patch).message).toContain(
      `the patch targets ${JSON.stringify(target)}, but the note's path is ${JSON.stringify(PATH)}`,
    );
  });

  it("5. compares the target verbatim, with team paths and unencoded characters", () => {
    const teamPath = "teams/my team/notes/n 1.md";
    const patch = envelope(...HUNK).replace(`Update File: ${PATH}`, `Update File: ${teamPath}`);
    expect(parse(patch, teamPath).target).toBe(teamPath);
  });

  it("5. checks the target before any hunk", () => {
    const patch = envelope("garbage").replace(PATH, "notes/other.md");
    expect(rejection("a\n", patch).message).toContain("the patch targets");
  });
});

describe("hunk headers and anchors (§10.3)", () => {
  it.each([
    ["@@", undefined],
    ["@@ ", undefined],
    ["@@ \t  ", undefined],
    ["@@ ## Heading", "## Heading"],
    ["@@   padded anchor \t", "padded anchor"],
    ["@@ -1,2 +1,2 @@", undefined],
    ["@@ -1 +1 @@", undefined],
    ["@@ -1,2 +1,2 @@ ## Heading", undefined],
    ["@@ -1,2 +1,2", undefined],
    ["@@ -1  +1\t@@", undefined],
    ["@@ -10,20 +30,40 @@@", undefined],
    ["@@ -1,2 +1,2 extra", "-1,2 +1,2 extra"],
    ["@@ -1,2,3 +1 @@", "-1,2,3 +1 @@"],
    ["@@ +1 -1 @@", "+1 -1 @@"],
    ["@@ -a +b @@", "-a +b @@"],
    ["@@ -1 @@", "-1 @@"],
    ["@@ -1, +1 @@", "-1, +1 @@"],
  ])("%j has anchor %j", (header, anchor) => {
    expect(hunkAnchor(header)).toBe(anchor);
    expect(parse(envelope(header, " x")).hunks[0]?.anchor).toBe(anchor);
  });

  it("reads line kinds and values after the one-character prefix", () => {
    const { hunks } = parse(envelope("@@ a", " keep", "-", "--x", "+", "++y", " "));
    expect(hunks).toEqual([
      {
        anchor: "a",
        atEnd: false,
        lines: [
          { kind: "context", text: "keep" },
          { kind: "remove", text: "" },
          { kind: "remove", text: "-x" },
          { kind: "add", text: "" },
          { kind: "add", text: "+y" },
          { kind: "context", text: "" },
        ],
      },
    ]);
  });

  it("ignores blank padding ahead of the first @@, below an @@ and after a hunk", () => {
    const { hunks } = parse(
      envelope("", "", "@@", "", "-a", "+b", "", "", "@@ x", "", " y", "", "*** End of File", "", "@@", "+z", ""),
    );
    expect(hunks).toEqual([
      {
        anchor: undefined,
        atEnd: false,
        lines: [
          { kind: "remove", text: "a" },
          { kind: "add", text: "b" },
        ],
      },
      { anchor: "x", atEnd: true, lines: [{ kind: "context", text: "y" }] },
      { anchor: undefined, atEnd: false, lines: [{ kind: "add", text: "z" }] },
    ]);
  });

  it("keeps blank lines between two lines of a hunk as empty context", () => {
    const { hunks } = parse(envelope("@@", " a", "", "", "-b"));
    expect(hunks[0]?.lines).toEqual([
      { kind: "context", text: "a" },
      { kind: "context", text: "" },
      { kind: "context", text: "" },
      { kind: "remove", text: "b" },
    ]);
  });

  it("blank padding below an anchor does not turn an addition into context", () => {
    expect(patched("## B\nold\n", envelope("", "@@ ## B", "", "+new", ""))).toBe("## B\nnew\nold\n");
  });

  it("marks a hunk closed by *** End of File as at end", () => {
    const { hunks } = parse(envelope("@@", "-a", "*** End of File", "@@", "-b"));
    expect(hunks.map((hunk) => hunk.atEnd)).toEqual([true, false]);
  });
});

describe("hunk refusals (§10.3)", () => {
  const noHunk = 'no @@ hunk follows the "*** Update File:" line';

  it.each([
    ["nothing after the Update File line", envelope()],
    ["only blank lines", envelope("", "")],
    ["a removed line before any @@", envelope("-a", "+b")],
    ["a context line before any @@", envelope(" a", "@@", "-a")],
    ["an @@@ line", envelope("@@@", "-a")],
    ["an @@ glued to text", envelope("@@heading", "-a")],
  ])("no @@ hunk: %s", (_name, patch) => {
    expect(rejection("a\n", patch).message).toContain(noHunk);
  });

  it("quotes the line found before the first hunk", () => {
    expect(rejection("a\n", envelope("-a")).message).toContain('(found "-a")');
  });

  it.each([
    ["a line with an unknown prefix", envelope("@@", "-a", "x"), '"x"'],
    ["a diff marker", envelope("@@", "-a", "\\ No newline at end of file"), '"\\\\ No newline at end of file"'],
    ["an envelope-like line", envelope("@@", "-a", "*** Something"), '"*** Something"'],
    ["an End Patch in the middle", envelope("@@", "-a", "*** End Patch", "+b"), '"*** End Patch"'],
    ["an @@@ line inside a hunk", envelope("@@", "-a", "@@@"), '"@@@"'],
    ["a tab-indented line", envelope("@@", "\ta"), '"\\ta"'],
  ])("malformed hunk: %s", (_name, patch, quoted) => {
    const message = rejection("a\n", patch).message;
    expect(message).toContain('malformed hunk: every hunk line starts with a space, "+" or "-"');
    expect(message).toContain(`but found ${quoted}`);
  });

  it.each([
    ["an @@ directly followed by another", envelope("@@", "@@", "-a"), "hunk 1 is empty"],
    ["a trailing @@", envelope("@@", "-a", "+b", "@@"), "hunk 2 is empty"],
    ["an @@ with only blank lines", envelope("@@", "", "", "@@ x", "-a"), "hunk 1 is empty"],
    ["an anchored hunk without lines", envelope("@@ ## Heading"), "hunk 1 is empty"],
  ])("empty hunk: %s", (_name, patch, detail) => {
    const message = rejection("a\n", patch).message;
    expect(message).toContain("malformed hunk");
    expect(message).toContain(detail);
  });

  describe("misplaced *** End of File", () => {
    it("before any hunk → no @@ hunk", () => {
      const message = rejection("a\n", envelope("*** End of File", "@@", "-a")).message;
      expect(message).toContain(noHunk);
      expect(message).toContain('"*** End of File" has to follow a hunk\'s lines');
    });

    it("right below an @@ → malformed, the hunk is empty", () => {
      const message = rejection("a\n", envelope("@@", "", "*** End of File")).message;
      expect(message).toContain('malformed hunk: "*** End of File" closes hunk 1, which is empty');
    });

    it("twice in a row → malformed", () => {
      const message = rejection("a\n", envelope("@@", "-a", "*** End of File", "", "*** End of File")).message;
      expect(message).toContain('malformed hunk: "*** End of File" has to follow a hunk\'s lines');
    });

    it("followed by a hunk line instead of a new @@ → malformed", () => {
      const message = rejection("a\n", envelope("@@", "-a", "*** End of File", "+b")).message;
      expect(message).toContain('malformed hunk: after "*** End of File" the next line has to open a new @@ hunk');
      expect(message).toContain('not "+b"');
    });

    it("with trailing spaces it is just an unknown line", () => {
      const message = rejection("a\n", envelope("@@", "-a", "*** End of File ")).message;
      expect(message).toContain("every hunk line starts with a space");
    });
  });

  it("reports parse problems as BridgeError kind patch_rejected without touching anything", () => {
    expect(() => parse(envelope("-a"))).toThrow(BridgeError);
  });

  it("cuts very long quoted lines", () => {
    const long = `x${"y".repeat(500)}`;
    const message = rejection("a\n", envelope("@@", long)).message;
    expect(message).toContain(`"${long.slice(0, 200)}…"`);
    expect(message).not.toContain(long);
  });
});
