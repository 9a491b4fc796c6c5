/**
 * Mirrors (docs/tools.md "Mirrors and search"): a vault folder bound to a HackMD workspace, or to one HackMD folder
 * in it, kept whole. Every note becomes a tracked file (HackMD folders become subfolders, names
 * from titles, src/app/mirror-names.ts); edits travel through the sync engine's three-way sync
 * only, so nothing is overwritten unseen. What a mirror adds, each round:
 *
 * - before sync-all (`mirrorRound`), from ONE list of the workspace shared with sync-all
 *   (`RoundLists`): a note not mirrored yet is read once (its folder decides its path) and pulled
 *   with that read (`PullRequest.prefetched`, no second GET); a mirrored note no longer listed is
 *   confirmed gone by one GET and its file goes to the trash (`MirrorHost.trash`), never deleted;
 *   a mirrored file deleted in the vault is untracked (its note is deleted only with
 *   `deleteRemote`, and only when the list, and a fresh read right before the delete, show nobody
 *   changed it since the last sync); a file
 *   renamed in the vault keeps its link; a new Markdown file is published as a private note in the
 *   matching HackMD folder (missing folders are created) and tracked (a create with an unknown
 *   outcome is remembered as pending and never sent again: a later round links the file to a
 *   listed note with that title in that folder, or reports it unconfirmed); a file moved to another
 *   folder in the vault keeps its link, but its note stays where it is on HackMD (the API cannot
 *   move notes between folders reliably, docs/hackmd-api.md §1.8.6), which the item says;
 * - after sync-all (`followRemoteMoves`): a note sync-all read (its timestamp moved) and found in
 *   another folder has its file moved to the matching subfolder.
 *
 * Costs: the first mirror of N notes = one list + one folder list (when a note is in a folder) +
 * N reads; a later round with nothing changed = the one list sync-all makes anyway.
 */
import { BridgeError, isBridgeError, type ErrorKind } from "../core/errors";
import { bodyHash } from "../core/hash";
import type { LocalFiles } from "../core/local-files";
import { isMarkdownPath, joinPath, parentPath } from "../core/paths";
import { bodyTitle, normalizeLineEndings } from "../core/text";
import { CallContext } from "../hackmd/call-context";
import type { Folder, NoteDetail, NoteSummary, Permission } from "../hackmd/types";
import { MAX_BODY_BYTES } from "../sync/service";
import { recordKey } from "../sync/store";
import type { TrackedEntry } from "../sync/types";
import type { AppDeps } from "./deps";
import { workspaceArg } from "./inputs";
import { checkExcludePatterns, excludeMatcher, safeName, uniqueName } from "./mirror-names";
import { loadMirror, mirrorId, saveMirror, type MirrorState } from "./mirror-state";
import { publishFile as publishTrackedFile } from "./publish";

export { loadMirrors, removeMirror, saveMirror, mirrorTarget, type MirrorState } from "./mirror-state";

/** What a mirror needs of its host beyond the core. */
export interface MirrorHost {
  /** Moves a file to the trash (Obsidian's, or the ROOT's `.trash` from the command); says where. */
  trash(path: string): Promise<string>;
}

/** A mirror's target as given: `personal[/<folder path>]` or `<team path>[/<folder path>]`. */
export interface MirrorTargetSpec {
  teamPath: string | null;
  folderPath: string;
}

/** Parses `personal[/folder/path]` or `<team>[/folder/path]`; refuses blank segments. */
export function parseMirrorTarget(input: string): MirrorTargetSpec {
  const trimmed = input.trim().replace(/^\/+|\/+$/g, "");
  const parts = trimmed.split("/");
  const head = parts[0] ?? "";
  if (head === "" || parts.some((part) => part.trim() === ""))
    throw new BridgeError(
      "invalid_input",
      "Name the workspace as personal or a team path, optionally followed by /<folder path>, e.g. personal/Projects.",
    );
  const teamPath = head === "personal" ? null : workspaceArg(head);
  return { teamPath, folderPath: parts.slice(1).join("/") };
}

/** One list per workspace per round, shared by sync-all and every mirror of the round. */
export class RoundLists {
  private readonly lists = new Map<string | null, Promise<{ notes: NoteSummary[]; sentAt: number }>>();
  constructor(
    private readonly deps: AppDeps,
    private readonly call: CallContext,
  ) {}

  /** The workspace's list, requested at most once per round. */
  get(teamPath: string | null): Promise<{ notes: NoteSummary[]; sentAt: number }> {
    let list = this.lists.get(teamPath);
    if (list === undefined) {
      const sentAt = this.deps.clock.now();
      list = this.deps.client.listNotes(this.call, { teamPath }).then((notes) => ({ notes, sentAt }));
      // A failed list is not kept: the next caller of this round asks again.
      list.catch(() => this.lists.delete(teamPath));
      this.lists.set(teamPath, list);
    }
    return list;
  }
}

