/** Matches a path below the base path against the route templates. */
import type { RouteDef } from "./http";
import { accountRoutes } from "./routes/account";
import { commentRoutes } from "./routes/comments";
import { folderRoutes } from "./routes/folders";
import { imageRoutes } from "./routes/images";
import { noteRoutes } from "./routes/notes";
import { trashRoutes } from "./routes/trash";
import { versionRoutes } from "./routes/versions";

/** A matched route: its definition, log template and decoded parameters. */
export interface RouteMatch {
  def: RouteDef;
  template: string;
  params: Record<string, string>;
}

/** Every implemented route; literal segments win over parameters (`folder-order`). */
const ROUTES: RouteDef[] = [
  ...accountRoutes,
  ...noteRoutes,
  ...imageRoutes,
  ...folderRoutes,
  ...trashRoutes,
  ...versionRoutes,
  ...commentRoutes,
];

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The route for a method and a path relative to the base path, or null. */
export function matchRoute(method: string, relativePath: string): RouteMatch | null {
  const segments = relativePath.split("/").slice(1);
  let best: { match: RouteMatch; literals: number } | null = null;
  for (const def of ROUTES) {
    if (def.method !== method) continue;
    const parts = def.path.split("/").slice(1);
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let literals = 0;
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      const part = parts[i] ?? "";
      const segment = segments[i] ?? "";
      if (part.startsWith(":")) {
        if (segment === "") ok = false;
        params[part.slice(1)] = decode(segment);
      } else if (part === segment) {
        literals++;
      } else {
        ok = false;
      }
    }
    if (ok && (best === null || literals > best.literals)) {
      best = { match: { def, template: `${method} ${def.path}`, params }, literals };
    }
  }
  return best?.match ?? null;
}
