import fc from "fast-check";
import { bodyTitle, normalizeLineEndings, titleDrift } from "../../src/core/text";

describe("normalizeLineEndings (§11.2)", () => {
  it.each([
    ["a\r\nb\rc\n", "a\nb\nc\n"],
    ["\r\r\n", "\n\n"],
    ["\n\r", "\n\n"],
    ["\u{feff}x\n\n", "\u{feff}x\n\n"],
    ["", ""],
    ["trailing spaces  \r\n", "trailing spaces  \n"],
    ["\r\n\r\n", "\n\n"],
  ])("%j → %j", (input, output) => {
    expect(normalizeLineEndings(input)).toBe(output);
  });

  it("is idempotent, leaves no \\r and keeps the number of line breaks", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", " ", "\r", "\n", "\u{feff}", "é") }), (text) => {
        const once = normalizeLineEndings(text);
        expect(normalizeLineEndings(once)).toBe(once);
        expect(once).not.toContain("\r");
        expect(once.split("\n").length - 1).toBe(text.match(/\r\n|\r|\n/g)?.length ?? 0);
      }),
    );
  });

  it("changes nothing in text without \\r", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const clean = text.replace(/\r/g, "");
        expect(normalizeLineEndings(clean)).toBe(clean);
      }),
    );
  });
});

describe("the title table of §11.4", () => {
  it.each([
    ["---\ntitle: Plain # note\n---", "Plain"],
    ['---\ntitle: "Q # kept" # c\n---', "Q # kept"],
    ["---\ntitle: C#\n---", "C#"],
    ["---\ntitle: 2026-10-08\n---", undefined],
    ["---\ntitle:My Note\n---", undefined],
    ["---\ndescription: |\n  title: x\n---\n# Real", "Real"],
    [`---\n${"x: y\n".repeat(300)}---\n# H`, undefined],
    ["# Renamed", "Renamed"],
    ["#  Weekly   sync", "Weekly   sync"],
    ["# [Spec](https://e.x/a&b_c)", "Spec"],
    ["# See [ref]", undefined],
  ])("%j → %j", (body, title) => {
    expect(bodyTitle(body)).toBe(title);
  });

  it("reports drift for a renamed H1 and none for spacing only", () => {
    expect(titleDrift("Old", "# Renamed")).toBe("Renamed");
    expect(titleDrift("Weekly sync", "#  Weekly   sync")).toBeUndefined();
  });
});

describe("bodyTitle: where the title comes from (§11.4 rule 1)", () => {
  it("drops a leading byte order mark", () => {
    expect(bodyTitle("\u{feff}# Title\n")).toBe("Title");
    expect(bodyTitle("\u{feff}---\ntitle: T\n---\n")).toBe("T");
  });

  it("only drops one leading BOM, and not one later", () => {
    expect(bodyTitle("\u{feff}\u{feff}# Title")).toBeUndefined();
  });

  it("lets a front-matter title win over the H1, and its absence decide alone", () => {
    expect(bodyTitle("---\ntitle: Front\n---\n# Heading\n")).toBe("Front");
    expect(bodyTitle("---\ntitle: 42\n---\n# Heading\n")).toBeUndefined();
    expect(bodyTitle("---\ntitle:\n---\n# Heading\n")).toBeUndefined();
  });

  it("falls back to the H1 when the front matter has no title key", () => {
    expect(bodyTitle("---\ntags: [a, b]\ntitleImage: x.png\n---\n\n# Heading\n")).toBe("Heading");
    expect(bodyTitle("---\n---\n# Heading")).toBe("Heading");
  });

  it("gives nothing when readable front matter is followed by no H1", () => {
    expect(bodyTitle("---\ntags: x\n---\ntext\n# Heading")).toBeUndefined();
    expect(bodyTitle("---\ntags: x\n---\n")).toBeUndefined();
  });

  it("gives nothing for unreadable front matter, even with an H1 below", () => {
    expect(bodyTitle("---\ntitle :x\n---\n# Heading")).toBeUndefined();
    expect(bodyTitle("---\n\ttags: x\n---\n# Heading")).toBeUndefined();
  });

  it("finds the closing --- within 256 lines, not beyond", () => {
    const within = `---\n${"a: b\n".repeat(255)}---\n# H`;
    const beyond = `---\n${"a: b\n".repeat(256)}---\n# H`;
    expect(bodyTitle(within)).toBe("H");
    expect(bodyTitle(beyond)).toBeUndefined();
  });

  it("treats an unclosed --- as a thematic break: no title", () => {
    expect(bodyTitle("---\n# Heading\n")).toBeUndefined();
    expect(bodyTitle("---")).toBeUndefined();
  });

  it("needs the opening and closing lines to be exactly ---", () => {
    expect(bodyTitle("--- \ntitle: X\n---\n# H")).toBeUndefined();
    expect(bodyTitle("---\ntitle: X\n--- \n...\n")).toBeUndefined();
    expect(bodyTitle("\n---\ntitle: X\n---\n# H")).toBeUndefined();
  });

  it("reads CRLF bodies", () => {
    expect(bodyTitle("---\r\ntitle: X\r\n---\r\n")).toBe("X");
    expect(bodyTitle("\r\n# Heading\r\n")).toBe("Heading");
  });
});

