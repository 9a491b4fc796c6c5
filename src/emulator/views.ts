/** Wire shapes of §1.5, derived from stored records at read time (§2.2 "Derived fields"). */
import type { Store } from "./store";
import type { FolderState, NoteState, Quirks, TeamRecord, UserRecord } from "./types";

/** Everything the shapers need: the store, the switches and the read time. */
export interface ViewContext {
  store: Store;
  quirks: Quirks;
  now: number;
}

/** Timestamps as sent: integers, or with a sub-millisecond fraction under `fractionalTimestamps`. */
export function ts(ctx: ViewContext, value: number): number;
export function ts(ctx: ViewContext, value: number | null): number | null;
export function ts(ctx: ViewContext, value: number | null): number | null {
  if (value === null) return null;
  return ctx.quirks.fractionalTimestamps ? value + 0.375 : value;
}

/** The userPath or team path that owns a workspace. */
export function workspacePaths(
  ctx: ViewContext,
  note: { workspace: NoteState["workspace"] },
): {
  userPath: string | null;
  teamPath: string | null;
} {
  if ("user" in note.workspace) {
    return { userPath: ctx.store.users.get(note.workspace.user)?.userPath ?? null, teamPath: null };
  }
  return { userPath: null, teamPath: ctx.store.teams.get(note.workspace.team)?.path ?? null };
}

/** Team as `GET /teams` shows it. */
export function teamView(ctx: ViewContext, team: TeamRecord): Record<string, unknown> {
  return {
    id: team.id,
    ownerId: team.ownerId,
    name: team.name,
    logo: team.logo,
    path: team.path,
    description: team.description,
    visibility: team.visibility,
    upgraded: team.upgraded,
    createdAt: ts(ctx, team.createdAt),
  };
}

/** User as `GET /me` shows it. */
export function userView(ctx: ViewContext, user: UserRecord): Record<string, unknown> {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    userPath: user.userPath,
    photo: user.photo,
    teams: ctx.store.teamsOf(user.id).map((t) => teamView(ctx, t)),
    upgraded: user.upgraded,
  };
}

/** A note as list items show it (no `content`, no `folderPaths`). */
export function noteListItem(ctx: ViewContext, note: NoteState): Record<string, unknown> {
  const paths = workspacePaths(ctx, note);
  const changer = note.lastChangeUserId === null ? undefined : ctx.store.users.get(note.lastChangeUserId);
  const owner = paths.userPath ?? paths.teamPath ?? "";
  return {
    id: note.id,
    title: note.title,
    description: note.description,
    tags: [...note.tags],
    createdAt: ts(ctx, note.createdAt),
    lastChangedAt: ts(ctx, note.lastChangedAt),
    titleUpdatedAt: ts(ctx, note.titleUpdatedAt),
    tagsUpdatedAt: ts(ctx, note.tagsUpdatedAt),
    lastChangeUser: changer
      ? { name: changer.name, userPath: changer.userPath, photo: changer.photo, biography: changer.biography }
      : null,
    publishType: note.publishType,
    publishedAt: ts(ctx, note.publishedAt),
    permalink: note.permalink,
    shortId: note.shortId,
    publishLink: `${ctx.quirks.webOrigin}/@${owner}/${note.permalink ?? note.shortId}`,
    userPath: paths.userPath,
    teamPath: paths.teamPath,
    readPermission: note.readPermission,
    writePermission: note.writePermission,
  };
}

/** A note as single-note reads and creates show it. */
export function singleNote(ctx: ViewContext, note: NoteState): Record<string, unknown> {
  return { ...noteListItem(ctx, note), content: note.content, folderPaths: folderPaths(ctx, note.folderId) };
}

/** The chain of visible folders from the root-most ancestor down to `folderId`. */
export function folderPaths(ctx: ViewContext, folderId: string | null): Array<Record<string, unknown>> {
  const chain: FolderState[] = [];
  const seen = new Set<string>();
  let id = folderId;
  while (id !== null && !seen.has(id)) {
    seen.add(id);
    const folder = ctx.store.visibleFolder(id, ctx.now);
    if (!folder) break;
    chain.unshift(folder);
    id = folder.parentFolderId;
  }
  return chain.map((f) => ({
    id: f.id,
    name: f.name,
    icon: f.icon,
    color: f.color,
    parentId: f.parentFolderId,
    clientId: f.clientId,
  }));
}

/** A folder as the folder routes show it. */
export function folderView(ctx: ViewContext, folder: FolderState): Record<string, unknown> {
  return {
    id: folder.id,
    name: folder.name,
    description: folder.description,
    icon: folder.icon,
    color: folder.color,
    parentFolderId: folder.parentFolderId,
    createdAt: ts(ctx, folder.createdAt),
    updatedAt: ts(ctx, folder.updatedAt),
  };
}

/** A trashed note as the trash routes show it. */
export function trashView(ctx: ViewContext, note: NoteState): Record<string, unknown> {
  const teamId = "team" in note.workspace ? note.workspace.team : null;
  const ownerId = "user" in note.workspace ? note.workspace.user : note.creatorId;
  return {
    id: note.id,
    title: note.title,
    tags: [...note.tags],
    deletedAt: ts(ctx, note.trashedAt ?? 0),
    ownerId,
    teamId,
    shortId: note.shortId,
    publishType: note.publishType,
    permanentDeletedAt: null,
  };
}