/** What happened to one note or file of a mirror. */
export type MirrorAction =
  | "pulled"
  | "published"
  | "trashed"
  | "untracked"
  | "deleted_remote"
  | "renamed"
  | "moved"
  | "moved_in_vault"
  | "already_tracked"
  | "would_pull"
  | "would_publish"
  | "error";

/** One thing a mirror round did (or, dry, would do). */
export interface MirrorItem {
  action: MirrorAction;
  note_id?: string;
  local_path: string;
  /** For `renamed` and `moved`: where the file was. */
  from?: string;
  /** For `trashed`: where the file went. */
  trash_path?: string;
  error_kind?: ErrorKind;
  message?: string;
}

/** What a first mirror will cost, before it starts. */
export interface MirrorEstimate {
  /** Notes listed (in a folder mirror: of the whole workspace, since lists do not say folders). */
  listed: number;
  /** Reads still to make (one per note not mirrored yet). */
  reads: number;
  /** Requests in all: the list, a folder list, the reads. */
  requests: number;
}

/** A mirror round's outcome. */
export interface MirrorResult {
  id: string;
  target: string;
  local_dir: string;
  dry_run: boolean;
  /** Whether every listed note has been fetched once (false: run it again to resume). */
  complete: boolean;
  estimate: MirrorEstimate;
  items: MirrorItem[];
}

/** Progress of a mirror: reads of new notes (`total` known after the list). */
export interface MirrorProgress {
  phase: "listing" | "fetching" | "publishing";
  done: number;
  total: number;
}

/** Options of a round. */
export interface MirrorRoundOptions {
  host: MirrorHost;
  lists: RoundLists;
  call: CallContext;
  dryRun?: boolean;
  /** Delete the note on HackMD when its file was deleted in the vault (default: untrack only). */
  deleteRemote?: boolean;
  /** Asks whether to delete a note whose file was deleted in the vault (the plugin asks; default no). */
  confirmDeleteRemote?: (localPath: string, noteId: string) => Promise<boolean>;
  /** Permissions of notes published from new files (default: owner/owner, private). */
  permissions?: { read: Permission; write: Permission };
  onProgress?: (progress: MirrorProgress) => void;
  /** Reads a round may make at most (automatic rounds, within the request budget); default no bound. */
  maxReads?: number;
  /** Requests in flight at once (default 4). */
  concurrency?: number;
}

const SAVE_EVERY = 25;

/**
 * Binds `localDir` to the target (or finds the mirror bound there) and runs a round of it: the
 * first mirror, or its resumption. Refuses a folder already bound to another target.
 */
export async function startMirror(
  deps: AppDeps,
  options: MirrorRoundOptions & { target: MirrorTargetSpec; localDir: string; exclude?: string[] },
): Promise<MirrorResult> {
  const { target } = options;
  const localDir = await mirrorFolder(deps.files, options.localDir);
  const id = await mirrorId(localDir);
  const existing = await loadMirror(deps.files.state, id);
  if (typeof existing === "string")
    throw new BridgeError("sync_state", `The mirror of ${localDir || "the root folder"} is damaged: ${existing}.`);
  let mirror: MirrorState;
  if (existing !== undefined) {
    if (existing.team_path !== target.teamPath || existing.folder_path !== target.folderPath)
      throw new BridgeError(
        "invalid_input",
        `${localDir || "The root folder"} already mirrors ${existing.team_path ?? "personal"}${existing.folder_path === "" ? "" : `/${existing.folder_path}`}; choose another folder, or remove that mirror first.`,
      );
    mirror = existing;
    if (options.exclude !== undefined) mirror.exclude = checkExcludePatterns(options.exclude);
  } else {
    mirror = {
      version: 1,
      id,
      team_path: target.teamPath,
      folder_id: null,
      folder_path: target.folderPath,
      local_dir: localDir,
      exclude: checkExcludePatterns(options.exclude ?? []),
      complete: false,
      folders: {},
      notes: {},
      outside: {},
    };
  }
  if (target.folderPath !== "" && mirror.folder_id === null) {
    const folders = await deps.client.listFolders(options.call, { teamPath: target.teamPath });
    mirror.folder_id = findFolder(folders, target.folderPath);
    learnFolders(mirror, folders);
  }
  if (options.dryRun !== true && existing === undefined) await saveMirror(deps.files.state, mirror);
  const observed = new Map<string, NoteDetail>();
  const result = await mirrorRound(deps, mirror, { ...options, observed });
  if (options.dryRun !== true) result.items.push(...(await followRemoteMoves(deps, mirror, observed, options)));
  return result;
}

/** A vault folder as a mirror keeps it: ROOT-relative, canonical, writable. */
async function mirrorFolder(files: LocalFiles, input: string): Promise<string> {
  const trimmed = input.trim().replace(/\/+$/, "");
  if (trimmed === "" || trimmed === ".") return "";
  const resolved = await files.resolve(trimmed, "write");
  const info = await files.stat(resolved.path);
  if (info.kind !== "missing" && info.kind !== "folder")
    throw new BridgeError("invalid_input", `${resolved.path} is not a folder; give a folder to mirror into.`);
  return resolved.path;
}

