/**
 * Shared types of the HackMD emulator (docs/hackmd-api.md Part 2): the stored records, the quirk
 * switches, fault specifications, the request log and the public control surface.
 */
import type { Buffer } from "node:buffer";

/** Wall-clock source in epoch milliseconds; tests pass a fake one they can advance. */
export interface EmulatorClock {
  now(): number;
}

/** Uniform random number in [0, 1); the emulator derives every id from it. */
export type EmulatorRandom = () => number;

/** Read and write permission values, least to most permissive. */
export type Permission = "owner" | "signed_in" | "guest";

/** Where a note or folder lives: one user's personal space or one team (by record id). */
export type Workspace = { user: string } | { team: string };

/** A user of the emulator; tokens map to exactly one user. */
export interface UserRecord {
  id: string;
  userPath: string;
  name: string;
  email: string | null;
  photo: string;
  upgraded: boolean;
  biography: string | null;
  tokens: string[];
}

/** A team member's role; owners and admins may read the team trash. */
export type TeamRole = "owner" | "admin" | "member";

/** A team and its members. */
export interface TeamRecord {
  id: string;
  path: string;
  name: string;
  logo: string;
  description: string | null;
  visibility: "public" | "private";
  upgraded: boolean;
  createdAt: number;
  ownerId: string;
  members: Array<{ userId: string; role: TeamRole }>;
}

/** The stored state of one note (committed or visible snapshot). */
export interface NoteState {
  id: string;
  shortId: string;
  title: string;
  description: string;
  tags: string[];
  createdAt: number;
  lastChangedAt: number;
  titleUpdatedAt: number | null;
  tagsUpdatedAt: number | null;
  lastChangeUserId: string | null;
  publishType: "edit" | "view" | "slide" | "book";
  publishedAt: number | null;
  permalink: string | null;
  readPermission: Permission;
  writePermission: Permission;
  commentPermission: string;
  suggestEditPermission: string;
  noteFeatures: Record<string, string>;
  workspace: Workspace;
  creatorId: string;
  content: string;
  folderId: string | null;
  trashedAt: number | null;
  restoreFolderId: string | null;
  revision: number;
}

/** The stored state of one folder. */
export interface FolderState {
  id: string;
  name: string;
  description: string | null;
  icon: string | null;
  color: string | null;
  parentFolderId: string | null;
  createdAt: number;
  updatedAt: number;
  workspace: Workspace;
  clientId: string;
}

/** An uploaded image, served at `/_uploads/<name>`. */
export interface ImageRecord {
  name: string;
  bytes: Buffer;
  contentType: string;
  noteId: string;
}

/** A saved version of a note (versions API): named by a user, or made by the system on a write. */
export interface VersionRecord {
  id: string;
  noteId: string;
  name: string;
  nameSource: "user" | "system";
  description: string | null;
  createdAt: number;
  /** Record id of the user whose write or request made it; null when unknown. */
  createdBy: string | null;
  content: string;
}

/** A resolution state of a comment or a thread. */
export interface CommentStateRecord {
  status: "open" | "hidden";
  reason: "resolved" | "spam" | "abuse" | "off_topic" | null;
  actedBy: string | null;
  actedAt: number | null;
}

/** One comment of a note: a thread head (with the thread's state) or a reply. */
export interface CommentRecord {
  id: string;
  noteId: string;
  threadId: string;
  authorId: string;
  body: string;
  createdAt: number;
  updatedAt: number;
  isPinned: boolean;
  anchor: { offset: number; length: number } | null;
  excerpt: string | null;
  commentState: CommentStateRecord;
  /** Set on thread heads only. */
  threadState: CommentStateRecord | null;
}

/** A comment thread as seed data and the control interface write it. */
export interface SeedThread {
  id?: string;
  /** userPath of the author. */
  author: string;
  body: string;
  excerpt?: string | null;
  anchor?: { offset: number; length: number } | null;
  resolved?: boolean;
  createdAt?: number;
  replies?: Array<{ id?: string; author: string; body: string; createdAt?: number }>;
}

