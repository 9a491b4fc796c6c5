/**
 * Rules for constructs the Obsidian help vault holds (docs/conversion-rules.md; measured in
 * bench/README.md, "Real vaults"): each goes to HackMD in a form it shows, and comes back byte
 * for byte.
 */
import { toLocal, toRemote } from "../../src/convert";
import { context, INPUT } from "./fixtures";

/** Asserts both directions of one rule. */
function both(local: string, remote: string): void {
  expect(toRemote(local, context()).text).toBe(remote);
  expect(toLocal(remote, context()).text).toBe(local);
}

describe("wikilinks whose heading or alias holds a code span", () => {
  it("become titled links: the code stays in the link text, the title carries each backtick as &#96;", () => {
    both(
      "Matched by the [[Other note#hasTag|`hasTag`]] function.",
      'Matched by the [`hasTag`](https://hackmd.io/abc#hasTag "Other note#hasTag|&#96;hasTag&#96;") function.',
    );
    both(
      "See [[Other note#`wikilink`|wikilink]].",
      'See [wikilink](https://hackmd.io/abc#wikilink "Other note#&#96;wikilink&#96;|wikilink").',
    );
    both("Use [[#`move`|move]].", 'Use [move](#move "#&#96;move&#96;|move").');
    both("[[Other note#`x` y]]", '[Other note > `x` y](https://hackmd.io/abc#x-y "Other note#&#96;x&#96; y")');
  });

  it("are left as written where the code would not stay inside the link", () => {
    for (const text of [
      // A backtick before the link that no span closes would pair with the link's code.
      "a ` b [[Other note#`w`|x]] c",
      'a ` b [x](https://hackmd.io/abc#w "Other note#&#96;w&#96;|x") c',
      // A span across the alias separator, an unclosed span, a `&#96;` written as text.
      "[[Other note#`a|b`]]",
      "[[Other note|`x``]]",
      "[[Other note#H|a&#96;b]]",
    ]) {
      expect(toRemote(text, context()).text).toBe(text);
      expect(toLocal(text, context()).text).toBe(text);
    }
    // A collaborator's untitled link with code in its text is not one of ours: left alone.
    expect(toLocal("[`x`](https://hackmd.io/abc)", context()).text).toBe("[`x`](https://hackmd.io/abc)");
  });
});

