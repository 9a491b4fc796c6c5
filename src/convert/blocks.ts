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
  isQuoteLine,
  isThematicBreak,
  isTrimmed,
  MARK,
  type ContainerType,
} from "./syntax";

/** A container's first content line that is its title: `**Title**`, the title trimmed and non-empty. */
const TITLE_LINE = /^\*\*(\S(?:.*\S)?)\*\*([ \t]*)$/;
const CALLOUT_HEADER = /^((?:<!---->)*)\[!([A-Za-z]+)\]([+-]?)(?: (.*))?$/;
const CONTAINER_OPENER = /^(:{3,})((?:<!---->)*)([a-z]+)(?: ([A-Za-z]+)([+-]?))?( >)?([ \t]*)$/;
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
    if (!keepLines) {
      // After a `%%` line nothing closes, a restored block comment would close it instead: its placeholders stay as written.
      if (!unclosedComment && BLOCK_COMMENT.test(text) && index.nextExact("%%", i) === undefined)
        unclosedComment = true;
      const block =
        commentBlock(lines, i, index, env) ??
        (unclosedComment ? undefined : placeholderLine(lines, i, env)) ??
        container(lines, i, index, env);
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
      append(out, quote(lines, i, end, env, keepLines));
      if (text.startsWith(">")) inList = false;
      previous = "other";
      i = end;
      continue;
    }
    paragraph.push(line);
    if (isListItem(text) && !isThematicBreak(text)) inList = true;
    else if (indent < 2 && (previous !== "paragraph" || isHeading(text) || isThematicBreak(text))) inList = false;
    previous = isHeading(text) || isThematicBreak(text) ? "other" : "paragraph";
    i++;
  }
  flush();
  return out;
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
  /** A callout without a title whose header ends in spaces (`> [!note] `): kept at the opener's end. */
  readonly headTrail: string;
}

/**
 * A container `:::type` … `:::`. toLocal turns one at level 0 into a callout (its content converted);
 * every other case moves it along its escape chain with its content as written.
 */
function container(lines: readonly Line[], at: number, index: LineIndex, env: Env): Block | undefined {
  const opener = lines[at] as Line;
  const match = CONTAINER_OPENER.exec(opener.text);
  if (!match || !isContainerType(match[3] as string)) return undefined;
  const type = match[3] as ContainerType;
  const spelling = match[4];
  const fold = match[5] ?? "";
  const spaced = match[6] !== undefined;
  const headTrail = match[7] ?? "";
  if (spelling !== undefined && ((spelling === type && fold === "") || containerTypeOf(spelling) !== type))
    return undefined;
  const colons = (match[1] as string).length;
  const close = index.nextExact(":".repeat(colons), at);
  if (close === undefined) return undefined;
  // The closer must be the first line markdown-it-container could take as one, and no shorter marker would do.
  if (colons !== Math.max(3, index.maxColonRun(at + 1, close) + 1)) return undefined;
  if (!neighboursAllow(lines[at - 1], lines[close + 1], close > at + 1 && (lines[close - 1] as Line).text === ""))
    return undefined;
  const content = lines.slice(at + 1, close);
  const titleMatch = content.length > 0 ? TITLE_LINE.exec((content[0] as Line).text) : null;
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
  if (env.dir === "local" && k === 0) {
    const title = titleMatch ? titleMatch[1] : undefined;
    const trail = titleMatch ? (titleMatch[2] ?? "") : "";
    const shell: Shell = { k, type, spelling: spelling ?? type, fold, spaced, title, trail, headTrail };
    return { lines: toCallout(shell, opener, body, rc, env), next };
  }
  const shifted = env.dir === "remote" ? k + 1 : k - 1;
  return {
    lines: [
      withText(opener, `${":".repeat(colons)}${MARK.repeat(shifted)}${opener.text.slice(colons + k * MARK.length)}`),
      ...lines.slice(at + 1, next),
    ],
    next,
  };
}