/** Rate-limiting switches (§2.9). */
export interface RateLimitQuirks {
  enabled: boolean;
  /** Requests per rolling window per user (HackMD: 100). */
  windowLimit: number;
  /** Length of the rolling window in ms (HackMD: 5 minutes). */
  windowMs: number;
  monthlyQuota: { free: number; upgraded: number };
  headers: boolean;
  headersDescribe: "window" | "quota";
  resetUnit: "epoch-ms" | "epoch-s" | "seconds";
  headersOnWindow429: boolean;
  retryAfter: boolean;
}

/** Route families that `hiddenRouteFamilies` can hide. */
export type RouteFamily =
  "me" | "teams" | "history" | "notes" | "images" | "folders" | "trash" | "versions" | "comments";

/** Every quirk switch of docs/hackmd-api.md §2.9. */
export interface Quirks {
  visibilityDelayMs: number;
  visibilityScope: "all" | "content";
  patchWithoutContentBlanksBody: boolean;
  contentPatchClearsTitle: boolean;
  deriveTitleAtCreate: boolean;
  normalizeLineEndings: boolean;
  folderMoveIgnored: boolean;
  personalFolderPatchUnsupported: boolean;
  createHonoursParentFolderId: boolean;
  forbiddenButApplied: boolean;
  strictPatchFields: boolean;
  unknownFolderEmptyObject: boolean;
  folderDeleteChildren: "orphan" | "reparent" | "refuse";
  etag: boolean;
  tagsNullOnCreate: boolean;
  rateLimit: RateLimitQuirks;
  unauthorizedBody: "text" | "json";
  teamPathCaseSensitive: boolean;
  fractionalTimestamps: boolean;
  hiddenRouteFamilies: RouteFamily[];
  latencyMs: number;
  imageMaxBytes: number;
  maxRequestBytes: number;
  webOrigin: string;
  /** Base of image links; `null` means the emulator's own origin. */
  imageOrigin: string | null;
  /** `"per-write"`: every body change makes a system version; `"none"`: only named versions exist. */
  autoVersions: "per-write" | "none";
}

/** A partial update of the quirks; `rateLimit` merges field by field. */
export type QuirksPatch = Partial<Omit<Quirks, "rateLimit" | "monthlyQuota">> & {
  rateLimit?: Partial<Omit<RateLimitQuirks, "monthlyQuota">> & {
    monthlyQuota?: Partial<RateLimitQuirks["monthlyQuota"]>;
  };
};

/** What a fault does when it acts (§2.10). */
export type FaultAction =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { drop: true }
  | { latencyMs: number }
  | { placementFailure: true }
  | { partialApply: true };

/** Which requests a fault matches; every given criterion must hold. */
export interface FaultMatch {
  method?: string | string[];
  /** The route template of the log, e.g. `PATCH /notes/:noteId`. */
  route?: string;
  /** The raw path (base path included); a string matches with or without the query. */
  path?: string | RegExp;
  /** The userPath of the token's user. */
  user?: string;
}

/** A fault to inject (§2.10). */
export interface FaultSpec {
  match: FaultMatch;
  action: FaultAction;
  when?: "before-commit" | "after-commit";
  times?: number;
  skip?: number;
}

/** Live view of an injected fault. */
export interface FaultHandle {
  readonly id: string;
  readonly hits: number;
  readonly remaining: number;
  remove(): void;
}

/** One entry of the request log (§2.11). */
export interface RequestLogEntry {
  seq: number;
  at: number;
  durationMs: number | null;
  method: string;
  path: string;
  route: string | null;
  user: string | null;
  headers: Record<string, string>;
  bodyBytes: number;
  bodyKeys: string[] | null;
  status: number | null;
  fault: string | null;
  committed: boolean;
  rateLimited: boolean;
}

/** Filter of `requests()`: all given criteria must hold. */
export interface RequestFilter {
  method?: string;
  route?: string;
  /** Only entries with `seq` greater than this. */
  since?: number;
}

/** Fields a collaborator can change in the web editor. */
export interface CollaboratorChange {
  content?: string;
  title?: string;
  tags?: string[];
  description?: string;
}

/** A workspace named by userPath or team path, as seed data writes it. */
export type SeedWorkspace = { user: string } | { team: string };