/** The id of the folder at `path` (names by `/`), or a clear refusal. */
function findFolder(folders: readonly Folder[], path: string): string {
  let parent: string | null = null;
  let found: Folder | undefined;
  for (const name of path.split("/")) {
    found = folders.find((folder) => folder.parent_folder_id === parent && folder.name === name);
    if (found === undefined)
      throw new BridgeError(
        "not_found",
        `There is no folder ${path} in this workspace (no "${name}" there); list the folders with hackmd_list_folders.`,
      );
    parent = found.id;
  }
  return found?.id ?? "";
}

/** Remembers folders' names and parents; a folder keeps the local name it was given. */
function learnFolders(mirror: MirrorState, folders: readonly Folder[]): void {
  for (const folder of folders) {
    const known = mirror.folders[folder.id];
    if (known !== undefined) {
      known.name = folder.name;
      known.parent = folder.parent_folder_id;
    } else mirror.folders[folder.id] = { name: folder.name, parent: folder.parent_folder_id, dir: "" };
  }
}

/** The folder chain of a note below the mirror's bound folder, or undefined when it lies outside. */
function chainInMirror(mirror: MirrorState, folderIds: readonly string[]): string[] | undefined {
  if (mirror.folder_id === null) return [...folderIds];
  const at = folderIds.indexOf(mirror.folder_id);
  return at < 0 ? undefined : folderIds.slice(at + 1);
}

/** The chain from the mirror's top down to `folder` (ids), or undefined when outside or unknown. */
function chainOf(mirror: MirrorState, folder: string | null): string[] | undefined {
  const chain: string[] = [];
  let at = folder;
  for (let steps = 0; at !== null && at !== mirror.folder_id; steps += 1) {
    const known = mirror.folders[at];
    if (known === undefined || steps > 1000) return undefined;
    chain.unshift(at);
    at = known.parent;
  }
  if (at !== mirror.folder_id) return undefined;
  return chain;
}

/** The vault folder for a folder chain, choosing (and keeping) a local name for each new folder. */
async function dirOfChain(
  files: LocalFiles,
  mirror: MirrorState,
  chain: readonly string[],
  taken: NameCache,
): Promise<string> {
  let dir = mirror.local_dir;
  for (const id of chain) {
    const folder = mirror.folders[id];
    if (folder === undefined) throw new BridgeError("internal", `Folder ${id} is unknown to the mirror.`);
    if (folder.dir === "") {
      // Unique among the folders already named under the same parent, and the files there.
      const siblings = new Set(
        Object.entries(mirror.folders)
          .filter(([other, f]) => other !== id && f.parent === folder.parent && f.dir !== "")
          .map(([, f]) => f.dir.toLowerCase()),
      );
      for (const name of await taken.folders(files, dir)) siblings.add(name);
      folder.dir = uniqueName(safeName(folder.name, "Folder"), siblings);
    }
    dir = joinPath(dir, folder.dir);
  }
  return dir;
}

/** Lower-cased names in vault folders, read once per folder per round, with the names chosen since. */
class NameCache {
  private readonly notes = new Map<string, Set<string>>();
  private readonly dirs = new Map<string, Set<string>>();

  async files(files: LocalFiles, dir: string): Promise<Set<string>> {
    await this.load(files, dir);
    return this.notes.get(dir) ?? new Set();
  }

  async folders(files: LocalFiles, dir: string): Promise<Set<string>> {
    await this.load(files, dir);
    return this.dirs.get(dir) ?? new Set();
  }

  private async load(files: LocalFiles, dir: string): Promise<void> {
    if (this.notes.has(dir)) return;
    const entries = await files.list(dir).catch(() => []);
    this.notes.set(
      dir,
      new Set(
        entries
          .filter((entry) => entry.kind !== "folder" && /\.md$/i.test(entry.name))
          .map((entry) => entry.name.slice(0, -3).toLowerCase()),
      ),
    );
    this.dirs.set(dir, new Set(entries.filter((entry) => entry.kind === "folder").map((e) => e.name.toLowerCase())));
  }
}

/** The Markdown files under a mirror's folder (hidden folders, snapshots and excluded paths left out). */
async function localMarkdown(files: LocalFiles, mirror: MirrorState): Promise<string[]> {
  const excluded = excludeMatcher(mirror.exclude);
  const found: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 32) return;
    for (const entry of await files.list(dir).catch(() => [])) {
      if (entry.name.startsWith(".")) continue;
      const path = joinPath(dir, entry.name);
      const relative = mirror.local_dir === "" ? path : path.slice(mirror.local_dir.length + 1);
      if (excluded(relative)) continue;
      if (entry.kind === "folder") await walk(path, depth + 1);
      else if (entry.kind === "file" && isMarkdownPath(path) && !/\.remote\.md$/i.test(path)) found.push(path);
    }
  };
  await walk(mirror.local_dir, 0);
  return found.sort();
}

