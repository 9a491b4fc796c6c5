/**
 * Block structure (docs/conversion-rules.md, "Block rules"): one line scanner, the same in both
 * directions, that finds front matter, fenced and indented code (never converted), block comments
 * and their placeholders, blockquotes (callouts among them) and containers; the lines in between
 * are paragraphs for the inline scanner. Every block conversion keeps the line classes the
 * scanner decides on (blank, quote, colon line, heading, fence, indentation, list marker) for the
 * lines around it, so both directions see the same blocks.
 */

import { commentSource, type Env } from "./env";
import { convertInlineText, convertParagraph, placeholder } from "./inline";
import { type Line, splitLines, withText } from "./lines";
import {
  closesFence,
  colonRun,
  containerTypeOf,
  fenceOpener,
  indentWidth,
  isBlank,
  isColonLine,
  isContainerType,
  isHeading,
  isListItem,
  listContentIndent,
  isQuoteLine,
  isThematicBreak,
  isTrimmed,
  MARK,
  type ContainerType,
  trimEndBlanks,
} from "./syntax";

/**
 * A container's first content line that is its title: `**Title**`, the title trimmed and non-empty;
 * `__Title__` when the title starts or ends with `*` (`**Further reading**: …`), which `**` would
 * not show as bold. Before it, what came between the callout's type and its title beyond one space:
 * one to three more spaces, or a no-break space instead of the space.
 */
const TITLE_LINE = /^( {1,3}|\u00a0)?(\*\*|__)(\S(?:.*\S)?)\2([ \t]*)$/;
const CALLOUT_HEADER = /^((?:<!---->)*)\[!([A-Za-z]+)\]([+-]?)(?:([ \u00a0])(.*))?$/;

/** A container's title line, parsed: only the wrapper its title calls for counts. */
function titleLine(text: string): { lead: string; title: string; trail: string } | undefined {
  const match = TITLE_LINE.exec(text);
  if (!match) return undefined;
  const title = match[3] as string;
  if ((match[2] === "__") !== starred(title)) return undefined;
  return { lead: match[1] ?? "", title, trail: match[4] ?? "" };
}

/** Whether a title starts or ends with `*` (then `__` wraps it). */
function starred(title: string): boolean {
  return title.startsWith("*") || title.endsWith("*");
}
const CONTAINER_OPENER =
  /^(:{3,})((?:<!---->)*)([a-z]+)(?: ([A-Za-z]+)([+-]?))?( >)?(?: ~([1-9]\d*(?:,[1-9]\d*)*))?([ \t]*)$/;
const BLOCK_COMMENT = /^((?:<!---->)*)%%$/;
const PLACEHOLDER_LINE = /^((?:<!---->)*)<!--obsidian-comment:([0-9a-f]{16})-->$/;

/** What the line before a line was, for indented code (which cannot interrupt a paragraph). */
type Previous = "start" | "blank" | "paragraph" | "other";

/**
 * Converts a sequence of lines (the whole text, or a quote's or container's content).
 * `top`: front matter may open it. `keepLines`: the caller re-attaches a prefix per line, so
 * nothing that changes the number of lines may convert (quotes whose prefixes are not canonical).
 */
