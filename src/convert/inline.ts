/**
 * Inline constructs (docs/conversion-rules.md, "Inline rules"): wikilinks, embeds, Markdown images
 * and links, note embeds and comments, found by one left-to-right scanner outside code spans.
 *
 * Every construct is an O-form (Obsidian's) or an H-form (HackMD's). An O-form converts only if its
 * H-form converts back to exactly it, and an H-form only if its O-form converts to exactly it (the
 * round-trip guard), so the converted forms are in one-to-one correspondence. Text that already
 * has a form's shape but is not meant as one (a Markdown link to a tracked note typed in the vault,
 * a wikilink typed on HackMD) is escaped with markers: k markers before a construct shift it one
 * place along its chain, which keeps both directions total inverses.
 */

import { commentSource, spell, warn, type Env } from "./env";
import { type Line, withText } from "./lines";
import {
  decodePath,
  encodePath,
  hasScheme,
  headingAnchor,
  isDelimiterRow,
  isPlainText,
  isTrimmed,
  linesContaining,
  MARK,
  markers,
  trimEndBlanks,
} from "./syntax";

type TokenKind =
  "wikilink" | "embed" | "image" | "link" | "hackmd" | "comment" | "placeholder" | "blockid" | "blockmark";

interface Token {
  readonly kind: TokenKind;
  readonly end: number;
  readonly text: string;
  /** wikilink/embed: text between the brackets; comment: source; hackmd/placeholder: the id. */
  readonly inner: string;
  /** image alt or link text. */
  readonly label: string;
  readonly dest: string;
  /** image size after ` =` (`300x`, `300x200`), when present. */
  readonly size: string | undefined;
  /** link title (`[text](url "title")`), when present. */
  readonly title?: string | undefined;
}

// Sticky patterns, one each for the module: `sticky` sets `lastIndex` right before its `exec`, and
// nothing runs in between, so no use sees another's position (building one per use cost more
// than the match).
const PLACEHOLDER = /<!--obsidian-comment:([0-9a-f]{16})-->/y;
const HACKMD_EMBED = /\{%hackmd ([A-Za-z0-9_@/.~-]+) %\}/y;
const IMAGE_SIZE = / =(\d*x\d*)\)/y;
/** A block id at the end of a line (`text ^my-id`), and the HTML comment it becomes on HackMD. */
const BLOCK_ID = /\^([A-Za-z0-9-]+)(?=\n|$)/y;
const BLOCK_MARK = /<!--\^([A-Za-z0-9-]+)-->(?=\n|$)/y;
const LOCAL_SIZE = /^\d+(?:x\d+)?$/;

/** A text without any of these characters holds no construct (every construct starts with one). */
const MAY_HOLD_CONSTRUCT = /[[{%<^]/;

/** The placeholder a comment with this id leaves on HackMD. */
export function placeholder(id: string): string {
  return `<!--obsidian-comment:${id}-->`;
}

/** Converts the lines of one paragraph (consecutive prose lines; code spans may cross lines). */
export function convertParagraph(lines: readonly Line[], env: Env): readonly Line[] {
  // Most paragraphs hold no construct: each line is tested on its own, so those are neither joined
  // nor copied (a 1 MB note has tens of thousands of them).
  if (!lines.some((line) => MAY_HOLD_CONSTRUCT.test(line.text))) return lines;
  const text = lines.map((line) => line.text).join("\n");
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.text.length + 1;
  }
  let tableFrom = lines.length;
  for (let i = 0; i + 1 < lines.length; i++) {
    if (isDelimiterRow((lines[i + 1] as Line).text)) {
      tableFrom = i;
      break;
    }
  }
  const lineIndexAt = (position: number): number => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= position) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  // The mask lives only during this scan, so it may use the shared buffer (unless a scan that
  // holds it is still running: a rule converting text of its own gets a fresh one).
  const pooled = !maskBufferInUse;
  maskBufferInUse = true;
  let converted: string;
  try {
    converted = scan(text, codeMask(text, pooled ? sharedMask : undefined), env, (position) => {
      const index = lineIndexAt(position);
      return { table: index >= tableFrom, no: (lines[index] as Line).no };
    });
  } finally {
    if (pooled) maskBufferInUse = false;
  }
  if (converted === text) return lines;
  const parts = converted.split("\n");
  // Lines the scan left alone keep their own object.
  return lines.map((line, i) => (parts[i] === line.text ? line : withText(line, parts[i] as string)));
}

/** Converts one line of inline text (a callout title). */
export function convertInlineText(text: string, env: Env, no: number): string {
  return (convertParagraph([{ text, eol: "", no }], env)[0] as Line).text;
}

type Where = (position: number) => { table: boolean; no: number };

/**
 * Every character a construct may start with, as `scan` checks them one by one: `scan` jumps from
 * one to the next with this search. A rule whose construct starts with another character adds it
 * to both.
 */
