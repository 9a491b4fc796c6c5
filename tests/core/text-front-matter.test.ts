import { bodyTitle } from "../../src/core/text";
import { locateFrontMatter, readFrontMatterTitle } from "../../src/core/front-matter";

/** The body title of a body whose front matter holds `lines`, with an H1 below as a witness. */
const titleOf = (...lines: string[]): string | undefined => bodyTitle(`---\n${lines.join("\n")}\n---\n# Heading\n`);
const kindOf = (...lines: string[]): string => readFrontMatterTitle(lines).kind;

describe("locateFrontMatter", () => {
  it("splits the block from the rest", () => {
    expect(locateFrontMatter(["---", "a: b", "---", "# H"])).toEqual({
      kind: "closed",
      block: ["a: b"],
      rest: ["# H"],
    });
    expect(locateFrontMatter(["# H"])).toEqual({ kind: "none" });
    expect(locateFrontMatter(["---", "a: b"])).toEqual({ kind: "unclosed" });
  });
});

describe("the title value (§11.4)", () => {
  it.each([
    ["plain", "title: My Note", "My Note"],
    ["plain after a tab", "title:\tMy Note", "My Note"],
    ["plain with a comment", "title: Plain # note", "Plain"],
    ["plain with a tab comment", "title: Plain\t# note", "Plain"],
    ["plain with # inside", "title: C# and a#b", "C# and a#b"],
    ["plain URL", "title: https://e.x/a", "https://e.x/a"],
    ["plain with markup", "title: a*b_c", "a*b_c"],
    ["plain yes-prefixed", "title: yes please", "yes please"],
    ["plain with trailing spaces", "title: Spaced   ", "Spaced"],
    ["double-quoted", 'title: "Q # kept" # c', "Q # kept"],
    ["double-quoted with spaces kept", 'title: "  padded "', "  padded "],
    ["double-quoted then blanks", 'title: "x"   ', "x"],
    ["double-quoted digits", 'title: "2026-10-08"', "2026-10-08"],
    ["double-quoted reserved word", 'title: "yes"', "yes"],
    ["single-quoted", "title: 'Single # kept' # c", "Single # kept"],
    ["single-quoted with a double quote", "title: 'say \"hi\"'", 'say "hi"'],
  ])("%s → %j", (_name, line, title) => {
    expect(titleOf(line)).toBe(title);
  });

  it.each([
    ["a double-quoted escape", 'title: "a \\" b"'],
    ["a double-quoted \\n", 'title: "a\\nb"'],
    ["a single-quoted '' escape", "title: 'it''s'"],
    ["an empty double-quoted value", 'title: ""'],
    ["a blank single-quoted value", "title: '   '"],
    ["an empty value", "title:"],
    ["a comment-only value", "title: # none"],
    ["a digit", "title: 2026-10-08"],
    ["a number", "title: 42"],
    ["a float", "title: .5"],
    ["a plus", "title: +1"],
    ["a minus", "title: -x"],
    ["a tilde", "title: ~"],
    ["a tilde word", "title: ~home"],
    ["a block scalar", "title: |\n  Text"],
    ["a folded block scalar", "title: >-\n  Text"],
    ["a flow sequence", "title: [a, b]"],
    ["a flow mapping", "title: {a: b}"],
    ["a nested mapping", "title:\n  en: English"],
    ["a nested sequence", "title:\n- a"],
    ["a plain value continued on the next line", "title: Long\n  continued"],
  ])("no title for %s", (_name, lines) => {
    expect(titleOf(...lines.split("\n"))).toBeUndefined();
  });

  it.each([
    "null",
    "Null",
    "NULL",
    "true",
    "True",
    "false",
    "FALSE",
    "yes",
    "Yes",
    "no",
    "NO",
    "on",
    "On",
    "off",
    "y",
    "Y",
    "n",
    "N",
  ])("no title for the plain value %s", (value) => {
    expect(titleOf(`title: ${value}`)).toBeUndefined();
  });

  it("caps a title at 1024 UTF-8 bytes", () => {
    expect(titleOf(`title: ${"a".repeat(1024)}`)).toBe("a".repeat(1024));
    expect(titleOf(`title: ${"a".repeat(1025)}`)).toBeUndefined();
    expect(titleOf(`title: ${"€".repeat(341)}x`)).toBe(`${"€".repeat(341)}x`);
    expect(titleOf(`title: ${"€".repeat(342)}`)).toBeUndefined();
    expect(titleOf(`title: "${"a".repeat(1025)}"`)).toBeUndefined();
  });

  it("counts only the exact key title", () => {
    expect(titleOf("titleImage: cover.png", "Title: Upper", "subtitle: x")).toBe("Heading");
  });

  it("gives no title for a second title key, even an equal one", () => {
    expect(titleOf("title: A", "title: A")).toBeUndefined();
    expect(titleOf("title: A", "tags: x", "title: B")).toBeUndefined();
  });

  it("lets the title key decide even when its value gives nothing", () => {
    expect(kindOf("title: 42")).toBe("title_key");
    expect(readFrontMatterTitle(["title: 42"])).toEqual({ kind: "title_key", title: undefined });
  });
});

