/** The vault every conversion test uses, and generators of tricky Obsidian and HackMD text. */
import fc from "fast-check";
import {
  buildConversionContext,
  commentIdOf,
  type ConversionContext,
  type ConversionInput,
  type TrackedNote,
} from "../../src/convert";

export const NOTES: ReadonlyMap<string, TrackedNote> = new Map([
  ["Other note.md", { url: "https://hackmd.io/abc", id: "abc" }],
  ["dir/Deep.md", { url: "https://hackmd.io/deep", id: "deep" }],
  ["dir/Same.md", { url: "https://hackmd.io/same1", id: "same1" }],
  ["other/Same.md", { url: "https://hackmd.io/same2", id: "same2" }],
  ["Twin A.md", { url: "https://hackmd.io/twin", id: "twinA" }],
  ["Twin B.md", { url: "https://hackmd.io/twin", id: "twinB" }],
]);

export const IMAGES: ReadonlyMap<string, string> = new Map([
  ["attachments/pic x.png", "https://hackmd.io/_uploads/pic.png"],
  ["diagram.png", "https://hackmd.io/_uploads/d.png"],
  ["copy.png", "https://hackmd.io/_uploads/d.png"],
  ["a/img.png", "https://hackmd.io/_uploads/a.png"],
  ["b/img.png", "https://hackmd.io/_uploads/b.png"],
]);

export const VAULT_PATHS = [...NOTES.keys(), ...IMAGES.keys(), "Untracked.md", "new.png", "attachments/notes.pdf"];

export const SALT = "test-salt";
export const INLINE_COMMENT = "known inline";
export const BLOCK_COMMENT = "%%\nknown block\n%%";
/** A known block comment holding a heading (a same-note link may name it). */
export const HEADING_COMMENT = "%%\n## Hidden part\n%%";
export const COMMENTS: ReadonlyMap<string, string> = new Map([
  [commentIdOf(SALT, INLINE_COMMENT), INLINE_COMMENT],
  [commentIdOf(SALT, BLOCK_COMMENT), BLOCK_COMMENT],
  [commentIdOf(SALT, HEADING_COMMENT), HEADING_COMMENT],
]);

/** Headings the tracked notes hold (as the engine reads them from the notes). */
export const HEADINGS: ReadonlyMap<string, readonly string[]> = new Map([
  ["Other note.md", ["Next steps", "Heading One", "Default sort order", "H"]],
  ["dir/Deep.md", ["Setup"]],
]);

/** The test vault's full input. */
export const INPUT: ConversionInput = {
  headings: HEADINGS,
  notes: NOTES,
  images: IMAGES,
  vaultPaths: VAULT_PATHS,
  comments: COMMENTS,
  commentSalt: SALT,
};

/** The test vault's context, with extra comment sources (as the engine keeps what toRemote wrote). */
export function context(
  extra: Iterable<readonly [string, string]> = [],
  input: ConversionInput = INPUT,
): ConversionContext {
  return buildConversionContext({ ...input, comments: new Map([...(input.comments ?? []), ...extra]) });
}

const placeholderOf = (source: string): string => `<!--obsidian-comment:${commentIdOf(SALT, source)}-->`;

