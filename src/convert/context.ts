/**
 * What a conversion may consult, as plain data the engine builds (docs/conversion-rules.md,
 * "Context"), and the record of what one conversion actually consulted.
 */

import { sha256Hasher, sha256HexSync } from "./sha256";

/** A tracked note as links and embeds reach it. */
export interface TrackedNote {
  /** The note's HackMD URL, exactly as a link to it is written (`https://hackmd.io/<id>`). */
  readonly url: string;
  /** The note id, as `{%hackmd <id> %}` embeds carry it. */
  readonly id: string;
}

/** How toLocal spells a vault path it writes: Obsidian's "shortest path when possible" or "absolute path in vault". */
export type LinkFormat = "shortest" | "absolute";

/** The engine's input to `buildConversionContext`; every field is optional. */
export interface ConversionInput {
  /** False turns conversion off (the per-note or vault-wide switch): both directions return the text unchanged. Default true. */
  readonly enabled?: boolean;
  /** Tracked notes by vault path (`Folder/Other note.md`). */
  readonly notes?: ReadonlyMap<string, TrackedNote>;
  /** Images already on HackMD by vault path (`attachments/pic x.png`) → the HackMD image URL. */
  readonly images?: ReadonlyMap<string, string>;
  /**
   * Every file path in the vault, tracked or not, so a bare name that two files share is left
   * alone as Obsidian could resolve it either way. Keys of `notes` and `images` are added.
   */
  readonly vaultPaths?: Iterable<string>;
  /** Comment sources by placeholder id, as earlier conversions returned them (`dependencies.comments`). */
  readonly comments?: ReadonlyMap<string, string>;
  /** A random string kept per vault; placeholder ids are SHA-256 of salt and comment, so a short comment cannot be guessed. */
  readonly commentSalt?: string;
  /** How toLocal spells vault paths it writes. Default `shortest`, Obsidian's default. */
  readonly linkFormat?: LinkFormat;
  /**
   * The folder of the note being converted (`Folder/Sub`, `""` for the vault's top folder). A bare
   * name that several files share then resolves to the one in this folder, as Obsidian's link
   * resolution prefers; without it such a name resolves to nothing.
   */
  readonly folder?: string;
  /**
   * Headings of tracked notes by vault path, as written in each note (ATX headings outside code).
   * A heading link written in another case (`[[Sorting#default sort order]]`) then gets the anchor
   * HackMD gives the heading as the note spells it (`#Default-sort-order`). Read when a question
   * is asked, so the engine may fill the map after building the context. Without it, the anchor is
   * computed from the heading as the link writes it.
   */
  readonly headings?: ReadonlyMap<string, readonly string[]>;
}

/** What a rule may ask; `null` is "no such thing". */
export interface Answers {
  /** The vault file a link target resolves to: `note` targets name `.md` files, `file` targets any file by full name. */
  target(kind: TargetKind, linkpath: string): string | null;
  /** The URL of the tracked note at a vault path. */
  noteUrl(path: string): string | null;
  /** The id of the tracked note at a vault path. */
  noteId(path: string): string | null;
  /** The HackMD URL of an uploaded image at a vault path. */
  imageUrl(path: string): string | null;
  /** The vault path of the one tracked note with this URL. */
  noteByUrl(url: string): string | null;
  /** The vault path of the one tracked note with this id. */
  noteById(id: string): string | null;
  /** The first vault path (in code-unit order) of the uploaded images with this URL. */
  imageByUrl(url: string): string | null;
  /** A comment's source by placeholder id. */
  comment(id: string): string | null;
  /**
   * `path#heading` → the heading of the note at `path` that `heading` names (compared in any case,
   * as Obsidian does, a heading written exactly so first), as the note writes it; null when its
   * headings are not known or none matches.
   */
  heading(key: string): string | null;
  /** The placeholder id of a comment source. */
  commentId(source: string): string;
}

/** Which files a link target may name. */
export type TargetKind = "note" | "file";

/** A context ready for `toRemote` / `toLocal`: the input, indexed once. Build it with `buildConversionContext`. */
export interface ConversionContext {
  readonly enabled: boolean;
  readonly linkFormat: LinkFormat;
  /** Answers to every question a rule asks. */
  readonly answers: Answers;
}

/**
 * What one conversion consulted: every question and its answer. A text converts the same under any
 * context that gives the same answers (`dependenciesHold`), and `contextFromDependencies` rebuilds
 * a context that gives exactly these. Plain JSON.
 */
