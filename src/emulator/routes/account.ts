/** `GET /me`, `GET /teams` and `GET /history` (§2.5). */
import { jsonReply, type Reply, type RouteContext, type RouteDef } from "../http";
import { noteListItem, teamView, ts, userView } from "../views";
import { canRead } from "./common";

function me(ctx: RouteContext): Reply {
  return jsonReply(200, userView(ctx, ctx.user));
}

function teams(ctx: RouteContext): Reply {
  return jsonReply(
    200,
    ctx.store.teamsOf(ctx.user.id).map((t) => teamView(ctx, t)),
  );
}

function history(ctx: RouteContext): Reply {
  const visits = [...(ctx.store.history.get(ctx.user.id) ?? new Map<string, number>())];
  // Newest first; the visit map is in visit order, so reversing keeps ties in recency order.
  visits.reverse();
  visits.sort((a, b) => b[1] - a[1]);
  const items: Array<Record<string, unknown>> = [];
  for (const [noteId, lastVisit] of visits) {
    const note = ctx.store.visibleNote(noteId, ctx.now);
    if (!note || note.trashedAt !== null || !canRead(ctx, note)) continue;
    items.push({ ...noteListItem(ctx, note), lastVisit: ts(ctx, lastVisit) });
  }
  const limitText = ctx.query.get("limit");
  const limit = limitText !== null && /^[1-9][0-9]*$/.test(limitText) ? Number(limitText) : null;
  return jsonReply(200, limit === null ? items : items.slice(0, limit));
}

/** The account routes. */
export const accountRoutes: RouteDef[] = [
  { method: "GET", path: "/me", family: "me", handler: me },
  { method: "GET", path: "/teams", family: "teams", handler: teams },
  { method: "GET", path: "/history", family: "history", handler: history },
];