/** Users, teams, folders and notes to add to the store. */
export interface SeedData {
  users?: Array<{
    userPath: string;
    id?: string;
    name?: string;
    email?: string | null;
    photo?: string;
    upgraded?: boolean;
    /** Tokens to accept; omitted: one generated token; `[]`: none (a profile only). */
    tokens?: string[];
  }>;
  teams?: Array<{
    path: string;
    id?: string;
    name?: string;
    description?: string | null;
    visibility?: "public" | "private";
    upgraded?: boolean;
    /** Members by userPath; the first owner listed becomes `ownerId`. */
    members: Array<{ userPath: string; role: TeamRole }>;
  }>;
  folders?: Array<{
    /** A name other seed entries use to refer to this folder (defaults to the id). */
    ref?: string;
    id?: string;
    name: string;
    description?: string | null;
    icon?: string | null;
    color?: string | null;
    /** Parent folder by ref or id. */
    parent?: string;
    workspace?: SeedWorkspace;
  }>;
  notes?: Array<{
    id?: string;
    shortId?: string;
    title?: string;
    content?: string;
    description?: string;
    tags?: string[];
    workspace?: SeedWorkspace;
    /** Folder by ref or id. */
    folder?: string;
    readPermission?: Permission;
    writePermission?: Permission;
    permalink?: string | null;
    createdAt?: number;
    lastChangedAt?: number;
    /** userPath of the author of the last body change; defaults to the creator. */
    lastChangeUser?: string | null;
    /** userPath of the creator; defaults to the workspace user or the team owner. */
    creator?: string;
    trashedAt?: number | null;
    /** Comment threads of the note (replaces none: a new note has none). */
    comments?: SeedThread[];
  }>;
}

/** What `seed()` created: tokens by userPath, and ids in input order. */
export interface SeedResult {
  tokens: Record<string, string[]>;
  userIds: string[];
  teamIds: string[];
  folderIds: string[];
  noteIds: string[];
}

/** Built-in seeds (§2.13). */
export type SeedName = "empty" | "demo";

/** Options of `startEmulator`; all optional. */
export interface EmulatorOptions {
  /** Port on 127.0.0.1; 0 (default) lets the system choose. */
  port?: number;
  seed?: SeedName;
  quirks?: QuirksPatch;
  clock?: EmulatorClock | (() => number);
  random?: EmulatorRandom;
  /** Serve the HTTP control routes under `/__emulator/`. */
  control?: boolean;
  basePath?: string;
  /** The primary token; default: 32 bytes from the random source in base64url. */
  token?: string;
  /** Capacity of the request log ring buffer (default 10,000). */
  logCapacity?: number;
  /**
   * Keep the data in this JSON file (mode 0600): loaded at start when the file exists (`seed`
   * then applies only to a later `reset()`), written after every request that may change data,
   * after every in-process change and on `close()`. A file that cannot be used makes the start
   * fail with an EmulatorStateError naming the file.
   */
  stateFile?: string;
}

/** Committed state returned by `inspect()`, ignoring visibility delays. */
export interface EmulatorSnapshot {
  users: Array<Omit<UserRecord, "tokens"> & { tokenCount: number }>;
  teams: TeamRecord[];
  notes: NoteState[];
  folders: FolderState[];
  folderOrders: Record<string, Record<string, string[]>>;
  history: Record<string, Record<string, number>>;
  images: Array<{ name: string; contentType: string; noteId: string; bytes: number }>;
  versions: VersionRecord[];
  comments: CommentRecord[];
  pending: { notes: number; folders: number };
}

/** A running emulator and its in-process control interface (§2.12). */
export interface Emulator {
  /** `http://127.0.0.1:<port>/v1` (with the configured base path). */
  readonly url: string;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  /** Token of the primary user `sandbox`. */
  readonly token: string;
  /** Current switches (a copy). */
  readonly quirks: Quirks;
  reset(seed?: SeedName): void;
  seed(data: SeedData): SeedResult;
  setQuirks(partial: QuirksPatch): Quirks;
  injectFault(spec: FaultSpec): FaultHandle;
  clearFaults(): void;
  requests(filter?: RequestFilter): RequestLogEntry[];
  clearRequests(): void;
  collaboratorEdit(noteId: string, change: CollaboratorChange, options?: { as?: string }): void;
  collaboratorDelete(noteId: string): void;
  /** Replaces the comment threads of a note. */
  setComments(noteId: string, threads: SeedThread[]): void;
  flushPending(): void;
  inspect(): EmulatorSnapshot;
  close(): Promise<void>;
}
