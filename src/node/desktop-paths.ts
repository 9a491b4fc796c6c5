/**
 * The desktop symlink checks of docs/tools.md §12.2 for the Obsidian plugin: `VaultLocalFiles` writes
 * through the Vault API, but on desktop the paths are judged with the real file system, as the
 * standalone command does. The plugin reaches this module only through a dynamic import guarded
 * by `Platform.isDesktopApp` (`obsidian/desktop-loaders.ts`), so mobile never loads it. Loading
 * it also gives the core Node's synchronous SHA-256 (node-sha256.ts). Node's `fs` and `path` come
 * from node-apis.ts, which the plugin fills on desktop only (obsidian/desktop-node.ts).
 */
import type { DesktopPaths } from "../core/local-files";
import { nodeApis, type NodeSystemError } from "./node-apis";
import { installNodeSha256 } from "./node-sha256";

/** Builds the checks for a vault folder; resolves its real path once. */
export async function createDesktopPaths(basePath: string): Promise<DesktopPaths> {
  // Desktop has Node's crypto too: body hashes are computed in place.
  installNodeSha256();
  const { fs, path: nodePath } = nodeApis();
  const { constants, promises: fsp } = fs;
  const realBase = await fsp.realpath(basePath);
  const inside = (base: string, absolute: string): string | undefined => {
    const relative = nodePath.relative(base, absolute);
    if (relative === "") return "";
    if (relative.startsWith("..") || nodePath.isAbsolute(relative)) return undefined;
    return relative.split(nodePath.sep).join("/");
  };
  const absoluteOf = (path: string): string =>
    nodePath.join(basePath, ...path.split("/").filter((segment) => segment !== ""));
  return {
    basePath,
    createExclusive: async (path, data) => {
      let handle: import("node:fs/promises").FileHandle;
      try {
        handle = await fsp.open(
          absoluteOf(path),
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
          0o600,
        );
      } catch (error) {
        if ((error as NodeSystemError).code === "EEXIST") return false;
        throw error;
      }
      try {
        await handle.writeFile(data);
      } finally {
        await handle.close().catch(() => undefined);
      }
      return true;
    },
    relativeOf: (absolute) =>
      inside(basePath, nodePath.resolve(absolute)) ?? inside(realBase, nodePath.resolve(absolute)),
    realRelative: async (path) => {
      const absolute = absoluteOf(path);
      try {
        return inside(realBase, await fsp.realpath(absolute)) ?? null;
      } catch (error) {
        const code = (error as NodeSystemError).code;
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
