/** Requests and results of the sync engine's operations (docs/tools.md §9.12–§9.14, §14). */
import type { OverwriteAction, OverwrittenVersion, SafetyVersion } from "../hackmd/safety-version";
import type { CallContext } from "../hackmd/call-context";
import type { Resolution } from "../hackmd/note-ref";
import type { NoteDetail, NoteSummary } from "../hackmd/types";
import type { ConversionDependencies } from "../convert";
import type { SnapshotOutcome } from "./snapshots";
import type { KeyedRecord, SyncStateStore } from "./store";

/** A reference that did not resolve to exactly one note (§3.3). */
export type UnresolvedTarget = Exclude<Resolution, { status: "resolved" }>;

/** What `pull` needs; the note is resolved through `resolveTarget` only after the path checks. */
export interface PullRequest {
  /** Destination as the caller gave it (§12.1). */
  localPath: string;
  /** Resolves the `note_ref`; called after the destination checks, before the GET. */
  resolveTarget: () => Promise<Resolution>;
  overwriteLocal: boolean;
  discardLocalChanges: boolean;
  createParentDirs: boolean;
  confirmLargeFile: boolean;
  call: CallContext;
  /**
   * Whether the file is written in Obsidian's syntax (docs/conversion-rules.md): true
   * converts, false syncs this note byte for byte from now on; default: the host's setting.
   */
  convert?: boolean;
  /**
   * The note as a GET of the caller read it just before (a mirror reads a new note to learn its
   * folder, and so its path): used instead of the pull's own GET only when no record of the note
   * exists and nothing stands at the destination, so nothing it decides on can be older than what
   * it would overwrite; otherwise the pull reads the note as always.
   */
  prefetched?: NoteDetail | undefined;
}

/** The output of a pull (docs/tools.md §9.12). */
export type PullOutput = {
  team_path: string | null;
  note_id: string;
  title: string;
  local_path: string;
  bytes: number;
  body_hash: string;
  changes?: string;
  title_drift?: string;
  /**
   * The file the note was tracked at until this pull, when that was another path: the record moved
   * to `local_path`, and that file (kept as it is) is no longer tracked.
   */
  moved_from?: string;
};

/**
 * A pull's outcome: pulled, or the reference did not resolve (nothing touched). `snapshot`: what
 * became of the `.remote.md` beside the file, when there was one (sync/snapshots.ts).
 */
export type PullResult =
  | { kind: "pulled"; output: PullOutput; snapshot?: SnapshotOutcome }
  | { kind: "unresolved"; resolution: UnresolvedTarget };

/** What `push` needs. */
export interface PushRequest {
  /** The tracked file as the caller gave it. */
  localPath: string;
  /** `merge` is `safe` that also merges non-overlapping edits of both sides (docs/sync-decision-table.md G7). */
  strategy: "safe" | "overwrite" | "merge";
  confirm: boolean;
  /** Raw `expected_remote_hash`; checked for format before any request. */
  expectedRemoteHash?: string | undefined;
  confirmLargeFile: boolean;
  /** Resolves the optional `note_ref` cross-check, given the tracked note's workspace as default. */
  crossCheck?: ((trackedTeamPath: string | null) => Promise<Resolution>) | undefined;
  call: CallContext;
  /** What the push is, in the name of a version made before it overwrites (default "push"). */
  purpose?: OverwriteAction | undefined;
  /**
   * The note as its workspace's list showed it at `at` (an automatic sync round, docs/auto-sync.md
   * "A push in a round"). When the listed `last_changed_at` equals the record's settled timestamp,
   * the list is at most `LISTED_TRUST_MS` old when the PATCH goes out, no unconfirmed write to the
   * note may still land and no image has to go up first, the push takes its baseline as HackMD's
   * body instead of a GET of its own. Otherwise it reads the note as always.
   */
  listed?: { note: NoteSummary; at: number } | undefined;
}

/** Statuses of a push (docs/tools.md §9.13). */
export type PushStatus = "pushed" | "nothing_to_push" | "remote_changed" | "conflict";

/** The output of a push (docs/tools.md §9.13). */
export type PushOutput = {
  status: PushStatus;
  team_path: string | null;
  note_id: string;
  local_path: string;
  baseline_path: string;
  body_hash?: string;
  /** True when the body written is a three-way merge of both sides' edits (strategy `merge`). */
  merged?: boolean;
  title_drift?: string;
  remote_body_hash?: string;
  diff_summary?: string;
  snapshot_path?: string;
  snapshot_error?: string;
  instructions?: string;
};

/**
 * A push's outcome: done, or the cross-check reference did not resolve. Beside the output (whose
 * shape is a contract): `snapshot`, what became of the `.remote.md` beside the file after a push
 * that left both sides agreeing (sync/snapshots.ts); `mergeable`, a strategy `safe` conflict
 * whose edits do not overlap, so strategy `merge` would merge them.
 */
export type PushResult =
  | { kind: "pushed"; output: PushOutput; safety?: PushSafety; snapshot?: SnapshotOutcome; mergeable?: true }
  | { kind: "unresolved"; resolution: UnresolvedTarget };

/** What a push that wrote did to keep HackMD's previous text (docs/versions-and-comments.md); outside PushOutput, whose shape is a contract. */
export interface PushSafety {
  /** The version made before a deliberate overwrite (strategy overwrite, or a push over a remote change with expected_remote_hash). */
  version?: SafetyVersion;
  /** Versions of someone else's edits that landed between the push's read and its write. */
  overwritten?: OverwrittenVersion[];
}

