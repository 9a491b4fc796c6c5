/**
 * A mirror's state (src/app/mirror.ts), one JSON file per mirror in the sync state folder beside
 * the records (`mirrors/<id>.json`, docs/tools.md §13.7): which workspace or HackMD folder the
 * vault folder is bound to, the names it chose for notes and folders (so they stay stable), the
 * notes it learned lie outside a bound folder, and its exclude patterns. Written after every few
 * notes of a first mirror, so a stopped mirror resumes where it was.
 */
import { BridgeError } from "../core/errors";
import { sha256Hex } from "../core/hash";
import type { StateFiles } from "../core/local-files";
import { checkExcludePatterns } from "./mirror-names";

/** Folder of the mirrors inside the state folder. */
export const MIRRORS = "mirrors";

/** Largest mirror file read (a 10,000-note mirror is about 1.5 MB). */
const MIRROR_MAX_BYTES = 32 * 1024 * 1024;

/** A HackMD folder as the mirror knows it. */
export interface MirrorFolder {
  /** The folder's name on HackMD when last listed. */
  name: string;
  /** Its parent folder's id (null: the workspace's top). */
  parent: string | null;
  /** The local folder name chosen for it (stable once chosen; `""` until a note needs it). */
  dir: string;
}

/** A mirrored note. */
export interface MirrorNote {
  /** The note's innermost folder on HackMD when last read (null: the workspace's top). */
  folder: string | null;
  /** The file name stem chosen (stable once chosen). */
  name: string;
  /** Untracked after its file was deleted in the vault: left alone until the mirror is removed. */
  untracked?: true;
  /** The path at which the mirror last said the file was moved to another folder in the vault. */
  moved_in_vault?: string;
}

/** A new file whose create ended with an unknown outcome: never published again blindly. */
export interface MirrorPending {
  /** The title sent. */
  title: string;
  /** The HackMD folder it was sent to (null: the workspace's top). */
  folder: string | null;
  /** When it was sent (ms) and the error kind it ended with. */
  at: number;
  error_kind: string;
}

/** One mirror. */
export interface MirrorState {
  version: 1;
  /** Stable id: a hash of the local folder. */
  id: string;
  team_path: string | null;
  /** The HackMD folder bound (null: the whole workspace). */
  folder_id: string | null;
  /** The folder path as given (`""` for the whole workspace). */
  folder_path: string;
  /** The vault folder, ROOT-relative (`""`: the ROOT itself). */
  local_dir: string;
  exclude: string[];
  /** Whether the first mirror finished (every listed note was fetched once). */
  complete: boolean;
  /** Known HackMD folders by id. */
  folders: Record<string, MirrorFolder>;
  /** Mirrored notes by id. */
  notes: Record<string, MirrorNote>;
  /** Notes read and found outside the bound folder, by id: their `last_changed_at` then. */
  outside: Record<string, number | null>;
  /** New files by path whose publish has an unknown outcome (src/app/mirror.ts, `resolvePending`). */
  pending?: Record<string, MirrorPending>;
}

/** The mirror's workspace in words. */
export function mirrorTarget(state: Pick<MirrorState, "team_path" | "folder_path">): string {
  const workspace = state.team_path ?? "personal";
  return state.folder_path === "" ? workspace : `${workspace}/${state.folder_path}`;
}

/** The id of a mirror of `localDir`. */
export async function mirrorId(localDir: string): Promise<string> {
  return (await sha256Hex(`mirror:${localDir}`)).slice(0, 16);
}

/** Every mirror in the state folder; a damaged file is reported by `onDamaged` and skipped. */
export async function loadMirrors(
  state: StateFiles,
  onDamaged: (name: string, why: string) => void = () => undefined,
): Promise<MirrorState[]> {
  const entries = await state.list(MIRRORS);
  const mirrors: MirrorState[] = [];
  for (const entry of entries) {
    if (entry.kind !== "file" || !entry.name.endsWith(".json")) continue;
    const loaded = await loadMirror(state, entry.name.slice(0, -".json".length));
    if (typeof loaded === "string") onDamaged(entry.name, loaded);
    else if (loaded !== undefined) mirrors.push(loaded);
  }
  return mirrors.sort((a, b) => (a.local_dir < b.local_dir ? -1 : a.local_dir > b.local_dir ? 1 : 0));
}

/** One mirror by id: the state, undefined when there is none, or why it is unusable. */
export async function loadMirror(state: StateFiles, id: string): Promise<MirrorState | string | undefined> {
  const read = await state.read(`${MIRRORS}/${id}.json`, { maxBytes: MIRROR_MAX_BYTES });
  if (read === undefined) return undefined;
  if (read.truncated) return "it is too large";
  try {
    return parseMirror(new TextDecoder("utf-8", { fatal: true }).decode(read.bytes));
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Saves a mirror (atomically; last write wins). */
export async function saveMirror(state: StateFiles, mirror: MirrorState): Promise<void> {
  await state.write(`${MIRRORS}/${mirror.id}.json`, `${JSON.stringify(mirror)}\n`);
}

/** Forgets a mirror; its files and sync records stay as they are. */
export async function removeMirror(state: StateFiles, id: string): Promise<boolean> {
  return state.remove(`${MIRRORS}/${id}.json`);
}

function parseMirror(text: string): MirrorState {
  const value = JSON.parse(text) as Partial<MirrorState> | null;
  const bad = (why: string): never => {
    throw new BridgeError("sync_state", `the mirror file is damaged (${why})`);
  };
  if (value === null || typeof value !== "object" || value.version !== 1) return bad("unknown version");
  if (typeof value.id !== "string" || typeof value.local_dir !== "string") return bad("no id or folder");
  if (value.team_path !== null && typeof value.team_path !== "string") return bad("team_path");
  if (value.folder_id !== null && typeof value.folder_id !== "string") return bad("folder_id");
  for (const key of ["folders", "notes", "outside"] as const)
    if (typeof value[key] !== "object" || value[key] === null || Array.isArray(value[key])) return bad(key);
  return {
    version: 1,
    id: value.id,
    team_path: value.team_path ?? null,
    folder_id: value.folder_id ?? null,
    folder_path: typeof value.folder_path === "string" ? value.folder_path : "",
    local_dir: value.local_dir,
    exclude: Array.isArray(value.exclude) ? checkExcludePatterns(value.exclude.map(String)) : [],
    complete: value.complete === true,
    folders: value.folders as Record<string, MirrorFolder>,
    notes: value.notes as Record<string, MirrorNote>,
    outside: value.outside as Record<string, number | null>,
    ...(typeof value.pending === "object" && value.pending !== null && !Array.isArray(value.pending)
      ? { pending: value.pending }
      : {}),
  };
}