const CONSTRUCT_START = /[<[!{%^]/g;

/** Whether a character code is one CONSTRUCT_START lists. */
function isConstructStart(code: number): boolean {
  return code === 60 || code === 91 || code === 33 || code === 123 || code === 37 || code === 94;
}

function scan(s: string, mask: Uint8Array | undefined, env: Env, where: Where): string {
  const out: string[] = [];
  let copied = 0;
  let i = 0;
  // After a `%%` that does not close on its line, a restored comment there would pair with it, so
  // comments and placeholders after it on that line stay as written (in both directions alike).
  let unclosed = false;
  let lastEnd = -1;
  const loose = looseBacktick(s, mask);
  while (i < s.length) {
    // Jump over the characters no construct starts with (most of a text) in one regex search
    // instead of a step per character; a line break among them ends an unclosed `%%` as before.
    // The next few characters are looked at first: where constructs are dense, the search's own
    // cost would outweigh the steps it saves.
    let next = i;
    const near = Math.min(s.length, i + 8);
    while (next < near && !isConstructStart(s.charCodeAt(next))) next++;
    if (next === near && near < s.length) {
      CONSTRUCT_START.lastIndex = near;
      next = CONSTRUCT_START.exec(s)?.index ?? s.length;
    }
    if (unclosed && next > i) {
      const lineBreak = s.indexOf("\n", i);
      if (lineBreak !== -1 && lineBreak < next) unclosed = false;
    }
    if (next === s.length) break;
    i = next;
    const code = s.charCodeAt(i);
    if (mask?.[i] === 1) {
      i++;
      continue;
    }
    // `<` (a marker, placeholder or block mark), `[`, `!`, `{`, `%` and `^` are the only characters a
    // construct starts with (CONSTRUCT_START lists the same).
    if (code !== 60 && code !== 91 && code !== 33 && code !== 123 && code !== 37 && code !== 94) {
      i++;
      continue;
    }
    const escaped = precededByEscape(s, i);
    // An escaped `<` makes that one marker text; a run of markers starts after it.
    if (escaped && s.startsWith(MARK, i)) {
      i += MARK.length;
      continue;
    }
    const run = unmaskedMarkers(s, i, mask);
    const start = run.end;
    let token = escaped ? undefined : parseToken(s, start, mask);
    // A block id (or its mark) counts only at a line's start or after a space or tab, before any markers.
    if ((token?.kind === "blockid" || token?.kind === "blockmark") && i > 0 && !/[ \t\n]/.test(s.charAt(i - 1)))
      token = undefined;
    if (token === undefined) {
      if (!escaped && s.startsWith("%%", start) && mask?.[start] !== 1) {
        unclosed = true;
        warn(
          env,
          where(start).no,
          "a %% comment that does not close on its line (or encloses code) is pushed as written",
        );
      }
      i = run.count > 0 ? start : i + 1;
      continue;
    }
    const afterBang = i > 0 && i !== lastEnd && s.charCodeAt(i - 1) === 33;
    let replacement: string | undefined;
    if (!frozen(s, i, lastEnd, token, unclosed) && !(loose < i && /`|&#96;/.test(token.text))) {
      const place = where(start);
      replacement = handle(token, run.count, { table: place.table, no: place.no, afterBang }, env);
    }
    if (replacement !== undefined) {
      out.push(s.slice(copied, i), replacement);
      copied = token.end;
    }
    i = token.end;
    lastEnd = token.end;
  }
  if (copied === 0) return s;
  out.push(s.slice(copied));
  return out.join("");
}

/**
 * The first backtick outside code spans and escapes (one no span closes), or the text's length.
 * A link whose text or title holds code is left as written after it in both directions: the code
 * spans its other form adds would pair with that backtick.
 */
function looseBacktick(s: string, mask: Uint8Array | undefined): number {
  if (mask === undefined) return s.length;
  for (let p = s.indexOf("`"); p !== -1; p = s.indexOf("`", p + 1))
    if (mask[p] !== 1 && !precededByEscape(s, p)) return p;
  return s.length;
}

/**
 * Constructs left as written in both directions because converting them would let them merge with
 * the text before them: comments and placeholders after an unclosed `%%` on their line or right
 * after a literal `%` (`%` + `%%c%%` reads as another comment), wikilinks and links right after a
 * literal `!` (`!` + `[x](u)` reads as an image). "Literal" means not the last character of the
 * previous construct, which is the same position in both texts.
 */
function frozen(s: string, at: number, lastEnd: number, token: Token, unclosed: boolean): boolean {
  const commentLike = token.kind === "comment" || token.kind === "placeholder";
  if (unclosed && commentLike) return true;
  if (at === 0 || at === lastEnd) return false;
  const before = s.charCodeAt(at - 1);
  if (before === 37) return commentLike;
  if (before === 33) return token.kind === "wikilink" || token.kind === "link";
  return false;
}

/** The converted text of a construct preceded by `k` markers, or undefined to leave it as written. */
function handle(
  token: Token,
  k: number,
  at: { table: boolean; no: number; afterBang: boolean },
  env: Env,
): string | undefined {
  const role = roleOf(token);
  if (role === undefined) return undefined;
  const { table } = at;
  // An embed whose HackMD form is a link would read as an image right after a literal `!`.
  const encodeChecked = (t: Token, tb: boolean, e: Env): string | undefined => {
    const remote = encodeCheckedAnywhere(t, tb, e);
    return remote !== undefined && at.afterBang && t.kind === "embed" && remote.startsWith("[") ? undefined : remote;
  };
  if (env.dir === "remote") {
    if (role === "O") {
      if (k > 0) return encodeChecked(token, table, env) === undefined ? undefined : MARK.repeat(k - 1) + token.text;
      if (token.kind === "embed" || token.kind === "image") noteImage(token, table, env);
      const remote = encodeChecked(token, table, env);
      if (remote === undefined) {
        if (token.kind === "comment") warn(env, at.no, "a comment whose id is already taken is pushed as written");
        return undefined;
      }
      if (token.kind === "comment") env.wrote.set(env.answers.commentId(token.inner), token.inner);
      return remote;
    }
    if (decodeChecked(token, table, env) !== undefined) return MARK.repeat(k + 1) + token.text;
    if (token.kind === "placeholder") env.literalIds.add(token.inner);
    return undefined;
  }
  if (role === "H") {
    if (k > 0) return decodeChecked(token, table, env) === undefined ? undefined : MARK.repeat(k - 1) + token.text;
    if (token.kind === "image") env.imageUrls.add(splitFragment(token.dest).base);
    const local = decodeChecked(token, table, env);
    if (local !== undefined && token.kind === "placeholder")
      env.wrote.set(token.inner, commentSource(env, token.inner) as string);
    return local;
  }
  return encodeChecked(token, table, env) === undefined ? undefined : MARK.repeat(k + 1) + token.text;
}

/** O-form (vault syntax), H-form (HackMD syntax), or neither. */
function roleOf(token: Token): "O" | "H" | undefined {
  switch (token.kind) {
    case "wikilink":
    case "embed":
    case "comment":
      return "O";
    case "blockid":
      return "O";
    case "hackmd":
    case "placeholder":
    case "blockmark":
      return "H";
    case "image":
      if (hasScheme(token.dest)) return "H";
      return token.size === undefined ? "O" : undefined;
    case "link":
      return hasScheme(token.dest) || (token.title !== undefined && token.dest.startsWith("#")) ? "H" : undefined;
  }
}

/**
 * Kinds whose checked conversion (`encodeCheckedAnywhere`, `decodeChecked`) depends only on the
 * token's text, the table flag and the context's answers, which stay the same for one conversion
 * (`recordingAnswers` asks each question once). A note links the same notes and images many
 * times, so each conversion keeps their results by text: the first one asked and recorded every
 * question, so the record is the same. Comments and placeholders are not listed: they depend on
 * the comments this conversion already wrote. A rule whose conversion depends on anything else
 * (its position, the text around it) must not be listed.
 */
const REPEATABLE: ReadonlySet<TokenKind> = new Set<TokenKind>([
  "wikilink",
  "embed",
  "image",
  "link",
  "hackmd",
  "blockid",
  "blockmark",
]);

function repeatable(
  way: "encode" | "decode",
  token: Token,
  table: boolean,
  env: Env,
  convert: (token: Token, table: boolean, env: Env) => string | undefined,
): string | undefined {
  if (!REPEATABLE.has(token.kind)) return convert(token, table, env);
  // Per conversion (its Env, not a WeakMap keyed by it: that look-up cost more than the maps'):
  // one map per direction and table flag, by the token's text (which decides its kind).
  let memos = env.checked;
  if (memos === undefined) {
    memos = [new Map(), new Map(), new Map(), new Map()];
    env.checked = memos;
  }
  const memo = memos[(way === "encode" ? 0 : 2) + (table ? 1 : 0)] as Map<string, string | null>;
  const known = memo.get(token.text);
  if (known !== undefined) return known ?? undefined;
  const result = convert(token, table, env);
  memo.set(token.text, result ?? null);
  return result;
}

/** An O-form's H-form, if it converts back to exactly the O-form (wherever it stands; see `handle`). */
function encodeCheckedAnywhere(token: Token, table: boolean, env: Env): string | undefined {
  return repeatable("encode", token, table, env, encodeCheckedOnce);
}

/** An H-form's O-form, if it converts back to exactly the H-form. */
function decodeChecked(token: Token, table: boolean, env: Env): string | undefined {
  return repeatable("decode", token, table, env, decodeCheckedOnce);
}

/** `encodeCheckedAnywhere` without the memo. */
function encodeCheckedOnce(token: Token, table: boolean, env: Env): string | undefined {
  const remote = encode(token, table, env);
  if (remote === undefined) return undefined;
  // A comment's placeholder converts back once its source is kept, which toRemote's result arranges.
  if (token.kind === "comment") return remote;
  const back = whole(remote);
  if (back === undefined || roleOf(back) !== "H") return undefined;
  return decode(back, table, env) === token.text ? remote : undefined;
}

/** `decodeChecked` without the memo. */
function decodeCheckedOnce(token: Token, table: boolean, env: Env): string | undefined {
  const local = decode(token, table, env);
  if (local === undefined) return undefined;
  const back = whole(local);
  if (back === undefined || roleOf(back) !== "O") return undefined;
  return encode(back, table, env) === token.text ? local : undefined;
}

/** A string that is exactly one construct. */
function whole(text: string): Token | undefined {
  const token = parseToken(text, 0, codeMask(text));
  return token !== undefined && token.end === text.length ? token : undefined;
}

function encode(token: Token, table: boolean, env: Env): string | undefined {
  switch (token.kind) {
    case "wikilink":
      return encodeWikilink(token, table, env);
    case "embed":
      return encodeEmbed(token, table, env);
    case "image":
      return encodeImage(token, table, env);
    case "comment": {
      const id = env.answers.commentId(token.inner);
      const known = commentSource(env, id);
      return known === null || known === token.inner ? placeholder(id) : undefined;
    }
    case "blockid":
      return `<!--^${token.inner}-->`;
    default:
      return undefined;
  }
}

function decode(token: Token, table: boolean, env: Env): string | undefined {
  switch (token.kind) {
    case "link":
      return decodeLink(token, table, env);
    case "image":
      return decodeImage(token, table, env);
    case "hackmd": {
      const path = env.answers.noteById(token.inner);
      return path === null ? undefined : `![[${spell(env, "note", path)}]]`;
    }
    case "blockmark":
      return `^${token.inner}`;
    case "placeholder": {
      const source = commentSource(env, token.inner);
      return source === null || /[\n\r]/.test(source) || source.includes("%%") ? undefined : `%%${source}%%`;
    }
    default:
      return undefined;
  }
}

/** A wikilink's canonical H-form if it has one, else its titled form (see `encodeTitled`). */
function encodeWikilink(token: Token, table: boolean, env: Env): string | undefined {
  const canonical = encodeCanonical(token, table, env);
  const back = canonical === undefined ? undefined : whole(canonical);
  if (back !== undefined && decode(back, table, env) === token.text) return canonical;
  const target = splitAlias(token.inner, table)?.target ?? "";
  const base = target.includes("#") ? target.slice(0, target.indexOf("#")) : target;
  // A link to a file that is not a note: HackMD has nothing to point at.
  if (/\.[A-Za-z0-9]+$/.test(base) && !base.endsWith(".md") && isPlainText(base)) return encodeFile(token, base, "");
  return encodeTitled(token, table, env);
}

/**
 * The wikilinks the canonical form cannot carry — a heading with an alias, an alias under another
 * spelling or case (`[[Views|views]]`, `[[dir/Deep|d]]`), a block link, a link to a heading of
 * the same note (`[[#Heading]]`) — become a link whose title is the wikilink as written:
 * `[alias](url#anchor "Note#Heading|alias")`. HackMD shows the alias (or `Note > Heading`) as a
 * working link and the title as its tooltip; the title gives the wikilink back exactly.
 */
function encodeTitled(token: Token, table: boolean, env: Env, prefix: "" | "!" = ""): string | undefined {
  const inner = token.inner;
  if (inner.includes('"')) return undefined;
  const parts = splitAlias(inner, table);
  if (parts === undefined) return undefined;
  const hash = parts.target.indexOf("#");
  const name = hash === -1 ? parts.target : parts.target.slice(0, hash);
  const heading = hash === -1 ? undefined : parts.target.slice(hash + 1);
  let url = "";
  let notePath: string | null = null;
  // Obsidian ignores spaces at the end of a link's name (`[[Quick switcher ]]`); the title keeps them.
  const bare = name.trimEnd();
  if (name !== "") {
    if (!isPlainText(bare)) return undefined;
    notePath = env.answers.target("note", bare);
    const found = notePath === null ? null : env.answers.noteUrl(notePath);
    if (found === null || !isLinkUrl(found)) return undefined;
    url = found;
  } else if (heading === undefined) return undefined;
  let dest = url;
  let shown = bare;
  if (heading !== undefined) {
    if (!isPlainCode(heading)) return undefined;
    // `Note#A#B` is heading B under heading A (Obsidian's nested heading link): HackMD's anchor is B's.
    const sections = heading.split("#");
    if (sections.length > 1 && sections.some((section) => !isPlainCode(section) || section.startsWith("^")))
      return undefined;
    if (heading.startsWith("^")) {
      // A block link: HackMD has no block anchors, so it goes to the note; within the same note
      // its text shows, going nowhere (`#obsidian-block`, like the file form).
      if (name === "") {
        if (!/^\^[A-Za-z0-9-]+$/.test(heading)) return undefined;
        dest = BLOCK_DEST;
        shown = heading;
      }
    } else {
      const last = sections[sections.length - 1] as string;
      const anchor = name === "" ? headingAnchor(ownHeading(env, last) ?? last) : anchorOf(env, notePath, last);
      if (anchor === "") return undefined;
      dest = `${url}#${anchor}`;
      shown = name === "" ? sections.join(" > ") : `${bare} > ${sections.join(" > ")}`;
    }
  }
  const label = parts.alias ?? shown;
  if (!isPlainCode(label)) return undefined;
  // A backtick in the title would pair with code spans around the link: it rides as `&#96;`,
  // which the tooltip shows as a backtick.
  return `[${label}](${dest} "${prefix}${inner.replace(/`/g, "&#96;")}")`;
}

/**
 * Text a titled link may carry in its text or a wikilink in a segment: plain text (`isPlainText`),
 * or plain text with code spans that each close within it (`` `hasTag` ``).
 */
function isPlainCode(text: string): boolean {
  if (!text.includes("`")) return isPlainText(text);
  if (!isTrimmed(text) || /[[\]|\\\n\r]|<!--|\{%|%%|&#96;/.test(text)) return false;
  const mask = codeMask(text) as Uint8Array;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 96 && mask[i] !== 1) return false;
  return true;
}

/** `[[Note]]` → `[Note](url)`; `[[Note#Heading]]` → `[Note > Heading](url#anchor)`; `[[Note|alias]]` → `[alias](url)`. */
function encodeCanonical(token: Token, table: boolean, env: Env): string | undefined {
  const parts = splitAlias(token.inner, table);
  if (parts === undefined) return undefined;
  const hash = parts.target.indexOf("#");
  const name = hash === -1 ? parts.target : parts.target.slice(0, hash);
  const heading = hash === -1 ? undefined : parts.target.slice(hash + 1);
  if (!isPlainText(name)) return undefined;
  if (heading !== undefined && parts.alias !== undefined) return undefined;
  const path = env.answers.target("note", name);
  const url = path === null ? null : env.answers.noteUrl(path);
  if (url === null || !isLinkUrl(url)) return undefined;
  if (heading !== undefined) {
    if (name.includes(">") || !isPlainText(heading) || heading.includes("#") || heading.startsWith("^"))
      return undefined;
    const anchor = anchorOf(env, path, heading);
    return anchor === "" ? undefined : `[${name} > ${heading}](${url}#${anchor})`;
  }
  // An alias link's text holds no spelling: with `shortest` paths only a bare name (no folder) is
  // written this way, so a path the author wrote is carried by the titled form and never
  // respelled to a shorter name (`absolute` always spells the whole path).
  if (parts.alias !== undefined)
    return isPlainText(parts.alias) && (env.linkFormat === "absolute" || !name.includes("/"))
      ? `[${parts.alias}](${url})`
      : undefined;
  return `[${name}](${url})`;
}

/**
 * The anchor HackMD gives the heading a link names: from the heading as the target note spells it
 * when its headings are known (Obsidian matches headings in any case, HackMD's anchors are
 * case-sensitive), else as the link spells it.
 */
function anchorOf(env: Env, path: string | null, heading: string): string {
  const spelled = path === null || heading.startsWith("^") ? null : env.answers.heading(`${path}#${heading}`);
  return headingAnchor(spelled ?? heading);
}

/**
 * The heading of the text being converted that a same-note link names, as the text spells it
 * (compared in any case, as Obsidian does), or null. Only headings that read the same in both
 * forms count: lines `#…` with any quote prefix stripped (a callout's heading is a container's),
 * plus the lines of every block comment a placeholder line stands for, and no heading holding a
 * character a construct could start or end with. So the vault text and its HackMD text list the
 * same headings, and a link converts the same way on both sides.
 */
function ownHeading(env: Env, heading: string): string | null {
  if (env.ownHeadings === undefined) {
    const found = { exact: new Set<string>(), folded: new Map<string, string>() };
    const take = (line: string): void => {
      const text = ownHeadingText(line);
      if (text === undefined) return;
      found.exact.add(text);
      if (!found.folded.has(text.toLowerCase())) found.folded.set(text.toLowerCase(), text);
    };
    // Only lines holding a `#` or a placeholder can add a heading: the others are passed over by
    // native searches (this scan runs once per conversion over the whole note).
    for (const raw of linesContaining(env.input, "#", PLACEHOLDER_PREFIX)) {
      const first = raw.charCodeAt(0);
      const line = first === 32 || first === 9 || first === 62 ? raw.replace(/^(?:[ \t]*>)+/, "") : raw;
      if (line.includes("#")) take(line);
      if (!line.includes(PLACEHOLDER_PREFIX)) continue;
      const id = PLACEHOLDER_ALONE.exec(line.trim())?.[1];
      const source = id === undefined ? null : env.answers.comment(id);
      if (source !== null && /^%%(?:\r\n|\n|\r)/.test(source))
        for (const inner of source.split(/\r\n|\n|\r/)) take(inner);
    }
    env.ownHeadings = found;
  }
  // A heading written exactly so first: with `Setup` and `setup`, `[[#setup]]` is the second.
  if (env.ownHeadings.exact.has(heading)) return heading;
  return env.ownHeadings.folded.get(heading.toLowerCase()) ?? null;
}

/**
 * The text of a heading line whose text no conversion changes: what
 * `^[ \t]*#{1,6}[ \t]+([^[\]!{}%<>^`\\|#\n\r]*[^[\]!{}%<>^`\\|#\s])[ \t]*$` captured, found in
 * linear time (that expression was quadratic on `#` and a long run of spaces before a `!`).
 */
function ownHeadingText(line: string): string | undefined {
  // Most lines holding a `#` are not headings (`[[#…]]`, `#tag`): the first character after the
  // blanks tells, without the expression.
  let p = 0;
  while (line.charCodeAt(p) === 32 || line.charCodeAt(p) === 9) p++;
  if (line.charCodeAt(p) !== 35) return undefined;
  const prefix = /^[ \t]*#{1,6}[ \t]+/.exec(line);
  if (prefix === null) return undefined;
  const text = trimEndBlanks(line.slice(prefix[0].length));
  if (text === "" || /\s/.test(text.charAt(text.length - 1)) || /[[\]!{}%<>^`\\|#\n\r]/.test(text)) return undefined;
  return text;
}
/** A placeholder alone on a line, with any markers. */
const PLACEHOLDER_PREFIX = "<!--obsidian-comment:";
const PLACEHOLDER_ALONE = /^(?:<!---->)*<!--obsidian-comment:([0-9a-f]{16})-->$/;

/** A link to a tracked note's URL → the wikilink that wrote it (see `encodeWikilink`). */
function decodeLink(token: Token, table: boolean, env: Env): string | undefined {
  // A titled link carries the wikilink that wrote it (see `encodeTitled`); the guard checks it.
  if (token.title !== undefined) {
    const title = token.title.replace(/&#96;/g, "`");
    return title.startsWith("!") ? `![[${title.slice(1)}]]` : `[[${title}]]`;
  }
  const { base, fragment } = splitFragment(token.dest);
  const path = env.answers.noteByUrl(base);
  if (path === null) return undefined;
  const label = token.label;
  if (fragment !== undefined) {
    const cut = label.indexOf(" > ");
    if (cut === -1) return undefined;
    const name = label.slice(0, cut);
    const heading = label.slice(cut + 3);
    if (env.answers.target("note", name) !== path || anchorOf(env, path, heading) !== fragment) return undefined;
    return `[[${name}#${heading}]]`;
  }
  if (env.answers.target("note", label) === path) return `[[${label}]]`;
  return `[[${spell(env, "note", path)}${table ? "\\|" : "|"}${label}]]`;
}

/**
 * `![[pic.png]]` → `![pic.png](url)`, `![[pic.png#frag|300]]` → `![pic.png#frag](url =300x)`;
 * `![[Note]]` → `{%hackmd id %}`; `![[Note#Heading]]` and `![[Note#^block]]` → a titled link to
 * the section; an embed of a file HackMD cannot show (SVG, video, audio, PDF, …) → a titled link
 * named after the file (see `encodeTitled`).
 */
function encodeEmbed(token: Token, table: boolean, env: Env): string | undefined {
  const parts = splitAlias(token.inner, table);
  if (parts === undefined || !isPlainText(parts.target)) return undefined;
  const hash = parts.target.indexOf("#");
  const base = hash === -1 ? parts.target : parts.target.slice(0, hash);
  if (base === "") return undefined;
  const noteLike = base.endsWith(".md") || !/\.[A-Za-z0-9]+$/.test(base);
  const notePath = noteLike ? env.answers.target("note", base) : null;
  if (notePath !== null) {
    if (hash !== -1) return encodeTitled(token, table, env, "!");
    if (parts.alias !== undefined) return undefined;
    const id = env.answers.noteId(notePath);
    return id === null || !/^[A-Za-z0-9_@/.~-]+$/.test(id) ? undefined : `{%hackmd ${id} %}`;
  }
  if (!UPLOADABLE.test(base)) return noteLike ? undefined : encodeFile(token, base, "!");
  if (parts.alias !== undefined && !LOCAL_SIZE.test(parts.alias)) return undefined;
  const path = env.answers.target("file", base);
  const url = path === null ? null : env.answers.imageUrl(path);
  if (url === null || !isLinkUrl(url)) return undefined;
  return `![${parts.target}](${url}${remoteSize(parts.alias)})`;
}

/** Image types HackMD's upload takes (src/core/image.ts sniffs the same four). */
const UPLOADABLE = /\.(?:png|jpe?g|gif|webp)$/i;

/**
 * A link or embed of a vault file HackMD cannot show or hold (SVG, video, audio, PDF, a Bases
 * view, …) → `[name](#obsidian-file "!inner")`: the file's name as a visible link text that goes
 * nowhere, the wikilink as its title, so it comes back exactly. Whether the file exists is not
 * asked, so every vault converts it alike.
 */
function encodeFile(token: Token, base: string, prefix: "" | "!"): string | undefined {
  if (token.inner.includes('"')) return undefined;
  const name = base.slice(base.lastIndexOf("/") + 1);
  if (!isPlainText(name)) return undefined;
  return `[${name}](${FILE_DEST} "${prefix}${token.inner}")`;
}

const FILE_DEST = "#obsidian-file";
const BLOCK_DEST = "#obsidian-block";

/** `![alt](attachments/pic%20x.png)` → `![alt](url)`, carrying the path as written in the URL fragment when toLocal would not spell it so. */
function encodeImage(token: Token, table: boolean, env: Env): string | undefined {
  const separator = table ? "\\|" : "|";
  let alt = token.label;
  let size: string | undefined;
  const cut = alt.lastIndexOf(separator);
  if (cut !== -1 && LOCAL_SIZE.test(alt.slice(cut + separator.length))) {
    size = alt.slice(cut + separator.length);
    alt = alt.slice(0, cut);
  }
  if (table && /(?<!\\)\|/.test(alt)) return undefined;
  const linkpath = imageLinkpath(token.dest);
  const path = linkpath === undefined ? null : env.answers.target("file", linkpath);
  const url = path === null ? null : env.answers.imageUrl(path);
  if (url === null || !isLinkUrl(url)) return undefined;
  for (const candidate of [
    `![${alt}](${url}${remoteSize(size)})`,
    `![${alt}](${url}#${token.dest}${remoteSize(size)})`,
  ]) {
    const back = whole(candidate);
    if (back !== undefined && decode(back, table, env) === token.text) return candidate;
  }
  return undefined;
}

/** An image on HackMD whose URL an uploaded vault image has → the embed or Markdown image that wrote it. */
function decodeImage(token: Token, table: boolean, env: Env): string | undefined {
  const separator = table ? "\\|" : "|";
  const { base, fragment } = splitFragment(token.dest);
  let size = "";
  if (token.size !== undefined) {
    const match = /^(\d+)x(\d*)$/.exec(token.size);
    if (!match) return undefined;
    size = separator + (match[2] === "" ? (match[1] as string) : token.size);
  }
  if (fragment === undefined && token.label !== "") {
    // The alt text names the image, with the embed's fragment if it had one (`pic.png#outline`).
    const hashAt = token.label.indexOf("#");
    const named = env.answers.target("file", hashAt === -1 ? token.label : token.label.slice(0, hashAt));
    if (named !== null && env.answers.imageUrl(named) === base) return `![[${token.label}${size}]]`;
  }
  let destination: string;
  if (fragment !== undefined) {
    const linkpath = imageLinkpath(fragment);
    const path = linkpath === undefined ? null : env.answers.target("file", linkpath);
    if (path === null || env.answers.imageUrl(path) !== base) return undefined;
    destination = fragment;
  } else {
    const path = env.answers.imageByUrl(base);
    if (path === null) return undefined;
    destination = encodePath(spell(env, "file", path));
  }
  return `![${token.label}${size}](${destination})`;
}

/** Records the vault image an embed names, for the engine to upload (toRemote at level 0). */
function noteImage(token: Token, table: boolean, env: Env): void {
  let linkpath: string | undefined;
  if (token.kind === "embed") {
    const parts = splitAlias(token.inner, table);
    if (parts === undefined || (parts.alias !== undefined && !LOCAL_SIZE.test(parts.alias))) return;
    linkpath = parts.target.includes("#") ? parts.target.slice(0, parts.target.indexOf("#")) : parts.target;
    if (linkpath.endsWith(".md") || !/\.[A-Za-z0-9]+$/.test(linkpath)) return;
  } else {
    linkpath = imageLinkpath(token.dest);
  }
  const path = linkpath === undefined ? null : env.answers.target("file", linkpath);
  if (path !== null && /\.(?:png|jpe?g|gif|webp)$/i.test(path)) env.images.add(path);
}

/**
 * The vault path a Markdown image's destination names: percent-decoded, without the `#fragment`
 * Obsidian reads as a display hint (`pic.png#interface`); the destination as written still rides
 * in the HackMD URL's fragment, so it comes back exactly.
 */
function imageLinkpath(destination: string): string | undefined {
  const hash = destination.indexOf("#");
  return hash === 0 ? undefined : decodePath(hash === -1 ? destination : destination.slice(0, hash));
}

function remoteSize(size: string | undefined): string {
  if (size === undefined) return "";
  return ` =${size.includes("x") ? size : `${size}x`}`;
}

/** Target and alias of `[[target|alias]]` (`\|` inside tables); undefined when a bare pipe would split a table cell. */
function splitAlias(inner: string, table: boolean): { target: string; alias: string | undefined } | undefined {
  const separator = table ? "\\|" : "|";
  const cut = inner.indexOf(separator);
  const target = cut === -1 ? inner : inner.slice(0, cut);
  const alias = cut === -1 ? undefined : inner.slice(cut + separator.length);
  if (table && (target.includes("|") || (alias?.includes("|") ?? false))) return undefined;
  return { target, alias };
}

function splitFragment(destination: string): { base: string; fragment: string | undefined } {
  const hash = destination.indexOf("#");
  return hash === -1
    ? { base: destination, fragment: undefined }
    : { base: destination.slice(0, hash), fragment: destination.slice(hash + 1) };
}

/** A URL a rule may write as a link destination: a scheme, and nothing that ends a destination or starts a construct. */
function isLinkUrl(url: string): boolean {
  return hasScheme(url) && !/[\s()#[\]\\`<>]/.test(url) && !url.includes("%%") && !url.includes("{%");
}

/** Parses the construct starting exactly at `at`, if any. */
function parseToken(s: string, at: number, mask: Uint8Array | undefined): Token | undefined {
  const code = s.charCodeAt(at);
  if (code === 33) {
    if (s.startsWith("![[", at)) return bracketed(s, at, 3, "embed", mask);
    if (s.charCodeAt(at + 1) === 91) return linkish(s, at, "image", mask);
    return undefined;
  }
  if (code === 91)
    return s.charCodeAt(at + 1) === 91 ? bracketed(s, at, 2, "wikilink", mask) : linkish(s, at, "link", mask);
  if (code === 123) return sticky(s, at, HACKMD_EMBED, "hackmd", mask);
  // Both `<` constructs start with `<!--`: any other `<` (HTML) is none.
  if (code === 60)
    return s.startsWith("<!--", at)
      ? (sticky(s, at, PLACEHOLDER, "placeholder", mask) ?? sticky(s, at, BLOCK_MARK, "blockmark", mask))
      : undefined;
  if (code === 94) return sticky(s, at, BLOCK_ID, "blockid", mask);
  if (code === 37 && s.charCodeAt(at + 1) === 37) {
    const close = s.indexOf("%%", at + 2);
    if (close === -1) return undefined;
    const inner = s.slice(at + 2, close);
    if (/[\n\r]/.test(inner) || maskedIn(mask, at, close + 2)) return undefined;
    return token("comment", s, at, close + 2, inner);
  }
  return undefined;
}

function token(
  kind: TokenKind,
  s: string,
  at: number,
  end: number,
  inner: string,
  label = "",
  dest = "",
  size?: string,
): Token {
  return { kind, end, text: s.slice(at, end), inner, label, dest, size };
}

function sticky(
  s: string,
  at: number,
  pattern: RegExp,
  kind: TokenKind,
  mask: Uint8Array | undefined,
): Token | undefined {
  pattern.lastIndex = at;
  const match = pattern.exec(s);
  if (!match) return undefined;
  const end = at + match[0].length;
  return maskedIn(mask, at, end) ? undefined : token(kind, s, at, end, match[1] as string);
}

/** `[[inner]]` or `![[inner]]`. */
function bracketed(
  s: string,
  at: number,
  open: number,
  kind: TokenKind,
  mask: Uint8Array | undefined,
): Token | undefined {
  const from = at + open;
  for (let p = from; p < s.length; p++) {
    if (s.charCodeAt(p) === 93) {
      if (s.charCodeAt(p + 1) !== 93 || p === from || mask?.[p + 1] === 1 || mask?.[p] === 1) return undefined;
      return token(kind, s, at, p + 2, s.slice(from, p));
    }
    if (s.charCodeAt(p) === 92 && s.charCodeAt(p + 1) === 124 && mask?.[p + 1] !== 1) {
      p++;
      continue;
    }
    const span = codeSpanEnd(s, p, mask);
    if (span !== undefined) {
      p = span - 1;
      continue;
    }
    if (stops(s, p, mask)) return undefined;
  }
  return undefined;
}

/**
 * A code span that starts at `p` (a masked backtick run) and holds only what a wikilink's segment
 * may hold (`[[Functions#hasTag|\`hasTag\`]]`): where it ends, else undefined. A span that reaches
 * past the construct is caught by the caller, which then meets a masked `]` or the end.
 */
function codeSpanEnd(s: string, p: number, mask: Uint8Array | undefined): number | undefined {
  if (mask?.[p] !== 1 || s.charCodeAt(p) !== 96 || (p > 0 && mask[p - 1] === 1)) return undefined;
  let q = p;
  while (q < s.length && mask[q] === 1) q++;
  if (s.charCodeAt(q - 1) !== 96 || CODE_STOPS.test(s.slice(p, q))) return undefined;
  return q;
}

/** What a code span inside a link may not hold: it would end the construct or change how it parses. */
const CODE_STOPS = /[[\]|\\\n\r"]|<!--|\{%|%%|&#96;/;

/** `[text](destination)` or `![alt](destination)` / `![alt](destination =WxH)`. */
function linkish(s: string, at: number, kind: TokenKind, mask: Uint8Array | undefined): Token | undefined {
  const from = at + (kind === "image" ? 2 : 1);
  let p = from;
  let code = false;
  for (; p < s.length; p++) {
    if (s.charCodeAt(p) === 93) break;
    if (s.charCodeAt(p) === 92 && s.charCodeAt(p + 1) === 124 && mask?.[p + 1] !== 1) {
      p++;
      continue;
    }
    const span = kind === "link" ? codeSpanEnd(s, p, mask) : undefined;
    if (span !== undefined) {
      code = true;
      p = span - 1;
      continue;
    }
    if (stops(s, p, mask)) return undefined;
  }
  if (p >= s.length || mask?.[p] === 1 || s.charCodeAt(p + 1) !== 40 || mask?.[p + 1] === 1) return undefined;
  const label = s.slice(from, p);
  let q = p + 2;
  for (; q < s.length; q++) {
    const c = s.charCodeAt(q);
    if (c === 41 || c === 32) break;
    if (c === 40 || c === 9 || c === 92 || stops(s, q, mask)) return undefined;
  }
  if (q >= s.length || q === p + 2 || mask?.[q] === 1) return undefined;
  const dest = s.slice(p + 2, q);
  // Only a titled link (a wikilink's H-form) may have code in its text.
  if (s.charCodeAt(q) === 41) return code ? undefined : token(kind, s, at, q + 1, "", label, dest);
  if (kind === "link") return titled(s, at, q, label, dest, mask);
  if (kind !== "image") return undefined;
  IMAGE_SIZE.lastIndex = q;
  const size = IMAGE_SIZE.exec(s);
  if (!size) return undefined;
  const end = q + size[0].length;
  return maskedIn(mask, q, end) ? undefined : token(kind, s, at, end, "", label, dest, size[1]);
}

/** `[text](destination "title")` from the space after the destination; the title holds no `"` and nothing that stops a construct (but `\|`). */
function titled(
  s: string,
  at: number,
  q: number,
  label: string,
  dest: string,
  mask: Uint8Array | undefined,
): Token | undefined {
  if (!s.startsWith(' "', q)) return undefined;
  const from = q + 2;
  for (let p = from; p < s.length; p++) {
    const c = s.charCodeAt(p);
    if (c === 34) {
      if (s.charCodeAt(p + 1) !== 41 || p === from || maskedIn(mask, q, p + 2)) return undefined;
      return { ...token("link", s, at, p + 2, "", label, dest), title: s.slice(from, p) };
    }
    if (c === 92 && s.charCodeAt(p + 1) === 124 && mask?.[p + 1] !== 1) {
      p++;
      continue;
    }
    if (stops(s, p, mask)) return undefined;
  }
  return undefined;
}

/** Characters no construct may contain unless they are its own syntax: brackets, backslash, backtick, line breaks, code, and every construct's start. */
function stops(s: string, p: number, mask: Uint8Array | undefined): boolean {
  if (mask?.[p] === 1) return true;
  switch (s.charCodeAt(p)) {
    case 91:
    case 93:
    case 92:
    case 96:
    case 10:
    case 13:
      return true;
    case 60:
      return s.startsWith("<!--", p);
    case 123:
    case 37:
      return s.charCodeAt(p + 1) === 37;
    default:
      return false;
  }
}

/** The markers at `at` that lie outside code spans. */
function unmaskedMarkers(s: string, at: number, mask: Uint8Array | undefined): { count: number; end: number } {
  if (mask === undefined) return markers(s, at);
  let end = at;
  let count = 0;
  while (s.startsWith(MARK, end) && !maskedIn(mask, end, end + MARK.length)) {
    end += MARK.length;
    count++;
  }
  return { count, end };
}

function maskedIn(mask: Uint8Array | undefined, from: number, to: number): boolean {
  if (mask === undefined) return false;
  for (let p = from; p < to; p++) if (mask[p] === 1) return true;
  return false;
}

/** An odd number of backslashes just before `at` escapes the character there. */
function precededByEscape(s: string, at: number): boolean {
  let count = 0;
  for (let p = at - 1; p >= 0 && s.charCodeAt(p) === 92; p--) count++;
  return count % 2 === 1;
}

/**
 * Marks code spans (CommonMark §6.1): a backtick run opens a span closed by the next run of the
 * same length; backslash escapes count outside spans only. Over-marking is safe (nothing inside a
 * mark converts, on both sides alike); missing a span would convert code.
 */
export function codeMask(s: string, allocate: (length: number) => Uint8Array = fresh): Uint8Array | undefined {
  if (!s.includes("`")) return undefined;
  const runStart: number[] = [];
  const runLength: number[] = [];
  // Both passes jump between the characters they act on (`indexOf`, one regex search) instead of
  // stepping through every other character, which they would only pass over.
  for (let i = s.indexOf("`"); i !== -1;) {
    let j = i;
    while (s.charCodeAt(j) === 96) j++;
    runStart.push(i);
    runLength.push(j - i);
    i = s.indexOf("`", j);
  }
  const byLength = new Map<number, number[]>();
  runLength.forEach((length, index) => {
    const list = byLength.get(length);
    if (list) list.push(index);
    else byLength.set(length, [index]);
  });
  const cursor = new Map<number, number>();
  const mask = allocate(s.length);
  let run = 0;
  let i = 0;
  while (i < s.length) {
    BACKSLASH_OR_BACKTICK.lastIndex = i;
    const next = BACKSLASH_OR_BACKTICK.exec(s);
    if (next === null) break;
    i = next.index;
    const code = s.charCodeAt(i);
    if (code === 92 && i + 1 < s.length && isAsciiPunctuation(s.charCodeAt(i + 1))) {
      i += 2;
      continue;
    }
    if (code !== 96) {
      i++;
      continue;
    }
    while ((runStart[run] as number) + (runLength[run] as number) <= i) run++;
    const length = (runStart[run] as number) + (runLength[run] as number) - i;
    const list = byLength.get(length) ?? [];
    let at = cursor.get(length) ?? 0;
    while (at < list.length && (runStart[list[at] as number] as number) < i + length) at++;
    cursor.set(length, at);
    const closer = list[at];
    if (closer === undefined) {
      i += length;
      continue;
    }
    const end = (runStart[closer] as number) + length;
    mask.fill(1, i, end);
    i = end;
  }
  return mask;
}

function fresh(length: number): Uint8Array {
  return new Uint8Array(length);
}

/**
 * One buffer for the masks of `convertParagraph`, which live for one scan each: a paragraph with a
 * backtick allocated a fresh zeroed buffer, which cost more than scanning it. Masks longer than
 * `SHARED_MASK_MAX` get their own (the buffer is kept for the process).
 */
let maskBuffer = new Uint8Array(4096);
let maskBufferInUse = false;
const SHARED_MASK_MAX = 65_536;

function sharedMask(length: number): Uint8Array {
  if (length > SHARED_MASK_MAX) return new Uint8Array(length);
  if (maskBuffer.length < length) maskBuffer = new Uint8Array(SHARED_MASK_MAX);
  const mask = maskBuffer.subarray(0, length);
  mask.fill(0);
  return mask;
}

/** The only characters the second pass of `codeMask` acts on. */
const BACKSLASH_OR_BACKTICK = /[\\`]/g;

function isAsciiPunctuation(code: number): boolean {
  return (
    (code >= 33 && code <= 47) ||
    (code >= 58 && code <= 64) ||
    (code >= 91 && code <= 96) ||
    (code >= 123 && code <= 126)
  );
}
