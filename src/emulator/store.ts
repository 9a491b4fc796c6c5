/**
 * The emulator's in-memory data (§2.2) and the visibility of writes (§2.6). Each note and folder
 * keeps its committed state, the state reads see, and a queue of pending changes that become
 * visible in commit order; visibility is computed lazily from the clock, so no timers run.
 */
import type {
  CommentRecord,
  EmulatorSnapshot,
  FolderState,
  ImageRecord,
  NoteState,
  TeamRecord,
  UserRecord,
  VersionRecord,
  Workspace,
} from "./types";
import { derivedUuid } from "./ids";

interface Pending<T> {
  visibleAt: number;
  changes: Partial<T>;
}

/** A note with its committed and visible states. */
export interface NoteEntry {
  committed: NoteState;
  visible: NoteState;
  pending: Array<Pending<NoteState>>;
  /** Source of revisions; shared by both states so distinct visible states get distinct ETags. */
  counter: number;
}

/** A folder with its committed and visible states. */
export interface FolderEntry {
  committed: FolderState;
  visible: FolderState;
  pending: Array<Pending<FolderState>>;
}

/** How a write becomes visible: now, or after `delayMs`, for all fields or only the body. */
export interface Visibility {
  delayMs: number;
  scope: "all" | "content";
}

/** Stable key of a workspace, for maps. */
export function workspaceKey(ws: Workspace): string {
  return "user" in ws ? `user:${ws.user}` : `team:${ws.team}`;
}

/** Whether two workspaces are the same. */
export function sameWorkspace(a: Workspace, b: Workspace): boolean {
  return workspaceKey(a) === workspaceKey(b);
}

/** All stored data of one emulator. */
export class Store {
  readonly users = new Map<string, UserRecord>();
  readonly tokens = new Map<string, string>();
  readonly teams = new Map<string, TeamRecord>();
  readonly notes = new Map<string, NoteEntry>();
  readonly folders = new Map<string, FolderEntry>();
  readonly folderOrders = new Map<string, Record<string, string[]>>();
  readonly history = new Map<string, Map<string, number>>();
  readonly images = new Map<string, ImageRecord>();
  /** Saved versions per note id, oldest first. */
  readonly versions = new Map<string, VersionRecord[]>();
  /** Comments per note id, in creation order. */
  readonly comments = new Map<string, CommentRecord[]>();
  /** Counts versions made, for their derived ids. */
  versionSerial = 0;

  /** The versions of a note, oldest first (created empty on first use). */
  versionsOf(noteId: string): VersionRecord[] {
    let list = this.versions.get(noteId);
    if (!list) {
      list = [];
      this.versions.set(noteId, list);
    }
    return list;
  }

  /** A fresh version id for a note (derived, so the random source is not consumed). */
  nextVersionId(noteId: string): string {
    this.versionSerial += 1;
    return derivedUuid(`version:${noteId}:${this.versionSerial}`);
  }

  /** Adds a system version holding a note's body after a write (the `autoVersions: "per-write"` switch). */
  addSystemVersion(noteId: string, content: string, createdBy: string | null, now: number): VersionRecord {
    const version: VersionRecord = {
      id: this.nextVersionId(noteId),
      noteId,
      name: new Date(now).toISOString(),
      nameSource: "system",
      description: null,
      createdAt: now,
      createdBy,
      content,
    };
    this.versionsOf(noteId).push(version);
    return version;
  }

  /** The user a token names, if any. */
  userByToken(token: string): UserRecord | undefined {
    const id = this.tokens.get(token);
    return id === undefined ? undefined : this.users.get(id);
  }

  /** A user by userPath. */
  userByPath(userPath: string): UserRecord | undefined {
    for (const user of this.users.values()) if (user.userPath === userPath) return user;
    return undefined;
  }

  /** A team by path, exact or case-insensitive. */
  teamByPath(path: string, caseSensitive: boolean): TeamRecord | undefined {
    for (const team of this.teams.values()) {
      if (team.path === path || (!caseSensitive && team.path.toLowerCase() === path.toLowerCase())) return team;
    }
    return undefined;
  }