export interface ConversionDependencies {
  readonly enabled: boolean;
  readonly linkFormat: LinkFormat;
  /** Every question (`target:note:Other note`, `note-url:Other note.md`, `comment-id:<source>`, …) with its answer, in the order asked. */
  readonly answers: ReadonlyArray<readonly [question: string, answer: string | null]>;
  /** Placeholder id and comment source of every comment this conversion hid or restored, in text order; the engine keeps them for `comments`. */
  readonly comments: ReadonlyArray<readonly [id: string, source: string]>;
}

/** Builds the indexes a conversion needs (linear in the input; build it once per sync run, not per note). */
export function buildConversionContext(input: ConversionInput = {}): ConversionContext {
  const notes = input.notes ?? new Map<string, TrackedNote>();
  const images = input.images ?? new Map<string, string>();
  const paths = new Set<string>(input.vaultPaths ?? []);
  const folder = input.folder;
  for (const path of notes.keys()) paths.add(path);
  for (const path of images.keys()) paths.add(path);

  // Names are compared case-insensitively (Obsidian does), and a name two files share resolves to nothing.
  const noteNames = new Map<string, string | null>();
  const fileNames = new Map<string, string | null>();
  const remember = (index: Map<string, string | null>, name: string, path: string): void => {
    const key = name.toLowerCase();
    index.set(key, index.has(key) ? null : path);
  };
  for (const path of paths) {
    const name = path.slice(path.lastIndexOf("/") + 1);
    remember(fileNames, name, path);
    if (path.endsWith(".md")) remember(noteNames, name.slice(0, -3), path);
  }

  const noteByUrl = uniqueIndex(notes, (note) => note.url);
  const noteById = uniqueIndex(notes, (note) => note.id);
  const imageByUrl = new Map<string, string>();
  for (const [path, url] of images) {
    const known = imageByUrl.get(url);
    if (known === undefined || path < known) imageByUrl.set(url, path);
  }
  const comments = input.comments ?? new Map<string, string>();
  const salt = input.commentSalt ?? "";
  const hash = sha256Hasher();

  // Each note's headings indexed once, on the first question about it (the engine fills
  // `input.headings` after building the context, before converting): questions × headings
  // comparisons were quadratic on a note with many heading links to a note with many headings.
  const headingIndexes = new Map<string, HeadingIndex>();
  const headingIndex = (path: string): HeadingIndex | undefined => {
    let index = headingIndexes.get(path);
    if (index !== undefined) return index;
    const headings = input.headings?.get(path);
    if (headings === undefined) return undefined;
    index = { exact: new Set(headings), folded: new Map() };
    for (const heading of headings) {
      const folded = heading.toLowerCase();
      if (!index.folded.has(folded)) index.folded.set(folded, heading);
    }
    headingIndexes.set(path, index);
    return index;
  };

  const answers: Answers = {
    target(kind, linkpath) {
      // A file path relative to the linking note (`../images/x.png`, `./x.png`), as Obsidian
      // resolves it; without the note's folder, nothing.
      if (kind === "file" && /^\.\.?\//.test(linkpath)) {
        const resolved = folder === undefined ? undefined : relativeTo(folder, linkpath);
        return resolved !== undefined && paths.has(resolved) ? resolved : null;
      }
      const file = kind === "note" ? (linkpath.endsWith(".md") ? linkpath : `${linkpath}.md`) : linkpath;
      if (!isLinkpath(file)) return null;
      if (file.includes("/")) return paths.has(file) ? file : null;
      const index = kind === "note" ? noteNames : fileNames;
      const found = index.get((kind === "note" ? file.slice(0, -3) : file).toLowerCase());
      if (found !== null || folder === undefined) return found ?? null;
      // A name several files share: Obsidian takes the one beside the linking note.
      const beside = folder === "" ? file : `${folder}/${file}`;
      return paths.has(beside) ? beside : null;
    },
    noteUrl: (path) => notes.get(path)?.url ?? null,
    noteId: (path) => notes.get(path)?.id ?? null,
    imageUrl: (path) => images.get(path) ?? null,
    noteByUrl: (url) => noteByUrl.get(url) ?? null,
    noteById: (id) => noteById.get(id) ?? null,
    imageByUrl: (url) => imageByUrl.get(url) ?? null,
    comment: (id) => comments.get(id) ?? null,
    commentId: (source) => hash(`${salt}\u0000${source}`).slice(0, 16),
    heading(key) {
      const hash = key.indexOf("#");
      const index = headingIndex(key.slice(0, hash));
      if (index === undefined) return null;
      const wanted = key.slice(hash + 1);
      return index.exact.has(wanted) ? wanted : (index.folded.get(wanted.toLowerCase()) ?? null);
    },
  };
  return { enabled: input.enabled ?? true, linkFormat: input.linkFormat ?? "shortest", answers };
}

