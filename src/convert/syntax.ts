/**
 * The syntax both sides share: the escape marker, line classes, callout and container types,
 * heading anchors, path spelling. Everything here is a pure function of its arguments.
 */

/**
 * The escape marker: an empty HTML comment, invisible in Obsidian and on HackMD. Put before a
 * construct, it shifts the construct one level along its escape chain (docs/conversion-rules.md,
 * "Escapes"), which is what keeps every rule reversible for text that already looks converted.
 */
export const MARK = "<!---->";

/** Counts the markers at `at` (k) and returns where the construct after them starts. */
export function markers(text: string, at: number): { count: number; end: number } {
  let end = at;
  let count = 0;
  while (text.startsWith(MARK, end)) {
    end += MARK.length;
    count++;
  }
  return { count, end };
}

/** HackMD's alert containers (hackmdio/codimd public/docs/features.md, "Alert Area"). */
export type ContainerType = "info" | "success" | "warning" | "danger";

/**
 * Obsidian's callout types (Obsidian Help, "Callouts") onto HackMD's four containers, by lowercase
 * name: each container's own name and aliases, and the other types by colour — note, abstract,
 * summary, tldr, todo, example, quote and cite are blue (info); tip, hint and important are
 * teal (success); question, help and faq are yellow (warning); failure, fail, missing and bug are
 * red (danger). Any other name (a custom type) is shown as Obsidian shows unknown types, like a
 * note: info. The name as written rides as the container's second word, so it comes back.
 */
const CALLOUT_TYPES: ReadonlyMap<string, ContainerType> = new Map([
  ["info", "info"],
  ["note", "info"],
  ["abstract", "info"],
  ["summary", "info"],
  ["tldr", "info"],
  ["todo", "info"],
  ["example", "info"],
  ["quote", "info"],
  ["cite", "info"],
  ["success", "success"],
  ["check", "success"],
  ["done", "success"],
  ["tip", "success"],
  ["hint", "success"],
  ["important", "success"],
  ["warning", "warning"],
  ["caution", "warning"],
  ["attention", "warning"],
  ["question", "warning"],
  ["help", "warning"],
  ["faq", "warning"],
  ["danger", "danger"],
  ["error", "danger"],
  ["failure", "danger"],
  ["fail", "danger"],
  ["missing", "danger"],
  ["bug", "danger"],
]);

/** The container type a callout type (any case) becomes: every type has one (see CALLOUT_TYPES). */
export function containerTypeOf(calloutType: string): ContainerType | undefined {
  return CALLOUT_TYPES.get(calloutType.toLowerCase()) ?? "info";
}

/** Whether a string is one of HackMD's four container types. */
export function isContainerType(name: string): name is ContainerType {
  return name === "info" || name === "success" || name === "warning" || name === "danger";
}

/*
 * The line classes below are asked of every line, several times: each first looks at the line's
 * first character (a space or its own marker), which rules out most lines without running the
 * regular expression. The answers are the expressions' own.
 */

/** A line that is blank (spaces and tabs only). */
export function isBlank(text: string): boolean {
  if (text === "") return true;
  const first = text.charCodeAt(0);
  return (first === 32 || first === 9) && /^[ \t]*$/.test(text);
}

/** A blockquote line: up to three spaces, then `>`. */
export function isQuoteLine(text: string): boolean {
  const first = text.charCodeAt(0);
  return first === 62 || (first === 32 && /^ {0,3}>/.test(text));
}

/** The length of the colon run a line starts with after up to three spaces (0 if none). */
export function colonRun(text: string): number {
  // What `/^ {0,3}(:+)/` captures, counted without the expression (asked of every line of a
  // text with containers, twice).
  let start = 0;
  while (start < 3 && text.charCodeAt(start) === 32) start++;
  let end = start;
  while (text.charCodeAt(end) === 58) end++;
  return end - start;
}

/** A line that could open or close a container (three or more colons after up to three spaces). */
export function isColonLine(text: string): boolean {
  return colonRun(text) >= 3;
}

/** An ATX heading line. */
export function isHeading(text: string): boolean {
  const first = text.charCodeAt(0);
  return (first === 35 || first === 32) && /^ {0,3}#{1,6}(?:[ \t]|$)/.test(text);
}

/** A fence opener: its character and length, or undefined. */
export function fenceOpener(text: string): { char: string; length: number; indent: number } | undefined {
  const first = text.charCodeAt(0);
  if (first !== 96 && first !== 126 && first !== 32) return undefined;
  const match = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(text);
  if (!match) return undefined;
  const marks = match[2] as string;
  // A backtick fence's info string cannot contain a backtick (CommonMark §4.5).
  if (marks.startsWith("`") && (match[3] as string).includes("`")) return undefined;
  return { char: marks.charAt(0), length: marks.length, indent: (match[1] as string).length };
}