export function convertLines(lines: readonly Line[], env: Env, top: boolean, keepLines: boolean): Line[] {
  const out: Line[] = [];
  const paragraph: Line[] = [];
  const flush = (): void => {
    if (paragraph.length === 0) return;
    append(out, convertParagraph(paragraph, env));
    paragraph.length = 0;
  };
  const index = new LineIndex(lines);
  let previous: Previous = "start";
  let inList = false;
  // The least column a list item's text starts at since the list began (see `listContentIndent`).
  let listIndent = 0;
  let unclosedComment = false;
  let i = 0;
  if (top) {
    const end = frontMatterEnd(lines);
    if (end !== undefined) {
      append(out, lines, 0, end + 1);
      i = end + 1;
      previous = "other";
    }
  }
  while (i < lines.length) {
    const line = lines[i] as Line;
    const text = line.text;
    if (isBlank(text)) {
      flush();
      out.push(line);
      previous = "blank";
      i++;
      continue;
    }
    const indent = indentWidth(text);
    // Indented code (CommonMark §4.4); inside a list, only deeper than a list paragraph could be.
    if (indent >= 4 && previous !== "paragraph" && (!inList || indent >= 8)) {
      flush();
      out.push(line);
      previous = "other";
      i++;
      continue;
    }
    const fence = fenceOpener(text);
    if (fence !== undefined) {
      flush();
      let end = i + 1;
      while (end < lines.length && !closesFence((lines[end] as Line).text, fence.char, fence.length)) end++;
      end = Math.min(end, lines.length - 1);
      append(out, lines, i, end + 1);
      if (fence.indent === 0) inList = false;
      previous = "other";
      i = end + 1;
      continue;
    }
    if (!keepLines && mayOpenBlock(text)) {
      // After a `%%` line nothing closes, a restored block comment would close it instead: its placeholders stay as written.
      if (!unclosedComment && BLOCK_COMMENT.test(text) && index.nextExact("%%", i) === undefined)
        unclosedComment = true;
      const block =
        commentBlock(lines, i, index, env) ??
        (unclosedComment ? undefined : placeholderLine(lines, i, env)) ??
        (inList && indent >= listIndent ? undefined : container(lines, i, index, env));
      if (block !== undefined) {
        flush();
        append(out, block.lines);
        inList = false;
        previous = "other";
        i = block.next;
        continue;
      }
    }
    if (isQuoteLine(text)) {
      flush();
      let end = i;
      while (end < lines.length && isQuoteLine((lines[end] as Line).text)) end++;
      const seen = { callout: false };
      // An indented callout in a list item stays a quote, and an indented container there stays
      // as written, both ways: markdown-it-container closes a container at the first line indented
      // less than the item's text, and a callout's content cannot say how far the item indents it.
      append(out, quote(lines, i, end, env, keepLines, seen, inList && indent >= listIndent));
      // A callout ends a list as the container it stands for does, even when indented.
      if (text.startsWith(">") || seen.callout) inList = false;
      previous = "other";
      i = end;
      continue;
    }
    paragraph.push(line);
    const breaksParagraph = isHeading(text) || isThematicBreak(text);
    if (isListItem(text) && !isThematicBreak(text)) {
      listIndent = inList ? Math.min(listIndent, listContentIndent(text)) : listContentIndent(text);
      inList = true;
    } else if (indent < 2 && (previous !== "paragraph" || breaksParagraph)) inList = false;
    previous = breaksParagraph ? "other" : "paragraph";
    i++;
  }
  flush();
  return out;
}

/**
 * Whether a line may open a block comment, a placeholder line (both start with `<` or `%`) or a
 * container (`:` after up to three spaces): the others skip those three look-ups.
 */
function mayOpenBlock(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first === 60 || first === 37 || first === 58) return true;
  let p = 0;
  while (p < 3 && text.charCodeAt(p) === 32) p++;
  return p > 0 && text.charCodeAt(p) === 58;
}

/** Appends `from[start..end)` without spreading (a spread of many lines overflows the stack). */
function append(out: Line[], from: readonly Line[], start = 0, end = from.length): void {
  for (let i = start; i < end; i++) out.push(from[i] as Line);
}

/** The index of the line that closes front matter opened on the first line, if any. */
function frontMatterEnd(lines: readonly Line[]): number | undefined {
  const first = lines[0]?.text;
  if (first !== "---" && first !== "\u{feff}---") return undefined;
  for (let i = 1; i < lines.length; i++) if ((lines[i] as Line).text === "---") return i;
  return undefined;
}

/** Lines a block became, and where scanning goes on. */
interface Block {
  readonly lines: Line[];
  readonly next: number;
}

/**
 * `%%` alone on a line, up to the next `%%` alone on a line: the whole block becomes one
 * placeholder line (toRemote, level 0); with markers it moves along its escape chain.
 */