/** A note's headings as written, and by lowercase text the first one that folds to it. */
interface HeadingIndex {
  exact: Set<string>;
  folded: Map<string, string>;
}

/** The placeholder id of a comment: the first 16 hex digits of SHA-256 over salt, NUL, source. */
export function commentIdOf(salt: string, source: string): string {
  return sha256HexSync(`${salt}\u0000${source}`).slice(0, 16);
}

/** True when `context` answers every question in `dependencies` the same way (so the text converts the same). */
export function dependenciesHold(dependencies: ConversionDependencies, context: ConversionContext): boolean {
  if (dependencies.enabled !== context.enabled) return false;
  if (!context.enabled) return true;
  if (dependencies.linkFormat !== context.linkFormat) return false;
  return dependencies.answers.every(([question, answer]) => ask(context.answers, question) === answer);
}

/**
 * A context that answers exactly as recorded (anything not recorded: "no such thing"). Converting
 * the same text with it gives the same result as the recorded conversion, whatever changed since;
 * converting a different text gives a different result (every rule is reversible). So the engine
 * tells "edited" from "context changed" with `toRemote(local, contextFromDependencies(d, now)).text
 * !== baseline`. New comments in an edited text get ids with `base`'s salt.
 */
export function contextFromDependencies(
  dependencies: ConversionDependencies,
  base: ConversionContext,
): ConversionContext {
  const recorded = new Map(dependencies.answers);
  const get = (question: string): string | null => recorded.get(question) ?? null;
  const answers: Answers = {
    target: (kind, linkpath) => get(`target:${kind}:${linkpath}`),
    noteUrl: (path) => get(`note-url:${path}`),
    noteId: (path) => get(`note-id:${path}`),
    imageUrl: (path) => get(`image-url:${path}`),
    noteByUrl: (url) => get(`note-by-url:${url}`),
    noteById: (id) => get(`note-by-id:${id}`),
    imageByUrl: (url) => get(`image-by-url:${url}`),
    comment: (id) => get(`comment:${id}`),
    commentId: (source) => get(`comment-id:${source}`) ?? base.answers.commentId(source),
    heading: (key) => get(`heading:${key}`),
  };
  return { enabled: dependencies.enabled, linkFormat: dependencies.linkFormat, answers };
}

/**
 * A context that answers as recorded where `dependencies` recorded the question, and as `current`
 * answers otherwise. A text nobody edited converts exactly as it did (the recorded answers), so it
 * never churns when a linked note is tracked or untracked since; what an edit adds is converted
 * with what is true now. The engine compares and pushes in this context.
 */
export function preferRecorded(dependencies: ConversionDependencies, current: ConversionContext): ConversionContext {
  if (!dependencies.enabled || !current.enabled) return contextFromDependencies(dependencies, current);
  const recorded = new Map(dependencies.answers);
  const pick = (question: string, now: () => string | null): string | null =>
    recorded.has(question) ? (recorded.get(question) ?? null) : now();
  const c = current.answers;
  const answers: Answers = {
    target: (kind, linkpath) => pick(`target:${kind}:${linkpath}`, () => c.target(kind, linkpath)),
    noteUrl: (path) => pick(`note-url:${path}`, () => c.noteUrl(path)),
    noteId: (path) => pick(`note-id:${path}`, () => c.noteId(path)),
    imageUrl: (path) => pick(`image-url:${path}`, () => c.imageUrl(path)),
    noteByUrl: (url) => pick(`note-by-url:${url}`, () => c.noteByUrl(url)),
    noteById: (id) => pick(`note-by-id:${id}`, () => c.noteById(id)),
    imageByUrl: (url) => pick(`image-by-url:${url}`, () => c.imageByUrl(url)),
    comment: (id) => pick(`comment:${id}`, () => c.comment(id)),
    heading: (key) => pick(`heading:${key}`, () => c.heading(key)),
    commentId: (source) => pick(`comment-id:${source}`, () => c.commentId(source)) ?? c.commentId(source),
  };
  return { enabled: dependencies.enabled, linkFormat: dependencies.linkFormat, answers };
}

/** Every answer one conversion got, by kind of question (`target:note`, `note-url`, …) and argument. */
export type AnswerRecord = Map<string, Map<string, string | null>>;

/**
 * Answers that record every question into `record`, asking the underlying answers once per
 * question (a conversion asks the same ones many times: every link to a note, every comment's id).
 */