/** Whether a line closes a fence opened with `char` × `length`. */
export function closesFence(text: string, char: string, length: number): boolean {
  const first = text.charCodeAt(0);
  if (first !== 96 && first !== 126 && first !== 32) return false;
  const match = /^ {0,3}(`+|~+)[ \t]*$/.exec(text);
  const marks = match?.[1];
  return marks !== undefined && marks.charAt(0) === char && marks.length >= length;
}

/** A list item line (bullet or ordered marker). */
export function isListItem(text: string): boolean {
  const first = text.charCodeAt(0);
  // `-`, `+`, `*`, a digit, a space or a tab.
  if (first !== 45 && first !== 43 && first !== 42 && first !== 32 && first !== 9 && (first < 48 || first > 57))
    return false;
  return /^[ \t]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/.test(text);
}

/**
 * The column a list item's text starts at: after its marker and one to four spaces (CommonMark
 * §5.2), one past the marker when the item is empty or more spaces follow, and where a tab makes
 * the column uncertain, the least it could be.
 */
export function listContentIndent(text: string): number {
  const match = /^( *)([-+*]|\d{1,9}[.)])( *)([^]?)/.exec(text);
  if (match === null) return indentWidth(text) + 1;
  const lead = (match[1] as string).length + (match[2] as string).length;
  const spaces = (match[3] as string).length;
  if (match[4] === "" || match[4] === "\t" || spaces > 4) return lead + 1;
  return lead + spaces;
}

/** A thematic break line. */
export function isThematicBreak(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first !== 42 && first !== 45 && first !== 95 && first !== 32) return false;
  return /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/.test(text);
}

/** Indentation width in columns (tabs to the next multiple of four). */
export function indentWidth(text: string): number {
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 32) width++;
    else if (code === 9) width += 4 - (width % 4);
    else break;
  }
  return width;
}

/** A GFM table delimiter row that has at least one pipe (`| --- |`, `--- | :-:`). */
export function isDelimiterRow(text: string): boolean {
  // Trailing blanks cut first: the expression's last `[ \t]*` after another one backtracked
  // quadratically on a long run of them before a character that fails the row.
  return text.includes("|") && /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?$/.test(trimEndBlanks(text));
}

/**
 * `text` without its trailing spaces and tabs, by a backwards loop: `replace(/[ \t]+$/, "")` tries
 * the run from each of its characters, quadratic on a long run that something else ends.
 */
export function trimEndBlanks(text: string): string {
  let end = text.length;
  while (end > 0) {
    const code = text.charCodeAt(end - 1);
    if (code !== 32 && code !== 9) break;
    end--;
  }
  return end === text.length ? text : text.slice(0, end);
}

/**
 * The anchor HackMD gives a heading: trimmed, whitespace runs to `-`, ASCII punctuation other than
 * `-` and `_` removed (hackmdio/codimd public/js/extra.js, `slugifyWithUTF8`).
 */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .replace(/\s+/g, "-")
    .replace(/[!"#$%&'()*+,./:;<=>?@[\\\]^`{|}~]/g, "");
}

/** Whether text has no leading or trailing whitespace and is not empty. */
export function isTrimmed(text: string): boolean {
  return text !== "" && text.trim() === text;
}

/**
 * Text a rule may put between brackets or carry as a link target: trimmed, one line, and without
 * anything that starts or ends a construct or changes how brackets parse.
 */
export function isPlainText(text: string): boolean {
  return isTrimmed(text) && !/[[\]|\\`\n\r]|<!--|\{%|%%/.test(text);
}

const PATH_ESCAPES = /[%\s()[\]<>#?\\`|^"{}]/g;

/** How a vault path is spelled in a Markdown destination: the characters Markdown or URLs read specially, percent-encoded. */
export function encodePath(path: string): string {
  return path.replace(PATH_ESCAPES, (char) => {
    let out = "";
    for (const byte of new TextEncoder().encode(char)) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    return out;
  });
}

/** The vault path a Markdown destination names, or undefined for a malformed escape. */
export function decodePath(destination: string): string | undefined {
  try {
    return decodeURIComponent(destination);
  } catch {
    return undefined;
  }
}

/** Whether a destination has a URL scheme (`https:`), i.e. is not a vault path. */
export function hasScheme(destination: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(destination);
}

/** Image extensions HackMD accepts for upload (docs/tools.md §16.3). */
export function isImagePath(path: string): boolean {
  return /\.(?:png|jpe?g|gif|webp)$/i.test(path);
}

/**
 * The lines of `text` (as `split(/\r\n|\n|\r/)` gives them) that contain `first` or `second`, in
 * order, each once. Native searches find the next occurrence and the line breaks around it, each
 * search resumed only once the cursor passes what it found, so a 1 MB note with a few such lines
 * is read in linear time without splitting it into 25,000 strings.
 */
export function linesContaining(text: string, first: string, second: string): string[] {
  const out: string[] = [];
  const after = (needle: string, from: number, known: number): number =>
    known === -1 || known >= from ? known : text.indexOf(needle, from);
  let a = -2;
  let b = -2;
  if (!text.includes("\r") && !first.includes("\n") && !second.includes("\n")) {
    // Lines end only at `\n` (almost every text): the line around each hit is found from the hit
    // itself, so the lines between hits are not walked at all.
    let from = 0;
    while (from <= text.length) {
      a = after(first, from, a);
      b = after(second, from, b);
      const at = a === -1 ? b : b === -1 ? a : Math.min(a, b);
      if (at === -1) break;
      const end = text.indexOf("\n", at);
      out.push(text.slice(text.lastIndexOf("\n", at) + 1, end === -1 ? text.length : end));
      from = end === -1 ? text.length + 1 : end + 1;
    }
    return out;
  }
  let lf = -2;
  let cr = -2;
  let start = 0;
  while (start <= text.length) {
    a = after(first, start, a);
    b = after(second, start, b);
    const at = a === -1 ? b : b === -1 ? a : Math.min(a, b);
    if (at === -1) break;
    // Walk line by line (each break found once) to the line holding `at`.
    for (;;) {
      lf = after("\n", start, lf);
      cr = after("\r", start, cr);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      const next = end === -1 ? text.length + 1 : end + (end === cr && lf === end + 1 ? 2 : 1);
      if (end === -1 || end > at) {
        out.push(text.slice(start, end === -1 ? text.length : end));
        start = next;
        break;
      }
      start = next;
    }
  }
  return out;
}