function commentBlock(lines: readonly Line[], at: number, index: LineIndex, env: Env): Block | undefined {
  const match = BLOCK_COMMENT.exec((lines[at] as Line).text);
  if (!match) return undefined;
  const close = index.nextExact("%%", at);
  if (close === undefined) return undefined;
  const k = (match[1] as string).length / MARK.length;
  const first = lines[at] as Line;
  const last = lines[close] as Line;
  let source = `%%${first.eol}`;
  for (let i = at + 1; i < close; i++) source += (lines[i] as Line).text + (lines[i] as Line).eol;
  source += "%%";
  const id = env.answers.commentId(source);
  const known = commentSource(env, id);
  const unchanged = { lines: lines.slice(at, close + 1), next: close + 1 };
  if (known !== null && known !== source) return unchanged;
  if (env.dir === "remote" && k === 0) {
    env.wrote.set(id, source);
    return { lines: [{ text: placeholder(id), eol: last.eol, no: first.no }], next: close + 1 };
  }
  const shifted = env.dir === "remote" ? k - 1 : k + 1;
  return { lines: [withText(first, `${MARK.repeat(shifted)}%%`), ...lines.slice(at + 1, close + 1)], next: close + 1 };
}

/** A line that is a block comment's placeholder (its source spans lines): restored by toLocal at level 0. */
function placeholderLine(lines: readonly Line[], at: number, env: Env): Block | undefined {
  const line = lines[at] as Line;
  const match = PLACEHOLDER_LINE.exec(line.text);
  if (!match) return undefined;
  const k = (match[1] as string).length / MARK.length;
  const id = match[2] as string;
  const source = commentSource(env, id);
  if (source === null || !isBlockSource(source) || env.answers.commentId(source) !== id) {
    if (env.dir === "remote") env.literalIds.add(id);
    return undefined;
  }
  if (env.dir === "local" && k === 0) {
    env.wrote.set(id, source);
    const restored = splitLines(source);
    return {
      lines: restored.map((part, i) => ({
        text: part.text,
        eol: i === restored.length - 1 ? line.eol : part.eol,
        no: line.no,
      })),
      next: at + 1,
    };
  }
  const shifted = env.dir === "remote" ? k + 1 : k - 1;
  return { lines: [withText(line, MARK.repeat(shifted) + placeholder(id))], next: at + 1 };
}

/** A source written by `commentBlock`: `%%` line, any lines, `%%` line, no `%%` line between. */
function isBlockSource(source: string): boolean {
  const lines = splitLines(source);
  const last = lines[lines.length - 1];
  if (lines.length < 2 || lines[0]?.text !== "%%" || last?.text !== "%%" || last.eol !== "") return false;
  return lines.slice(1, -1).every((line) => line.text !== "%%");
}

/** What a callout or a container says, once its shell is known to convert both ways. */
interface Shell {
  /** Markers before the type. */
  readonly k: number;
  readonly type: ContainerType;
  /** The callout type as written (`warning`, `Caution`, …). */
  readonly spelling: string;
  /** A folding callout's `+` (open) or `-` (folded), else "". */
  readonly fold: string;
  /** Whether the callout's blank lines are written `> ` (with the space) rather than `>`. */
  readonly spaced: boolean;
  readonly title: string | undefined;
  /** Spaces or tabs after the title, as written (kept after the closing `**`). */
  readonly trail: string;
  /** What stood between the type and the title beyond one space (see TITLE_LINE). */
  readonly lead: string;
  /** Spaces before every line of the callout (one to three), and so before the container's colons. */
  readonly indent: string;
  /**
   * Lines after the header (1-based) written otherwise than the callout's others: `>text` without
   * the space, or a blank line written `> ` among `>` ones. The container lists them (` ~3,5`).
   */
  readonly exceptions: readonly number[];
  /** A callout without a title whose header ends in spaces (`> [!note] `): kept at the opener's end. */
  readonly headTrail: string;
}

/**
 * A container `:::type` … `:::`. toLocal turns one at level 0 into a callout (its content converted);
 * every other case moves it along its escape chain with its content as written.
 */