describe("the plain subset (§11.4)", () => {
  it.each([
    ["blank lines and comments", ["", "# comment", "   # indented comment", "\t# tab comment", "  ", "tags: x"]],
    ["keys with digits, dashes and underscores", ["my-key_1: v", "A9: w"]],
    ["a key with an empty value", ["draft:"]],
    ["a date", ["date: 2026-10-08"]],
    ["a plain value with colons not followed by a blank", ["url: https://e.x:8080/a", "time: 10:30"]],
    ["flow collections on one line", ["tags: [a, b]", "meta: {a: [1, 2], b: c}", "empty: []", "commented: [a] # c"]],
    [
      "double quotes with every kind of escape",
      ['d: "\\0\\a\\b\\t\\n\\v\\f\\r\\e\\ \\"\\/\\\\\\N\\_\\L\\P\\x41\\u00e9\\U0001F600"'],
    ],
    ["a nested mapping and sequences", ["author:", "  name: A", "  links:", "    - x", "tags:", "- a", "- b"]],
    [
      "a block scalar with indicators and comment",
      ["description: |+2 # c", "  text: with colon", "", "  # not a comment"],
    ],
    ["a folded block scalar", ["description: >-", "  folded", "  text"]],
    ["a multi-line plain scalar", ["description: long", "  text continues", "  and more"]],
    ["an indented dash in a plain continuation", ["description: long", "  - not a list"]],
    ["a value starting with a minus sign", ["offset: -1"]],
    ["a tab before the value", ["key:\tvalue"]],
  ])("reads %s", (_name, lines) => {
    expect(kindOf(...lines)).toBe("no_title_key");
  });

  it.each([
    ["tab indentation", ["\ttags: x"]],
    ["a tab inside indentation", ["author:", " \tname: A"]],
    ["a space before the colon (`title :`)", ["title : X"]],
    ["a quoted key", ['"title": X']],
    ["an indented top-level key", ["  title: X"]],
    ["no space after the colon", ["title:X"]],
    ["a key with a dot", ["my.key: v"]],
    ["a non-ASCII key", ["clé: v"]],
    ["a line without a colon", ["just text"]],
    ["a document end marker", ["..."]],
    ["a complex key", ["? key", ": value"]],
    ["a directive", ["%YAML 1.2"]],
    ["a plain value that reads as a mapping", ["key: a: b"]],
    ["a plain value ending in a colon", ["key: Note:"]],
    ["a tag", ["key: !tag x"]],
    ["an anchor", ["key: &a x"]],
    ["an alias", ["key: *a"]],
    ["a % value", ["key: %x"]],
    ["an @ value", ["key: @x"]],
    ["a backtick value", ["key: `x`"]],
    ["a bare - indicator", ["key: - x"]],
    ["a bare ? indicator", ["key: ? x"]],
    ["a bare : indicator", ["key: :"]],
    ["a leading comma", ["key: ,x"]],
    ["a stray closing bracket", ["key: ]x"]],
    ["an invalid block header", ["key: |x"]],
    ["an unclosed double quote", ['key: "open']],
    ["an unclosed single quote", ["key: 'open"]],
    ["text after a closing quote", ['key: "a" b']],
    ["a comment glued to a closing quote", ['key: "a"#c']],
    ["an unknown escape", ['key: "\\q"']],
    ["a short hex escape", ['key: "\\x4"']],
    ["a trailing backslash", ['key: "a\\']],
    ["a collection over two lines", ["tags: [a,", "  b]"]],
    ["a collection with quotes", ["tags: ['a', b]"]],
    ["a collection cut by a comment", ["tags: [a, #b]"]],
    ["a mismatched collection", ["tags: [a}"]],
    ["text after a collection", ["tags: [a] b"]],
    ["a continuation with nothing before", ["  stray"]],
    ["a dash line with nothing before", ["- a"]],
    ["a continuation after a quoted value", ['key: "x"', "  more"]],
    ["a continuation after a collection", ["key: [x]", "  more"]],
    ["a dash line after a block scalar", ["key: |", "- x"]],
    ["a dash line after a plain value", ["key: plain", "- x"]],
    ["a mapping-like continuation after a plain value", ["key: plain", "  other: value"]],
    ["a continuation after a comment ended a plain value", ["key: plain", "# c", "  more"]],
  ])("refuses %s", (_name, lines) => {
    expect(kindOf(...lines)).toBe("unreadable");
    expect(bodyTitle(`---\n${lines.join("\n")}\n---\n# Heading`)).toBeUndefined();
  });

  it("reads the text under a block scalar as part of it, not as keys", () => {
    expect(titleOf("description: |", "  title: x")).toBe("Heading");
    expect(titleOf("description: >", "  title: x", "title: Real")).toBe("Real");
  });

  it("reads a nested title as nested, not as the title", () => {
    expect(titleOf("meta:", "  title: Nested")).toBe("Heading");
  });
});
