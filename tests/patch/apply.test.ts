import { applyPatch, majorityLineEnding, splitLines } from "../../src/patch";
import { envelope, PATH, patched, rejection } from "./helpers";

describe("line splitting (§10.1)", () => {
  it.each([
    ["", []],
    ["a", ["a"]],
    ["a\nb\n", ["a", "b"]],
    ["a\nb", ["a", "b"]],
    ["\n", [""]],
    ["\n\n", ["", ""]],
    ["a\r\nb\r\n", ["a", "b"]],
    ["a\r\r\n", ["a\r"]],
    ["a\rb\n", ["a\rb"]],
    ["a\r", ["a"]],
  ])("%j → %j", (text, lines) => {
    expect(splitLines(text)).toEqual(lines);
  });
});

describe("rejoining (§10.4)", () => {
  it.each([
    ["", "\n"],
    ["a", "\n"],
    ["a\r\n", "\r\n"],
    ["a\r\nb\n", "\n"],
    ["a\r\nb\r\nc\n", "\r\n"],
    ["a\nb\nc\r\n", "\n"],
    ["a\rb\rc\n", "\n"],
  ])("%j rejoins with %j", (body, ending) => {
    expect(majorityLineEnding(body)).toBe(ending);
  });

  it("rejoins a mixed body entirely with the majority ending", () => {
    expect(patched("a\r\nb\r\nc\n", envelope("@@", "-a", "+A"))).toBe("A\r\nb\r\nc\r\n");
    expect(patched("a\r\nb\nc\n", envelope("@@", "-a", "+A"))).toBe("A\nb\nc\n");
    expect(patched("a\r\nb\n", envelope("@@", "-b", "+B"))).toBe("a\nB\n");
  });

  it("keeps a lone \\r inside a line", () => {
    expect(patched("a\rb\nc\n", envelope("@@", "-c", "+C"))).toBe("a\rb\nC\n");
  });

  it("adds a final ending only when the original had one and lines remain", () => {
    expect(patched("a\nb", envelope("@@", "-b", "+B"))).toBe("a\nB");
    expect(patched("a\nb\n", envelope("@@", "-b", "+B"))).toBe("a\nB\n");
    expect(patched("a\nb\n", envelope("@@", "-a", "-b"))).toBe("");
    expect(patched("a\r\n", envelope("@@", "-a"))).toBe("");
    expect(patched("\n", envelope("@@", "-"))).toBe("");
    expect(patched("", envelope("@@", "+x"))).toBe("x");
  });

  it("matches CRLF context with an LF patch and an LF body with a CRLF patch", () => {
    expect(patched("a\r\nb\r\n", envelope("@@", " a", "-b", "+B"))).toBe("a\r\nB\r\n");
    expect(patched("a\nb\n", envelope("@@", " a", "-b", "+B").replace(/\n/g, "\r\n"))).toBe("a\nB\n");
  });
});

describe("anchors (§10.4)", () => {
  const body = "# Title\n## Monday\n- todo\n## Tuesday\n- todo\n";

  it("refuses a missing anchor and quotes it", () => {
    const message = rejection(body, envelope("@@ ## Friday", "-- todo", "+- done")).message;
    expect(message).toContain('hunk 1: no line matches the anchor "## Friday"');
  });

  it("refuses an anchor on an empty body", () => {
    expect(rejection("", envelope("@@ x", "+y")).message).toContain('no line matches the anchor "x"');
  });

  it("refuses an anchor that is not unique and quotes it", () => {
    const message = rejection(body, envelope("@@ - todo", "+- more")).message;
    expect(message).toContain('hunk 1: the anchor "- todo" is not unique (2 lines match it)');
  });

  it("compares body lines trimmed against the anchor", () => {
    expect(patched("  ## Tuesday\t\nx\n", envelope("@@   ## Tuesday  ", "-x", "+y"))).toBe("  ## Tuesday\t\ny\n");
  });

  it("does not fold whitespace inside the anchor", () => {
    expect(rejection("## Tuesday  week\n", envelope("@@ ## Tuesday week", "+x")).message).toContain("no line matches");
  });

  it("searches from the anchor line itself onward", () => {
    expect(patched(body, envelope("@@ ## Tuesday", "-## Tuesday", "+## Wednesday"))).toBe(
      "# Title\n## Monday\n- todo\n## Wednesday\n- todo\n",
    );
  });

  it("cannot reach lines above the anchor", () => {
    const message = rejection(body, envelope("@@ ## Tuesday", "-# Title", "+# T")).message;
    expect(message).toContain("hunk 1: context not found");
    expect(message).toContain("at or below the anchor line");
  });

  it("still refuses context repeated below the anchor", () => {
    const message = rejection(`${body}- todo\n`, envelope("@@ ## Tuesday", "-- todo", "+- done")).message;
    expect(message).toContain("hunk 1: context ambiguous");
  });

  it("puts an anchored addition right under the anchor, also at the last line", () => {
    expect(patched("a\nb\n", envelope("@@ b", "+c"))).toBe("a\nb\nc\n");
    expect(patched("a\nb", envelope("@@ a", "+x", "+y"))).toBe("a\nx\ny\nb");
  });
});