function container(lines: readonly Line[], at: number, index: LineIndex, env: Env): Block | undefined {
  const opener = lines[at] as Line;
  const indent = (/^ {0,3}/.exec(opener.text) as RegExpExecArray)[0];
  const match = CONTAINER_OPENER.exec(opener.text.slice(indent.length));
  if (!match || !isContainerType(match[3] as string)) return undefined;
  const type = match[3] as ContainerType;
  const spelling = match[4];
  const fold = match[5] ?? "";
  const spaced = match[6] !== undefined;
  const exceptions = match[7] === undefined ? [] : match[7].split(",").map(Number);
  const headTrail = match[8] ?? "";
  if (spelling !== undefined && ((spelling === type && fold === "") || containerTypeOf(spelling) !== type))
    return undefined;
  const colons = (match[1] as string).length;
  const close = index.nextExact(indent + ":".repeat(colons), at);
  if (close === undefined) return undefined;
  // The closer must be the first line markdown-it-container could take as one, and no shorter marker would do.
  if (colons !== Math.max(3, index.maxColonRun(at + 1, close) + 1)) return undefined;
  if (!neighboursAllow(lines[at - 1], lines[close + 1], close > at + 1 && (lines[close - 1] as Line).text === ""))
    return undefined;
  const content = lines.slice(at + 1, close);
  const titleMatch = content.length > 0 ? titleLine((content[0] as Line).text) : undefined;
  const r0 = opener.eol;
  const rc = (lines[close] as Line).eol;
  if (titleMatch && (content[0] as Line).eol !== r0) return undefined;
  const body = titleMatch ? content.slice(1) : content;
  const last = body[body.length - 1];
  if (last === undefined ? r0 !== (rc === "" ? "\n" : rc) : last.eol !== (rc === "" ? r0 : rc)) return undefined;
  const k = (match[2] as string).length / MARK.length;
  const next = close + 1;
  // A spaced container needs a blank line for its `> ` to stand on; without one it would read as the plain one.
  if (spaced && !body.some((line) => line.text === "")) return undefined;
  // Trailing spaces on the opener stand for a titleless header's; with a title they could not come back.
  if (headTrail !== "" && titleMatch) return undefined;
  if (!exceptionsFit(exceptions, body, spaced)) return undefined;
  if (env.dir === "local" && k === 0) {
    const title = titleMatch?.title;
    const trail = titleMatch?.trail ?? "";
    const lead = titleMatch?.lead ?? "";
    const shell: Shell = {
      k,
      type,
      spelling: spelling ?? type,
      fold,
      spaced,
      title,
      trail,
      lead,
      headTrail,
      indent,
      exceptions,
    };
    return { lines: toCallout(shell, opener, body, rc, env), next };
  }
  const shifted = env.dir === "remote" ? k + 1 : k - 1;
  return {
    lines: [
      withText(
        opener,
        `${indent}${":".repeat(colons)}${MARK.repeat(shifted)}${opener.text.slice(indent.length + colons + k * MARK.length)}`,
      ),
      ...lines.slice(at + 1, next),
    ],
    next,
  };
}

/** Container (content converted) → callout. */
function toCallout(shell: Shell, opener: Line, body: readonly Line[], rc: string, env: Env): Line[] {
  const input = body.map((line, i) => (i === body.length - 1 && rc === "" ? { ...line, eol: "" } : line));
  const content = convertLines(input, env, false, false);
  const separator = shell.lead === "\u00a0" ? shell.lead : ` ${shell.lead}`;
  const title =
    shell.title === undefined ? "" : `${separator}${convertInlineText(shell.title, env, opener.no + 1)}${shell.trail}`;
  const header: Line = {
    text: `[!${shell.spelling}]${shell.fold}${title}${shell.headTrail}`,
    eol: body.length > 0 ? opener.eol : rc,
    no: opener.no,
  };
  return prefixed([header, ...content], shell);
}

/** Callout lines (header first) with their `>` prefixes, as the shell says each is written. */
function prefixed(content: readonly Line[], shell: Pick<Shell, "spaced" | "indent" | "exceptions">): Line[] {
  const listed = new Set(shell.exceptions);
  return content.map((line, i) => {
    const flip = listed.has(i);
    const prefix = line.text === "" ? (shell.spaced !== flip ? "> " : ">") : flip ? ">" : "> ";
    return withText(line, shell.indent + prefix + line.text);
  });
}