/** Inline pieces: Obsidian forms, HackMD forms, near misses, markers, code and punctuation. */
const INLINE = [
  "[[Other note]]",
  "[[Other note|alias]]",
  "[[Other note|Other note]]",
  "[[Other note#Heading One]]",
  "[[Other note#H|x]]",
  "[[Other note#A#B]]",
  "[[Other note ]]",
  "[[Other note  #H]]",
  "[[Other note#A#B|x]]",
  "[[Other note##B]]",
  "[[#A#B]]",
  "![[Other note#A#B]]",
  "[[dir/Deep]]",
  "[[Deep]]",
  "[[Deep|d]]",
  "[[dir/Deep|d]]",
  "[[Same]]",
  "[[dir/Same]]",
  "[[dir/Same|s]]",
  "[[Untracked]]",
  "[[Other note.md]]",
  "[[other note]]",
  "[[Other note\\|alias]]",
  "[[]]",
  "[[Other note|]]",
  "[[Twin A]]",
  "[[Twin A|t]]",
  "![[diagram.png]]",
  "![[diagram.png|300]]",
  "![[diagram.png|300x200]]",
  "![[copy.png]]",
  "![[pic x.png]]",
  "![[attachments/pic x.png]]",
  "![[img.png]]",
  "![[a/img.png]]",
  "![[new.png]]",
  "![[Other note]]",
  "![[dir/Deep]]",
  "![[Deep]]",
  "![[Other note#H]]",
  "![[diagram.png|alt]]",
  "![[diagram.png\\|300]]",
  "![[Twin A]]",
  "![[notes.pdf]]",
  "![alt](attachments/pic%20x.png)",
  "![](pic%20x.png)",
  "![diagram.png](diagram.png)",
  "![x](diagram.png#interface)",
  "![x](pic%20x.png#a#b)",
  "![x](#diagram.png)",
  "![x|300](diagram.png)",
  "![x\\|300](diagram.png)",
  "![x](new.png)",
  "![x](../diagram.png)",
  "![x](./diagram.png)",
  "![x|300](../img.png)",
  "![x](../../diagram.png)",
  "![x](https://hackmd.io/_uploads/d.png#../diagram.png)",
  "![x](https://hackmd.io/_uploads/a.png#./img.png)",
  "![](copy.png)",
  "![a](https://hackmd.io/_uploads/d.png)",
  "![diagram.png](https://hackmd.io/_uploads/d.png)",
  "![copy.png](https://hackmd.io/_uploads/d.png)",
  "![](https://hackmd.io/_uploads/d.png =300x)",
  "![x](https://hackmd.io/_uploads/d.png =x200)",
  "![](https://hackmd.io/_uploads/pic.png#attachments/pic%20x.png)",
  "![y](https://other.example/x.png)",
  "![img.png](https://hackmd.io/_uploads/a.png)",
  "![](https://hackmd.io/_uploads/a.png =300x200)",
  "[x](https://hackmd.io/abc)",
  "[Other note](https://hackmd.io/abc)",
  "[Other note > Heading One](https://hackmd.io/abc#Heading-One)",
  "[Deep](https://hackmd.io/deep)",
  "[x](https://hackmd.io/abc#frag)",
  "[x](https://example.com)",
  "[x](Other%20note.md)",
  "[](https://hackmd.io/abc)",
  "[t](https://hackmd.io/twin)",
  "[[#Heading One]]",
  "![[icon.svg#icon]]",
  " ^block-1",
  "^b",
  " <!--^block-1-->",
  "<!--^b-->",
  " <!---->^x",
  "^",
  "![[clip.mp4]]",
  "[[guide.pdf]]",
  "![[Other note#^b1]]",
  "![[diagram.png#outline|300]]",
  "![diagram.png#outline](https://hackmd.io/_uploads/d.png)",
  '[icon.svg](#obsidian-file "!icon.svg#icon")',
  '[guide.pdf](#obsidian-file "guide.pdf")',
  '[Other note > H](https://hackmd.io/abc#H "!Other note#H")',
  "[[#Heading One|below]]",
  "[[Other note#H|`code`]]",
  "[[Other note#`H`|x]]",
  "[[#`move`|move]]",
  "[[#^b1]]",
  "[[#heading one]]",
  "[[#HEADING ONE|x]]",
  "[[#inside]]",
  "[[#hidden part]]",
  '[hidden part](#Hidden-part "#hidden part")',
  '[heading one](#Heading-One "#heading one")',
  '[heading one](#heading-one "#heading one")',
  "[[Other note#default sort order]]",
  "[[Other note#DEFAULT SORT ORDER|x]]",
  "[[Other note#heading one]]",
  "[Other note > default sort order](https://hackmd.io/abc#Default-sort-order)",
  "[Other note > default sort order](https://hackmd.io/abc#default-sort-order)",
  "[Other note > Default sort order](https://hackmd.io/abc#Default-sort-order)",
  "[[#^b1|see]]",
  "[[#^b 1|see]]",
  '[see](#obsidian-block "#^b1|see")',
  '[^b1](#obsidian-block "#^b1")',
  "[[Other note#`H`]]",
  "[[Other note#`a|b`]]",
  "[[Other note|`x``]]",
  '[`code`](https://hackmd.io/abc#H "Other note#H|&#96;code&#96;")',
  '[x](https://hackmd.io/abc#H "Other note#&#96;H&#96;|x")',
  "[`x`](https://hackmd.io/abc)",
  "&#96;",
  "[[Other note#^b1]]",
  "[[Other note|other note]]",
  '[x](https://hackmd.io/abc#Next-steps "Other note#Next steps|x")',
  '[Heading One](#Heading-One "#Heading One")',
  '[x](https://hackmd.io/abc "Other note|x")',
  '[x](#a "t")',
  '[x](https://hackmd.io/abc "',
  '"',
  "[Same](https://hackmd.io/same1)",
  "{%hackmd abc %}",
  "{%hackmd deep %}",
  "{%hackmd zzz %}",
  "{%hackmd twinA %}",
  "{%youtube x %}",
  "%%c%%",
  "%%%%",
  "%%a [[Other note]] b%%",
  "%%",
  "%",
  `%%${INLINE_COMMENT}%%`,
  placeholderOf(INLINE_COMMENT),
  placeholderOf(BLOCK_COMMENT),
  placeholderOf("c"),
  "<!--obsidian-comment:0123456789abcdef-->",
  "<!---->",
  "<!--",
  "-->",
  "<!-- x -->",
  "`",
  "``",
  "`code`",
  "`[[Other note]]`",
  "\\`",
  "\\",
  "\\[",
  "[",
  "]",
  "(",
  ")",
  "!",
  "|",
  "\\|",
  "#",
  " > ",
  "**",
  "*",
  " ",
  " ",
  " ",
  "\t",
  "a",
  "word",
  "é",
  ":",
  "{%",
  "%}",
  "&",
  "x",
  "%",
  "!",
  "{",
  "\\!",
  "\\%",
  "\\<",
  "\\\\",
  "<",
  ">",
  "=300x",
  " =300x)",
  "](",
  "]]",
  "[[",
  "![",
  "(https://hackmd.io/abc)",
  "https://hackmd.io/abc",
  "#Heading-One",
  "x200",
  "|300",
  "|300x200",
  "-",
  "~~~",
  "```",
  "$",
  "^",
  "\\#",
];