/** Reads a file's text, normalised; undefined when it cannot be read as UTF-8 text. */
async function readText(files: LocalFiles, path: string): Promise<string | undefined> {
  try {
    const read = await files.read(path, { maxBytes: MAX_BODY_BYTES });
    if (read.truncated) return undefined;
    return normalizeLineEndings(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(read.bytes));
  } catch {
    return undefined;
  }
}

/** The error as an item's kind and message. */
function failure(error: unknown): { error_kind: ErrorKind; message: string } {
  if (isBridgeError(error)) return { error_kind: error.kind, message: error.message };
  return { error_kind: "internal", message: error instanceof Error ? error.message : String(error) };
}

/** Runs `work` over `items`, at most `limit` at once. */
async function forEachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * One round of a mirror before sync-all (see the module comment). `observed` collects every
 * note this round read, for `followRemoteMoves`. The mirror's state is saved as it goes.
 */
export async function mirrorRound(
  deps: AppDeps,
  mirror: MirrorState,
  options: MirrorRoundOptions & { observed?: Map<string, NoteDetail> },
): Promise<MirrorResult> {
  const dryRun = options.dryRun === true;
  const items: MirrorItem[] = [];
  const progress = (report: MirrorProgress): void => {
    try {
      options.onProgress?.(report);
    } catch {
      // A failing progress callback never stops a mirror.
    }
  };
  const save = async (): Promise<void> => {
    if (!dryRun) await saveMirror(deps.files.state, mirror);
  };
  progress({ phase: "listing", done: 0, total: 1 });
  const listed = (await options.lists.get(mirror.team_path)).notes;
  progress({ phase: "listing", done: 1, total: 1 });
  const byId = new Map(listed.map((note) => [note.id, note]));
  const everyRecord = await deps.sync.listTracked();
  const tracked = everyRecord.filter((entry) => entry.team_path === mirror.team_path);
  const trackedById = new Map(tracked.map((entry) => [entry.note_id, entry]));
  const trackedPaths = new Set(everyRecord.map((entry) => entry.local_path));
  const names = new NameCache();
  const read = async (noteId: string): Promise<NoteDetail> => {
    const note = await deps.client.getNote(options.call, { teamPath: mirror.team_path, noteId });
    options.observed?.set(note.id, note);
    return note;
  };

  // New local files, before anything else: a deleted file may only have been renamed.
  const untrackedFiles = (await localMarkdown(deps.files, mirror)).filter((path) => !trackedPaths.has(path));
  const claimed = new Set<string>();

  // Mirrored notes: deleted or moved in the vault, gone from HackMD.
  for (const [noteId, entry] of Object.entries(mirror.notes)) {
    if (entry.untracked === true) continue;
    const record = trackedById.get(noteId);
    if (record === undefined) {
      // Untracked by hand: the mirror leaves the note alone from now on.
      entry.untracked = true;
      continue;
    }
    const listedNote = byId.get(noteId);
    const info = await deps.files.stat(record.local_path).catch(() => undefined);
    if (info?.kind === "missing") {
      const renamedTo = await findRenamed(deps, record, untrackedFiles, claimed);
      if (renamedTo !== undefined) {
        claimed.add(renamedTo);
        if (!dryRun) await deps.sync.followRename({ from: record.local_path, to: renamedTo });
        items.push({ action: "renamed", note_id: noteId, local_path: renamedTo, from: record.local_path });
        record.local_path = renamedTo;
      } else {
        items.push(await deletedInVault(deps, mirror, record, listedNote, options));
        if (!dryRun) entry.untracked = true;
        continue;
      }
    }
    if (listedNote === undefined) {
      // Not listed: trashed or deleted on HackMD, unless a GET still finds it (a lagging list).
      try {
        await read(noteId);
      } catch (error) {
        if (!isBridgeError(error, "not_found")) {
          items.push({ action: "error", note_id: noteId, local_path: record.local_path, ...failure(error) });
          continue;
        }
        if (dryRun) {
          items.push({
            action: "trashed",
            note_id: noteId,
            local_path: record.local_path,
            message: "would move to trash",
          });
          continue;
        }
        try {
          await deps.sync.untrack({ teamPath: mirror.team_path, noteId, confirm: true });
          const where = await options.host.trash(record.local_path);
          delete mirror.notes[noteId];
          items.push({
            action: "trashed",
            note_id: noteId,
            local_path: record.local_path,
            trash_path: where,
            message: `Note ${noteId} was trashed or deleted on HackMD; its file was moved to ${where}.`,
          });
        } catch (error) {
          items.push({ action: "error", note_id: noteId, local_path: record.local_path, ...failure(error) });
        }
      }
      continue;
    }
    const chain = chainOf(mirror, entry.folder);
    if (chain !== undefined) {
      const expected = await dirOfChain(deps.files, mirror, chain, names);
      const dir = parentPath(record.local_path);
      if (dir !== expected && entry.moved_in_vault !== record.local_path) {
        if (!dryRun) entry.moved_in_vault = record.local_path;
        items.push({
          action: "moved_in_vault",
          note_id: noteId,
          local_path: record.local_path,
          message: `${record.local_path} was moved to another folder in the vault; it stays linked to note ${noteId}, but the note stays in its folder on HackMD, whose API cannot move notes between folders reliably.`,
        });
      }
    }
  }
  await save();

  // Files whose publish had an unknown outcome: linked to their note once it shows, else reported.
  if (!dryRun) {
    items.push(...(await resolvePending(deps, mirror, listed, trackedById, untrackedFiles, claimed, options, read)));
    await save();
  } else for (const path of Object.keys(mirror.pending ?? {})) claimed.add(path);

  // New remote notes (and notes outside a bound folder that changed since they were read).
  const fresh = listed.filter((note) => {
    if (mirror.notes[note.id] !== undefined) return false;
    if (note.id in mirror.outside && mirror.outside[note.id] === note.last_changed_at) return false;
    return true;
  });
  const elsewhere = fresh.filter((note) => trackedById.has(note.id));
  for (const note of elsewhere) {
    const record = trackedById.get(note.id);
    if (record === undefined) continue;
    items.push({
      action: "already_tracked",
      note_id: note.id,
      local_path: record.local_path,
      message: `Note ${note.id} is already tracked at ${record.local_path}; the mirror leaves it there.`,
    });
    // Said once: the note is left out of later rounds until it changes (as a note outside a bound folder).
    if (!dryRun) mirror.outside[note.id] = note.last_changed_at;
  }
  let toFetch = fresh.filter((note) => !trackedById.has(note.id));
  const estimate: MirrorEstimate = {
    listed: listed.length,
    reads: toFetch.length,
    requests: 1 + (mirror.folder_path !== "" ? 1 : 0) + toFetch.length,
  };
  if (dryRun) {
    for (const note of toFetch)
      items.push({
        action: "would_pull",
        note_id: note.id,
        local_path: joinPath(mirror.local_dir, `${safeName(note.title)}.md`),
      });
    for (const path of untrackedFiles.filter((path) => !claimed.has(path)))
      items.push({ action: "would_publish", local_path: path });
    return { ...resultOf(mirror, items, estimate, true), complete: mirror.complete };
  }
  let capped = false;
  if (options.maxReads !== undefined && toFetch.length > options.maxReads) {
    toFetch = toFetch.slice(0, Math.max(0, options.maxReads));
    capped = true;
  }
  let done = 0;
  let stopped: unknown;
  // One folder list at most, shared by every worker that meets a folder it does not know.
  let folderList: Promise<void> | undefined;
  const knowFolders = async (chain: readonly string[]): Promise<void> => {
    if (chain.every((id) => mirror.folders[id] !== undefined)) return;
    folderList ??= deps.client
      .listFolders(options.call, { teamPath: mirror.team_path })
      .then((folders) => learnFolders(mirror, folders));
    await folderList;
  };
  progress({ phase: "fetching", done, total: toFetch.length });
  await forEachBounded(toFetch, options.concurrency ?? 4, async (summary) => {
    if (stopped !== undefined) return;
    try {
      const note = await read(summary.id);
      const chain = chainInMirror(mirror, note.folder_ids);
      if (chain === undefined) {
        mirror.outside[note.id] = note.last_changed_at;
        return;
      }
      delete mirror.outside[note.id];
      await knowFolders(chain);
      const dir = await dirOfChain(deps.files, mirror, chain, names);
      const name = uniqueName(safeName(note.title), await names.files(deps.files, dir));
      const path = joinPath(dir, `${name}.md`);
      await deps.sync.pull({
        localPath: path,
        resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: mirror.team_path, noteId: note.id }),
        overwriteLocal: false,
        discardLocalChanges: false,
        createParentDirs: true,
        confirmLargeFile: true,
        call: options.call,
        prefetched: note,
      });
      mirror.notes[note.id] = { folder: chain[chain.length - 1] ?? null, name };
      items.push({ action: "pulled", note_id: note.id, local_path: path });
    } catch (error) {
      if (isBridgeError(error, "rate_limited")) stopped = error;
      items.push({ action: "error", note_id: summary.id, local_path: "", ...failure(error) });
    } finally {
      done += 1;
      progress({ phase: "fetching", done, total: toFetch.length });
      if (done % SAVE_EVERY === 0) await save();
    }
  });
  mirror.complete =
    mirror.complete || (!capped && stopped === undefined && items.every((item) => item.action !== "error"));
  await save();

  // New local files: published as private notes in the matching folder, then tracked.
  const toPublish = untrackedFiles.filter((path) => !claimed.has(path));
  let published = 0;
  progress({ phase: "publishing", done: published, total: toPublish.length });
  for (const path of toPublish) {
    try {
      items.push(await publishFile(deps, mirror, path, options));
    } catch (error) {
      items.push({ action: "error", local_path: path, ...failure(error) });
    }
    published += 1;
    progress({ phase: "publishing", done: published, total: toPublish.length });
    await save();
  }
  return resultOf(mirror, items, estimate, false);
}

