/** Personal and team note routes (§2.5): list, create, read, PATCH, delete. */
import {
  emptyReply,
  errorReply,
  isObject,
  jsonReply,
  validationReply,
  type Reply,
  type RouteContext,
  type RouteDef,
} from "../http";
import { sameWorkspace, type NoteEntry } from "../store";
import { deriveTitle, normalizeEol, partiallyApplied } from "../text";
import type { NoteState, Permission, Workspace } from "../types";
import { permissionRank, validateNoteCreate, validateNotePatch } from "../validate";
import { noteListItem, singleNote } from "../views";
import { canEditAsGuest, canRead, hasFullAccess, isReply, routeWorkspace, visibility } from "./common";

function listNotes(ctx: RouteContext): Reply {
  const ws = routeWorkspace(ctx);
  if (isReply(ws)) return ws;
  const items: Array<Record<string, unknown>> = [];
  for (const entry of ctx.store.notes.values()) {
    if (entry.committed.trashedAt !== null || !sameWorkspace(entry.committed.workspace, ws)) continue;
    const visible = ctx.store.visibleNote(entry.committed.id, ctx.now);
    if (visible) items.push(noteListItem(ctx, visible));
  }
  return jsonReply(200, items);
}

/** A permalink held by another live note of the workspace. */
function permalinkTaken(ctx: RouteContext, ws: Workspace, permalink: string, self?: string): boolean {
  for (const entry of ctx.store.notes.values()) {
    const n = entry.committed;
    if (n.id !== self && n.trashedAt === null && n.permalink === permalink && sameWorkspace(n.workspace, ws))
      return true;
  }
  return false;
}

function folderInWorkspace(ctx: RouteContext, ws: Workspace, folderId: string): boolean {
  const folder = ctx.store.folders.get(folderId)?.committed;
  return folder !== undefined && sameWorkspace(folder.workspace, ws);
}

function createNote(ctx: RouteContext): Reply {
  const ws = routeWorkspace(ctx);
  if (isReply(ws)) return ws;
  const raw = ctx.body;
  let body: Record<string, unknown>;
  if (raw === undefined) body = {};
  else if (typeof raw === "string") body = { content: raw };
  else if (isObject(raw)) body = raw;
  else return validationReply({ requestBody: { message: "invalid request body", value: raw } });
  const details = validateNoteCreate(body);
  if (Object.keys(details).length > 0) return validationReply(details);
  const permalink = typeof body.permalink === "string" ? body.permalink : null;
  if (permalink !== null && permalinkTaken(ctx, ws, permalink)) return errorReply(409, "Permalink already in use");

  const rawContent = typeof body.content === "string" ? body.content : "";
  const content = ctx.quirks.normalizeLineEndings ? normalizeEol(rawContent) : rawContent;
  const givenTitle = typeof body.title === "string" && body.title !== "" ? body.title : null;
  const title = givenTitle ?? (ctx.quirks.deriveTitleAtCreate ? deriveTitle(content) : "");
  const tags = Array.isArray(body.tags) ? (body.tags as string[]) : null;
  let folderId: string | null = null;
  let placementFailed = false;
  if (typeof body.parentFolderId === "string" && ctx.quirks.createHonoursParentFolderId) {
    if (folderInWorkspace(ctx, ws, body.parentFolderId)) folderId = body.parentFolderId;
    else placementFailed = true;
  }
  if (ctx.takeFault("placementFailure")) {
    folderId = null;
    placementFailed = true;
  }
  const store = ctx.store;
  const note: NoteState = {
    id: ctx.ids.noteId((id) => store.notes.has(id)),
    shortId: ctx.ids.shortId((id) => [...store.notes.values()].some((e) => e.committed.shortId === id)),
    title,
    description: typeof body.description === "string" ? body.description : "",
    tags: tags ? [...tags] : [],
    createdAt: ctx.now,
    lastChangedAt: ctx.now,
    titleUpdatedAt: givenTitle !== null ? ctx.now : null,
    tagsUpdatedAt: tags !== null ? ctx.now : null,
    lastChangeUserId: ctx.user.id,
    publishType: "view",
    publishedAt: null,
    permalink,
    readPermission: (body.readPermission as Permission | undefined) ?? "owner",
    writePermission: (body.writePermission as Permission | undefined) ?? "owner",
    commentPermission: typeof body.commentPermission === "string" ? body.commentPermission : "signed_in_users",
    suggestEditPermission:
      typeof body.suggestEditPermission === "string" ? body.suggestEditPermission : "signed_in_users",
    noteFeatures: isObject(body.noteFeatures) ? { ...(body.noteFeatures as Record<string, string>) } : {},
    workspace: ws,
    creatorId: ctx.user.id,
    content,
    folderId,
    trashedAt: null,
    restoreFolderId: null,
    revision: 1,
  };
  store.addNote(note, ctx.now, visibility(ctx));
  store.visit(ctx.user.id, note.id, ctx.now);
  if (content !== "") autoVersion(ctx, note.id, content);
  const view = singleNote(ctx, note);
  if (ctx.quirks.tagsNullOnCreate) view.tags = null;
  if (placementFailed) return jsonReply(207, { note: view, error: "Failed to add note to folder" }, true);
  return jsonReply(201, view, true);
}

