/**
 * The end of a `.remote.md` snapshot's life (TOOLS.md §14.7, issue 9 "snapshot lifecycle"): once
 * the conflict it was written for is resolved, the snapshot goes — but only when it is still
 * exactly the text this tool wrote (the record's `remote_snapshot_hash`). A snapshot the user
 * edited, or a file of that name we never wrote, is kept and reported so the user can be told
 * where it is. Host-neutral; runs in the core's queue under the note's and the file's keys, the
 * keys a push holds while it writes the snapshot, so the two never interleave.
 */
import { isBridgeError } from "../core/errors";
import { sha256Hex } from "../core/hash";
import type { FileStamp, LocalFiles } from "../core/local-files";
import { isMarkdownPath, remoteSnapshotPath } from "../core/paths";
import { noteQueueKey, pathQueueKey, type SyncQueue } from "./queue";
import type { SyncStateStore } from "./store";

/** Snapshots above this size are never ours to remove (a note holds at most 50 MiB). */
const MAX_SNAPSHOT_BYTES = 50 * 1_048_576;

/**
 * The stamp of the snapshot at `path` when it is exactly the text this tool wrote last (its hash
 * is the record's `remote_snapshot_hash`), else undefined. A read failure propagates.
 */
export async function ownedSnapshotStamp(files: LocalFiles, path: string, recorded: string | undefined): Promise<FileStamp | undefined> {
  if (recorded === undefined) return undefined;
  const read = await files.read(path, { maxBytes: MAX_SNAPSHOT_BYTES });
  if (read.truncated) return undefined;
  return `sha256:${await sha256Hex(read.bytes)}` === recorded ? read.stamp : undefined;
}

/** What happened to the snapshot beside a tracked file. */
export type SnapshotCleanup =
  /** There was no snapshot (or the file is not tracked): nothing to do. */
  | { kind: "none" }
  /** Our unedited snapshot was removed (on the vault host: moved to the trash). */
  | { kind: "removed"; path: string }
  /** A file is there but it is not (any more) the text we wrote: left alone. */
  | { kind: "kept"; path: string; reason: "edited" | "not-ours" | "unreadable" };

/** What `removeOwnedSnapshot` needs. */
export interface SnapshotCleanupOptions {
  files: LocalFiles;
  store: Pick<SyncStateStore, "findByPath">;
  /** The core's one queue (`ToolDeps.queue`). */
  queue: SyncQueue;
  /** The tracked file whose conflict was just resolved (ROOT-relative). */
  localPath: string;
}

/**
 * Removes the `.remote.md` beside `localPath` when it is the unedited snapshot this tool wrote;
 * otherwise leaves it and says why. Call it only after the file's conflict was resolved (a
 * confirmed push or pull). Never throws for a snapshot it cannot judge: that one is kept.
 */
export async function removeOwnedSnapshot(options: SnapshotCleanupOptions): Promise<SnapshotCleanup> {
  const { files, store, queue } = options;
  if (!isMarkdownPath(options.localPath)) return { kind: "none" };
  const first = await store.findByPath(options.localPath);
  if (!first) return { kind: "none" };
  return queue.run([noteQueueKey(first.key), pathQueueKey(first.record.local_path)], async () => {
    // Decide on what holds now, under the keys: a push may have written a new snapshot meanwhile.
    const found = await store.findByPath(options.localPath);
    if (!found) return { kind: "none" };
    let target: string;
    try {
      target = (await files.resolve(remoteSnapshotPath(found.record.local_path), "write")).path;
    } catch {
      return { kind: "none" };
    }
    const info = await files.stat(target);
    if (info.kind === "missing") return { kind: "none" };
    if (info.kind !== "file") return { kind: "kept", path: target, reason: "not-ours" };
    const recorded = found.record.remote_snapshot_hash;
    if (recorded === undefined) return { kind: "kept", path: target, reason: "not-ours" };
    let stamp: FileStamp | undefined;
    try {
      stamp = await ownedSnapshotStamp(files, target, recorded);
    } catch (error) {
      if (isBridgeError(error)) return { kind: "kept", path: target, reason: "unreadable" };
      throw error;
    }
    if (stamp === undefined) return { kind: "kept", path: target, reason: "edited" };
    try {
      // Expect the stamp just read: an edit saved in between keeps the file.
      const removed = await files.remove(target, { expect: stamp });
      return removed ? { kind: "removed", path: target } : { kind: "none" };
    } catch (error) {
      if (isBridgeError(error, "conflict")) return { kind: "kept", path: target, reason: "edited" };
      if (isBridgeError(error)) return { kind: "kept", path: target, reason: "unreadable" };
      throw error;
    }
  });
}

/** Why a snapshot stayed, as a notice says it. */
const KEPT_REASONS: Readonly<Record<Extract<SnapshotCleanup, { kind: "kept" }>["reason"], string>> = {
  edited: "you edited it, so delete it yourself when you no longer need it",
  "not-ours": "HackMD Bridge did not write it",
  unreadable: "it could not be read",
};

/** One sentence for a notice about a cleanup (with a leading space), or "" when there was nothing. */
export function snapshotCleanupSentence(cleanup: SnapshotCleanup): string {
  switch (cleanup.kind) {
    case "none":
      return "";
    case "removed":
      return ` Removed ${cleanup.path}, the copy of HackMD's version it no longer needs.`;
    case "kept":
      return ` ${cleanup.path} was kept: ${KEPT_REASONS[cleanup.reason]}.`;
  }
}