  /** The teams a user belongs to, in creation order. */
  teamsOf(userId: string): TeamRecord[] {
    return [...this.teams.values()].filter((t) => t.members.some((m) => m.userId === userId));
  }

  /** A user's role in a team, if a member. */
  roleIn(team: TeamRecord, userId: string): TeamRecord["members"][number]["role"] | undefined {
    return team.members.find((m) => m.userId === userId)?.role;
  }

  /** Adds a note; its body becomes visible after the delay, everything else at once. */
  addNote(note: NoteState, now: number, vis: Visibility): NoteEntry {
    const entry: NoteEntry = { committed: { ...note }, visible: { ...note }, pending: [], counter: note.revision };
    if (vis.delayMs > 0 && note.content !== "") {
      entry.visible.content = "";
      entry.pending.push({ visibleAt: now + vis.delayMs, changes: { content: note.content } });
      entry.visible.revision = ++entry.counter;
    }
    this.notes.set(note.id, entry);
    return entry;
  }

  /** The visible state of a note at `now` (pending changes due by then are applied first). */
  visibleNote(id: string, now: number): NoteState | undefined {
    const entry = this.notes.get(id);
    if (!entry) return undefined;
    this.settleNote(entry, now);
    return entry.visible;
  }

  /**
   * Commits changes to a note; returns false when nothing actually changed (then revision and
   * `lastChangedAt` stay as they were). `lastChangedAt` is set by the caller inside `changes`.
   */
  writeNote(entry: NoteEntry, changes: Partial<NoteState>, now: number, vis: Visibility): boolean {
    const effective = diff(entry.committed, changes, ["lastChangedAt"]);
    if (Object.keys(effective).length === 0) return false;
    if (changes.lastChangedAt !== undefined) effective.lastChangedAt = changes.lastChangedAt;
    this.settleNote(entry, now);
    entry.committed = { ...entry.committed, ...effective, revision: ++entry.counter };
    if (vis.delayMs <= 0) {
      this.flushNote(entry);
      return true;
    }
    const visibleAt = now + vis.delayMs;
    if (vis.scope === "all" || effective.content === undefined) {
      if (vis.scope === "all") entry.pending.push({ visibleAt, changes: effective });
      else this.applyVisibleNote(entry, effective);
      return true;
    }
    const { content, lastChangeUserId, ...metadata } = effective;
    const delayed: Partial<NoteState> = { content, lastChangedAt: effective.lastChangedAt };
    if (lastChangeUserId !== undefined) delayed.lastChangeUserId = lastChangeUserId;
    // Queue the body first, so the metadata applied now does not reveal it.
    entry.pending.push({ visibleAt, changes: delayed });
    if (Object.keys(metadata).length > 0) this.applyVisibleNote(entry, metadata);
    return true;
  }

  /** Makes every pending change of a note visible now. */
  flushNote(entry: NoteEntry): void {
    entry.pending.splice(0);
    entry.visible = { ...entry.committed };
  }

  /** Adds a folder (visible at once). */
  addFolder(folder: FolderState): FolderEntry {
    const entry: FolderEntry = { committed: { ...folder }, visible: { ...folder }, pending: [] };
    this.folders.set(folder.id, entry);
    return entry;
  }

  /** The visible state of a folder at `now`. */
  visibleFolder(id: string, now: number): FolderState | undefined {
    const entry = this.folders.get(id);
    if (!entry) return undefined;
    this.settleFolder(entry, now);
    return entry.visible;
  }

  /** Commits changes to a folder; false when nothing changed. */
  writeFolder(entry: FolderEntry, changes: Partial<FolderState>, now: number, vis: Visibility): boolean {
    const effective = diff(entry.committed, changes, ["updatedAt"]);
    if (Object.keys(effective).length === 0) return false;
    if (changes.updatedAt !== undefined) effective.updatedAt = changes.updatedAt;
    this.settleFolder(entry, now);
    entry.committed = { ...entry.committed, ...effective };
    // Folders have no body, so "content" scope shows folder changes at once.
    if (vis.delayMs <= 0 || vis.scope === "content") {
      this.flushFolder(entry);
      return true;
    }
    entry.pending.push({ visibleAt: now + vis.delayMs, changes: effective });
    return true;
  }