/** The live note a single-note route names, checked against the team of a team route. */
function lookup(ctx: RouteContext): NoteEntry | Reply {
  const ws = ctx.params.teamPath === undefined ? null : routeWorkspace(ctx);
  if (isReply(ws)) return ws;
  const entry = ctx.store.notes.get(ctx.params.noteId ?? "");
  if (!entry || entry.committed.trashedAt !== null) return errorReply(404, "Note not found");
  if (ws !== null && !sameWorkspace(entry.committed.workspace, ws)) return errorReply(404, "Note not found");
  return entry;
}

function etagMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const strip = (tag: string): string => tag.trim().replace(/^W\//, "");
  const values = (Array.isArray(header) ? header.join(",") : header).split(",");
  return values.some((v) => v.trim() === "*" || strip(v) === strip(etag));
}

function getNote(ctx: RouteContext): Reply {
  const entry = lookup(ctx);
  if (isReply(entry)) return entry;
  const note = ctx.store.visibleNote(entry.committed.id, ctx.now) ?? entry.committed;
  if (!canRead(ctx, note)) return errorReply(403, "Forbidden");
  ctx.store.visit(ctx.user.id, note.id, ctx.now);
  if (!ctx.quirks.etag) return jsonReply(200, singleNote(ctx, note));
  const etag = `W/"${note.id}.${note.revision}"`;
  if (etagMatches(ctx.headers["if-none-match"], etag)) return { status: 304, headers: { ETag: etag } };
  return { status: 200, json: singleNote(ctx, note), headers: { ETag: etag } };
}