/** Container (content converted) → callout. */
function toCallout(shell: Shell, opener: Line, body: readonly Line[], rc: string, env: Env): Line[] {
  const input = body.map((line, i) => (i === body.length - 1 && rc === "" ? { ...line, eol: "" } : line));
  const content = convertLines(input, env, false, false);
  const title = shell.title === undefined ? "" : ` ${convertInlineText(shell.title, env, opener.no + 1)}${shell.trail}`;
  const header: Line = {
    text: `> [!${shell.spelling}]${shell.fold}${title}${shell.headTrail}`,
    eol: body.length > 0 ? opener.eol : rc,
    no: opener.no,
  };
  const blank = shell.spaced ? "> " : ">";
  return [header, ...content.map((line) => withText(line, line.text === "" ? blank : `> ${line.text}`))];
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
    shell.headTrail;
  const out: Line[] = [{ text: colons + info, eol: separator, no: header.no }];
  if (shell.title !== undefined)
    out.push({
      text: `**${convertInlineText(shell.title, env, header.no)}**${shell.trail}`,
      eol: separator,
      no: header.no,
    });
  content.forEach((line, i) =>
    out.push(i === content.length - 1 && line.eol === "" ? { ...line, eol: separator } : line),
  );
  const lastEol = body.length > 0 ? (body[body.length - 1] as Line).eol : header.eol;
  out.push({ text: colons, eol: lastEol, no: (body[body.length - 1] ?? header).no });
  return out;
}

/**
 * A run of blockquote lines. With canonical prefixes (`> text` or `>` alone) its content is
 * converted as lines of their own; a callout whose shell converts becomes a container (toRemote,
 * level 0) or moves along its escape chain. Other runs keep each line's prefix and convert only
 * what keeps the line count.
 */
function quote(lines: readonly Line[], from: number, to: number, env: Env, keepLines: boolean): Line[] {
  const run = lines.slice(from, to);
  let canonical =
    !keepLines && run.every((line) => line.text === ">" || (line.text.startsWith("> ") && line.text.length > 2));
  // A callout whose blank lines are all written `> ` converts too; the container says so (" >").
  const spaced =
    !canonical &&
    !keepLines &&
    run.some((line) => line.text === "> ") &&
    run.every((line) => line.text.startsWith("> ")) &&
    CALLOUT_HEADER.test((run[0] as Line).text.slice(2));
  if (spaced) canonical = true;
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
  let content = run.map((line) => withText(line, line.text === ">" ? "" : line.text.slice(2)));
  const found = calloutShell(content, lines[from - 1], lines[to]);
  const shell = found === undefined ? undefined : { ...found, spaced };
  if (spaced && shell === undefined) {
    // Not a callout that converts: every line keeps its prefix, as any other quote.
    return quote(lines, from, to, env, true);
  }
  if (shell !== undefined) {
    if (env.dir === "remote" && shell.k === 0) return toContainer(shell, content[0] as Line, content.slice(1), env);
    const shifted = env.dir === "remote" ? shell.k - 1 : shell.k + 1;
    const head = content[0] as Line;
    content = [withText(head, MARK.repeat(shifted) + head.text.slice(shell.k * MARK.length)), ...content.slice(1)];
  }
  const blank = spaced ? "> " : ">";
  return convertLines(content, env, false, false).map((line) =>
    withText(line, line.text === "" ? blank : `> ${line.text}`),
  );
}

/** The shell of a callout (quote content lines) that converts both ways, if it does. */
function calloutShell(content: readonly Line[], before: Line | undefined, after: Line | undefined): Shell | undefined {
  const match = CALLOUT_HEADER.exec((content[0] as Line).text);
  if (!match) return undefined;
  const spelling = match[2] as string;
  const type = containerTypeOf(spelling);
  const fold = match[3] as string;
  // A title keeps trailing spaces or tabs as written (they ride after the closing `**`).
  const written = match[4];
  // Only spaces after the type (`> [!note] `): no title; the spaces ride at the opener's end.
  const headTrail = written !== undefined && /^[ \t]*$/.test(written) ? ` ${written}` : "";
  const title = headTrail !== "" ? undefined : written?.replace(/[ \t]+$/, "");
  const trail = written === undefined || title === undefined ? "" : written.slice(title.length);
  if (type === undefined || (title !== undefined && !isTrimmed(title))) return undefined;
  if (!neighboursAllow(before, after, content.length > 1 && (content[content.length - 1] as Line).text === ""))
    return undefined;
  // Without a title, a first line that looks like one would come back as the title.
  if (title === undefined && content.length > 1 && TITLE_LINE.test((content[1] as Line).text)) return undefined;
  return {
    k: (match[1] as string).length / MARK.length,
    type,
    spelling,
    fold,
    spaced: false,
    title,
    trail,
    headTrail,
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
        if (line.text === "%%" || /^:{3,}$/.test(line.text)) {
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