/**
 * Whether a container's exception list (see Shell) stands for a callout: in order, within the body,
 * each on a blank line or a line `>text` can carry (not blank, not starting with a space, tab or
 * `>`), a blank one only where the plain form is `>`, and never every blank line (that is the
 * spaced form). The body must convert line for line (no quote, colon or comment lines), so the
 * numbers mean the same lines on both sides.
 */
function exceptionsFit(exceptions: readonly number[], body: readonly Line[], spaced: boolean): boolean {
  if (exceptions.length === 0) return true;
  if (!lineForLine(body)) return false;
  let previous = 0;
  let blanksListed = 0;
  for (const n of exceptions) {
    if (n <= previous || n > body.length) return false;
    previous = n;
    const text = (body[n - 1] as Line).text;
    if (text === "") {
      if (spaced) return false;
      blanksListed++;
    } else if (/^[ \t>]/.test(text)) return false;
  }
  return blanksListed === 0 || blanksListed < body.filter((line) => line.text === "").length;
}

/** Lines that convert one for one: no quote, colon, block comment or placeholder line among them. */
function lineForLine(lines: readonly Line[]): boolean {
  return lines.every(
    (line) =>
      !isQuoteLine(line.text) &&
      !isColonLine(line.text) &&
      !BLOCK_COMMENT.test(line.text) &&
      !PLACEHOLDER_LINE.test(line.text),
  );
}

/** Callout (content converted) → container; `n` colons, one more than any colon run inside. */
function toContainer(shell: Shell, header: Line, body: readonly Line[], env: Env): Line[] {
  const content = convertLines(body, env, false, false);
  let longest = 0;
  for (const line of content) longest = Math.max(longest, colonRun(line.text));
  const colons = ":".repeat(Math.max(3, longest + 1));
  const separator = header.eol === "" ? "\n" : header.eol;
  const info =
    (shell.spelling === shell.type && shell.fold === "" ? shell.type : `${shell.type} ${shell.spelling}${shell.fold}`) +
    (shell.spaced ? " >" : "") +
    (shell.exceptions.length > 0 ? ` ~${shell.exceptions.join(",")}` : "") +
    shell.headTrail;
  const out: Line[] = [{ text: shell.indent + colons + info, eol: separator, no: header.no }];
  if (shell.title !== undefined) {
    const title = convertInlineText(shell.title, env, header.no);
    const wrap = starred(title) ? "__" : "**";
    out.push({ text: `${shell.lead}${wrap}${title}${wrap}${shell.trail}`, eol: separator, no: header.no });
  }
  content.forEach((line, i) =>
    out.push(i === content.length - 1 && line.eol === "" ? { ...line, eol: separator } : line),
  );
  const lastEol = body.length > 0 ? (body[body.length - 1] as Line).eol : header.eol;
  out.push({ text: shell.indent + colons, eol: lastEol, no: (body[body.length - 1] ?? header).no });
  return out;
}

/**
 * A run of blockquote lines. A callout whose shell converts becomes a container (toRemote, level 0)
 * or moves along its escape chain (see `callout`). Otherwise, with canonical prefixes (`> text` or
 * `>` alone) its content is converted as lines of their own; other runs keep each line's prefix
 * and convert only what keeps the line count. `seen.callout` tells the caller a callout was met.
 */
function quote(
  lines: readonly Line[],
  from: number,
  to: number,
  env: Env,
  keepLines: boolean,
  seen?: { callout: boolean },
  inListItem = false,
): Line[] {
  if (!keepLines && !inListItem) {
    const converted = callout(lines, from, to, env);
    if (converted !== undefined) {
      if (seen !== undefined) seen.callout = true;
      return converted;
    }
  }
  const run = lines.slice(from, to);
  const canonical =
    !keepLines && run.every((line) => line.text === ">" || (line.text.startsWith("> ") && line.text.length > 2));
  if (!canonical) {
    const prefixes = run.map((line) => (/^ {0,3}> ?/.exec(line.text) as RegExpExecArray)[0]);
    const content = convertLines(
      run.map((line, i) => withText(line, line.text.slice((prefixes[i] as string).length))),
      env,
      false,
      true,
    );
    return content.map((line, i) => withText(line, (prefixes[i] as string) + line.text));
  }
  return convertLines(
    run.map((line) => withText(line, line.text === ">" ? "" : line.text.slice(2))),
    env,
    false,
    false,
  ).map((line) => withText(line, line.text === "" ? ">" : `> ${line.text}`));
}

