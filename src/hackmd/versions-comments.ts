/**
 * Shapes and lenient readers of HackMD's versions and comments APIs (snake_case out, as every
 * client shape). HackMD writes version fields in snake_case and comment fields in camelCase; the
 * readers accept either where it costs nothing. Unreadable replies are `upstream` and are never
 * quoted.
 */
import { isOpenThread } from "./comment-thread";
import { unreadableReply } from "./read";

/** Who made a version or wrote a comment. */
export interface HistoryUser {
  /** HackMD's user id; null for guests and deleted users. */
  user_id: string | null;
  display_name: string;
}

/** A saved version of a note (its metadata). */
export interface NoteVersion {
  id: string;
  name: string;
  /** `user` for a named version, `system` for one HackMD made by itself. */
  name_source: "user" | "system";
  description: string | null;
  /** As HackMD sends it (an ISO-8601 string). */
  created_at: string;
  /** Epoch ms of `created_at`, or null when it is not a readable date. */
  created_at_ms: number | null;
  created_by: HistoryUser | null;
  content_available: boolean;
}

/** A version with its body (null when HackMD cannot reconstruct it). */
export type NoteVersionWithContent = NoteVersion & { content: string | null };

/** One page of a note's versions, newest first as HackMD orders them. */
export interface VersionPage {
  versions: NoteVersion[];
  total: number;
  total_pages: number;
  page: number;
  limit: number;
}

/** Query of a version list; every field optional. */
export interface VersionQuery {
  namedOnly?: boolean;
  q?: string;
  createdBy?: string;
  /** ISO-8601 datetimes. */
  createdAfter?: string;
  createdBefore?: string;
  page?: number;
  limit?: number;
}

/** A comment state (a reply's own, or a thread's). */
export interface CommentState {
  status: "open" | "hidden";
  reason: string | null;
}

/** A comment or reply of a note. */
export interface NoteComment {
  id: string;
  thread_id: string;
  is_thread_head: boolean;
  author: HistoryUser;
  body: string;
  /** The text the thread is anchored to, when HackMD knows it. */
  excerpt: string | null;
  created_at: number | null;
  state: CommentState;
  /** The thread's state (heads, and single reads of replies); null when HackMD left it out. */
  thread_state: CommentState | null;
  /** Replies of a thread head; null on replies. */
  reply_count: number | null;
}

/** One page of a note's comments. */
export interface CommentPage {
  comments: NoteComment[];
  page: number;
  limit: number;
  has_next: boolean;
}

/** Query of a comment list; every field optional. */
export interface CommentQuery {
  page?: number;
  limit?: number;
  sort?: "asc" | "desc";
  threadId?: string;
  commentStatus?: "open" | "hidden";
  threadStatus?: "open" | "hidden";
  threadHeadsOnly?: boolean;
}

/** The answer of a resolve or reopen. */
export interface CommentResolution {
  comment: NoteComment;
  /** Set when the whole thread changed state. */
  cascade_thread_id: string | null;
}

type Raw = Record<string, unknown>;