function resultOf(mirror: MirrorState, items: MirrorItem[], estimate: MirrorEstimate, dryRun: boolean): MirrorResult {
  return {
    id: mirror.id,
    target: `${mirror.team_path ?? "personal"}${mirror.folder_path === "" ? "" : `/${mirror.folder_path}`}`,
    local_dir: mirror.local_dir,
    dry_run: dryRun,
    complete: mirror.complete,
    estimate,
    items,
  };
}

/** An untracked file holding a missing mirrored file's last synced text: where it was renamed to. */
async function findRenamed(
  deps: AppDeps,
  record: TrackedEntry,
  candidates: readonly string[],
  claimed: ReadonlySet<string>,
): Promise<string | undefined> {
  const store = deps.sync.store;
  const keyed = store === undefined ? undefined : await store.readRecord(recordKey(record.team_path, record.note_id));
  for (const path of candidates) {
    if (claimed.has(path)) continue;
    const text = await readText(deps.files, path);
    if (text === undefined) continue;
    const form =
      typeof keyed === "object"
        ? await deps.sync.remoteFormOf({ key: recordKey(record.team_path, record.note_id), record: keyed }, text)
        : text;
    if ((await bodyHash(form)) === record.baseline_hash) return path;
  }
  return undefined;
}

/** A mirrored file deleted in the vault: untracked, and its note deleted only when asked and unchanged. */
async function deletedInVault(
  deps: AppDeps,
  mirror: MirrorState,
  record: TrackedEntry,
  listed: NoteSummary | undefined,
  options: MirrorRoundOptions,
): Promise<MirrorItem> {
  const noteId = record.note_id;
  const base = { note_id: noteId, local_path: record.local_path };
  if (options.dryRun === true)
    return { action: options.deleteRemote === true ? "deleted_remote" : "untracked", ...base, message: "dry run" };
  try {
    const asked =
      options.deleteRemote !== true && options.confirmDeleteRemote !== undefined
        ? await options.confirmDeleteRemote(record.local_path, noteId)
        : false;
    if (options.deleteRemote === true || asked) {
      const unchanged =
        listed !== undefined &&
        listed.last_changed_at !== null &&
        String(listed.last_changed_at) === record.last_observed_remote_timestamp;
      // The list is from the round's start and a confirmation can take minutes: read the note
      // again right before deleting, and delete only what the last sync saw.
      const still = unchanged ? await stillAsSynced(deps, mirror, record, options.call) : "changed";
      await deps.sync.untrack({ teamPath: mirror.team_path, noteId, confirm: true });
      if (still === "gone")
        return {
          action: "untracked",
          ...base,
          message: `${record.local_path} was deleted in the vault, and note ${noteId} is already gone from HackMD; it is no longer tracked.`,
        };
      if (still !== "same")
        return {
          action: "untracked",
          ...base,
          message: `${record.local_path} was deleted in the vault, but note ${noteId} changed on HackMD since the last sync, so it was not deleted; it is no longer tracked.`,
        };
      await deps.lists.aroundWrite(() => deps.client.deleteNote(options.call, { teamPath: mirror.team_path, noteId }));
      // docs/hackmd-api.md: a personal note goes to HackMD's trash; a team note cannot be restored.
      const where =
        mirror.team_path === null
          ? "moved to HackMD's trash"
          : `deleted from team ${mirror.team_path} (HackMD cannot restore team notes)`;
      return {
        action: "deleted_remote",
        ...base,
        message: `${record.local_path} was deleted in the vault, so note ${noteId} was ${where} as asked.`,
      };
    }
    await deps.sync.untrack({ teamPath: mirror.team_path, noteId, confirm: true });
    return {
      action: "untracked",
      ...base,
      message: `${record.local_path} was deleted in the vault; note ${noteId} stays on HackMD and is no longer tracked (delete it too with --delete-remote).`,
    };
  } catch (error) {
    return { action: "error", ...base, ...failure(error) };
  }
}