/** What `untrack` needs (docs/tools.md §9.14). */
export interface UntrackRequest {
  teamPath: string | null;
  noteId: string;
  confirm: boolean;
  /** The call, for the journal's actor (absent: the host's user). */
  call?: CallContext;
}

/** The output of an untrack. */
export type UntrackOutput = {
  team_path: string | null;
  note_id: string;
  local_path: string;
};

/** One tracked note as `hackmd_list_notes` reports it (docs/tools.md §9.2). */
export interface TrackedEntry {
  team_path: string | null;
  note_id: string;
  local_path: string;
  baseline_hash: string;
  last_observed_remote_timestamp: string;
}

/** A tracked file's state, as `hackmd_get_note` with `local_path` reports it (docs/tools.md §9.3). */
export interface SyncCheck {
  status: "in_sync" | "local_changed" | "remote_changed" | "conflict";
  local_path: string;
  baseline_path: string;
  note_id: string;
  remote_timestamp: string;
  baseline_body_hash: string;
  local_body_hash: string;
  remote_body_hash: string;
}

/**
 * An untracked file as a new note will hold it (docs/conversion-rules.md): the remote form under
 * today's context, so what HackMD gets is what the record's baseline will be.
 */
export interface PublishForm {
  /** Canonical ROOT-relative path of the file. */
  path: string;
  /** The file's text as read (line endings normalised). */
  text: string;
  /** What the new note is created with. */
  content: string;
  /** What the conversion consulted; undefined when the file is published byte for byte. */
  conversion?: ConversionDependencies;
  /** Embedded images that have no HackMD link yet: uploaded once the note exists. */
  missingImages: string[];
}

/** What a relink did. */
export type RelinkOutcome = "unchanged" | "rewritten" | "pushed" | "skipped";

/** What the tools need of the sync engine. */
export interface SyncTools {
  /** The sync records on disk, ordered personal first, then teams by path, each by note id. */
  listTracked(): Promise<TrackedEntry[]>;
  /** The sync check of docs/tools.md §14.5 (one GET, nothing written). */
  check(options: { localPath: string; call: CallContext }): Promise<SyncCheck>;
  /** Pull of docs/tools.md §14.1–14.2: destination checks, resolution, one GET, write, save. */
  pull(request: PullRequest): Promise<PullResult>;
  /** Push of docs/tools.md §14.3–14.4: read, load, one GET, decide, then write or snapshot. */
  push(request: PushRequest): Promise<PushResult>;
  /**
   * A tracked working file's text in the baseline's form (docs/conversion-rules.md), to tell whether it was
   * edited: converted with the answers saved with the baseline only (equal to the baseline exactly
   * when nobody edited the file), or unchanged for a note synced byte for byte. What sync-all,
   * the sync check and the status bar hash.
   */
  remoteFormOf(found: KeyedRecord, localText: string): Promise<string>;
  /** A body in the syntax the tracked file is written in (docs/conversion-rules.md): what a conflict shows. */
  localFormOf(found: KeyedRecord, remoteText: string): Promise<string>;
  /**
   * Publish, first half: the untracked file at `localPath` in the form a new note gets
   * (converted when the host converts; comments never leave the vault). Nothing is written.
   */
  publishForm(localPath: string): Promise<PublishForm>;
  /**
   * Publish, second half: tracks `form.path` as the note just created with `form.content`. Images
   * the form still lacks go up first and the note is written once more with their links (one
   * confirmed PATCH); the record's baseline is what HackMD was sent, so nothing is pulled back
   * over the file. Refuses (`conflict`) when a record names the file by now.
   */
  adopt(request: { form: PublishForm; teamPath: string | null; noteId: string; call: CallContext }): Promise<{
    baseline: string;
  }>;
  /**
   * Brings an unedited tracked file's links up to date with what is tracked now
   * (docs/conversion-rules.md, "Relink"): answers recorded as "no such note or image" that
   * resolve now are asked again. A link a pull wrote as a URL becomes a wikilink in the file
   * (`rewritten`, HackMD untouched); a wikilink sent as text becomes a link on HackMD (`pushed`,
   * one GET and a confirmed PATCH, the file untouched). A file edited since its baseline, or a note
   * edited on HackMD, is left for the next sync (`skipped`). `fileOnly`: never HackMD's side (what
   * a pull triggers: a vault being filled by pulls may not hold every note yet). A pull relinks
   * after it tracks a note, a publish (both sides) after it tracks one. Optional: hosts may lack it.
   */
  relink?(request: { localPath: string; call: CallContext; fileOnly?: boolean }): Promise<RelinkOutcome>;
  /** Untrack of docs/tools.md §9.14: forgets a record; local only. */
  untrack(request: UntrackRequest): Promise<UntrackOutput>;
  /**
   * Points the record of a renamed file at its new path (docs/tools.md §13.9), serialised with pull,
   * push and untrack: `followed`; `unchanged` when the file was not tracked, the new path is no
   * valid pull destination, or a pull of this process saved the note anew meanwhile; `recreated`
   * when a new file stands at the old path since the rename (another process pulled the note
   * there): the record stays with that file, and the renamed file is no longer tracked — the
   * host tells the user.
   */
  followRename(options: { from: string; to: string }): Promise<FollowRenameOutcome>;
  /** Runs many operations (a sync-all) with one scan of the sync records instead of one per save. */
  batch<T>(run: () => Promise<T>): Promise<T>;
  /** The engine's state store, when it has one: sync-all plans over its record index. */
  readonly store?: SyncStateStore;
}

/** What `followRename` did with the record. */
export type FollowRenameOutcome = "followed" | "unchanged" | "recreated";
