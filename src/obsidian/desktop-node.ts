/**
 * Node's built-in modules for the plugin's desktop-only code (node/node-apis.ts: the symbolic-link
 * checks, the image fetcher, the MCP endpoint's listener). Loaded through dynamic `import()`s
 * behind Obsidian's platform check, on the desktop app only, so main.js never asks for a Node
 * module on mobile, where there is none (tests/bundle/smoke.test.ts loads it with every Node
 * module refused).
 */
import { Platform } from "obsidian";
import { installNodeApis } from "../node/node-apis";

/** Installs Node's modules on the desktop app; false elsewhere (mobile, or desktop emulating mobile). */
export async function loadDesktopNode(): Promise<boolean> {
  if (Platform.isDesktop && Platform.isDesktopApp) {
    const [buffer, crypto, dns, fs, http, https, net, path, process, timers] = await Promise.all([
      import("node:buffer"),
      import("node:crypto"),
      import("node:dns"),
      import("node:fs"),
      import("node:http"),
      import("node:https"),
      import("node:net"),
      import("node:path"),
      import("node:process"),
      import("node:timers"),
    ]);
    installNodeApis({ buffer, crypto, dns, fs, http, https, net, path, process, timers });
    return true;
  }
  return false;
}
