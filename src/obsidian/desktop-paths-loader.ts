import { FileSystemAdapter, Platform, type App } from "obsidian";
import type { DesktopPaths } from "./vault-files";

/**
 * The desktop symlink checks (TOOLS.md §12.2), loaded only on desktop through a guarded dynamic
 * import so the bundle still loads on mobile; undefined on mobile or without a file-system vault.
 */
export async function loadDesktopPaths(app: App): Promise<DesktopPaths | undefined> {
  const adapter = app.vault.adapter;
  if (!Platform.isDesktopApp || !(adapter instanceof FileSystemAdapter)) return undefined;
  try {
    const { createDesktopPaths } = await import("../node/desktop-paths");
    return await createDesktopPaths(adapter.getBasePath());
  } catch {
    // Without the checks the vault path is the file's identity (the mobile semantics).
    return undefined;
  }
}