/**
 * One fresh read of a note about to be deleted: "same" when its body and timestamp are still those
 * of the last sync, "gone" when HackMD no longer has it, else "changed" (someone edited it).
 */
async function stillAsSynced(
  deps: AppDeps,
  mirror: MirrorState,
  record: TrackedEntry,
  call: CallContext,
): Promise<"same" | "changed" | "gone"> {
  let note: NoteDetail;
  try {
    note = await deps.client.getNote(call, { teamPath: mirror.team_path, noteId: record.note_id });
  } catch (error) {
    if (isBridgeError(error, "not_found")) return "gone";
    throw error;
  }
  const sameTime =
    note.last_changed_at !== null && String(note.last_changed_at) === record.last_observed_remote_timestamp;
  const hash = note.body_hash ?? (note.content === undefined ? undefined : await bodyHash(note.content));
  const sameBody = hash === record.baseline_hash;
  return sameTime && sameBody ? "same" : "changed";
}

/** Error kinds after which a create may or may not have landed (docs/adr/0003-pending-writes.md). */
const UNKNOWN_OUTCOME: readonly ErrorKind[] = ["readback", "upstream", "network", "partial_write"];

/**
 * New files whose publish ended with an unknown outcome: a listed note with the title sent, in the
 * folder it was sent to (one read per candidate), gets the file linked; otherwise the file is
 * reported as unconfirmed and never published again. A file renamed or removed since is forgotten.
 */
