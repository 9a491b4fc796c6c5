import { invalidInput } from "../core/errors";
import { checkIdentifier } from "./identifiers";

/** A parsed `note_ref` (docs/tools.md §8.1). */
export type NoteRef = { kind: "direct"; id: string } | { kind: "scoped"; owner: string; slug: string };

/** One candidate of an ambiguous reference (docs/tools.md §3.3). */
export interface NoteCandidate {
  team_path: string | null;
  note_id: string;
  title: string;
  short_id: string | null;
  permalink: string | null;
}

/** How a reference resolved. */
export type Resolution =
  | { status: "resolved"; teamPath: string | null; noteId: string }
  | { status: "not_found"; query: string }
  | { status: "ambiguous"; query: string; candidates: NoteCandidate[] };

/** A listed note, as much of it as resolution needs. */
export interface ListedNoteRef {
  id: string;
  title: string;
  shortId: string | null;
  permalink: string | null;
}

/** Where resolution gets account data and lists (through the 60-second caches). */
export interface ResolverSources {
  userPath(refresh: boolean): Promise<string>;
  teamPaths(refresh: boolean): Promise<string[]>;
  listNotes(teamPath: string | null, refresh: boolean): Promise<ListedNoteRef[]>;
}

const HELP = "give a note id or a https://hackmd.io URL";

/** Longest note reference read (a URL with an owner and a permalink fits many times over). */
export const MAX_NOTE_REF_LENGTH = 2048;

/** A direct id, checked as every note id is (hackmd/identifiers.ts) before any request. */
function direct(id: string): NoteRef {
  checkIdentifier("note id", id);
  return { kind: "direct", id };
}

/**
 * Parses a note id or HackMD URL without any request or token. `label` names the value in
 * messages: the tools' parameter by default, the command line's `<note_ref>` argument there.
 */
export function parseNoteRef(raw: string, label = "note_ref"): NoteRef {
  const value = raw.trim();
  if (value === "") throw invalidInput(`${label} is empty; ${HELP}.`);
  if (value.length > MAX_NOTE_REF_LENGTH)
    throw invalidInput(
      `${label} is ${value.length} characters long; ${HELP} (at most ${MAX_NOTE_REF_LENGTH} characters).`,
    );
  const withScheme = value.startsWith("hackmd.io/") ? `https://${value}` : value;
  if (!withScheme.includes("://")) return direct(withScheme);
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw invalidInput(`${label} is not a valid URL; ${HELP}.`);
  }
  if (
    url.protocol !== "https:" ||
    url.hostname !== "hackmd.io" ||
    url.port !== "" ||
    url.username !== "" ||
    url.password !== ""
  ) {
    throw invalidInput(
      `${label} must be an https://hackmd.io URL (other hosts and http are not accepted); ${HELP}. With another API URL, pass the note id.`,
    );
  }
  const segments = rawPathSegments(withScheme).map((segment) => decodeSegment(segment, label));
  if (segments.length === 1 && !segments[0]!.startsWith("@")) return direct(segments[0]!);
  if (segments.length === 2 && segments[0]!.startsWith("@") && segments[0]!.length > 1) {
    return { kind: "scoped", owner: segments[0]!.slice(1), slug: segments[1]! };
  }
  throw invalidInput(
    `${label} has an unsupported URL shape; use https://hackmd.io/<note id> or https://hackmd.io/@<owner>/<permalink or short id>.`,
  );
}

/**
 * The non-empty path segments as written (URL's parser would percent-encode raw non-ASCII text,
 * which is fine, but we read the original so a malformed escape is caught by our own decoder).
 */
function rawPathSegments(url: string): string[] {
  const afterScheme = url.slice(url.indexOf("://") + 3);
  const pathStart = afterScheme.indexOf("/");
  if (pathStart < 0) return [];
  const path = afterScheme.slice(pathStart).split(/[?#]/)[0] ?? "";
  return path.split("/").filter((segment) => segment !== "");
}

function decodeSegment(segment: string, label: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidInput(`${label} has a malformed percent-escape in "${segment}"; copy the URL again from HackMD.`);
  }
}

/**
 * Whether a direct value has the shape of a short id (`SysJb0yAY`: 9 characters of the id
 * alphabet) rather than of a note id (22 characters), so it is worth looking up as one.
 */
export function looksLikeShortId(value: string): boolean {
  return /^[A-Za-z0-9_-]{9}$/.test(value);
}

/**
 * Resolves a parsed reference (docs/tools.md §8.2). A direct id needs no request. Beyond §8.2, a
 * direct value shaped like a short id (the `short_id` hackmd_list_notes returns) is looked up in
 * the workspace's note list (the 60-second list cache, so after a listing it costs nothing) and
 * resolves to the note with that short id; when none has it, or the list cannot be read, the
 * value is used as a note id, as before.
 */
export async function resolveNoteRef(
  ref: NoteRef,
  options: { teamPath: string | null; refresh: boolean },
  sources: ResolverSources,
): Promise<Resolution> {
  if (ref.kind === "direct") return resolveDirect(ref.id, options, sources);
  const query = `@${ref.owner}/${ref.slug}`;
  let workspace: string | null;
  if (ref.owner === (await sources.userPath(options.refresh))) {
    workspace = null;
  } else if ((await sources.teamPaths(options.refresh)).includes(ref.owner)) {
    workspace = ref.owner;
  } else {
    return { status: "not_found", query };
  }
  const notes = await sources.listNotes(workspace, options.refresh);
  const matches = notes.filter((note) => note.shortId === ref.slug || note.permalink === ref.slug);
  if (matches.length === 0) return { status: "not_found", query: ref.slug };
  if (matches.length === 1) return { status: "resolved", teamPath: workspace, noteId: matches[0]!.id };
  return {
    status: "ambiguous",
    query: ref.slug,
    candidates: matches.map((note) => ({
      team_path: workspace,
      note_id: note.id,
      title: note.title,
      short_id: note.shortId,
      permalink: note.permalink,
    })),
  };
}

/** A direct id, or the note whose short id it is. */
async function resolveDirect(
  id: string,
  options: { teamPath: string | null; refresh: boolean },
  sources: ResolverSources,
): Promise<Resolution> {
  const asId: Resolution = { status: "resolved", teamPath: options.teamPath, noteId: id };
  if (!looksLikeShortId(id)) return asId;
  let notes: ListedNoteRef[];
  try {
    notes = await sources.listNotes(options.teamPath, options.refresh);
  } catch {
    // The request for the note itself will report what is wrong (token, network…).
    return asId;
  }
  if (notes.some((note) => note.id === id)) return asId;
  const matches = notes.filter((note) => note.shortId === id);
  if (matches.length === 1) return { status: "resolved", teamPath: options.teamPath, noteId: matches[0]!.id };
  if (matches.length === 0) return asId;
  return {
    status: "ambiguous",
    query: id,
    candidates: matches.map((note) => ({
      team_path: options.teamPath,
      note_id: note.id,
      title: note.title,
      short_id: note.shortId,
      permalink: note.permalink,
    })),
  };
}