function isRaw(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function pick(raw: Raw, ...keys: string[]): unknown {
  for (const key of keys) if (raw[key] !== undefined) return raw[key];
  return undefined;
}

function count(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.round(value) : fallback;
}

function readUser(value: unknown): HistoryUser | null {
  if (!isRaw(value)) return null;
  const kind = text(value.kind);
  const id = text(pick(value, "user_id", "userId"));
  const name = text(pick(value, "display_name", "displayName"));
  if (kind === "deleted_user") return { user_id: null, display_name: "a deleted user" };
  return { user_id: id, display_name: name ?? (kind === "guest" ? "a guest" : "someone") };
}

/** A version's metadata; throws `upstream` without an id. */
export function readVersion(raw: unknown, where: string): NoteVersion {
  if (!isRaw(raw) || typeof raw.id !== "string" || raw.id === "")
    throw unreadableReply(where, "a version without an id");
  const createdAt = text(pick(raw, "created_at", "createdAt")) ?? "";
  const parsed = Date.parse(createdAt);
  return {
    id: raw.id,
    name: text(raw.name) ?? "",
    name_source: pick(raw, "name_source", "nameSource") === "user" ? "user" : "system",
    description: text(raw.description),
    created_at: createdAt,
    created_at_ms: Number.isFinite(parsed) ? parsed : null,
    created_by: readUser(pick(raw, "created_by", "createdBy")),
    content_available: pick(raw, "content_available", "contentAvailable") !== false,
  };
}

/** A version with its body. */
export function readVersionWithContent(raw: unknown, where: string): NoteVersionWithContent {
  const version = readVersion(raw, where);
  return { ...version, content: isRaw(raw) ? text(raw.content) : null };
}

/** A page of versions. */
export function readVersionPage(raw: unknown, where: string): VersionPage {
  if (!isRaw(raw) || !Array.isArray(raw.data)) throw unreadableReply(where, "no list of versions");
  const meta = isRaw(raw.meta) ? raw.meta : {};
  const versions = raw.data.map((item) => readVersion(item, where));
  return {
    versions,
    total: count(meta.total, versions.length),
    total_pages: count(pick(meta, "total_pages", "totalPages"), 1),
    page: count(meta.page, 1),
    limit: count(meta.limit, versions.length),
  };
}

/** A unified diff of a comparison. */
export function readUnifiedDiff(raw: unknown, where: string): string {
  const diff = isRaw(raw) ? text(pick(raw, "unified_diff", "unifiedDiff")) : null;
  if (diff === null) throw unreadableReply(where, "no unified_diff");
  return diff;
}

function readState(value: unknown): CommentState | null {
  if (!isRaw(value)) return null;
  return { status: value.status === "hidden" ? "hidden" : "open", reason: text(value.reason) };
}

/** A comment or reply; throws `upstream` without an id. */
export function readComment(raw: unknown, where: string): NoteComment {
  if (!isRaw(raw) || typeof raw.id !== "string" || raw.id === "")
    throw unreadableReply(where, "a comment without an id");
  const head = pick(raw, "isThreadHead", "is_thread_head") === true;
  const createdAt = pick(raw, "createdAt", "created_at");
  return {
    id: raw.id,
    thread_id: text(pick(raw, "threadId", "thread_id")) ?? raw.id,
    is_thread_head: head,
    author: readUser(raw.actor) ?? { user_id: null, display_name: "someone" },
    body: text(raw.body) ?? "",
    excerpt: text(raw.excerpt),
    created_at: typeof createdAt === "number" && Number.isFinite(createdAt) ? Math.round(createdAt) : null,
    state: readState(pick(raw, "commentState", "comment_state")) ?? { status: "open", reason: null },
    thread_state: readState(pick(raw, "threadState", "thread_state")),
    reply_count: head ? count(pick(raw, "replyCount", "reply_count"), 0) : null,
  };
}

/** A page of comments. */
export function readCommentPage(raw: unknown, where: string): CommentPage {
  if (!isRaw(raw) || !Array.isArray(raw.comments)) throw unreadableReply(where, "no list of comments");
  const pagination = isRaw(raw.pagination) ? raw.pagination : {};
  const comments = raw.comments.map((item) => readComment(item, where));
  return {
    comments,
    page: count(pagination.page, 1),
    limit: count(pagination.limit, comments.length),
    has_next: pick(pagination, "hasNext", "has_next") === true,
  };
}

/** The answer of a resolve or reopen. */
export function readResolution(raw: unknown, where: string): CommentResolution {
  if (!isRaw(raw)) throw unreadableReply(where, "no comment");
  const cascade = isRaw(raw.cascade) ? text(pick(raw.cascade, "threadId", "thread_id")) : null;
  return { comment: readComment(raw.comment, where), cascade_thread_id: cascade };
}

// isOpenThread lives in comment-thread.ts (the plugin's views need it without the readers); re-exported here.
export { isOpenThread };
