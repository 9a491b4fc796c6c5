/** Trash routes (§2.5): personal list and restore, team list for owners and admins. */
import { emptyReply, errorReply, jsonReply, type Reply, type RouteContext, type RouteDef } from "../http";
import { sameWorkspace } from "../store";
import type { NoteState, Workspace } from "../types";
import { trashView } from "../views";
import { isReply, requireTeam } from "./common";

function trashed(ctx: RouteContext, ws: Workspace): Reply {
  const notes: NoteState[] = [];
  for (const entry of ctx.store.notes.values()) {
    const note = entry.committed;
    if (note.trashedAt !== null && sameWorkspace(note.workspace, ws)) notes.push(note);
  }
  notes.sort((a, b) => (b.trashedAt ?? 0) - (a.trashedAt ?? 0));
  return jsonReply(
    200,
    notes.map((n) => trashView(ctx, n)),
  );
}

function personalTrash(ctx: RouteContext): Reply {
  return trashed(ctx, { user: ctx.user.id });
}

function teamTrash(ctx: RouteContext): Reply {
  const team = requireTeam(ctx);
  if (isReply(team)) return team;
  const role = ctx.store.roleIn(team, ctx.user.id);
  if (role !== "owner" && role !== "admin") return { status: 403, text: "Forbidden" };
  return trashed(ctx, { team: team.id });
}

function restore(ctx: RouteContext): Reply {
  const entry = ctx.store.notes.get(ctx.params.noteId ?? "");
  const note = entry?.committed;
  if (!entry || !note || note.trashedAt === null || !sameWorkspace(note.workspace, { user: ctx.user.id })) {
    return errorReply(404, "Note not found");
  }
  const old = note.restoreFolderId === null ? undefined : ctx.store.folders.get(note.restoreFolderId);
  const folderId = old && sameWorkspace(old.committed.workspace, note.workspace) ? old.committed.id : null;
  ctx.store.writeNote(entry, { trashedAt: null, restoreFolderId: null, folderId }, ctx.now, {
    delayMs: 0,
    scope: "all",
  });
  return emptyReply(204, true);
}

/** The trash routes. */
export const trashRoutes: RouteDef[] = [
  { method: "GET", path: "/trash", family: "trash", handler: personalTrash },
  { method: "PUT", path: "/trash/:noteId/restore", family: "trash", handler: restore },
  { method: "GET", path: "/teams/:teamPath/trash", family: "trash", handler: teamTrash },
];