async function resolvePending(
  deps: AppDeps,
  mirror: MirrorState,
  listed: readonly NoteSummary[],
  trackedById: ReadonlyMap<string, TrackedEntry>,
  untrackedFiles: readonly string[],
  claimed: Set<string>,
  options: MirrorRoundOptions,
  read: (noteId: string) => Promise<NoteDetail>,
): Promise<MirrorItem[]> {
  const items: MirrorItem[] = [];
  const pending = mirror.pending ?? {};
  for (const [path, sent] of Object.entries(pending)) {
    if (!untrackedFiles.includes(path)) {
      delete pending[path];
      continue;
    }
    claimed.add(path);
    try {
      let found: NoteDetail | undefined;
      for (const summary of listed) {
        if (summary.title !== sent.title || trackedById.has(summary.id) || mirror.notes[summary.id] !== undefined)
          continue;
        const note = await read(summary.id);
        const chain = chainInMirror(mirror, note.folder_ids);
        if (
          chain !== undefined &&
          (chain[chain.length - 1] ?? mirror.folder_id) === (sent.folder ?? mirror.folder_id)
        ) {
          found = note;
          break;
        }
      }
      if (found !== undefined) {
        const form = await deps.sync.publishForm(path);
        await deps.sync.adopt({ form, teamPath: mirror.team_path, noteId: found.id, call: options.call });
        const stem = (path.split("/").pop() ?? path).replace(/\.md$/i, "");
        mirror.notes[found.id] = { folder: sent.folder === mirror.folder_id ? null : sent.folder, name: stem };
        delete pending[path];
        items.push({
          action: "published",
          note_id: found.id,
          local_path: path,
          message: `The earlier publish of ${path} did land: it is now linked to note ${found.id}.`,
        });
        continue;
      }
      items.push({
        action: "error",
        local_path: path,
        error_kind: "readback",
        message: `${path} was sent to HackMD as "${sent.title}" at ${new Date(sent.at).toISOString()}, but whether the note was created is still unconfirmed, so it is not published again. Look on HackMD: if the note is there in another folder or with another title, delete this file and let the mirror pull the note; if it is not there, rename the file to publish it again.`,
      });
    } catch (error) {
      items.push({ action: "error", local_path: path, ...failure(error) });
    }
  }
  if (Object.keys(pending).length === 0) delete mirror.pending;
  else mirror.pending = pending;
  return items;
}

/** Publishes a new file of the mirror as a private note in the matching HackMD folder, then tracks it. */
async function publishFile(
  deps: AppDeps,
  mirror: MirrorState,
  path: string,
  options: MirrorRoundOptions,
): Promise<MirrorItem> {
  const text = await readText(deps.files, path);
  if (text === undefined)
    return {
      action: "error",
      local_path: path,
      error_kind: "invalid_input",
      message: `${path} is not UTF-8 text below 50 MiB; it was not published.`,
    };
  const relative = mirror.local_dir === "" ? path : path.slice(mirror.local_dir.length + 1);
  const segments = relative.split("/").slice(0, -1);
  let parent = mirror.folder_id;
  for (const segment of segments) {
    const known = Object.entries(mirror.folders).find(
      ([, folder]) => folder.parent === parent && folder.dir.toLowerCase() === segment.toLowerCase(),
    );
    if (known !== undefined) {
      parent = known[0];
      continue;
    }
    const created = await deps.client.createFolder(options.call, {
      teamPath: mirror.team_path,
      body: { name: segment, ...(parent === null ? {} : { parentFolderId: parent }) },
    });
    mirror.folders[created.id] = { name: created.name, parent, dir: segment };
    parent = created.id;
  }
  const stem = (path.split("/").pop() ?? path).replace(/\.md$/i, "");
  const permissions = options.permissions ?? { read: "owner", write: "owner" };
  // The one publish of src/app/publish.ts: the note gets the file's HackMD form (comments stay
  // in the vault), the file is tracked as sent and never rewritten, and a failed link-up deletes
  // the note again.
  // The title is chosen here so that a create with an unknown outcome can be found later by it.
  const title = bodyTitle(text) ?? stem;
  let noteId: string;
  try {
    ({ noteId } = await publishTrackedFile(deps, options.call, {
      path,
      teamPath: mirror.team_path,
      title,
      readPermission: permissions.read,
      writePermission: permissions.write,
      ...(parent === null ? {} : { parentFolderId: parent }),
    }));
  } catch (error) {
    if (!isBridgeError(error) || !UNKNOWN_OUTCOME.includes(error.kind)) throw error;
    (mirror.pending ??= {})[path] = { title, folder: parent, at: deps.clock.now(), error_kind: error.kind };
    return {
      action: "error",
      local_path: path,
      error_kind: error.kind,
      message: `${error.message} Whether note "${title}" was created is unconfirmed; ${path} will not be published again: the next sync links it to that note once HackMD lists it, and says so otherwise.`,
    };
  }
  mirror.notes[noteId] = { folder: parent === mirror.folder_id ? null : parent, name: stem };
  return {
    action: "published",
    note_id: noteId,
    local_path: path,
    message: `Published ${path} as private note ${noteId}.`,
  };
}