describe("bodyTitle: the H1 (§11.4 rule 2)", () => {
  it.each([
    ["# Title", "Title"],
    ["   # Three spaces", "Three spaces"],
    ["#\tTab", "Tab"],
    ["\n\n  \t\n# After blanks", "After blanks"],
    ["# C#", "C#"],
    ["  #\tTitle ##", "Title"],
    ["# Title #", "Title"],
    ["# Title ###   ", "Title"],
    ["# Title#", "Title#"],
    ["# Title \t#\t", "Title"],
    ["# #hashtag", "#hashtag"],
    ["# Ünïcödé title 🎉", "Ünïcödé title 🎉"],
    ["# Text with (parentheses) and !bang", "Text with (parentheses) and !bang"],
  ])("%j → %j", (body, title) => {
    expect(bodyTitle(body)).toBe(title);
  });

  it.each([
    ["#NoSpace", "#NoSpace"],
    ["4-space code", "    # Code"],
    ["tab-indented code", "\t# Code"],
    ["an H2", "## Second level"],
    ["an empty H1", "#"],
    ["an H1 of closing hashes", "# ##"],
    ["a blank H1", "#   \t"],
    ["a paragraph first", "Intro\n# Title"],
    ["a setext heading", "Title\n=====\n"],
    ["a fence", "```\n# not\n```"],
    ["a list", "- item\n# Title"],
    ["a quote", "> # Quoted"],
    ["an HTML comment", "<!-- c -->\n# Title"],
    ["a reference definition", "[a]: https://e.x\n# Title"],
    ["an empty body", ""],
    ["a blank body", "\n  \n\t\n"],
    ["a non-breaking-space line first", "\u00a0\n# Title"],
  ])("no title for %s", (_name, body) => {
    expect(bodyTitle(body)).toBeUndefined();
  });
});

describe("bodyTitle: the heading text (§11.4 rule 3)", () => {
  it.each([
    ["# [Title](https://e.x/a_(b))", "Title"],
    ["# [Spec](https://e.x/a&b_c)", "Spec"],
    ["# Read [the spec](https://e.x) today", "Read the spec today"],
    ["# [One](a) and [two](b)", "One and two"],
    ["# [Empty destination]()", "Empty destination"],
    ["# [](https://e.x) Named", "Named"],
    ["# [a](x((y)))", "a"],
  ])("reduces links: %j → %j", (body, title) => {
    expect(bodyTitle(body)).toBe(title);
  });

  it.each([
    ["a backtick", "# Use `code`"],
    ["a backslash", "# Escaped \\# hash"],
    ["an image", "# ![logo](logo.png)"],
    ["an image after text", "# Logo ![x](y)"],
    ["a reference link", "# See [ref]"],
    ["a full reference link", "# See [ref][1]"],
    ["a collapsed reference link", "# See [ref][]"],
    ["brackets never closed", "# See [ref"],
    ["a link never closed", "# [Title](https://e.x"],
    ["unbalanced nested parentheses", "# [Title](https://e.x/a_(b)"],
    ["nested brackets", "# [a [b] c](x)"],
    ["a link title in the destination", '# [Title](https://e.x "tooltip")'],
    ["whitespace in the destination", "# [Title](a b)"],
    ["a tab in the destination", "# [Title](a\tb)"],
    ["a control character in the destination", "# [Title](a\u0001b)"],
    ["an angle-bracket destination", "# [Title](<https://e.x>)"],
    ["> in the destination", "# [Title](a>b)"],
    ["snake_case link text", "# [snake_case](https://e.x)"],
    ["emphasis", "# *Important*"],
    ["strong", "# **Bold** title"],
    ["underscores", "# my_title"],
    ["strikethrough", "# ~~old~~ new"],
    ["a tilde", "# about ~5"],
    ["an HTML tag", "# Title <br>"],
    ["an entity", "# Fish &amp; chips"],
    ["a bare ampersand", "# Fish & chips"],
    ["a stray closing bracket", "# a ] b"],
    ["a highlight", "# ==marked=="],
    ["a double equals sign", "# a == b"],
    ["empty link text only", "# [](https://e.x)"],
  ])("no title for %s", (_name, body) => {
    expect(bodyTitle(body)).toBeUndefined();
  });

  it("keeps a single = and other punctuation", () => {
    expect(bodyTitle("# a = b, c: d; e? f!")).toBe("a = b, c: d; e? f!");
  });

  it("caps the heading text at 1024 UTF-8 bytes", () => {
    expect(bodyTitle(`# ${"a".repeat(1024)}`)).toBe("a".repeat(1024));
    expect(bodyTitle(`# ${"a".repeat(1025)}`)).toBeUndefined();
    expect(bodyTitle(`# ${"é".repeat(512)}`)).toBe("é".repeat(512));
    expect(bodyTitle(`# ${"é".repeat(513)}`)).toBeUndefined();
    // The cap applies to the heading as written, destinations included.
    expect(bodyTitle(`# [T](https://e.x/${"a".repeat(1010)})`)).toBeUndefined();
  });
});