describe("context (§10.4)", () => {
  it("distinguishes context not found from context ambiguous", () => {
    const notFound = rejection("other\n", envelope("@@", "-old", "+new")).message;
    const ambiguous = rejection("old\nold\n", envelope("@@", "-old", "+new")).message;
    expect(notFound).toContain("hunk 1: context not found");
    expect(notFound).not.toContain("ambiguous");
    expect(ambiguous).toContain(
      "hunk 1: context ambiguous; its context and removed lines occur in 2 places; add context or an @@ anchor",
    );
  });

  it("compares lines exactly, without folding whitespace or case", () => {
    for (const line of ["a  b", "a b ", " a b", "A b"]) {
      expect(rejection(`${line}\n`, envelope("@@", "-a b", "+c")).message).toContain("context not found");
    }
  });

  it("needs the old side as one run of consecutive lines", () => {
    expect(rejection("a\nx\nb\n", envelope("@@", " a", "-b")).message).toContain("context not found");
    expect(patched("a\nx\nb\n", envelope("@@", " a", "-x", " b"))).toBe("a\nb\n");
  });

  it("uses context to make a repeated line unique", () => {
    expect(patched("x\nold\ny\nold\n", envelope("@@", " y", "-old", "+new"))).toBe("x\nold\ny\nnew\n");
  });

  it("matches overlapping candidates as separate places", () => {
    expect(rejection("a\na\na\n", envelope("@@", " a", "-a")).message).toContain("occur in 2 places");
  });

  it("applies hunks in order, each to the previous result", () => {
    expect(patched("a\n", envelope("@@", "-a", "+b", "@@", "-b", "+c"))).toBe("c\n");
    const message = rejection("a\nb\n", envelope("@@", "-a", "+A", "@@", "-a", "+x")).message;
    expect(message).toContain("hunk 2: context not found");
  });

  it("treats a context-only hunk as an accepted no-op", () => {
    for (const body of ["only line", "a\nb\n", "a\r\nb\n", "a\r\n\rb\r", "\u{feff}x  \n\n"]) {
      const lines = splitLines(body);
      expect(applyPatch({ body, patch: envelope("@@", ...lines.map((line) => ` ${line}`)), patchPath: PATH })).toEqual({
        body,
        changed: false,
      });
    }
  });

  it("still checks a context-only hunk", () => {
    expect(rejection("a\n", envelope("@@", " b")).message).toContain("context not found");
    expect(rejection("a\na\n", envelope("@@", " a")).message).toContain("context ambiguous");
  });

  it("reports changed: false when lines are removed and put back unchanged", () => {
    expect(applyPatch({ body: "a\r\nb\n", patch: envelope("@@", "-a", "+a"), patchPath: PATH })).toEqual({
      body: "a\r\nb\n",
      changed: false,
    });
  });

  it("reports changed: true for an ending-only change caused by an edit elsewhere", () => {
    expect(applyPatch({ body: "a\r\nb\n", patch: envelope("@@", "-b", "+B"), patchPath: PATH })).toEqual({
      body: "a\nB\n",
      changed: true,
    });
  });
});

describe("*** End of File (§10.4)", () => {
  const body = "footer\nmiddle\nfooter\n";

  it("matches only the run that ends at the last line", () => {
    expect(patched(body, envelope("@@", " middle", "-footer", "+end", "*** End of File"))).toBe(
      "footer\nmiddle\nend\n",
    );
    const message = rejection(body, envelope("@@", "-middle", "+x", "*** End of File")).message;
    expect(message).toContain(
      'hunk 1: context not found; with "*** End of File" its context and removed lines have to be the last lines of the note',
    );
  });

  it("needs the run to start at or after the anchor", () => {
    expect(patched("a\n## B\nz\n", envelope("@@ ## B", " z", "+tail", "*** End of File"))).toBe("a\n## B\nz\ntail\n");
    const message = rejection("a\n## B\nz\n", envelope("@@ ## B", " a", " ## B", " z", "*** End of File")).message;
    expect(message).toContain("at or below the anchor line");
    expect(patched("a\n## B\nz\n", envelope("@@ ## B", "-## B", " z", "*** End of File"))).toBe("a\nz\n");
  });

  it("appends an addition after the last line, even when anchored", () => {
    expect(patched("a\nb", envelope("@@", "+c", "*** End of File"))).toBe("a\nb\nc");
    expect(patched("a\nb\n", envelope("@@ a", "+c", "*** End of File"))).toBe("a\nb\nc\n");
    expect(patched("", envelope("@@", "+c", "*** End of File"))).toBe("c");
  });

  it("refuses an old side longer than the body", () => {
    expect(rejection("a\n", envelope("@@", " x", "-a", "*** End of File")).message).toContain("context not found");
  });

  it("applies later hunks after an at-end hunk", () => {
    expect(patched(body, envelope("@@", "-footer", "+Footer", "*** End of File", "@@", "-middle", "+Middle"))).toBe(
      "footer\nMiddle\nFooter\n",
    );
  });
});

describe("addition-only hunks (§10.4)", () => {
  it("fill an empty note, several hunks in a row", () => {
    expect(patched("", envelope("@@", "+a", "@@ a", "+b"))).toBe("a\nb");
  });

  it.each([
    ["a one-line note", "x"],
    ["a note of one empty line", "\n"],
    ["a longer note", "a\nb\nc\n"],
  ])("are refused without an anchor on %s", (_name, body) => {
    const message = rejection(body, envelope("@@", "+new")).message;
    expect(message).toContain(
      "malformed hunk: hunk 1 has only added lines, and added lines alone can only fill an empty note",
    );
    expect(message).toContain("give an @@ anchor, context or removed lines to place them");
  });

  it("are refused once an earlier hunk filled the note", () => {
    expect(rejection("", envelope("@@", "+a", "@@", "+b")).message).toContain("hunk 2 has only added lines");
  });

  it("treat a line range as no anchor", () => {
    expect(rejection("a\n", envelope("@@ -1 +1,2 @@", "+b")).message).toContain("can only fill an empty note");
  });
});