export function recordingAnswers(answers: Answers, record: AnswerRecord): Answers {
  const table = (kind: string): Map<string, string | null> => {
    let known = record.get(kind);
    if (known === undefined) {
      known = new Map();
      record.set(kind, known);
    }
    return known;
  };
  const memo = <T extends string | null>(kind: string, compute: (argument: string) => T): ((argument: string) => T) => {
    const known = table(kind);
    return (argument) => {
      const answer = known.get(argument);
      if (answer !== undefined) return answer as T;
      const computed = compute(argument);
      known.set(argument, computed);
      return computed;
    };
  };
  const noteTarget = memo("target:note", (linkpath) => answers.target("note", linkpath));
  const fileTarget = memo("target:file", (linkpath) => answers.target("file", linkpath));
  return {
    target: (kind, linkpath) => (kind === "note" ? noteTarget(linkpath) : fileTarget(linkpath)),
    noteUrl: memo("note-url", (path) => answers.noteUrl(path)),
    noteId: memo("note-id", (path) => answers.noteId(path)),
    imageUrl: memo("image-url", (path) => answers.imageUrl(path)),
    noteByUrl: memo("note-by-url", (url) => answers.noteByUrl(url)),
    noteById: memo("note-by-id", (id) => answers.noteById(id)),
    imageByUrl: memo("image-by-url", (url) => answers.imageByUrl(url)),
    comment: memo("comment", (id) => answers.comment(id)),
    heading: memo("heading", (key) => answers.heading(key)),
    commentId: memo("comment-id", (source) => answers.commentId(source)),
  };
}

/** The record as the question/answer pairs of `ConversionDependencies.answers`. */
export function answerPairs(record: AnswerRecord): Array<[string, string | null]> {
  const pairs: Array<[string, string | null]> = [];
  for (const [kind, known] of record)
    for (const [argument, answer] of known) pairs.push([`${kind}:${argument}`, answer]);
  return pairs;
}

/** Asks one recorded question again. */
function ask(answers: Answers, question: string): string | null {
  const colon = question.indexOf(":");
  const kind = question.slice(0, colon);
  const rest = question.slice(colon + 1);
  switch (kind) {
    case "target": {
      const second = rest.indexOf(":");
      return answers.target(rest.slice(0, second) as TargetKind, rest.slice(second + 1));
    }
    case "note-url":
      return answers.noteUrl(rest);
    case "note-id":
      return answers.noteId(rest);
    case "image-url":
      return answers.imageUrl(rest);
    case "note-by-url":
      return answers.noteByUrl(rest);
    case "note-by-id":
      return answers.noteById(rest);
    case "image-by-url":
      return answers.imageByUrl(rest);
    case "comment":
      return answers.comment(rest);
    case "comment-id":
      return answers.commentId(rest);
    case "heading":
      return answers.heading(rest);
    default:
      // A question this version does not know: treat the record as stale.
      return `unknown question ${kind}`;
  }
}

/** `../x/y.png` from `folder` as a vault path, or undefined when it leaves the vault or is not a plain path. */
function relativeTo(folder: string, linkpath: string): string | undefined {
  const parts = folder === "" ? [] : folder.split("/");
  const segments = linkpath.split("/");
  for (const [i, segment] of segments.entries()) {
    if (segment === ".") continue;
    if (segment === "..") {
      if (parts.pop() === undefined) return undefined;
      continue;
    }
    // Only a path that climbs first and then names its way down (`../../a/b.png`).
    if (segments.slice(i).some((rest) => rest === "." || rest === "..")) return undefined;
    const path = [...parts, ...segments.slice(i)].join("/");
    return isLinkpath(path) && !/[#|^]/.test(path) ? path : undefined;
  }
  return undefined;
}

/** A link target Obsidian could name a file by: no subpath, alias or block characters, no empty segment. */
function isLinkpath(file: string): boolean {
  return (
    file !== "" &&
    !/[#|^[\]\\\n\r]/.test(file) &&
    file.trim() === file &&
    !file.startsWith("/") &&
    !file.split("/").some((part) => part === "" || part === "." || part === "..")
  );
}

/** Index by a key that must be unique: a key two entries share maps to nothing. */
function uniqueIndex<T>(entries: ReadonlyMap<string, T>, key: (value: T) => string): Map<string, string | null> {
  const index = new Map<string, string | null>();
  for (const [path, value] of entries) {
    const k = key(value);
    index.set(k, index.has(k) ? null : path);
  }
  return index;
}