/**
 * After sync-all: notes read this round (their timestamp moved) that now sit in another HackMD
 * folder have their file moved to the matching subfolder, and the record follows. A note moved
 * out of a bound folder leaves the mirror: its file goes to the trash, untracked.
 */
export async function followRemoteMoves(
  deps: AppDeps,
  mirror: MirrorState,
  observed: ReadonlyMap<string, NoteDetail>,
  options: Pick<MirrorRoundOptions, "host" | "call" | "lists">,
): Promise<MirrorItem[]> {
  const items: MirrorItem[] = [];
  const names = new NameCache();
  let folderListed = false;
  const tracked = new Map(
    (await deps.sync.listTracked())
      .filter((entry) => entry.team_path === mirror.team_path)
      .map((entry) => [entry.note_id, entry]),
  );
  for (const [noteId, note] of observed) {
    const entry = mirror.notes[noteId];
    const record = tracked.get(noteId);
    if (entry === undefined || entry.untracked === true || record === undefined) continue;
    const chain = chainInMirror(mirror, note.folder_ids);
    const leaf = chain === undefined ? undefined : (chain[chain.length - 1] ?? null);
    if (leaf === entry.folder) continue;
    try {
      if (chain === undefined) {
        await deps.sync.untrack({ teamPath: mirror.team_path, noteId, confirm: true });
        const where = await options.host.trash(record.local_path);
        delete mirror.notes[noteId];
        items.push({
          action: "trashed",
          note_id: noteId,
          local_path: record.local_path,
          trash_path: where,
          message: `Note ${noteId} was moved out of ${mirror.folder_path} on HackMD; its file was moved to ${where}.`,
        });
        continue;
      }
      if (chain.some((id) => mirror.folders[id] === undefined) && !folderListed) {
        folderListed = true;
        learnFolders(mirror, await deps.client.listFolders(options.call, { teamPath: mirror.team_path }));
      }
      const dir = await dirOfChain(deps.files, mirror, chain, names);
      const fileName = record.local_path.split("/").pop() ?? `${entry.name}.md`;
      const taken = await names.files(deps.files, dir);
      const stem = uniqueName(fileName.replace(/\.md$/i, ""), taken);
      const to = joinPath(dir, `${stem}.md`);
      await moveFile(deps, record.local_path, to);
      const outcome = await deps.sync.followRename({ from: record.local_path, to });
      entry.folder = leaf ?? null;
      entry.name = stem;
      items.push({
        action: "moved",
        note_id: noteId,
        local_path: to,
        from: record.local_path,
        ...(outcome === "followed"
          ? {}
          : { message: `The file moved, but its sync record did not follow (${outcome}).` }),
      });
    } catch (error) {
      items.push({ action: "error", note_id: noteId, local_path: record.local_path, ...failure(error) });
    }
  }
  await saveMirror(deps.files.state, mirror);
  return items;
}

/** Moves a file: a copy at `to` (which must not exist), then the original removed only if unchanged. */
async function moveFile(deps: AppDeps, from: string, to: string): Promise<void> {
  const read = await deps.files.read(from, { maxBytes: MAX_BODY_BYTES });
  if (read.truncated) throw new BridgeError("too_large", `${from} is too large to move.`);
  const parent = parentPath(to);
  if (parent !== "" && (await deps.files.stat(parent)).kind === "missing") await deps.files.createFolders(parent);
  const written = await deps.files.write(to, read.bytes, { expect: "absent" });
  try {
    await deps.files.remove(from, { expect: read.stamp });
  } catch (error) {
    await deps.files.remove(to, { expect: written.stamp }).catch(() => undefined);
    throw error;
  }
}
