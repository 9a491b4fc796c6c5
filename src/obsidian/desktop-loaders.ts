import { FileSystemAdapter, Platform, type App } from "obsidian";
import { unavailableImageFetcher, type ImageFetcher } from "../core/image";
import { VERSION } from "../core/version";
import { loadDesktopNode } from "./desktop-node";
import type { DesktopPaths } from "./vault-files";

/**
 * The desktop symlink checks (docs/tools.md §12.2), loaded only on desktop through a guarded dynamic
 * import so the bundle still loads on mobile; undefined on mobile or without a file-system vault.
 */
export async function loadDesktopPaths(app: App): Promise<DesktopPaths | undefined> {
  const adapter = app.vault.adapter;
  if (!Platform.isDesktopApp || !(adapter instanceof FileSystemAdapter)) return undefined;
  try {
    if (!(await loadDesktopNode())) return undefined;
    const { createDesktopPaths } = await import("../node/desktop-paths");
    return await createDesktopPaths(adapter.getBasePath());
  } catch {
    // Without the checks the vault path is the file's identity (the mobile semantics).
    return undefined;
  }
}

/**
 * The SSRF-safe image-URL fetcher (docs/tools.md §16.6), which needs DNS and sockets: on desktop a
 * stand-in that loads the Node fetcher through a guarded dynamic import on first use (nothing is
 * loaded at plugin load); on mobile the unavailable fetcher, so `image_url` is refused (§16.9).
 */
export function desktopImageFetcher(): ImageFetcher {
  if (!Platform.isDesktopApp) return unavailableImageFetcher;
  let fetcher: Promise<ImageFetcher> | undefined;
  return {
    available: true,
    fetch: async (url, options) => {
      fetcher ??= loadDesktopNode()
        .then(() => import("../node/image-fetcher"))
        .then(({ NodeImageFetcher }) => new NodeImageFetcher({ version: VERSION }));
      return (await fetcher).fetch(url, options);
    },
  };
}
