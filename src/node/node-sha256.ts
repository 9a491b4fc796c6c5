/**
 * Node's synchronous SHA-256 for the core's hashing (core/hash.ts, `useSyncSha256`): installed by
 * the Node hosts — `NodeLocalFiles.open` (the command, serve, the sandbox) and the plugin's
 * desktop paths — so each body hash is computed in place instead of queued in the thread pool.
 * Node's `crypto` comes from node-apis.ts (the plugin bundles this file for desktop).
 */
import { installedHostText, installedSyncSha256, type HostText, useHostText, useSyncSha256 } from "../core/hash";
import { nodeApis } from "./node-apis";

/** Node's SHA-256 of bytes, lowercase hex. */
export function nodeSha256(bytes: Uint8Array): string {
  return nodeApis().crypto.createHash("sha256").update(bytes).digest("hex");
}

/** Node's count and hash of a string's UTF-8 bytes, without encoding a copy first. */
export const nodeText: HostText = {
  byteLength: (text) => nodeApis().buffer.Buffer.byteLength(text, "utf8"),
  sha256: (text) => nodeApis().crypto.createHash("sha256").update(text, "utf8").digest("hex"),
};

/**
 * Makes the core hash with Node's `crypto` in this process, and count and hash text with Node's
 * `Buffer` and `crypto`, unless a host installed its own already.
 */
export function installNodeSha256(): void {
  if (installedSyncSha256() === undefined) useSyncSha256(nodeSha256);
  if (installedHostText() === undefined) useHostText(nodeText);
}