describe("titleDrift (§11.4)", () => {
  it.each([
    ["Old", "# Renamed", "Renamed"],
    ["Weekly sync", "#  Weekly   sync", undefined],
    ["Weekly  sync ", "# Weekly sync", undefined],
    ["Weekly\u00a0sync", "# Weekly sync", undefined],
    ["Weekly\u3000sync", "# Weekly sync", undefined],
    ["weekly sync", "# Weekly sync", "Weekly sync"],
    ["Weeklysync", "# Weekly sync", "Weekly sync"],
    ["", "# Title", "Title"],
    ["Front", "---\ntitle: Front\n---\n# Heading", undefined],
    ["Heading", "---\ntitle: Front\n---\n# Heading", "Front"],
    ["Title", '---\ntitle: "  Title  "\n---', undefined],
    ["Old", "# See [ref]", undefined],
    ["Old", "# ![logo](x.png)", undefined],
    ["Old", "plain text", undefined],
    ["Old", "", undefined],
  ])("listed %j, body %j → %j", (listed, body, drift) => {
    expect(titleDrift(listed, body)).toBe(drift);
  });

  it("reports the body title exactly as extracted", () => {
    expect(titleDrift("Other", "#   Spaced   out   ")).toBe("Spaced   out");
  });

  it("never reports drift for titles that differ only in whitespace", () => {
    const word = fc.string({ unit: fc.constantFrom("a", "b", "Z", "1", "é", "(", ")"), minLength: 1, maxLength: 6 });
    const gap = fc.string({ unit: fc.constantFrom(" ", "\t"), minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(fc.array(fc.tuple(word, gap, gap), { minLength: 1, maxLength: 5 }), (parts) => {
        const heading = parts.map(([text, space]) => text + space).join("");
        const listed = parts.map(([text, , space]) => space + text).join("");
        expect(bodyTitle(`# ${heading}`)).toBeDefined();
        expect(titleDrift(listed, `# ${heading}`)).toBeUndefined();
      }),
    );
  });

  it("never throws on any body", () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom("#", " ", "\n", "-", "t", ":", "[", "]", "(", ")", '"', "'", "a", "|", "\t"),
        }),
        (body) => {
          expect(() => titleDrift("t", body)).not.toThrow();
          expect(() => bodyTitle(`---\n${body}\n---\n`)).not.toThrow();
        },
      ),
    );
  });

  it("takes from a heading only trimmed text free of uncertain characters", () => {
    const unit = fc.constantFrom(
      "#",
      " ",
      "\t",
      "t",
      "*",
      "_",
      "[",
      "]",
      "(",
      ")",
      "!",
      "<",
      "&",
      "=",
      "`",
      "\\",
      "~",
      "é",
    );
    fc.assert(
      fc.property(fc.string({ unit }), (heading) => {
        const title = bodyTitle(`# ${heading}`);
        if (title === undefined) return;
        expect(title).toBe(title.trim());
        expect(title).not.toMatch(/[`\\*_~<&[\]]|==|^$/);
      }),
    );
  });
});

describe("bodyTitle of long bodies (read line by line)", () => {
  it("finds the first non-blank line past the front-matter search window", () => {
    expect(bodyTitle(`${"\n".repeat(300)}# Deep title\n${"text\n".repeat(1000)}`)).toBe("Deep title");
    expect(bodyTitle(`---\ntags: a\n---\n${"\r\n".repeat(400)}# After front matter\r\nbody`)).toBe(
      "After front matter",
    );
    expect(bodyTitle(`${"\n".repeat(300)}text\n# Not first\n`)).toBeUndefined();
  });

  it("treats front matter closed only after the search window as unclosed", () => {
    expect(bodyTitle(`---\n${"k: v\n".repeat(300)}---\n# Title\n`)).toBeUndefined();
    expect(bodyTitle(`---\n${"k: v\n".repeat(255)}---\n# Title\n`)).toBe("Title");
  });
});
