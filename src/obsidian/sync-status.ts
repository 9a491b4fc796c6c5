/**
 * The sync state of one file without any request: untracked vs tracked from the record, local
 * changes by hashing the file against the baseline hash (cached by the file's stamp), and the
 * remote side only from what the last check the user asked for (or the background check) saw.
 */
import { isBridgeError } from "../core/errors";
import { bodyHash } from "../core/hash";
import type { LocalFiles } from "../core/local-files";
import { normalizeLineEndings } from "../core/text";
import type { LocalHashCache } from "../sync/local-hash-cache";
import type { KeyedRecord, SyncStateStore } from "../sync/store";
import type { SyncCheck } from "../sync/types";

/** What the status bar shows for the active file. */
export type FileSyncState =
  "untracked" | "in_sync" | "local_changes" | "remote_changes" | "conflict" | "checking" | "error";

/** What a check found for a path, kept until the baseline moves. */
interface RemoteObservation {
  baselineHash: string;
  remoteHash: string;
}

/** Remembers the remote side of the last check per path, and which paths are being checked. */
export class SyncStatusMemory {
  private readonly remote = new Map<string, RemoteObservation>();
  private readonly checking = new Set<string>();
  private readonly failed = new Set<string>();
  private readonly listeners = new Set<() => void>();

  /** Records a finished check of `path`. */
  observe(path: string, check: Pick<SyncCheck, "baseline_body_hash" | "remote_body_hash">): void {
    this.remote.set(path, { baselineHash: check.baseline_body_hash, remoteHash: check.remote_body_hash });
    this.failed.delete(path);
    this.changed();
  }

  /** Marks a check of `path` as running (true) or done (false). */
  setChecking(path: string, running: boolean): void {
    if (running) this.checking.add(path);
    else this.checking.delete(path);
    this.changed();
  }

  /** Marks the last check of `path` as failed; the next observation clears it. */
  setFailed(path: string): void {
    this.failed.add(path);
    this.changed();
  }

  /** Forgets a path (after untracking, or when it moved). */
  forget(path: string): void {
    this.remote.delete(path);
    this.failed.delete(path);
    this.changed();
  }

  /** Forgets everything (the API URL changed). */
  clear(): void {
    this.remote.clear();
    this.failed.clear();
    this.changed();
  }

  /** Whether a check of `path` is running. */
  isChecking(path: string): boolean {
    return this.checking.has(path);
  }

  /** Whether the last check of `path` failed. */
  hasFailed(path: string): boolean {
    return this.failed.has(path);
  }

  /** The remote hash last seen for `path`, if it was seen against this baseline. */
  remoteHash(path: string, baselineHash: string): string | undefined {
    const seen = this.remote.get(path);
    return seen?.baselineHash === baselineHash ? seen.remoteHash : undefined;
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** What `localSyncState` reads. */
export interface LocalStateSources {
  files: LocalFiles;
  store: SyncStateStore;
  hashCache: LocalHashCache;
  memory: SyncStatusMemory;
  /** The file's text in the baseline's form (docs/conversion-rules.md: converted notes); default: as it is. */
  remoteForm?: (found: KeyedRecord, text: string) => Promise<string>;
}

/** The state of `path` from local facts and remembered checks only: never a request. */
export async function localSyncState(sources: LocalStateSources, path: string): Promise<FileSyncState> {
  if (sources.memory.isChecking(path)) return "checking";
  // The record index alone (no record read): a status decides nothing, and every action reads
  // the record again. Several records naming the file is an error any action would report.
  let found;
  try {
    found = await sources.store.peekPath(path);
  } catch (error) {
    if (isBridgeError(error)) return "error";
    throw error;
  }
  if (found.kind === "several" || found.kind === "damaged") return "error";
  if (found.kind === "none") return "untracked";
  if (sources.memory.hasFailed(path)) return "error";
  const baseline = found.record.baseline_body_hash;
  let localHash: string;
  try {
    localHash = await cachedLocalHash(sources, found);
  } catch {
    // Deleted, unreadable or not UTF-8: a sync would report why.
    return "error";
  }
  const remoteHash = sources.memory.remoteHash(path, baseline);
  const local = localHash !== baseline;
  const remote = remoteHash !== undefined && remoteHash !== baseline;
  if (local && remote) return localHash === remoteHash ? "in_sync" : "conflict";
  if (local) return "local_changes";
  return remote ? "remote_changes" : "in_sync";
}

/** The body hash of a working file, from the cache when its stamp is unchanged. */
async function cachedLocalHash(sources: LocalStateSources, found: KeyedRecord): Promise<string> {
  const path = found.record.local_path;
  const info = await sources.files.stat(path);
  if (info.kind !== "file" || info.stamp === undefined) throw new Error("not a readable file");
  const hit = sources.hashCache.lookup(path, info.stamp);
  if (hit !== undefined) return hit;
  const read = await sources.files.read(path, { maxBytes: 50 * 1_048_576 });
  if (read.truncated) throw new Error("too large");
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(read.bytes);
  const normal = normalizeLineEndings(text);
  const hash = await bodyHash(sources.remoteForm ? await sources.remoteForm(found, normal) : normal);
  sources.hashCache.remember(path, read.stamp, hash);
  return hash;
}

/** The status bar's words for a state (sentence case). */
export const SYNC_STATE_LABELS: Readonly<Record<FileSyncState, string>> = {
  untracked: "untracked",
  in_sync: "in sync",
  local_changes: "local changes",
  remote_changes: "remote changes",
  conflict: "conflict",
  checking: "checking…",
  error: "error",
};
