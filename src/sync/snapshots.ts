/**
 * The end of a `.remote.md` snapshot's life (docs/tools.md §14.7, docs/sync-decision-table.md "The snapshot's end"): once
 * the conflict it was written for is resolved, the snapshot goes — but only when it is still
 * exactly the text this tool wrote (the record's `remote_snapshot_hash`). A snapshot the user
 * edited, or a file of that name we never wrote, is kept and reported so the user can be told
 * where it is (docs/sync-decision-table.md, "The snapshot's end"). Host-neutral; runs inside the
 * sync engine's operations, under the note's and the file's queue keys — the keys a push holds
 * while it writes the snapshot, so the two never interleave.
 */
import { isBridgeError } from "../core/errors";
import { sha256Hex } from "../core/hash";
import type { FileStamp, LocalFiles } from "../core/local-files";
import { isMarkdownPath, remoteSnapshotPath } from "../core/paths";

/** Snapshots above this size are never ours to remove (a note holds at most 50 MiB). */
const MAX_SNAPSHOT_BYTES = 50 * 1_048_576;

/**
 * The stamp of the snapshot at `path` when it is exactly the text this tool wrote last (its hash
 * is the record's `remote_snapshot_hash`), else undefined. A read failure propagates.
 */
export async function ownedSnapshotStamp(
  files: LocalFiles,
  path: string,
  recorded: string | undefined,
): Promise<FileStamp | undefined> {
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

/** A cleanup that found a snapshot: what a result reports (nothing when there was none). */
export type SnapshotOutcome = Exclude<SnapshotCleanup, { kind: "none" }>;

/**
 * Removes the `.remote.md` beside `localPath` when it is the unedited snapshot this tool wrote
 * (its SHA-256 is `recorded`, the record's `remote_snapshot_hash`); otherwise leaves it and says
 * why. The sync engine calls it after every operation that leaves the file, the baseline and the
 * note agreeing (a push that wrote or found nothing to send, a merge, a pull), while it still
 * holds the note's and the file's queue keys — so every door (plugin, command, agent tools,
 * sync-all, automatic sync) removes the snapshot the same way. Never throws for a snapshot it
 * cannot judge: that one is kept.
 */
export async function removeSnapshotBeside(
  files: LocalFiles,
  localPath: string,
  recorded: string | undefined,
): Promise<SnapshotCleanup> {
  if (!isMarkdownPath(localPath)) return { kind: "none" };
  let target: string;
  try {
    target = (await files.resolve(remoteSnapshotPath(localPath), "write")).path;
  } catch {
    return { kind: "none" };
  }
  const info = await files.stat(target);
  if (info.kind === "missing") return { kind: "none" };
  if (info.kind !== "file") return { kind: "kept", path: target, reason: "not-ours" };
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
}

/** Why a snapshot stayed, as a notice says it. */
const KEPT_REASONS: Readonly<Record<Extract<SnapshotCleanup, { kind: "kept" }>["reason"], string>> = {
  edited: "you edited it, so delete it yourself when you no longer need it",
  "not-ours": "HackMD Bridge did not write it",
  unreadable: "it could not be read",
};

/** One sentence for a notice about a cleanup (with a leading space), or "" when there was nothing. */
export function snapshotCleanupSentence(cleanup: SnapshotCleanup | undefined): string {
  if (cleanup === undefined) return "";
  switch (cleanup.kind) {
    case "none":
      return "";
    case "removed":
      return ` Removed ${cleanup.path}, the copy of HackMD's version it no longer needs.`;
    case "kept":
      return ` ${cleanup.path} was kept: ${KEPT_REASONS[cleanup.reason]}.`;
  }
}
