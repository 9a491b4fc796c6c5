/**
 * A sync round that keeps every mirror whole (src/app/mirror.ts): one list per workspace, shared
 * by each mirror's round and by sync-all (src/sync/sync-all.ts); then each mirror follows the
 * folder moves of the notes sync-all read. What `hackmd-bridge sync`, the plugin's "Sync all" and
 * automatic rounds run when mirrors exist.
 */
import { CallContext } from "../hackmd/call-context";
import type { NoteDetail } from "../hackmd/types";
import { syncAll, type SyncAllOptions, type SyncAllResult } from "../sync/sync-all";
import type { RoundMirrors } from "../sync/auto/runner";
import type { Words } from "../core/wording";
import type { Permission } from "../hackmd/types";
import type { AppDeps } from "./deps";
import {
  followRemoteMoves,
  loadMirrors,
  mirrorRound,
  RoundLists,
  type MirrorHost,
  type MirrorProgress,
  type MirrorResult,
} from "./mirror";

/** A round's outcome: sync-all's result, and one result per mirror. */
export interface MirroredSyncResult {
  sync: SyncAllResult;
  mirrors: MirrorResult[];
}

/** Runs the mirrors' rounds, then sync-all over the same lists, then the mirrors' folder moves. */
export async function syncWithMirrors(
  deps: AppDeps,
  options: {
    host: MirrorHost;
    words?: Words;
    syncAll?: Omit<SyncAllOptions, "call" | "listNotes">;
    deleteRemote?: boolean;
    /** Asks whether to delete a note whose mirrored file was deleted (the plugin's Sync all). */
    confirmDeleteRemote?: (localPath: string, noteId: string) => Promise<boolean>;
    /** Permissions of notes published from new files (default owner/owner). */
    permissions?: { read: Permission; write: Permission };
    /** Reads the mirrors may make for new notes this round (automatic rounds); default no bound. */
    maxMirrorReads?: number;
    onMirrorProgress?: (target: string, progress: MirrorProgress) => void;
    /** Reported for a mirror file that cannot be read; the round goes on without it. */
    onDamagedMirror?: (name: string, why: string) => void;
  },
): Promise<MirroredSyncResult> {
  const observed = new Map<string, NoteDetail>();
  const call = new CallContext({ onNoteRead: (note) => observed.set(note.id, note) });
  const lists = new RoundLists(deps, call);
  const dryRun = options.syncAll?.dryRun === true;
  const mirrors = await loadMirrors(deps.files.state, options.onDamagedMirror);
  const results: MirrorResult[] = [];
  let readsLeft = options.maxMirrorReads;
  for (const mirror of mirrors) {
    const target = `${mirror.team_path ?? "personal"}${mirror.folder_path === "" ? "" : `/${mirror.folder_path}`}`;
    try {
      const result = await mirrorRound(deps, mirror, {
        host: options.host,
        lists,
        call,
        observed,
        dryRun,
        ...(options.deleteRemote === undefined ? {} : { deleteRemote: options.deleteRemote }),
        ...(options.confirmDeleteRemote === undefined ? {} : { confirmDeleteRemote: options.confirmDeleteRemote }),
        ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
        ...(readsLeft === undefined ? {} : { maxReads: readsLeft }),
        onProgress: (progress) => options.onMirrorProgress?.(target, progress),
      });
      if (readsLeft !== undefined)
        readsLeft = Math.max(0, readsLeft - result.items.filter((i) => i.action === "pulled").length);
      results.push(result);
    } catch (error) {
      results.push({
        id: mirror.id,
        target,
        local_dir: mirror.local_dir,
        dry_run: dryRun,
        complete: mirror.complete,
        estimate: { listed: 0, reads: 0, requests: 0 },
        items: [
          {
            action: "error",
            local_path: mirror.local_dir,
            error_kind: "internal",
            message: error instanceof Error ? error.message : String(error),
          },
        ],
      });
    }
  }
  const sync = await syncAll(
    { ...deps, ...(options.words === undefined ? {} : { words: options.words }) },
    { ...options.syncAll, call, listNotes: (teamPath) => lists.get(teamPath) },
  );
  if (!dryRun) {
    for (const [index, mirror] of mirrors.entries()) {
      const moved = await followRemoteMoves(deps, mirror, observed, { host: options.host, call, lists });
      results[index]?.items.push(...moved);
    }
  }
  return { sync, mirrors: results };
}

/** Reads of new notes an automatic round makes at most for its mirrors (the rest wait for later rounds). */
export const AUTOMATIC_MIRROR_READS = 25;

/**
 * The mirrors' part of an automatic round (`AutoSyncDeps.roundMirrors`), or undefined when there
 * is no mirror: within the request budget (every request goes through the budgeted client), at most
 * `AUTOMATIC_MIRROR_READS` reads of new notes per round, files deleted in the vault only untracked
 * (nobody is there to confirm a delete).
 */
export async function mirrorRoundHook(
  deps: AppDeps,
  options: { host: MirrorHost; permissions?: { read: Permission; write: Permission } },
): Promise<RoundMirrors | undefined> {
  const mirrors = await loadMirrors(deps.files.state);
  if (mirrors.length === 0) return undefined;
  const observed = new Map<string, NoteDetail>();
  const call = new CallContext({ actor: { kind: "auto" }, onNoteRead: (note) => observed.set(note.id, note) });
  const lists = new RoundLists(deps, call);
  return {
    call,
    listNotes: (teamPath) => lists.get(teamPath),
    before: async () => {
      let readsLeft = AUTOMATIC_MIRROR_READS;
      for (const mirror of mirrors) {
        const result = await mirrorRound(deps, mirror, {
          host: options.host,
          lists,
          call,
          observed,
          maxReads: readsLeft,
          ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
        });
        readsLeft = Math.max(0, readsLeft - result.items.filter((item) => item.action === "pulled").length);
      }
    },
    after: async () => {
      for (const mirror of mirrors)
        await followRemoteMoves(deps, mirror, observed, { host: options.host, call, lists });
    },
  };
}