/** Whole lines that open or close blocks, or look as if they did. */
const BLOCK_LINES = [
  " This is important.",
  "```",
  "~~~",
  "```js",
  "````",
  "%%",
  "<!---->%%",
  ":::info",
  ":::warning caution",
  "::::info",
  ":::",
  "::::",
  ":::<!---->info",
  ":::danger Error",
  ":::danger error",
  ":::spoiler x",
  ":::info ",
  "> [!info]",
  "> [!warning] Title",
  "> [!WARNING]",
  "> [!tip]",
  "> [!info]-",
  "> <!---->[!info]",
  "> [!done] T [[Other note]]",
  "> [!info] ",
  "> [!caution] **x**",
  "> [!bug]+ Crash",
  "> [!tip] Title  ",
  "> [!note] ",
  "> [!tip]  ",
  "> [!tip]  Two spaces",
  "> [!tip]    Four spaces",
  "> [!abstract]\u00a0**Further reading**: [[Other note]]",
  "> [!abstract] **Bold** start",
  "> [!tip] ends *starred*",
  " **Bold**",
  "   **Bold**",
  "\u00a0**Bold**",
  "__*x*__",
  "__x__",
  "****x**",
  ":::info ",
  ":::success tip  ",
  "^blk",
  "<!--^blk-->",
  "**Bold** ",
  "**Bold**\t",
  "> [!custom]",
  ":::info info-",
  ":::info info",
  ":::success tip >",
  ":::info note- >",
  ":::warning tip",
  "**Bold**",
  "> **Bold**",
  "| --- | --- |",
  "---",
  "",
  "",
  "",
  "# Heading",
  "## Heading One",
  "## heading ONE",
  "> ## Inside",
  "## Inside ^x",
  "- item",
  "    indented",
  placeholderOf(BLOCK_COMMENT),
  `<!---->${placeholderOf(BLOCK_COMMENT)}`,
  placeholderOf(HEADING_COMMENT),
  "## hidden PART",
  "***",
  ">",
  "> ",
  "> >",
  "> > [!info]",
  " > [!tip] T",
  "  > [!info]",
  " >",
  " > x",
  ">x",
  ">```",
  " :::info",
  " :::success tip",
  " :::",
  "  :::",
  ":::info ~1",
  ":::info note ~2,3",
  ":::success tip > ~1",
  ":::info ~0",
  ":::info ~2,1",
];

