/**
 * Node's built-in modules for the Node-only code that the plugin also bundles (the desktop path
 * checks, the image fetcher, the MCP endpoint's listener): that code takes them from here instead
 * of importing them, so main.js loads on Obsidian mobile, where Node does not exist, and only a
 * host that has Node hands them over. The command installs them at start
 * (`node/node-apis-install.ts`); the plugin loads them on desktop behind its platform check
 * (`obsidian/desktop-node.ts`). Types come from `import()` type queries, which load nothing.
 */

export interface NodeApis {
  buffer: typeof import("node:buffer");
  crypto: typeof import("node:crypto");
  dns: typeof import("node:dns");
  fs: typeof import("node:fs");
  http: typeof import("node:http");
  https: typeof import("node:https");
  net: typeof import("node:net");
  path: typeof import("node:path");
  process: typeof import("node:process");
  timers: typeof import("node:timers");
}

/** Node's byte buffer type. */
export type NodeBuffer = import("node:buffer").Buffer;
/** A failed system call's error, with its `code` (`ENOENT`, `EADDRINUSE`, …). */
export type NodeSystemError = Error & { code?: string; errno?: number; syscall?: string };

let installed: NodeApis | undefined;

/** Hands Node's modules to the Node-only code of this process (the last call wins). */
export function installNodeApis(apis: NodeApis): void {
  installed = apis;
}

/** Node's modules; throws where no host installed them (Obsidian mobile never reaches this code). */
export function nodeApis(): NodeApis {
  if (installed === undefined) throw new Error("Node's built-in modules are not available in this host");
  return installed;
}

/** Whether Node's modules are installed in this process. */
export function hasNodeApis(): boolean {
  return installed !== undefined;
}
