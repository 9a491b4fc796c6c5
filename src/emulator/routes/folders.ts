/** Folder routes (§2.5), personal and team forms, including the folder-order map. */
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
import { sameWorkspace, type FolderEntry } from "../store";
import type { FolderState, Workspace } from "../types";
import { validateFolderCreate, validateFolderPatch } from "../validate";
import { folderView } from "../views";
import { isReply, routeWorkspace, visibility } from "./common";

function folderIn(ctx: RouteContext, ws: Workspace, id: string): FolderEntry | undefined {
  const entry = ctx.store.folders.get(id);
  return entry && sameWorkspace(entry.committed.workspace, ws) ? entry : undefined;
}

function listFolders(ctx: RouteContext): Reply {
  const ws = routeWorkspace(ctx);
  if (isReply(ws)) return ws;
  const out: Array<Record<string, unknown>> = [];
  for (const entry of ctx.store.folders.values()) {
    if (!sameWorkspace(entry.committed.workspace, ws)) continue;
    const folder = ctx.store.visibleFolder(entry.committed.id, ctx.now);
    if (folder) out.push(folderView(ctx, folder));
  }
  return jsonReply(200, out);
}

function createFolder(ctx: RouteContext): Reply {
  const ws = routeWorkspace(ctx);
  if (isReply(ws)) return ws;
  const body = ctx.body === undefined ? {} : ctx.body;
  if (!isObject(body)) return validationReply({ requestBody: { message: "invalid request body", value: body } });
  const details = validateFolderCreate(body);
  if (Object.keys(details).length > 0) return validationReply(details);
  const parent = typeof body.parentFolderId === "string" ? body.parentFolderId : null;
  if (parent !== null && !folderIn(ctx, ws, parent)) return errorReply(404, "Folder not found");
  const folder: FolderState = {
    id: ctx.ids.uuid((id) => ctx.store.folders.has(id)),
    name: typeof body.name === "string" ? body.name : "Untitled",
    description: typeof body.description === "string" ? body.description : null,
    icon: typeof body.icon === "string" ? body.icon : null,
    color: typeof body.color === "string" ? body.color : null,
    parentFolderId: parent,
    createdAt: ctx.now,
    updatedAt: ctx.now,
    workspace: ws,
    clientId: ctx.ids.clientId(),
  };
  ctx.store.addFolder(folder);
  const order = ctx.store.orderOf(ws);
  const key = parent ?? "root";
  order[key] = [...(order[key] ?? []), folder.id];
  return jsonReply(201, folderView(ctx, folder), true);
}

function getOrder(ctx: RouteContext): Reply {
  const ws = routeWorkspace(ctx);
  if (isReply(ws)) return ws;
  return jsonReply(200, structuredClone(ctx.store.orderOf(ws)));
}

function putOrder(ctx: RouteContext): Reply {
  const ws = routeWorkspace(ctx);
  if (isReply(ws)) return ws;
  const body = ctx.body;
  const order = isObject(body) ? body.order : undefined;
  const valid =
    isObject(order) && Object.values(order).every((v) => Array.isArray(v) && v.every((id) => typeof id === "string"));
  if (!valid) {
    return validationReply({ "requestBody.order": { message: "invalid order map", value: order ?? null } });
  }
  const copy = structuredClone(order) as Record<string, string[]>;
  const map = ctx.store.orderOf(ws);
  for (const key of Object.keys(map)) delete map[key];
  Object.assign(map, copy);
  return emptyReply(204, true);
}

function getFolder(ctx: RouteContext): Reply {
  const ws = routeWorkspace(ctx);
  if (isReply(ws)) return ws;
  const entry = folderIn(ctx, ws, ctx.params.folderId ?? "");
  const folder = entry ? ctx.store.visibleFolder(entry.committed.id, ctx.now) : undefined;
  if (!folder) return ctx.quirks.unknownFolderEmptyObject ? jsonReply(200, {}) : errorReply(404, "Folder not found");
  return jsonReply(200, folderView(ctx, folder));
}

/** Whether `candidate` is `folderId` or one of its descendants. */
function isWithin(ctx: RouteContext, candidate: string, folderId: string): boolean {
  const seen = new Set<string>();
  let id: string | null = candidate;
  while (id !== null && !seen.has(id)) {
    if (id === folderId) return true;
    seen.add(id);
    id = ctx.store.folders.get(id)?.committed.parentFolderId ?? null;
  }
  return false;
}