const PREFIXES = ["", "", "", "> ", ">", "> > ", ">  ", " > ", "- ", "1. ", "    ", "\t", "# ", "| ", "\t- "];

const inlineText = fc.array(fc.constantFrom(...INLINE), { maxLength: 8 }).map((parts) => parts.join(""));
const line = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...PREFIXES), inlineText).map(([prefix, text]) => prefix + text) },
  { weight: 2, arbitrary: fc.constantFrom(...BLOCK_LINES) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom("> ", "> > ", ""), fc.constantFrom(...BLOCK_LINES))
      .map(([prefix, text]) => prefix + text),
  },
);
const ending = fc.constantFrom("\n", "\n", "\n", "\n", "\r\n", "\r");

/** Generated documents: lines of pieces, mixed line endings, sometimes front matter, sometimes no final newline. */
export const documentText = fc
  .tuple(fc.boolean(), fc.array(fc.tuple(line, ending), { maxLength: 30 }), fc.boolean())
  .map(([frontMatter, lines, finalNewline]) => {
    let text = frontMatter ? "---\ntitle: T\ntags: [a]\n---\n" : "";
    lines.forEach(([content, eol], i) => {
      text += content + (i < lines.length - 1 || finalNewline ? eol : "");
    });
    return text;
  });

/** Prose that opens no block that could reach past its own line. */
export const closedProse = fc
  .array(
    fc.tuple(
      fc.constantFrom("", "", "- ", "# ", "> "),
      inlineText.filter((text) => !text.includes("`") && !/^ *(?:%%|:{3})/.test(text)),
    ),
    { maxLength: 8 },
  )
  .map((lines) => lines.map(([prefix, text]) => prefix + text).join("\n"));

/** A code body: any pieces, but no line that could close a fence. */
export const codeBody = fc
  .array(
    inlineText.filter((text) => !/^ {0,3}(?:`{3,}|~{3,})/.test(text)),
    { minLength: 1, maxLength: 5 },
  )
  .map((lines) => lines.join("\n"));

/** An inline code span's content: pieces without backticks. */
export const spanBody = inlineText
  .map((text) => text.replace(/`/g, ""))
  .filter((text) => text.trim() !== "" && !text.startsWith(" ") && !text.endsWith(" "));

/** A context made of a random part of the test vault (notes tracked or not, images uploaded or not, either link format). */
export const partialInput = fc
  .record({
    notes: fc.subarray([...NOTES.keys()]),
    images: fc.subarray([...IMAGES.keys()]),
    linkFormat: fc.constantFrom("shortest" as const, "absolute" as const),
    extraPaths: fc.subarray(["Other note.png", "x/Deep.md", "diagram.png.md", "z/Other note.md"]),
    folder: fc.constantFrom(undefined, "", "dir", "a", "dir/sub"),
    withHeadings: fc.boolean(),
  })
  .map(({ notes, images, linkFormat, extraPaths, folder, withHeadings }): ConversionInput => ({
    ...(folder === undefined ? {} : { folder }),
    ...(withHeadings ? { headings: HEADINGS } : {}),
    notes: new Map(notes.map((path) => [path, NOTES.get(path) as TrackedNote])),
    images: new Map(images.map((path) => [path, IMAGES.get(path) as string])),
    vaultPaths: [...VAULT_PATHS, ...extraPaths],
    comments: COMMENTS,
    commentSalt: SALT,
    linkFormat,
  }));

/** Runs per property: ~1,000 in CI, `HB_CONVERT_RUNS=10000 npx jest tests/convert` on demand. */
export const RUNS = Number(process.env.HB_CONVERT_RUNS ?? "1000");
