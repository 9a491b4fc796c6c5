/**
 * The comments API (HackMD's OpenAPI document, tag "Comments"): list, get, resolve and reopen.
 * Personal route only (no team form in the document; the personal route serves team notes the
 * token can read). Errors use the comments dialect `{errorCode, message}`.
 */
import { jsonReply, type Reply, type RouteContext, type RouteDef } from "../http";
import type { NoteEntry, Store } from "../store";
import type { CommentRecord, CommentStateRecord, SeedThread } from "../types";
import { derivedUuid } from "../ids";
import { canRead, hasFullAccess } from "./common";

function commentError(status: number, code: string, message: string, extra: Record<string, unknown> = {}): Reply {
  return { status, json: { errorCode: code, message, ...extra } };
}

function noteFor(ctx: RouteContext, resolve: boolean): NoteEntry | Reply {
  const entry = ctx.store.notes.get(ctx.params.noteId ?? "");
  if (!entry || entry.committed.trashedAt !== null) return commentError(404, "not_found", "Note not found");
  const allowed = resolve ? hasFullAccess(ctx, entry.committed) : canRead(ctx, entry.committed);
  if (!allowed)
    return commentError(403, "forbidden", resolve ? "Comment resolution forbidden" : "Comments not readable");
  return entry;
}

function isEntry(value: NoteEntry | Reply): value is NoteEntry {
  return "committed" in value;
}

function actor(store: Store, userId: string | null): Record<string, unknown> | null {
  if (userId === null) return null;
  const user = store.users.get(userId);
  return user ? { kind: "user", userId: user.id, displayName: user.name } : { kind: "deleted_user" };
}

function stateView(store: Store, state: CommentStateRecord): Record<string, unknown> {
  return { status: state.status, reason: state.reason, actedBy: actor(store, state.actedBy), actedAt: state.actedAt };
}

function headOf(list: CommentRecord[], threadId: string): CommentRecord | undefined {
  return list.find((c) => c.threadId === threadId && c.threadState !== null);
}

/** A comment as the list (`detail: false`) or the single read (`detail: true`) shows it. */
function commentView(
  store: Store,
  list: CommentRecord[],
  comment: CommentRecord,
  detail: boolean,
): Record<string, unknown> {
  const author = actor(store, comment.authorId) ?? { kind: "deleted_user" };
  const view: Record<string, unknown> = {
    id: comment.id,
    threadId: comment.threadId,
    actor: author,
    body: comment.body,
    contentType: "plain_text",
    commentState: stateView(store, comment.commentState),
    isPinned: comment.isPinned,
    anchor: comment.anchor,
    currentAnchor: comment.anchor,
    excerpt: comment.excerpt,
    reactions: [],
    createdAt: comment.createdAt,
    updatedAt: comment.updatedAt,
    isThreadHead: comment.threadState !== null,
  };
  const head = headOf(list, comment.threadId);
  if (comment.threadState !== null) {
    view.replyCount = list.filter((c) => c.threadId === comment.threadId && c.threadState === null).length;
  }
  if ((comment.threadState !== null || detail) && head?.threadState) {
    view.threadState = { ...stateView(store, head.threadState), sourceCommentId: head.id };
  }
  return view;
}