describe("callout edge forms", () => {
  it("converts a callout indented by one to three spaces: the container is indented alike", () => {
    both(" > [!todo]- Later\n > Text\n", " :::info todo-\n**Later**\nText\n :::\n");
    both("   > [!tip]\n   > Text", "   :::success tip\nText\n   :::");
    // Lines indented unlike the header, or a quote that is not a callout, keep their prefixes.
    for (const text of [" > [!tip]\n> Text", "  > [!tip]\n > Text", " > quote\n > [[x"]) {
      expect(toRemote(text, context()).text).toBe(text);
      expect(toLocal(text, context()).text).toBe(text);
    }
  });

  it("leaves an indented callout in a list item a quote, and an indented container there as written, both ways", () => {
    // Converted, the container would end at its first unindented line inside the item (C31).
    for (const text of [
      "1. item\n   > [!tip]\n   > body\n\n   after",
      "- a\n\n  > [!warning] W\n  > x\n\n  para",
      "- a\n\n  :::success tip\n  body\n  :::",
      "- a\n\n  :::info\nx\n  :::",
      "- a\n\n  > <!---->[!tip]\n  > b",
    ]) {
      expect(toRemote(text, context()).text).toBe(text);
      expect(toLocal(text, context()).text).toBe(text);
    }
    // After the list, or indented less than the item's text (it then ends the list on both
    // sides), it converts.
    both("- a\n\nText\n\n > [!tip]\n > b", "- a\n\nText\n\n :::success tip\nb\n :::");
    both("- a\n\n> [!tip]\n> b", "- a\n\n:::success tip\nb\n:::");
    both("1. a\n\n  > [!tip]\n  > b", "1. a\n\n  :::success tip\nb\n  :::");
    both("- a\n  - b\n\n > [!tip]\n > c", "- a\n  - b\n\n :::success tip\nc\n :::");
    // Four spaces after the marker: the item's text starts at column 5.
    both("-    a\n\n  > [!tip]\n  > c", "-    a\n\n  :::success tip\nc\n  :::");
    // A nested item's text is further in, but the outer item's still holds the callout; a tab after
    // the marker counts as the least it could be.
    for (const text of ["- a\n  - b\n\n  > [!tip]\n  > c", "-\ta\n\n  > [!tip]\n  > c"]) {
      expect(toRemote(text, context()).text).toBe(text);
      expect(toLocal(text, context()).text).toBe(text);
    }
  });

  it("keeps a title's leading spaces, a no-break space after the type, and a title that starts with bold", () => {
    both("> [!example]  Two spaces\n> Text", ":::info example\n **Two spaces**\nText\n:::");
    both("> [!abstract]\u00a0**Further reading**: x", ":::info abstract\n\u00a0__**Further reading**: x__\n:::");
    both("> [!tip] Ends *starred*", ":::success tip\n__Ends *starred*__\n:::");
    // More than three extra spaces would indent the title line into code: left as written.
    expect(toRemote("> [!tip]     Five", context()).text).toBe("> [!tip]     Five");
    // `****x**` is not a title line (a starred title is wrapped in `__`), so it stays body text.
    both("> [!info]\n> ****x**", ":::info\n****x**\n:::");
  });

  it("lists lines written `>text` and blank lines written `> ` among `>` ones, and writes them back", () => {
    both("> [!info]- Adjust\n> ```html\n> <svg/>\n>```\n", ":::info info- ~3\n**Adjust**\n```html\n<svg/>\n```\n:::\n");
    both(
      "> [!warning] Warning\n> One\n>\n> - two\n> \n> Three",
      ":::warning ~4\n**Warning**\nOne\n\n- two\n\nThree\n:::",
    );
    // Every blank line `> ` is the spaced form, not a list.
    both("> [!tip]\n> One\n> \n> Two", ":::success tip >\nOne\n\nTwo\n:::");
    // A list that does not fit the body is not ours: the container stays (escaped in the vault).
    for (const text of [
      ":::info ~2\nOne\n:::",
      ":::info ~1,2\n\n\n:::",
      ":::info ~1\n two\n:::",
      ":::info ~1\n> x\n:::",
    ])
      expect(toLocal(text, context()).text).toBe(text);
    // With lines that would not convert line for line (a nested callout), exceptions are not used.
    const nested = "> [!info]\n>a\n> > [!tip]\n> > b";
    expect(toRemote(nested, context()).text).toBe(nested);
  });
});

describe("relative Markdown images", () => {
  it("resolve against the note's own folder, are uploaded like embeds, and keep their path in the URL fragment", () => {
    const inDir = context([], { ...INPUT, folder: "dir" });
    const local = "![A diagram](../diagram.png) and ![Sized|200](./../attachments/pic%20x.png)";
    const remote = toRemote(local, inDir);
    expect(remote.text).toBe(
      "![A diagram](https://hackmd.io/_uploads/d.png#../diagram.png) and " +
        "![Sized](https://hackmd.io/_uploads/pic.png#./../attachments/pic%20x.png =200x)",
    );
    expect(remote.images).toEqual(["attachments/pic x.png", "diagram.png"]);
    expect(toLocal(remote.text, inDir).text).toBe(local);
  });

  it("stay as written when they leave the vault, name nothing, or the note's folder is not known", () => {
    const inDir = context([], { ...INPUT, folder: "dir" });
    for (const text of ["![x](../../diagram.png)", "![x](../missing.png)", "![x](../dir/../diagram.png)"])
      expect(toRemote(text, inDir).text).toBe(text);
    expect(toRemote("![x](../diagram.png)", context()).text).toBe("![x](../diagram.png)");
    expect(toRemote("![x](./diagram.png)", context([], { ...INPUT, folder: "" })).text).toBe(
      "![x](https://hackmd.io/_uploads/d.png#./diagram.png)",
    );
  });
});

describe("links HackMD cannot follow", () => {
  it("shows a same-note block link as its text, going nowhere (#obsidian-block), and brings it back", () => {
    both(
      "The [[#^template-settings|formatting set in the plugin settings]].",
      'The [formatting set in the plugin settings](#obsidian-block "#^template-settings|formatting set in the plugin settings").',
    );
    both("See [[#^b1]].", 'See [^b1](#obsidian-block "#^b1").');
    // Not a block id Obsidian writes: left as written.
    expect(toRemote("[[#^b 1|x]]", context()).text).toBe("[[#^b 1|x]]");
  });

  it("leaves a link to a note the vault does not have as written (another vault may have it)", () => {
    for (const text of ["[[Example]]", "[[Example|Custom name]]", "[[Example#Details]]", "[[Example#Details|x]]"])
      expect(toRemote(text, context()).text).toBe(text);
  });
});

