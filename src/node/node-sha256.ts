/**
 * Node's synchronous SHA-256 for the core's hashing (core/hash.ts, `useSyncSha256`): installed by
 * the Node hosts — `NodeLocalFiles.open` (the command, serve, the sandbox) and the plugin's
 * desktop paths — so each body hash is computed in place instead of queued in the thread pool.
 * Node's `crypto` comes from node-apis.ts (the plugin bundles this file for desktop).
 */
import { installedSyncSha256, useSyncSha256 } from "../core/hash";
import { nodeApis } from "./node-apis";

/** Node's SHA-256 of bytes, lowercase hex. */
export function nodeSha256(bytes: Uint8Array): string {
  return nodeApis().crypto.createHash("sha256").update(bytes).digest("hex");
}

/** Makes the core hash with Node's `crypto` in this process, unless a synchronous digest is installed already. */
export function installNodeSha256(): void {
  if (installedSyncSha256() === undefined) useSyncSha256(nodeSha256);
}