const STATUSES = new Set(["open", "hidden"]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function listComments(ctx: RouteContext): Reply {
  const entry = noteFor(ctx, false);
  if (!isEntry(entry)) return entry;
  const q = ctx.query;
  const int = (key: string, fallback: number, max: number): number | null => {
    const raw = q.get(key);
    if (raw === null) return fallback;
    const value = Number(raw);
    return Number.isInteger(value) && value >= 1 && value <= max ? value : null;
  };
  const page = int("page", 1, 1_000_000);
  const limit = int("limit", 50, 100);
  if (page === null || limit === null)
    return commentError(400, "invalid_request", "page must be a positive integer and limit 1 to 100");
  const sort = q.get("sort") ?? "asc";
  if (sort !== "asc" && sort !== "desc") return commentError(400, "invalid_request", "sort must be asc or desc");
  const threadId = q.get("threadId");
  if (threadId !== null && !UUID.test(threadId)) return commentError(400, "invalid_request", "threadId must be a UUID");
  const commentStatus = q.get("commentStatus");
  const threadStatus = q.get("threadStatus");
  if (
    (commentStatus !== null && !STATUSES.has(commentStatus)) ||
    (threadStatus !== null && !STATUSES.has(threadStatus))
  ) {
    return commentError(400, "invalid_request", "commentStatus and threadStatus must be open or hidden");
  }
  const headsOnly = q.get("isThreadHead");
  if (headsOnly !== null && headsOnly !== "true")
    return commentError(400, "invalid_request", "isThreadHead can only be true");
  const list = ctx.store.comments.get(entry.committed.id) ?? [];
  const matching = list
    .filter((c) => threadId === null || c.threadId === threadId)
    .filter((c) => commentStatus === null || c.commentState.status === commentStatus)
    .filter((c) => threadStatus === null || headOf(list, c.threadId)?.threadState?.status === threadStatus)
    .filter((c) => headsOnly === null || c.threadState !== null)
    .sort((a, b) => (sort === "asc" ? a.createdAt - b.createdAt : b.createdAt - a.createdAt));
  const slice = matching.slice((page - 1) * limit, page * limit);
  return jsonReply(200, {
    comments: slice.map((c) => commentView(ctx.store, list, c, false)),
    pagination: { page, limit, hasNext: matching.length > page * limit },
  });
}

function commentFor(ctx: RouteContext, entry: NoteEntry): { list: CommentRecord[]; comment: CommentRecord } | Reply {
  const list = ctx.store.comments.get(entry.committed.id) ?? [];
  const comment = list.find((c) => c.id === ctx.params.commentId);
  return comment ? { list, comment } : commentError(404, "not_found", "Comment not found");
}

function getComment(ctx: RouteContext): Reply {
  const entry = noteFor(ctx, false);
  if (!isEntry(entry)) return entry;
  const found = commentFor(ctx, entry);
  if ("status" in found) return found;
  return jsonReply(200, commentView(ctx.store, found.list, found.comment, true));
}

/** PUT resolves, DELETE reopens: a thread head acts on its thread, a reply on itself. */
function resolution(resolve: boolean) {
  return (ctx: RouteContext): Reply => {
    const entry = noteFor(ctx, true);
    if (!isEntry(entry)) return entry;
    const found = commentFor(ctx, entry);
    if ("status" in found) return found;
    const { list, comment } = found;
    const isHead = comment.threadState !== null;
    const state = comment.threadState ?? comment.commentState;
    if ((state.status === "hidden") === resolve) {
      return commentError(
        409,
        "resolution_conflict",
        resolve ? "The comment is already resolved." : "The comment is not resolved.",
        {
          commentState: stateView(ctx.store, comment.commentState),
        },
      );
    }
    const next: CommentStateRecord = resolve
      ? { status: "hidden", reason: "resolved", actedBy: ctx.user.id, actedAt: ctx.now }
      : { status: "open", reason: null, actedBy: ctx.user.id, actedAt: ctx.now };
    if (isHead) comment.threadState = next;
    else comment.commentState = next;
    comment.updatedAt = ctx.now;
    return jsonReply(
      200,
      { comment: commentView(ctx.store, list, comment, true), cascade: isHead ? { threadId: comment.threadId } : null },
      true,
    );
  };
}

/** Replaces a note's comments with the given threads (seed data and the control interface). */
export function setThreads(store: Store, noteId: string, threads: SeedThread[], now: number): void {
  const list: CommentRecord[] = [];
  const userId = (userPath: string): string => {
    const user = store.userByPath(userPath);
    if (!user) throw new Error(`emulator: unknown user ${userPath}`);
    return user.id;
  };
  const open: CommentStateRecord = { status: "open", reason: null, actedBy: null, actedAt: null };
  let serial = 0;
  const nextId = (): string => derivedUuid(`comment:${noteId}:${now}:${serial++}`);
  for (const thread of threads) {
    const id = thread.id ?? nextId();
    const createdAt = thread.createdAt ?? now;
    const authorId = userId(thread.author);
    list.push({
      id,
      noteId,
      threadId: id,
      authorId,
      body: thread.body,
      createdAt,
      updatedAt: createdAt,
      isPinned: false,
      anchor: thread.anchor ?? null,
      excerpt: thread.excerpt ?? null,
      commentState: { ...open },
      threadState:
        thread.resolved === true
          ? { status: "hidden", reason: "resolved", actedBy: authorId, actedAt: createdAt }
          : { ...open },
    });
    for (const reply of thread.replies ?? []) {
      const at = reply.createdAt ?? createdAt;
      list.push({
        id: reply.id ?? nextId(),
        noteId,
        threadId: id,
        authorId: userId(reply.author),
        body: reply.body,
        createdAt: at,
        updatedAt: at,
        isPinned: false,
        anchor: null,
        excerpt: null,
        commentState: { ...open },
        threadState: null,
      });
    }
  }
  store.comments.set(noteId, list);
}

/** The comments routes (personal form only, as in HackMD's document). */
export const commentRoutes: RouteDef[] = [
  { method: "GET", path: "/notes/:noteId/comments", family: "comments", handler: listComments },
  { method: "GET", path: "/notes/:noteId/comments/:commentId", family: "comments", handler: getComment },
  {
    method: "PUT",
    path: "/notes/:noteId/comments/:commentId/resolution",
    family: "comments",
    handler: resolution(true),
  },
  {
    method: "DELETE",
    path: "/notes/:noteId/comments/:commentId/resolution",
    family: "comments",
    handler: resolution(false),
  },
];
