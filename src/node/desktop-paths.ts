/**
 * The desktop symlink checks of TOOLS.md §12.2 for the Obsidian plugin: `VaultLocalFiles` writes
 * through the Vault API, but on desktop the paths are judged with the real file system, as the
 * standalone command does. The plugin reaches this module only through a dynamic import guarded
 * by `Platform.isDesktopApp` (`obsidian/desktop-loaders.ts`), so mobile never loads it.
 */
import { promises as fsp } from "node:fs";
import * as nodePath from "node:path";
import type { DesktopPaths } from "../core/local-files";

/** Builds the checks for a vault folder; resolves its real path once. */
export async function createDesktopPaths(basePath: string): Promise<DesktopPaths> {
  const realBase = await fsp.realpath(basePath);
  const inside = (base: string, absolute: string): string | undefined => {
    const relative = nodePath.relative(base, absolute);
    if (relative === "") return "";
    if (relative.startsWith("..") || nodePath.isAbsolute(relative)) return undefined;
    return relative.split(nodePath.sep).join("/");
  };
  return {
    basePath,
    relativeOf: (absolute) => inside(basePath, nodePath.resolve(absolute)) ?? inside(realBase, nodePath.resolve(absolute)),
    realRelative: async (path) => {
      const absolute = nodePath.join(basePath, ...path.split("/").filter((segment) => segment !== ""));
      try {
        return inside(realBase, await fsp.realpath(absolute)) ?? null;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTDIR") return null;
        // Nothing resolves there: an entry that exists without a target is a dangling symlink.
        try {
          await fsp.lstat(absolute);
          return null;
        } catch {
          return undefined;
        }
      }
    },
  };
}