  /** Makes every pending change of a folder visible now. */
  flushFolder(entry: FolderEntry): void {
    entry.pending.splice(0);
    entry.visible = { ...entry.committed };
  }

  /** Makes everything visible now. */
  flushAll(): void {
    for (const entry of this.notes.values()) this.flushNote(entry);
    for (const entry of this.folders.values()) this.flushFolder(entry);
  }

  /** The order map of a workspace, created empty on first use. */
  orderOf(ws: Workspace): Record<string, string[]> {
    const key = workspaceKey(ws);
    let order = this.folderOrders.get(key);
    if (!order) {
      order = {};
      this.folderOrders.set(key, order);
    }
    return order;
  }

  /** Records a visit for `/history`. */
  visit(userId: string, noteId: string, now: number): void {
    let visits = this.history.get(userId);
    if (!visits) {
      visits = new Map();
      this.history.set(userId, visits);
    }
    // Re-insert so iteration order is visit order even when timestamps tie.
    visits.delete(noteId);
    visits.set(noteId, now);
  }

  /** Deep copy of the committed state. */
  snapshot(): EmulatorSnapshot {
    const clone = <T>(value: T): T => structuredClone(value);
    let pendingNotes = 0;
    let pendingFolders = 0;
    for (const e of this.notes.values()) pendingNotes += e.pending.length;
    for (const e of this.folders.values()) pendingFolders += e.pending.length;
    return {
      users: [...this.users.values()].map(({ tokens, ...u }) => ({ ...u, tokenCount: tokens.length })),
      teams: clone([...this.teams.values()]),
      notes: [...this.notes.values()].map((e) => clone(e.committed)),
      folders: [...this.folders.values()].map((e) => clone(e.committed)),
      folderOrders: Object.fromEntries([...this.folderOrders].map(([k, v]) => [k, clone(v)])),
      history: Object.fromEntries([...this.history].map(([u, v]) => [u, Object.fromEntries(v)])),
      images: [...this.images.values()].map((i) => ({
        name: i.name,
        contentType: i.contentType,
        noteId: i.noteId,
        bytes: i.bytes.byteLength,
      })),
      versions: [...this.versions.values()].flatMap((list) => list.map((v) => clone(v))),
      comments: [...this.comments.values()].flatMap((list) => list.map((c) => clone(c))),
      pending: { notes: pendingNotes, folders: pendingFolders },
    };
  }

  private settleNote(entry: NoteEntry, now: number): void {
    while (entry.pending.length > 0 && (entry.pending[0]?.visibleAt ?? Infinity) <= now) {
      const next = entry.pending.shift();
      if (next) this.applyVisibleNote(entry, next.changes);
    }
  }

  private applyVisibleNote(entry: NoteEntry, changes: Partial<NoteState>): void {
    entry.visible = { ...entry.visible, ...changes };
    entry.visible.revision = entry.pending.length === 0 ? entry.committed.revision : ++entry.counter;
    if (entry.pending.length === 0) entry.visible = { ...entry.committed };
  }

  private settleFolder(entry: FolderEntry, now: number): void {
    while (entry.pending.length > 0 && (entry.pending[0]?.visibleAt ?? Infinity) <= now) {
      const next = entry.pending.shift();
      if (next) entry.visible = { ...entry.visible, ...next.changes };
    }
    if (entry.pending.length === 0) entry.visible = { ...entry.committed };
  }
}

/** The entries of `changes` that differ from `base`, ignoring bookkeeping keys. */
function diff<T extends object>(base: T, changes: Partial<T>, ignore: Array<keyof T>): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(changes) as Array<keyof T>) {
    if (ignore.includes(key)) continue;
    const value = changes[key];
    if (value === undefined) continue;
    const before = base[key];
    // Two strings (a note's content: up to megabytes) compare directly; JSON-encoding both copies
    // to compare them cost a 1 MB write about 9 ms. Same answer: JSON.stringify is one-to-one on strings.
    const differs =
      typeof value === "string" && typeof before === "string"
        ? value !== before
        : JSON.stringify(value) !== JSON.stringify(before);
    if (differs) out[key] = value;
  }
  return out;
}