describe("heading anchors in the case of the target's heading", () => {
  it("links to the anchor HackMD gives the heading as the target note spells it, and keeps the link's spelling", () => {
    both(
      "[[Other note#default sort order]]",
      "[Other note > default sort order](https://hackmd.io/abc#Default-sort-order)",
    );
    both(
      "[[Other note#DEFAULT SORT ORDER|x]]",
      '[x](https://hackmd.io/abc#Default-sort-order "Other note#DEFAULT SORT ORDER|x")',
    );
    // The question and its answer are recorded, so a later change of the heading does not churn.
    const remote = toRemote("[[Other note#default sort order]]", context());
    expect(remote.dependencies.answers).toContainEqual([
      "heading:Other note.md#default sort order",
      "Default sort order",
    ]);
  });

  it("prefers the heading written exactly as the link spells it over one in another case", () => {
    const both = context([], {
      ...INPUT,
      headings: new Map([["Other note.md", ["Setup", "setup", "Intro"]]]),
    });
    expect(toRemote("[[Other note#setup]] [[Other note#Setup]]", both).text).toBe(
      "[Other note > setup](https://hackmd.io/abc#setup) [Other note > Setup](https://hackmd.io/abc#Setup)",
    );
    expect(toRemote("[[Other note#SETUP]] [[Other note#intro]]", both).text).toBe(
      "[Other note > SETUP](https://hackmd.io/abc#Setup) [Other note > intro](https://hackmd.io/abc#Intro)",
    );
  });

  it("answers many heading links to a note with many headings from one index (linear, not questions × headings)", () => {
    const headings = Array.from({ length: 5_000 }, (_, i) => `Heading ${i}`);
    const many = context([], { ...INPUT, headings: new Map([["Other note.md", headings]]) });
    const text = Array.from({ length: 5_000 }, (_, i) => `[[Other note#heading ${4_999 - i}]]`).join("\n");
    const remote = toRemote(text, many).text.split("\n");
    expect(remote[0]).toBe("[Other note > heading 4999](https://hackmd.io/abc#Heading-4999)");
    expect(remote[4_999]).toBe("[Other note > heading 0](https://hackmd.io/abc#Heading-0)");
  });

  it("uses the link's own spelling when the target's headings are not known or none matches", () => {
    const unknown = context([], { ...INPUT, headings: new Map() });
    expect(toRemote("[[Other note#default sort order]]", unknown).text).toBe(
      "[Other note > default sort order](https://hackmd.io/abc#default-sort-order)",
    );
    expect(toRemote("[[Other note#No such heading]]", context()).text).toBe(
      "[Other note > No such heading](https://hackmd.io/abc#No-such-heading)",
    );
    // A HackMD link whose anchor is not the one the rule gives is not one of ours: left as a link.
    const other = "[Other note > default sort order](https://hackmd.io/abc#default-sort-order)";
    expect(toLocal(other, context()).text).toBe(other);
  });
});

describe("same-note heading links in another case", () => {
  it("take the anchor from the note's own heading, also inside a callout or a hidden block comment", () => {
    both(
      "## Translations\n\nSee [[#translations]] and [[#TRANSLATIONS|below]].",
      '## Translations\n\nSee [translations](#Translations "#translations") and [below](#Translations "#TRANSLATIONS|below").',
    );
    both("> [!info]\n> ## Inside\n\n[[#inside]]", ':::info\n## Inside\n:::\n\n[inside](#Inside "#inside")');
    const hidden = "%%\n## Secret\n%%\n\n[[#secret]]";
    const remote = toRemote(hidden, context());
    expect(remote.text).toMatch(/\[secret\]\(#Secret "#secret"\)$/);
    expect(toLocal(remote.text, context(remote.dependencies.comments)).text).toBe(hidden);
  });

  it("prefer the heading written exactly as the link spells it over one in another case", () => {
    both("## Setup\n## setup\n[[#setup]]", '## Setup\n## setup\n[setup](#setup "#setup")');
    both("## Setup\n## setup\n[[#SETUP]]", '## Setup\n## setup\n[SETUP](#Setup "#SETUP")');
  });

  it("ignore headings whose text a conversion would change, so both sides agree", () => {
    both("## A ^id\n[[#a]]", '## A <!--^id-->\n[a](#a "#a")');
    both("## See [[Other note]]\n[[#see]]", '## See [Other note](https://hackmd.io/abc)\n[see](#see "#see")');
  });
});