/**
 * A run of blockquote lines that is a callout whose shell converts both ways: the container, or
 * the callout one step along its escape chain; undefined for any other run. Every line has the
 * header's indent (up to three spaces) and then `>` alone, `> ` alone, `> text`, or `>text` (not
 * a space, tab or `>` after it). Blank lines all written `> ` make the spaced form (" >"); a
 * blank `> ` among `>` ones, and `>text` lines, are listed as exceptions.
 */
function callout(lines: readonly Line[], from: number, to: number, env: Env): Line[] | undefined {
  const indent = (/^ */.exec((lines[from] as Line).text) as RegExpExecArray)[0];
  const content: Line[] = [];
  const tight: number[] = [];
  const spacedBlanks: number[] = [];
  let plainBlanks = 0;
  for (let i = from; i < to; i++) {
    const line = lines[i] as Line;
    if (!line.text.startsWith(`${indent}>`)) return undefined;
    const rest = line.text.slice(indent.length + 1);
    const n = i - from;
    if (rest === "") plainBlanks++;
    else if (rest === " ") spacedBlanks.push(n);
    else if (rest.startsWith(" ")) {
      content.push(withText(line, rest.slice(1)));
      continue;
    } else if (/^[\t>]/.test(rest) || n === 0) return undefined;
    else {
      tight.push(n);
      content.push(withText(line, rest));
      continue;
    }
    content.push(withText(line, ""));
  }
  const found = calloutShell(content, lines[from - 1], lines[to]);
  if (found === undefined) return undefined;
  const spaced = spacedBlanks.length > 0 && plainBlanks === 0;
  const exceptions = (spaced ? tight : [...tight, ...spacedBlanks]).sort((a, b) => a - b);
  if (exceptions.length > 0 && !lineForLine(content.slice(1))) return undefined;
  const shell: Shell = { ...found, spaced, indent, exceptions };
  if (env.dir === "remote" && shell.k === 0) return toContainer(shell, content[0] as Line, content.slice(1), env);
  const shifted = env.dir === "remote" ? shell.k - 1 : shell.k + 1;
  const head = content[0] as Line;
  content[0] = withText(head, MARK.repeat(shifted) + head.text.slice(shell.k * MARK.length));
  return prefixed(convertLines(content, env, false, false), shell);
}

/** The shell of a callout (quote content lines) that converts both ways, if it does. */
function calloutShell(content: readonly Line[], before: Line | undefined, after: Line | undefined): Shell | undefined {
  const match = CALLOUT_HEADER.exec((content[0] as Line).text);
  if (!match) return undefined;
  const spelling = match[2] as string;
  const type = containerTypeOf(spelling);
  const fold = match[3] as string;
  // What stands between the type and the title beyond one space: up to three more spaces, or a
  // no-break space instead of it (the title line carries it before its `**`).
  let written = match[5];
  let lead = "";
  if (match[4] === "\u00a0") {
    if (written === undefined || /^[ \t]*$/.test(written)) return undefined;
    lead = "\u00a0";
  } else if (written !== undefined && !/^[ \t]*$/.test(written)) {
    lead = (/^ */.exec(written) as RegExpExecArray)[0];
    if (lead.length > 3) return undefined;
    written = written.slice(lead.length);
  }
  // A title keeps trailing spaces or tabs as written (they ride after the closing `**`).
  // Only spaces after the type (`> [!note] `): no title; the spaces ride at the opener's end.
  const headTrail = written !== undefined && /^[ \t]*$/.test(written) ? ` ${written}` : "";
  const title = headTrail !== "" ? undefined : written === undefined ? undefined : trimEndBlanks(written);
  const trail = written === undefined || title === undefined ? "" : written.slice(title.length);
  if (type === undefined || (title !== undefined && !isTrimmed(title))) return undefined;
  if (!neighboursAllow(before, after, content.length > 1 && (content[content.length - 1] as Line).text === ""))
    return undefined;
  // Without a title, a first line that looks like one would come back as the title.
  if (title === undefined && content.length > 1 && titleLine((content[1] as Line).text) !== undefined) return undefined;
  return {
    k: (match[1] as string).length / MARK.length,
    type,
    spelling,
    fold,
    spaced: false,
    title,
    trail,
    lead,
    headTrail,
    indent: "",
    exceptions: [],
  };
}

