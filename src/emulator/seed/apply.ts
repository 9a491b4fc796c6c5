/** Adds seed data (users, teams, folders, notes) to a store, resolving names to ids. */
import type { IdSource } from "../ids";
import { normalizeEol, deriveTitle } from "../text";
import { setThreads } from "../routes/comments";
import type { Store } from "../store";
import type { SeedData, SeedResult, SeedWorkspace, Workspace } from "../types";

function fail(message: string): never {
  throw new Error(`emulator seed: ${message}`);
}

function resolveWorkspace(store: Store, ws: SeedWorkspace | undefined, fallbackUserId: string): Workspace {
  if (ws === undefined) return { user: fallbackUserId };
  if ("user" in ws) return { user: (store.userByPath(ws.user) ?? fail(`unknown user ${ws.user}`)).id };
  return { team: (store.teamByPath(ws.team, true) ?? fail(`unknown team ${ws.team}`)).id };
}

/** Applies seed data at time `now`; `primaryUserId` owns entries without a workspace. */
export function applySeed(
  store: Store,
  ids: IdSource,
  data: SeedData,
  now: number,
  primaryUserId?: string,
): SeedResult {
  const result: SeedResult = { tokens: {}, userIds: [], teamIds: [], folderIds: [], noteIds: [] };
  for (const u of data.users ?? []) {
    if (store.userByPath(u.userPath)) fail(`user ${u.userPath} exists`);
    const id = u.id ?? ids.noteId((x) => store.users.has(x));
    const tokens = u.tokens ?? [ids.token()];
    store.users.set(id, {
      id,
      userPath: u.userPath,
      name: u.name ?? u.userPath,
      email: u.email ?? null,
      photo: u.photo ?? `https://hackmd.io/_uploads/avatar-${u.userPath}.png`,
      upgraded: u.upgraded ?? false,
      biography: null,
      tokens: [...tokens],
    });
    for (const token of tokens) store.tokens.set(token, id);
    result.tokens[u.userPath] = [...tokens];
    result.userIds.push(id);
  }
  const fallbackUser = primaryUserId ?? result.userIds[0] ?? [...store.users.keys()][0];
  for (const t of data.teams ?? []) {
    if (store.teamByPath(t.path, true)) fail(`team ${t.path} exists`);
    const members = t.members.map((m) => ({
      userId: (store.userByPath(m.userPath) ?? fail(`unknown user ${m.userPath}`)).id,
      role: m.role,
    }));
    const id = t.id ?? ids.uuid((x) => store.teams.has(x));
    store.teams.set(id, {
      id,
      path: t.path,
      name: t.name ?? t.path,
      logo: `https://hackmd.io/_uploads/team-${t.path}.png`,
      description: t.description ?? null,
      visibility: t.visibility ?? "private",
      upgraded: t.upgraded ?? false,
      createdAt: now,
      ownerId: members.find((m) => m.role === "owner")?.userId ?? members[0]?.userId ?? "",
      members,
    });
    result.teamIds.push(id);
  }
  const refs = new Map<string, string>();
  const folderRef = (ref: string): string =>
    refs.get(ref) ?? (store.folders.has(ref) ? ref : fail(`unknown folder ${ref}`));
  for (const f of data.folders ?? []) {
    const workspace = resolveWorkspace(store, f.workspace, fallbackUser ?? fail("no user to own folders"));
    const id = f.id ?? ids.uuid((x) => store.folders.has(x));
    const parent = f.parent === undefined ? null : folderRef(f.parent);
    store.addFolder({
      id,
      name: f.name,
      description: f.description ?? null,
      icon: f.icon ?? null,
      color: f.color ?? null,
      parentFolderId: parent,
      createdAt: now,
      updatedAt: now,
      workspace,
      clientId: ids.clientId(),
    });
    const order = store.orderOf(workspace);
    const key = parent ?? "root";
    order[key] = [...(order[key] ?? []), id];
    refs.set(f.ref ?? id, id);
    result.folderIds.push(id);
  }
  for (const n of data.notes ?? []) {
    const workspace = resolveWorkspace(store, n.workspace, fallbackUser ?? fail("no user to own notes"));
    const teamOwner = "team" in workspace ? store.teams.get(workspace.team)?.ownerId : undefined;
    const creatorId =
      n.creator !== undefined
        ? (store.userByPath(n.creator) ?? fail(`unknown user ${n.creator}`)).id
        : "user" in workspace
          ? workspace.user
          : (teamOwner ?? fallbackUser ?? "");
    const lastChangeUserId =
      n.lastChangeUser === undefined
        ? creatorId
        : n.lastChangeUser === null
          ? null
          : (store.userByPath(n.lastChangeUser) ?? fail(`unknown user ${n.lastChangeUser}`)).id;
    const content = normalizeEol(n.content ?? "");
    const id = n.id ?? ids.noteId((x) => store.notes.has(x));
    if (store.notes.has(id)) fail(`note ${id} exists`);
    const createdAt = n.createdAt ?? now;
    const folderId = n.folder === undefined ? null : folderRef(n.folder);
    const trashedAt = n.trashedAt ?? null;
    store.addNote(
      {
        id,
        shortId: n.shortId ?? ids.shortId((x) => [...store.notes.values()].some((e) => e.committed.shortId === x)),
        title: n.title ?? deriveTitle(content),
        description: n.description ?? "",
        tags: [...(n.tags ?? [])],
        createdAt,
        lastChangedAt: n.lastChangedAt ?? createdAt,
        titleUpdatedAt: n.title !== undefined ? createdAt : null,
        tagsUpdatedAt: n.tags !== undefined ? createdAt : null,
        lastChangeUserId,
        publishType: "view",
        publishedAt: null,
        permalink: n.permalink ?? null,
        readPermission: n.readPermission ?? "owner",
        writePermission: n.writePermission ?? "owner",
        commentPermission: "signed_in_users",
        suggestEditPermission: "signed_in_users",
        noteFeatures: {},
        workspace,
        creatorId,
        content,
        folderId: trashedAt === null ? folderId : null,
        trashedAt,
        restoreFolderId: trashedAt === null ? null : folderId,
        revision: 1,
      },
      now,
      { delayMs: 0, scope: "all" },
    );
    // Every seeded body is its note's first saved version, by the last author of the body.
    if (content !== "") store.addSystemVersion(id, content, lastChangeUserId, n.lastChangedAt ?? createdAt);
    if (n.comments !== undefined) setThreads(store, id, n.comments, n.lastChangedAt ?? createdAt);
    result.noteIds.push(id);
  }
  return result;
}