function patchNote(ctx: RouteContext): Reply {
  if (ctx.body === undefined) return errorReply(400, "Request body is required");
  if (!isObject(ctx.body))
    return validationReply({ requestBody: { message: "invalid request body", value: ctx.body } });
  const body = ctx.body;
  const details = validateNotePatch(body, ctx.quirks.strictPatchFields);
  if (Object.keys(details).length > 0) return validationReply(details);
  const entry = lookup(ctx);
  if (isReply(entry)) return entry;
  const note = entry.committed;
  const guestEdit = !hasFullAccess(ctx, note);
  if (guestEdit) {
    const restricted = ["readPermission", "writePermission", "permalink", "parentFolderId"].some((k) => k in body);
    if (!canEditAsGuest(note) || restricted) return errorReply(403, "Forbidden");
  }
  if (typeof body.permalink === "string" && permalinkTaken(ctx, note.workspace, body.permalink, note.id)) {
    return errorReply(409, "Permalink already in use");
  }
  const read = (body.readPermission as Permission | undefined) ?? note.readPermission;
  const write = (body.writePermission as Permission | undefined) ?? note.writePermission;
  if (permissionRank(write) > permissionRank(read)) {
    return errorReply(400, "writePermission cannot be more permissive than readPermission");
  }
  const changes: Partial<NoteState> = { lastChangedAt: ctx.now };
  if ("parentFolderId" in body) {
    const target = body.parentFolderId;
    if (typeof target === "string" && !folderInWorkspace(ctx, note.workspace, target)) {
      return errorReply(404, "Folder not found");
    }
    changes.folderId = typeof target === "string" ? target : null;
  }
  if (typeof body.title === "string") changes.title = body.title;
  if (typeof body.description === "string") changes.description = body.description;
  if (Array.isArray(body.tags)) changes.tags = [...(body.tags as string[])];
  if (body.readPermission !== undefined) changes.readPermission = read;
  if (body.writePermission !== undefined) changes.writePermission = write;
  if (typeof body.permalink === "string") changes.permalink = body.permalink;
  let content: string | undefined;
  if (typeof body.content === "string") {
    content = ctx.quirks.normalizeLineEndings ? normalizeEol(body.content) : body.content;
  } else if (ctx.quirks.patchWithoutContentBlanksBody) {
    content = "";
  }
  if (content !== undefined && content !== note.content) {
    if (ctx.takeFault("partialApply")) content = partiallyApplied(note.content, content);
    changes.content = content;
    changes.lastChangeUserId = ctx.user.id;
    if (ctx.quirks.contentPatchClearsTitle && changes.title === undefined) changes.title = "";
  }
  if (changes.title !== undefined && changes.title !== note.title) changes.titleUpdatedAt = ctx.now;
  if (changes.tags !== undefined && JSON.stringify(changes.tags) !== JSON.stringify(note.tags)) {
    changes.tagsUpdatedAt = ctx.now;
  }
  const committed = ctx.store.writeNote(entry, changes, ctx.now, visibility(ctx));
  if (committed && changes.content !== undefined) autoVersion(ctx, note.id, changes.content);
  if (guestEdit && ctx.quirks.forbiddenButApplied) return { ...errorReply(403, "Forbidden"), committed };
  return emptyReply(202, committed);
}

/** A system version of a body just written, under `autoVersions: "per-write"`. */
function autoVersion(ctx: RouteContext, noteId: string, content: string): void {
  if (ctx.quirks.autoVersions === "per-write") ctx.store.addSystemVersion(noteId, content, ctx.user.id, ctx.now);
}

function deleteNote(ctx: RouteContext): Reply {
  const entry = lookup(ctx);
  if (isReply(entry)) return entry;
  if (!hasFullAccess(ctx, entry.committed)) return errorReply(403, "Forbidden");
  const { folderId } = entry.committed;
  ctx.store.writeNote(entry, { trashedAt: ctx.now, restoreFolderId: folderId, folderId: null }, ctx.now, {
    delayMs: 0,
    scope: "all",
  });
  return emptyReply(204, true);
}

/** The note routes, personal and team forms. */
export const noteRoutes: RouteDef[] = [
  { method: "GET", path: "/notes", family: "notes", handler: listNotes },
  { method: "POST", path: "/notes", family: "notes", handler: createNote },
  { method: "GET", path: "/notes/:noteId", family: "notes", handler: getNote },
  { method: "PATCH", path: "/notes/:noteId", family: "notes", handler: patchNote },
  { method: "DELETE", path: "/notes/:noteId", family: "notes", handler: deleteNote },
  { method: "GET", path: "/teams/:teamPath/notes", family: "notes", handler: listNotes },
  { method: "POST", path: "/teams/:teamPath/notes", family: "notes", handler: createNote },
  { method: "GET", path: "/teams/:teamPath/notes/:noteId", family: "notes", handler: getNote },
  { method: "PATCH", path: "/teams/:teamPath/notes/:noteId", family: "notes", handler: patchNote },
  { method: "DELETE", path: "/teams/:teamPath/notes/:noteId", family: "notes", handler: deleteNote },
];