/**
 * Lines around a callout or container that keep it one block both ways: before it, no quote line
 * (it would join the quote) and no colon line; after it, the end, a blank line, a heading or a fence
 * (nothing a callout's last paragraph could take as a lazy continuation). When the callout's last
 * line is blank (`>`), it has no last paragraph: any line but a quote or colon line may follow.
 */
function neighboursAllow(before: Line | undefined, after: Line | undefined, lastBlank = false): boolean {
  if (before !== undefined && (isQuoteLine(before.text) || isColonLine(before.text))) return false;
  return (
    after === undefined ||
    (lastBlank && !isQuoteLine(after.text) && !isColonLine(after.text)) ||
    isBlank(after.text) ||
    isHeading(after.text) ||
    fenceOpener(after.text) !== undefined ||
    BLOCK_ID_LINE.test(after.text)
  );
}

/**
 * A line that is only a block id (Obsidian's id of the block above) or its HackMD form, with any
 * markers: every form of its escape chain, so the same line allows a callout on both sides.
 */
const BLOCK_ID_LINE = /^(?:<!---->)*(?:\^[A-Za-z0-9-]+|<!--\^[A-Za-z0-9-]+-->)$/;

/** Look-ups over one sequence of lines, built on first use so texts without blocks pay nothing. */
class LineIndex {
  private exact: Map<string, number[]> | undefined;
  private colonLines: number[] | undefined;
  private colonRuns: number[] | undefined;
  private sparse: number[][] | undefined;

  constructor(private readonly lines: readonly Line[]) {}

  /** The first line after `after` whose text is exactly `text` (`%%` or a colon run). */
  nextExact(text: string, after: number): number | undefined {
    if (this.exact === undefined) {
      this.exact = new Map();
      this.lines.forEach((line, i) => {
        // colonRun first: it rules out most lines by their first character.
        if (line.text === "%%" || (colonRun(line.text) >= 3 && /^ {0,3}:{3,}$/.test(line.text))) {
          const list = this.exact?.get(line.text);
          if (list) list.push(i);
          else this.exact?.set(line.text, [i]);
        }
      });
    }
    const list = this.exact.get(text);
    if (list === undefined) return undefined;
    const at = firstGreater(list, after);
    return list[at];
  }

  /** The longest colon run (≥ 3) among lines `from` … `to - 1`, or 0. */
  maxColonRun(from: number, to: number): number {
    if (this.colonLines === undefined || this.colonRuns === undefined || this.sparse === undefined) {
      const colonLines: number[] = [];
      const colonRuns: number[] = [];
      this.lines.forEach((line, i) => {
        const run = colonRun(line.text);
        if (run >= 3) {
          colonLines.push(i);
          colonRuns.push(run);
        }
      });
      const sparse: number[][] = [colonRuns];
      for (let width = 1; width * 2 <= colonRuns.length; width *= 2) {
        const previous = sparse[sparse.length - 1] as number[];
        sparse.push(
          previous.slice(0, previous.length - width).map((value, i) => Math.max(value, previous[i + width] as number)),
        );
      }
      this.colonLines = colonLines;
      this.colonRuns = colonRuns;
      this.sparse = sparse;
    }
    const low = firstGreater(this.colonLines, from - 1);
    const high = firstGreater(this.colonLines, to - 1) - 1;
    if (low > high) return 0;
    const level = Math.floor(Math.log2(high - low + 1));
    const row = this.sparse[level] as number[];
    return Math.max(row[low] as number, row[high - (1 << level) + 1] as number);
  }
}

/** Index of the first element greater than `value` in an ascending list. */
function firstGreater(list: readonly number[], value: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((list[mid] as number) <= value) low = mid + 1;
    else high = mid;
  }
  return low;
}
