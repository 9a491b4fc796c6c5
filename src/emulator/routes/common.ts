/** Lookups and access checks shared by the route families (§2.4). */
import { errorReply, type Reply, type RouteContext } from "../http";
import type { Visibility } from "../store";
import type { NoteState, TeamRecord, Workspace } from "../types";

/** Whether a value is a reply (a failed lookup) rather than the thing looked up. */
export function isReply(value: unknown): value is Reply {
  return typeof value === "object" && value !== null && "status" in value && typeof value.status === "number";
}

/** The team of a team route, when it exists and the user is a member; else 404 `Team not found`. */
export function requireTeam(ctx: RouteContext): TeamRecord | Reply {
  const path = ctx.params.teamPath ?? "";
  const team = ctx.store.teamByPath(path, ctx.quirks.teamPathCaseSensitive);
  if (!team || ctx.store.roleIn(team, ctx.user.id) === undefined) return errorReply(404, "Team not found");
  return team;
}

/** The workspace of a route: the team for team routes, else the user's personal space. */
export function routeWorkspace(ctx: RouteContext): Workspace | Reply {
  if (ctx.params.teamPath === undefined) return { user: ctx.user.id };
  const team = requireTeam(ctx);
  return isReply(team) ? team : { team: team.id };
}

/** How writes of the current request become visible. */
export function visibility(ctx: RouteContext): Visibility {
  return { delayMs: ctx.quirks.visibilityDelayMs, scope: ctx.quirks.visibilityScope };
}

/** Owner of a personal note, or a member of the note's team. */
export function hasFullAccess(ctx: RouteContext, note: NoteState): boolean {
  if ("user" in note.workspace) return note.workspace.user === ctx.user.id;
  const team = ctx.store.teams.get(note.workspace.team);
  return team !== undefined && ctx.store.roleIn(team, ctx.user.id) !== undefined;
}

/** Read access: full access, or a read permission wider than `owner`. */
export function canRead(ctx: RouteContext, note: NoteState): boolean {
  return hasFullAccess(ctx, note) || note.readPermission !== "owner";
}

/** Edit of body and metadata only, granted by a write permission wider than `owner`. */
export function canEditAsGuest(note: NoteState): boolean {
  return note.writePermission !== "owner";
}
