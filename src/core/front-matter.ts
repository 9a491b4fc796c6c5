/**
 * The plain YAML front-matter subset of docs/tools.md §11.4, read only to find a certain `title`.
 * Hand-written on purpose: a YAML library accepts far more than this subset (anchors, tags,
 * multi-line flow collections), and anything outside the subset must count as unreadable.
 */

import { utf8Length } from "./hash";

/** How many lines below an opening `---` the closing `---` is looked for. */
export const FRONT_MATTER_SEARCH_LINES = 256;

/** Longest title, in UTF-8 bytes, that is still reported. */
export const TITLE_BYTE_LIMIT = 1024;

/** Where a body's front matter is: none, opened but never closed, or a closed block. */
export type FrontMatterLocation =
  { kind: "none" } | { kind: "unclosed" } | { kind: "closed"; block: string[]; rest: string[] };

/** What the front matter says about the title: unreadable, no `title` key, or the key's verdict. */
export type FrontMatterTitle =
  { kind: "unreadable" } | { kind: "no_title_key" } | { kind: "title_key"; title: string | undefined };

/** Finds the front matter of BOM-free body lines: first line `---`, closed within 256 lines. */
export function locateFrontMatter(lines: readonly string[]): FrontMatterLocation {
  if (lines[0] !== "---") return { kind: "none" };
  const limit = Math.min(lines.length - 1, FRONT_MATTER_SEARCH_LINES);
  for (let index = 1; index <= limit; index++) {
    if (lines[index] === "---") {
      return { kind: "closed", block: lines.slice(1, index), rest: lines.slice(index + 1) };
    }
  }
  return { kind: "unclosed" };
}

/** What may continue the most recent key: nothing, a nested block, a block scalar, a plain scalar. */
type Continuation = "none" | "nested" | "block" | "plain";

/** A value that fits the subset, as far as the title rules need it. */
type Value =
  | { kind: "empty" }
  | { kind: "block" }
  | { kind: "collection" }
  | { kind: "quoted"; text: string; escaped: boolean }
  | { kind: "plain"; text: string };