function patchFolder(ctx: RouteContext): Reply {
  if (ctx.params.teamPath === undefined && ctx.quirks.personalFolderPatchUnsupported) {
    return errorReply(404, "Not found");
  }
  const ws = routeWorkspace(ctx);
  if (isReply(ws)) return ws;
  if (ctx.body === undefined) return errorReply(400, "Request body is required");
  if (!isObject(ctx.body))
    return validationReply({ requestBody: { message: "invalid request body", value: ctx.body } });
  const body = ctx.body;
  const details = validateFolderPatch(body);
  if (Object.keys(details).length > 0) return validationReply(details);
  const entry = folderIn(ctx, ws, ctx.params.folderId ?? "");
  if (!entry) return errorReply(404, "Folder not found");
  const folder = entry.committed;
  const changes: Partial<FolderState> = { updatedAt: ctx.now };
  if (typeof body.name === "string") changes.name = body.name;
  for (const key of ["description", "icon", "color"] as const) {
    const value = body[key];
    if (value === null || typeof value === "string") changes[key] = value;
  }
  let moved = false;
  if ("parentFolderId" in body && !ctx.quirks.folderMoveIgnored) {
    const target = body.parentFolderId as string | null;
    if (target !== null && !folderIn(ctx, ws, target)) return errorReply(404, "Folder not found");
    if (target !== null && isWithin(ctx, target, folder.id))
      return errorReply(400, "Folder cannot be moved into itself");
    moved = target !== folder.parentFolderId;
    changes.parentFolderId = target;
  }
  if (moved) {
    const order = ctx.store.orderOf(ws);
    const from = folder.parentFolderId ?? "root";
    const to = changes.parentFolderId ?? "root";
    order[from] = (order[from] ?? []).filter((id) => id !== folder.id);
    order[to] = [...(order[to] ?? []), folder.id];
  }
  const committed = ctx.store.writeFolder(entry, changes, ctx.now, visibility(ctx));
  return emptyReply(202, committed || moved);
}

function deleteFolder(ctx: RouteContext): Reply {
  const ws = routeWorkspace(ctx);
  if (isReply(ws)) return ws;
  const entry = folderIn(ctx, ws, ctx.params.folderId ?? "");
  if (!entry) return errorReply(404, "Folder not found");
  const folder = entry.committed;
  const store = ctx.store;
  const subfolders = [...store.folders.values()].filter((f) => f.committed.parentFolderId === folder.id);
  const notes = [...store.notes.values()].filter(
    (n) => n.committed.trashedAt === null && n.committed.folderId === folder.id,
  );
  const mode = ctx.quirks.folderDeleteChildren;
  if (mode === "refuse" && (subfolders.length > 0 || notes.length > 0)) return errorReply(400, "Folder is not empty");
  const now = { delayMs: 0, scope: "all" as const };
  const target = mode === "reparent" ? folder.parentFolderId : null;
  for (const note of notes) store.writeNote(note, { folderId: target, lastChangedAt: ctx.now }, ctx.now, now);
  store.folders.delete(folder.id);
  const order = store.orderOf(ws);
  const children = order[folder.id] ?? [];
  delete order[folder.id];
  for (const key of Object.keys(order)) order[key] = (order[key] ?? []).filter((id) => id !== folder.id);
  if (mode === "reparent") {
    for (const sub of subfolders) store.writeFolder(sub, { parentFolderId: target, updatedAt: ctx.now }, ctx.now, now);
    const key = target ?? "root";
    const moving = [...children, ...subfolders.map((s) => s.committed.id).filter((id) => !children.includes(id))];
    order[key] = [...(order[key] ?? []), ...moving];
  }
  return emptyReply(204, true);
}

/** The folder routes, personal and team forms. */
export const folderRoutes: RouteDef[] = [];
for (const prefix of ["", "/teams/:teamPath"]) {
  folderRoutes.push(
    { method: "GET", path: `${prefix}/folders`, family: "folders", handler: listFolders },
    { method: "POST", path: `${prefix}/folders`, family: "folders", handler: createFolder },
    { method: "GET", path: `${prefix}/folders/folder-order`, family: "folders", handler: getOrder },
    { method: "PUT", path: `${prefix}/folders/folder-order`, family: "folders", handler: putOrder },
    { method: "GET", path: `${prefix}/folders/:folderId`, family: "folders", handler: getFolder },
    { method: "PATCH", path: `${prefix}/folders/:folderId`, family: "folders", handler: patchFolder },
    { method: "DELETE", path: `${prefix}/folders/:folderId`, family: "folders", handler: deleteFolder },
  );
}
