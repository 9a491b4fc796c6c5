/**
 * Line endings and body titles (docs/tools.md §11.2–§11.4). Hand-written: no Markdown or YAML
 * library reads exactly the conservative subset §11.4 calls certain, and a fuller parser would
 * report titles HackMD might not agree with.
 */

import { FRONT_MATTER_SEARCH_LINES, locateFrontMatter, readFrontMatterTitle, TITLE_BYTE_LIMIT } from "./front-matter";
import { utf8Length } from "./hash";

/** Normalises a body as HackMD stores it: `\r\n` → `\n`, then any other `\r` → `\n` (§11.2). */
export function normalizeLineEndings(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/\r/g, "\n");
}

const BOM = "\u{feff}";
const BLANK_LINE = /^[ \t]*$/;
// At most three spaces, `#`, then end of line, a space or a tab; group 1 is the rest.
const ATX_H1 = /^ {0,3}#(?:[ \t](.*))?$/;
const CLOSING_HASHES = /(?:^|[ \t])#+$/;
const NOT_CERTAIN_IN_HEADING = /[`\\]/;
const NOT_CERTAIN_AFTER_LINKS = /[*_~<&[\]]|==/;
const UNSAFE_IN_DESTINATION = /[\s\p{Cc}<>]/u;

/** The title the body certainly implies (front-matter `title`, else a leading H1), or undefined. */
export function bodyTitle(body: string): string | undefined {
  const text = body.startsWith(BOM) ? body.slice(BOM.length) : body;
  // Only the first lines decide, so the body is split lazily: the lines front matter may span
  // first, then one at a time until the first non-blank line after it.
  const nextLine = lineReader(text);
  const head: string[] = [];
  for (
    let line = nextLine();
    line !== undefined;
    line = head.length > FRONT_MATTER_SEARCH_LINES ? undefined : nextLine()
  )
    head.push(line);
  const frontMatter = locateFrontMatter(head);
  if (frontMatter.kind === "unclosed") return undefined;
  let from = 0;
  if (frontMatter.kind === "closed") {
    const read = readFrontMatterTitle(frontMatter.block);
    if (read.kind === "unreadable") return undefined;
    // A `title` key decides alone, even when its value gives no title.
    if (read.kind === "title_key") return read.title;
    from = frontMatter.block.length + 2;
  }
  let first = head.slice(from).find((line) => !BLANK_LINE.test(line));
  if (first === undefined && head.length > FRONT_MATTER_SEARCH_LINES) {
    for (let line = nextLine(); line !== undefined; line = nextLine()) {
      if (!BLANK_LINE.test(line)) {
        first = line;
        break;
      }
    }
  }
  const heading = first === undefined ? undefined : atxH1Text(first);
  return heading === undefined ? undefined : headingTitle(heading);
}

/** Returns the lines of `text` one per call, as `text.split(/\r\n|\r|\n/)` would, then undefined. */
function lineReader(text: string): () => string | undefined {
  const ending = /\r\n|\r|\n/g;
  let start: number | undefined = 0;
  return () => {
    if (start === undefined) return undefined;
    ending.lastIndex = start;
    const match = ending.exec(text);
    const line = text.slice(start, match === null ? undefined : match.index);
    start = match === null ? undefined : match.index + match[0].length;
    return line;
  };
}

/** The body title when its words differ from the listed title's (whitespace runs ignored). */
export function titleDrift(listedTitle: string, body: string): string | undefined {
  const title = bodyTitle(body);
  if (title === undefined) return undefined;
  const ours = words(title);
  const listed = words(listedTitle);
  const same = ours.length === listed.length && ours.every((word, index) => word === listed[index]);
  return same ? undefined : title;
}

function words(text: string): string[] {
  return text.split(/\p{White_Space}+/u).filter((word) => word !== "");
}

/** The text of an ATX H1 line with its closing `#` run removed, or undefined for any other line. */
function atxH1Text(line: string): string | undefined {
  const match = ATX_H1.exec(line);
  if (!match) return undefined;
  const content = (match[1] ?? "").replace(/[ \t]+$/, "");
  return content.replace(CLOSING_HASHES, "").replace(/^[ \t]+|[ \t]+$/g, "");
}

/** The title a heading text certainly renders as (§11.4 rule 3), or undefined. */
function headingTitle(heading: string): string | undefined {
  if (utf8Length(heading) > TITLE_BYTE_LIMIT || NOT_CERTAIN_IN_HEADING.test(heading)) return undefined;
  const reduced = reduceLinks(heading)?.replace(/^[ \t]+|[ \t]+$/g, "");
  if (reduced === undefined || reduced === "" || NOT_CERTAIN_AFTER_LINKS.test(reduced)) return undefined;
  return reduced;
}

/** Replaces each inline link `[text](destination)` by its text; undefined when unsure. */
function reduceLinks(text: string): string | undefined {
  if (text.includes("![")) return undefined;
  let out = "";
  let index = 0;
  while (index < text.length) {
    const open = text.indexOf("[", index);
    if (open === -1) return out + text.slice(index);
    const close = text.indexOf("]", open + 1);
    const label = close === -1 ? undefined : text.slice(open + 1, close);
    // Unclosed, nested, or not followed by `(`: maybe a reference link, so not certain.
    if (label === undefined || label.includes("[") || text.charAt(close + 1) !== "(") return undefined;
    const end = destinationEnd(text, close + 2);
    if (end === undefined || UNSAFE_IN_DESTINATION.test(text.slice(close + 2, end))) return undefined;
    out += text.slice(index, open) + label;
    index = end + 1;
  }
  return out;
}

/** Index of the `)` that closes a destination starting at `start`, parentheses nesting. */
function destinationEnd(text: string, start: number): number | undefined {
  let depth = 1;
  for (let index = start; index < text.length; index++) {
    const char = text.charAt(index);
    if (char === "(") depth++;
    if (char === ")" && --depth === 0) return index;
  }
  return undefined;
}

/** Compares two strings by Unicode code points (not UTF-16 units, which `sort()` uses). */
export function compareCodePoints(a: string, b: string): number {
  const left = Array.from(a);
  const right = Array.from(b);
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i += 1) {
    const diff = (left[i]?.codePointAt(0) ?? 0) - (right[i]?.codePointAt(0) ?? 0);
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}