const BLANK = /^[ \t]*$/;
const KEY_LINE = /^([A-Za-z0-9_-]+):(.*)$/;
const BLOCK_HEADER = /^[|>](?:[1-9][+-]?|[+-][1-9]?)?(?:[ \t]+#.*)?[ \t]*$/;
const AFTER_CLOSE = /^(?:[ \t]*|[ \t]+#.*)$/;
// `,` `]` `}` `|` `>` cannot start a plain scalar either; YAML would refuse them.
const UNREADABLE_START = /^(?:[!&*%@`,\]}|>]|[-?:](?:[ \t]|$))/;
const TITLE_REFUSED_START = /^[|>[{&*!%@`#~0-9+\-.]/;
const TITLE_RESERVED = /^(?:null|true|false|yes|no|on|off|y|n)$/i;
// YAML double-quoted escapes: hex ones with their digit counts, and the one-character ones.
const HEX_ESCAPE_DIGITS: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };
const SIMPLE_ESCAPES = '0abt\tnvfre "/\\N_LP';

/** Reads the lines between the `---` lines and reports what they say about the title. */
export function readFrontMatterTitle(block: readonly string[]): FrontMatterTitle {
  let continuation: Continuation = "none";
  let titleValue: Value | undefined;
  let titleKeys = 0;
  let inTitle = false;
  let titleContinues = false;

  for (const line of block) {
    if (BLANK.test(line)) continue;
    const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
    if (line.charAt(indent.length) === "#") {
      // A comment ends a plain scalar, and a block scalar when it sits at the key's column.
      if (continuation === "plain" || (continuation === "block" && indent === "")) continuation = "none";
      continue;
    }
    if (indent.includes("\t")) return { kind: "unreadable" };
    if (line.startsWith(" ") || line.startsWith("-")) {
      if (!continues(continuation, line)) return { kind: "unreadable" };
      if (inTitle) titleContinues = true;
      continue;
    }
    const match = KEY_LINE.exec(line);
    const value = match ? readValue(match[2] ?? "") : undefined;
    if (!match || !value) return { kind: "unreadable" };
    continuation = continuationAfter(value);
    inTitle = match[1] === "title";
    if (inTitle) {
      titleKeys++;
      titleValue = value;
    }
  }

  if (titleKeys === 0) return { kind: "no_title_key" };
  if (titleKeys > 1 || !titleValue || titleContinues) return { kind: "title_key", title: undefined };
  return { kind: "title_key", title: titleFrom(titleValue) };
}

/** Whether a line starting with a space or `-` may continue the current value. */
function continues(continuation: Continuation, line: string): boolean {
  switch (continuation) {
    case "nested":
      return true;
    case "block":
      return !line.startsWith("-");
    case "plain":
      return !line.startsWith("-") && !readsAsMapping(stripComment(line.trim()));
    case "none":
      return false;
  }
}

function continuationAfter(value: Value): Continuation {
  switch (value.kind) {
    case "empty":
      return "nested";
    case "block":
      return "block";
    case "plain":
      return "plain";
    case "quoted":
    case "collection":
      return "none";
  }
}

/** Reads the text after `key:`; undefined when it is outside the subset. */
function readValue(raw: string): Value | undefined {
  if (raw !== "" && !raw.startsWith(" ") && !raw.startsWith("\t")) return undefined;
  const value = raw.replace(/^[ \t]+/, "");
  if (value === "" || value.startsWith("#")) return { kind: "empty" };
  if (BLOCK_HEADER.test(value)) return { kind: "block" };
  if (value.startsWith('"')) return readDoubleQuoted(value);
  if (value.startsWith("'")) return readSingleQuoted(value);
  if (value.startsWith("[") || value.startsWith("{")) return readCollection(value);
  if (UNREADABLE_START.test(value)) return undefined;
  const text = stripComment(value).trim();
  return readsAsMapping(text) ? undefined : { kind: "plain", text };
}

function readDoubleQuoted(value: string): Value | undefined {
  let escaped = false;
  for (let index = 1; index < value.length; index++) {
    const char = value.charAt(index);
    if (char === '"') return closedQuote(value, index, escaped);
    if (char !== "\\") continue;
    escaped = true;
    const code = value.charAt(index + 1);
    const hexDigits = HEX_ESCAPE_DIGITS[code];
    if (hexDigits !== undefined) {
      const hex = value.slice(index + 2, index + 2 + hexDigits);
      if (hex.length !== hexDigits || !/^[0-9A-Fa-f]+$/.test(hex)) return undefined;
      index += 1 + hexDigits;
    } else if (code !== "" && SIMPLE_ESCAPES.includes(code)) {
      index += 1;
    } else {
      return undefined;
    }
  }
  return undefined;
}

function readSingleQuoted(value: string): Value | undefined {
  let escaped = false;
  for (let index = 1; index < value.length; index++) {
    if (value.charAt(index) !== "'") continue;
    if (value.charAt(index + 1) !== "'") return closedQuote(value, index, escaped);
    escaped = true;
    index += 1;
  }
  return undefined;
}

/** A quoted scalar closed at `close`: only blanks or a comment may follow. */
function closedQuote(value: string, close: number, escaped: boolean): Value | undefined {
  if (!AFTER_CLOSE.test(value.slice(close + 1))) return undefined;
  return { kind: "quoted", text: value.slice(1, close), escaped };
}

/** A `[…]` or `{…}` collection that closes on its line, holds no quotes and is not cut by a comment. */
function readCollection(value: string): Value | undefined {
  const open: string[] = [];
  for (let index = 0; index < value.length; index++) {
    const char = value.charAt(index);
    if (char === '"' || char === "'") return undefined;
    if (char === "#" && /[ \t]/.test(value.charAt(index - 1))) return undefined;
    if (char === "[" || char === "{") open.push(char === "[" ? "]" : "}");
    if (char !== "]" && char !== "}") continue;
    if (open.pop() !== char) return undefined;
    if (open.length === 0) return AFTER_CLOSE.test(value.slice(index + 1)) ? { kind: "collection" } : undefined;
  }
  return undefined;
}

/** The text before a ` #` or tab-`#` comment. */
function stripComment(text: string): string {
  const comment = /[ \t]#/.exec(text);
  return comment ? text.slice(0, comment.index) : text;
}

/** Whether plain text would itself read as `key: value` (or end in `:`). */
function readsAsMapping(text: string): boolean {
  return /:(?:[ \t]|$)/.test(text);
}

/** The title a single `title` key gives, or undefined when it is not certain. */
function titleFrom(value: Value): string | undefined {
  let title: string;
  if (value.kind === "quoted") {
    if (value.escaped || value.text.trim() === "") return undefined;
    title = value.text;
  } else if (value.kind === "plain") {
    title = value.text;
    if (title === "" || TITLE_REFUSED_START.test(title) || TITLE_RESERVED.test(title)) return undefined;
  } else {
    return undefined;
  }
  return utf8Length(title) > TITLE_BYTE_LIMIT ? undefined : title;
}
