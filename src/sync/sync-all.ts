/**
 * Sync-all: every tracked note pulled, pushed, reported as a conflict or reported missing, for
 * the cost of one list request per workspace plus about one GET per note that changed
 * (bench/README.md). Host-neutral: no `node:*`, no `obsidian`, no module-level state; one
 * run's state lives in a `SyncAllRun`, and the local hash cache belongs to the caller.
 *
 * The table is docs/sync-decision-table.md, section "Sync-all plan" (stable branch ids A1–A4,
 * B1–B5, M1, M2, E1–E3); `decideSyncAll` is that table as a pure function.
 *
 * 1. Plan (writes nothing):
 *    - records: the state folder's `tracked/` listing, every record read (damaged ones, missing
 *      baselines and files named by two records become errors instead of being skipped);
 *    - listing: ONE fresh `GET /notes` (or the team form) per workspace, straight from the
 *      client (never the 60 s list cache);
 *    - checking, per record: the working file's body hash (line endings normalised; a
 *      `LocalHashCache` hit on path + stamp skips the read); the listed `lastChangedAt` against
 *      the recorded timestamp. A note missing from the list is confirmed by one GET (404 →
 *      missing on HackMD). A note whose timestamp moved is fetched and compared by hash only in
 *      a dry run: in a real run the pull or push that follows makes that same GET and decides
 *      by hash itself, so every moved note costs one GET either way.
 * 2. Execute (real runs only), always through the SyncService, so every safety rule, the
 *    per-note and per-path serialisation and the baseline rules of docs/tools.md §13–§14 apply:
 *    - `pull` → `pull` with `overwrite_local` (never `discard_local_changes`): a file edited
 *      since the plan is refused (`unpushed_changes`), an identical body only refreshes the
 *      record's timestamp (outcome `unchanged`);
 *    - `push`, `same_change`, `conflict`, `reconcile` → `push` with strategy `safe`: its GET
 *      re-decides by hash (S3 pushed, S5 baseline advanced, S7 conflict). A conflict is
 *      therefore reported WITH the `.remote.md` snapshot and `diff_summary` a push writes —
 *      nothing is sent to HackMD and no user file is replaced (the snapshot only replaces the
 *      snapshot this tool wrote last).
 *    - a pull, push or merge that leaves both sides agreeing removes the `.remote.md` snapshot of
 *      an earlier conflict when it is still unedited (the service does it; the item says so);
 *    - missing files and notes are reported, never recreated or untracked.
 * 3. Rate limit: at most `concurrency` (default 4) steps in flight. The client already retries
 *    429s whose hint is at most 5 s; a `rate_limited` error that still comes back pauses every
 *    worker (injected `sleep`) for the hinted wait and retries that step once when the wait is
 *    at most `maxRateLimitWaitMs`; otherwise (or on a second 429) no new step starts and every
 *    note not yet done is reported `skipped`.
 */
import { BridgeError, isBridgeError, type ErrorKind } from "../core/errors";
import { bodyHash, sha256Hex } from "../core/hash";
import type { LocalFiles } from "../core/local-files";
import { silentLogger, systemClock, type Clock, type Logger, type Sleep } from "../core/ports";
import { normalizeLineEndings } from "../core/text";
import { CallContext } from "../hackmd/call-context";
import { compareCodePoints, type HackmdClient } from "../hackmd/client";
import type { NoteSummary } from "../hackmd/types";
import { overwrittenSentence, type OverwrittenVersion } from "../hackmd/safety-version";
import { LocalHashCache } from "./local-hash-cache";
import { MAX_BODY_BYTES } from "./service";
import { baselineFile, conversionFile, CONVERT, SyncStateStore, type SyncRecord } from "./store";
import type { SnapshotOutcome } from "./snapshots";
import type { PushOutput, SyncTools } from "./types";
import { TOOL_WORDS, type Words } from "../core/wording";

export { LocalHashCache } from "./local-hash-cache";

/** Steps in flight when the caller does not say (docs/tools.md §17 budgets assume a polite client). */
export const DEFAULT_SYNC_ALL_CONCURRENCY = 4;

/** Longest rate-limit wait sync-all sits out before retrying a step once (default). */
export const DEFAULT_MAX_RATE_LIMIT_WAIT_MS = 60_000;

/** Working files checked at once in the plan (stat, and a read and hash on a hash-cache miss). */
const LOCAL_CHECKS_IN_FLIGHT = 16;

/** Folder of the records inside the state folder (docs/tools.md §13.2). */
const TRACKED = "tracked";
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

/** The working file as the planner saw it. */
export type LocalFact =
  /** Read (or found in the hash cache) and hashed after line-ending normalisation. */
  | { kind: "hashed"; hash: string }
  /** No file at the record's path. */
  | { kind: "missing" }
  /** Present but not usable: not a regular file, above 50 MiB, not UTF-8, or refused by policy. */
  | { kind: "unreadable"; error_kind: ErrorKind; message: string };

/** The note as the planner saw it. */
export type RemoteFact =
  /** Listed with exactly the recorded `lastChangedAt`: taken as unchanged, no GET. */
  | { kind: "unchanged" }
  /** Listed with another (or no) `lastChangedAt`, body not fetched (real runs). */
  | { kind: "moved" }
  /** Body fetched by a GET and hashed. */
  | { kind: "fetched"; hash: string }
  /** Not listed, and a GET answered 404: deleted or in the trash. */
  | { kind: "gone" }
  /** The list or the GET failed; `rate_limited` when sync-all stopped on HackMD's rate limit. */
  | { kind: "failed"; error_kind: ErrorKind; message: string; rate_limited: boolean };

/** What the planner knows of one record. `remote` is consulted only for a hashed file. */
export type SyncAllFacts =
  | { record: "damaged"; error_kind: ErrorKind; message: string }
  | { record: "ok"; baseline: string; local: LocalFact; remote?: RemoteFact | undefined };

/** One row of the sync-all plan table, with its stable branch id. */
export type SyncAllPlan =
  | { id: "in_sync"; branch: "A1" | "A2" }
  | { id: "pull"; branch: "A3" | "A4" }
  | { id: "push"; branch: "B1" | "B2" }
  | { id: "same_change"; branch: "B3" }
  | { id: "conflict"; branch: "B4" }
  | { id: "reconcile"; branch: "B5" }
  | { id: "missing_local"; branch: "M1" }
  | { id: "missing_remote"; branch: "M2" }
  | { id: "error"; branch: "E1" | "E2" | "E3"; error_kind: ErrorKind; message: string };

/** Stable plan ids. */
export type SyncAllPlanId = SyncAllPlan["id"];

/** Stable branch ids of the sync-all plan table. */
export type SyncAllBranch = SyncAllPlan["branch"];

/** The sync-all plan table (docs/sync-decision-table.md): facts in, one plan out. Pure. */
export function decideSyncAll(facts: SyncAllFacts): SyncAllPlan {
  if (facts.record === "damaged")
    return { id: "error", branch: "E1", error_kind: facts.error_kind, message: facts.message };
  const { local, remote, baseline: b } = facts;
  if (local.kind === "missing") return { id: "missing_local", branch: "M1" };
  if (local.kind === "unreadable")
    return { id: "error", branch: "E2", error_kind: local.error_kind, message: local.message };
  if (remote === undefined)
    throw new BridgeError(
      "internal",
      "sync-all planned a readable file without looking at its note; report this as a bug.",
    );
  const l = local.hash;
  switch (remote.kind) {
    case "gone":
      return { id: "missing_remote", branch: "M2" };
    case "failed":
      return { id: "error", branch: "E3", error_kind: remote.error_kind, message: remote.message };
    case "unchanged":
      return l === b ? { id: "in_sync", branch: "A1" } : { id: "push", branch: "B1" };
    case "moved":
      // The pull or push that runs next makes the confirming GET and decides by hash.
      return l === b ? { id: "pull", branch: "A4" } : { id: "reconcile", branch: "B5" };
    case "fetched": {
      const r = remote.hash;
      if (l === b) return r === b ? { id: "in_sync", branch: "A2" } : { id: "pull", branch: "A3" };
      if (r === b) return { id: "push", branch: "B2" };
      // Both sides made the same change: not a conflict (docs/style.md rule 5).
      return l === r ? { id: "same_change", branch: "B3" } : { id: "conflict", branch: "B4" };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Public shapes
// ---------------------------------------------------------------------------------------------

/** What happened to one note. `planned`: dry run, the step was not executed. */
export type SyncAllOutcome =
  | "planned"
  | "unchanged"
  | "pulled"
  | "pushed"
  /** Both sides had changed; their edits did not overlap, so the merge was written and pushed. */
  | "merged"
  | "baseline_advanced"
  | "conflict"
  | "missing_local"
  | "missing_remote"
  | "error"
  | "skipped";

/** One tracked note in the result. */
export interface SyncAllItem {
  note_id: string;
  team_path: string | null;
  /** The record's working file (`""` when the record is too damaged to name one). */
  local_path: string;
  plan: SyncAllPlanId;
  branch: SyncAllBranch;
  outcome: SyncAllOutcome;
  /** The error kind behind an `error` or `skipped` outcome. */
  error_kind?: ErrorKind;
  /** Why, and the next step, for anything but a plain success. */
  message?: string;
  /** A conflict's `.remote.md` snapshot, when one was written. */
  snapshot_path?: string;
  /** A conflict's remote body hash (pass it as `expected_remote_hash` after merging). */
  remote_body_hash?: string;
  /** Dry runs with auto-merge: the planned conflict's edits do not overlap, so a real run merges them. */
  merges?: true;
  /**
   * After a pull, push or merge that left both sides agreeing: the `.remote.md` snapshot of an
   * earlier conflict, removed or (edited, not ours, unreadable) kept (sync/snapshots.ts).
   */
  snapshot_cleanup?: SnapshotOutcome;
  /**
   * Versions of a collaborator's edits that landed between the push's read of the note (or the
   * list it trusted) and its write, and were replaced by it (docs/versions-and-comments.md).
   */
  overwritten_versions?: OverwrittenVersion[];
}

/** Notes per result (a dry run counts what would happen). */
export interface SyncAllCounts {
  /** Nothing to do, or only the baseline/timestamp moved (same change on both sides). */
  in_sync: number;
  pulled: number;
  pushed: number;
  /** Both sides changed without overlap: merged into the file and pushed. */
  merged: number;
  conflicts: number;
  missing_local: number;
  missing_remote: number;
  errors: number;
  /** Not done because sync-all stopped on HackMD's rate limit, or changed while syncing. */
  skipped: number;
}

/** The result of a sync-all run. */
export interface SyncAllResult {
  dry_run: boolean;
  counts: SyncAllCounts;
  /** One item per record: personal first, then teams by path, each by note id. */
  items: SyncAllItem[];
}

/** A progress report: `done` of `total` in the current phase (each phase starts with done 0). */
export interface SyncAllProgress {
  phase: "listing" | "checking" | "syncing";
  done: number;
  total: number;
  /** The note just finished (checking and syncing). */
  note_id?: string;
}

/** The services sync-all uses; a core's `deps` (AppDeps, app/deps.ts) has all of them. */
export interface SyncAllDeps {
  client: HackmdClient;
  files: LocalFiles;
  /** The core's sync engine: executes every pull and push (its queue serialises them). */
  sync: SyncTools;
  /** Waits out a rate limit; tests pass a fake. */
  sleep: Sleep;
  logger?: Logger;
  /** The state store; default: one over `files.state` (stores keep no state of their own). */
  store?: SyncStateStore;
  /** The vocabulary of the fixes its messages name (default: the tools' words). */
  words?: Words;
  /** Times the lists for `trustListing` (default: the system clock). */
  clock?: Clock;
}

/** Options of one run; all optional. */
export interface SyncAllOptions {
  /** Plan only: list requests and confirming GETs, nothing written anywhere. Default false. */
  dryRun?: boolean;
  /** Steps in flight at once (1–16). Default 4. */
  concurrency?: number;
  /** Called as work progresses; a throwing callback is logged and ignored. */
  onProgress?: (progress: SyncAllProgress) => void;
  /** Body hashes by path and stamp, kept by the caller between runs. Default: a fresh one. */
  hashCache?: LocalHashCache;
  /** Pass `confirm_large_file` to pulls and pushes of bodies above 5 MiB. Default false. */
  confirmLargeFiles?: boolean;
  /** Longest rate-limit wait sat out before one retry; longer stops the run. Default 60 s. */
  maxRateLimitWaitMs?: number;
  /** The call context every request counts against. Default: a new one. */
  call?: CallContext;
  /**
   * Merge non-overlapping edits of both sides (push strategy `merge`) instead of reporting them as
   * conflicts. Default true; a dry run then says which conflicts would merge. Overlapping edits
   * are conflicts either way.
   */
  autoMerge?: boolean;
  /**
   * Files the host is editing right now (automatic sync, docs/auto-sync.md): their planned pull or push is
   * not executed this run and they are reported `skipped`, so nothing is pulled into an open
   * editor or pushed mid-typing. Default: none.
   */
  holdBack?: (localPath: string) => boolean;
  /**
   * Pushes of notes the list showed unchanged take that list as their read of HackMD when it is
   * fresh enough (PushRequest.listed): 2 requests instead of 3. Automatic sync rounds only;
   * default false, so `hackmd-bridge sync` and the tools keep docs/tools.md §17's sequences.
   */
  trustListing?: boolean;
  /**
   * Where a workspace's note list comes from (default: one `GET /notes` of the client). A round
   * that also keeps mirrors whole (src/app/mirror.ts) passes one list per workspace to both, so the
   * round still costs one list per workspace; `sentAt` is when its request was sent (a push that
   * trusts the list counts its age from then).
   */
  listNotes?: (teamPath: string | null) => Promise<{ notes: NoteSummary[]; sentAt: number }>;
}

/**
 * Syncs every tracked note (see the module comment and docs/sync-decision-table.md). Never
 * throws for one note's failure: each is an item; throws only when the records cannot be listed.
 */
export async function syncAll(deps: SyncAllDeps, options: SyncAllOptions = {}): Promise<SyncAllResult> {
  return new SyncAllRun(deps, options).run();
}

// ---------------------------------------------------------------------------------------------
// One run
// ---------------------------------------------------------------------------------------------

/** A planned note and what became of it. */
interface Entry {
  key: string;
  noteId: string;
  teamPath: string | null;
  localPath: string;
  record?: SyncRecord;
  /** Set when the record itself is unusable (E1). */
  damaged?: { error_kind: ErrorKind; message: string };
  plan?: SyncAllPlan;
  item?: SyncAllItem;
  /** Dry runs with auto-merge: whether a `conflict` plan's edits merge cleanly. */
  mergeable?: boolean;
  /** The note as listed, when the list showed it unchanged. */
  listed?: { note: NoteSummary; at: number };
}

/** The listed notes of a workspace, or why there are none. */
type Listing =
  | { ok: true; byId: Map<string, NoteSummary>; at: number }
  | { ok: false; failure: Extract<RemoteFact, { kind: "failed" }> };

/** Thrown inside a run when a step is not attempted because of the rate limit. */
class RateLimitStop extends Error {
  constructor(readonly reason: BridgeError) {
    super(reason.message);
  }
}

/** Run-scoped rate-limit handling: one shared pause, one retry per step, then stop. */
class RateGate {
  private stopped: BridgeError | undefined;
  private pause: Promise<void> | undefined;

  constructor(
    private readonly sleep: Sleep,
    private readonly maxWaitMs: number,
  ) {}

  /** The 429 that stopped the run, if any. */
  get stopReason(): BridgeError | undefined {
    return this.stopped;
  }

  /** Runs one step (it may make several requests), sitting out a short rate limit once. */
  async step<T>(work: () => Promise<T>): Promise<T> {
    await this.ready();
    try {
      return await work();
    } catch (error) {
      if (!isBridgeError(error, "rate_limited")) throw error;
      const wait = rateLimitWaitMs(error);
      if (this.stopped !== undefined || wait === undefined || wait > this.maxWaitMs) throw this.stop(error);
      if (this.pause === undefined) {
        const pause = this.sleep(wait).finally(() => {
          if (this.pause === pause) this.pause = undefined;
        });
        this.pause = pause;
      }
      await this.ready();
      try {
        return await work();
      } catch (again) {
        if (isBridgeError(again, "rate_limited")) throw this.stop(again);
        throw again;
      }
    }
  }

  private async ready(): Promise<void> {
    if (this.pause !== undefined) await this.pause;
    if (this.stopped !== undefined) throw new RateLimitStop(this.stopped);
  }

  private stop(error: BridgeError): RateLimitStop {
    this.stopped ??= error;
    return new RateLimitStop(error);
  }
}

/** One sync-all run: plan, then (unless dry) execute. */
class SyncAllRun {
  private readonly client: HackmdClient;
  private readonly files: LocalFiles;
  private readonly sync: SyncTools;
  private readonly store: SyncStateStore;
  private readonly logger: Logger;
  private readonly dryRun: boolean;
  private readonly concurrency: number;
  private readonly cache: LocalHashCache;
  private readonly confirmLargeFiles: boolean;
  private readonly autoMerge: boolean;
  private readonly call: CallContext;
  private readonly gate: RateGate;
  private readonly onProgress: ((progress: SyncAllProgress) => void) | undefined;
  private readonly words: Words;
  private readonly holdBack: ((localPath: string) => boolean) | undefined;
  private readonly trustListing: boolean;
  private readonly clock: Clock;
  private readonly listSource:
    ((teamPath: string | null) => Promise<{ notes: NoteSummary[]; sentAt: number }>) | undefined;

  constructor(deps: SyncAllDeps, options: SyncAllOptions) {
    const concurrency = options.concurrency ?? DEFAULT_SYNC_ALL_CONCURRENCY;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) {
      throw new BridgeError(
        "invalid_input",
        `concurrency must be an integer from 1 to 16 (got ${String(concurrency)}).`,
      );
    }
    this.client = deps.client;
    this.files = deps.files;
    this.sync = deps.sync;
    this.logger = deps.logger ?? silentLogger;
    this.words = deps.words ?? TOOL_WORDS;
    this.store =
      deps.store ??
      deps.sync.store ??
      new SyncStateStore({ files: deps.files.state, logger: this.logger, words: this.words });
    this.dryRun = options.dryRun ?? false;
    this.concurrency = concurrency;
    this.cache = options.hashCache ?? new LocalHashCache();
    this.confirmLargeFiles = options.confirmLargeFiles ?? false;
    this.autoMerge = options.autoMerge ?? true;
    this.call = options.call ?? new CallContext();
    this.gate = new RateGate(deps.sleep, options.maxRateLimitWaitMs ?? DEFAULT_MAX_RATE_LIMIT_WAIT_MS);
    this.onProgress = options.onProgress;
    this.holdBack = options.holdBack;
    this.trustListing = options.trustListing ?? false;
    this.clock = deps.clock ?? systemClock;
    this.listSource = options.listNotes;
  }

  /**
   * Conversion files present once the records were read (one listing). A save writes (or removes)
   * a record's conversion file before the record itself, so a record this run read without one
   * compares its file byte for byte; one written later belongs to a newer record than this run's.
   */
  private conversions: ReadonlySet<string> = new Set();

  async run(): Promise<SyncAllResult> {
    const entries = await this.readRecords();
    this.conversions = new Set(
      (await this.files.state.list(CONVERT))
        .filter((entry) => entry.kind === "file")
        .map((entry) => `${CONVERT}/${entry.name}`),
    );
    const listings = await this.listWorkspaces(entries);
    await this.check(entries, listings);
    const tracked = entries.filter((entry) => entry.record !== undefined);
    this.cache.retain(
      tracked.map((entry) => entry.localPath),
      tracked.map((entry) => baselineFile(entry.key)),
    );
    // One scan of the records for the whole run, not one per saved note (a 10,000-note vault).
    if (!this.dryRun) await this.sync.batch(() => this.execute(entries));
    const items = entries.map((entry) => entry.item).filter((item): item is SyncAllItem => item !== undefined);
    items.sort(
      (a, b) =>
        compareWorkspaces(a.team_path, b.team_path) ||
        compareCodePoints(a.note_id, b.note_id) ||
        compareCodePoints(a.local_path, b.local_path),
    );
    return { dry_run: this.dryRun, counts: countItems(items), items };
  }

  // ---- plan: records ----

  /** Every record in the state folder, damaged ones included (E1), with duplicate paths flagged. */
  private async readRecords(): Promise<Entry[]> {
    const listed = await this.files.state.list(TRACKED);
    const names = new Set(listed.filter((entry) => entry.kind === "file").map((entry) => entry.name));
    const keys = [...names].filter((name) => name.endsWith(".json")).map((name) => name.slice(0, -".json".length));
    const entries: Entry[] = [];
    // The store's record index: one scan per process, none while the state folder is unchanged.
    const indexed = await this.store.indexedRecords();
    await forEachBounded(keys, Math.max(this.concurrency, 8), async (key) => {
      const decoded = decodeKey(key);
      let record: SyncRecord | string | undefined = indexed.get(key);
      if (record === undefined) {
        // Listed after the index was current: read it now.
        try {
          record = await this.store.readRecord(key);
        } catch (error) {
          record = `it cannot be read (${describe(error)})`;
        }
      }
      if (record === undefined) return; // removed while listing
      if (typeof record === "string") {
        entries.push({
          key,
          noteId: decoded.noteId,
          teamPath: decoded.teamPath,
          localPath: "",
          damaged: {
            error_kind: "sync_state",
            message: `The sync record of note ${decoded.noteId} in ${workspaceWords(decoded.teamPath)} is corrupt (${record}); pull the note again or untrack it with ${this.words.step({ action: "untrack", noteId: decoded.noteId, teamPath: decoded.teamPath })}.`,
          },
        });
        return;
      }
      let baseline = names.has(baselineFile(key).slice(TRACKED.length + 1))
        ? await this.baselineProblem(key, record)
        : "is missing";
      // Another process saving this note (baseline, then record) between the two reads looks like
      // damage for a moment: read the record again, and judge the baseline by the newer record.
      for (let attempt = 0; baseline !== undefined && attempt < 3; attempt += 1) {
        // A save in flight holds the record's lock: wait for it, then judge by what it left.
        const current: SyncRecord = record;
        const again = await this.store.withLock(key, () => this.store.readRecord(key)).catch(() => undefined);
        if (typeof again !== "object") break;
        if (again.baseline_body_hash === current.baseline_body_hash && attempt > 0) break;
        record = again;
        baseline = await this.baselineProblem(key, again);
      }
      const entry: Entry = {
        key,
        noteId: record.internal_id,
        teamPath: record.team_path,
        localPath: record.local_path,
        record,
      };
      if (baseline !== undefined) {
        // Worded as the sync check words it, so every view reports a damaged record the same way.
        entry.damaged = {
          error_kind: "sync_state",
          message: `The baseline of ${record.local_path} ${baseline}; pull note ${record.internal_id} from ${workspaceWords(record.team_path)} to ${record.local_path} again.`,
        };
      }
      entries.push(entry);
    });
    // Listing order is the file system's; plan and execute in the order results are reported.
    entries.sort(
      (a, b) =>
        compareWorkspaces(a.teamPath, b.teamPath) ||
        compareCodePoints(a.noteId, b.noteId) ||
        compareCodePoints(a.key, b.key),
    );
    const byPath = new Map<string, Entry[]>();
    for (const entry of entries) {
      if (entry.record === undefined) continue;
      byPath.set(entry.localPath, [...(byPath.get(entry.localPath) ?? []), entry]);
    }
    for (const [path, sharing] of byPath) {
      if (sharing.length < 2) continue;
      const keysNamed = sharing.map((entry) => entry.key).sort(compareCodePoints);
      for (const entry of sharing) {
        entry.damaged ??= {
          error_kind: "sync_state",
          message: `More than one sync record names ${path} (${keysNamed.join(", ")}); untrack the stale ones with ${this.words.step({ action: "untrack", path })}, then pull again.`,
        };
      }
    }
    return entries;
  }

  /**
   * Why a record's baseline is unusable (as `SyncStateStore.load` judges it), or undefined. Each
   * baseline is read and hashed: a crash between the baseline and the record write leaves a
   * mismatch that the sync check of that file reports, and sync-all must not call it in sync.
   */
  private async baselineProblem(key: string, record: SyncRecord): Promise<string | undefined> {
    const path = baselineFile(key);
    // Nothing known of it (a fresh process): read it at once. A state read's stamp is in the state
    // stat's form (size, mtime, identity, ctime) and belongs to the bytes read, so it vouches for them.
    if (!this.cache.hasBaseline(path)) {
      const read = await this.files.state.read(path, { maxBytes: MAX_BODY_BYTES });
      if (read === undefined) return "is missing";
      if (
        read.truncated ||
        decodeUtf8(read.bytes) === undefined ||
        `sha256:${await sha256Hex(read.bytes)}` !== record.baseline_body_hash
      )
        return "does not match its recorded hash";
      this.cache.rememberBaseline(path, read.stamp, record.baseline_body_hash);
      return undefined;
    }
    // A baseline verified by an earlier run and unchanged since (size, mtime, inode, ctime) is not re-read.
    const before = await this.files.state.stat(path);
    if (before === undefined) return "is missing";
    if (this.cache.baselineVerified(path, before, record.baseline_body_hash)) return undefined;
    const read = await this.files.state.read(path, { maxBytes: MAX_BODY_BYTES });
    if (read === undefined) return "is missing";
    if (
      read.truncated ||
      decodeUtf8(read.bytes) === undefined ||
      `sha256:${await sha256Hex(read.bytes)}` !== record.baseline_body_hash
    ) {
      this.cache.forgetBaseline(path);
      return "does not match its recorded hash";
    }
    // Only a read of the file as stat saw it vouches for that stamp.
    if (read.stamp.size === before.size && read.stamp.mtimeMs === before.mtimeMs)
      this.cache.rememberBaseline(path, before, record.baseline_body_hash);
    return undefined;
  }

  // ---- plan: one list per workspace ----

  private async listWorkspaces(entries: readonly Entry[]): Promise<Map<string | null, Listing>> {
    const workspaces = [
      ...new Set(entries.filter((entry) => entry.damaged === undefined).map((entry) => entry.teamPath)),
    ].sort(compareWorkspaces);
    const listings = new Map<string | null, Listing>();
    let done = 0;
    this.progress({ phase: "listing", done, total: workspaces.length });
    await forEachBounded(workspaces, this.concurrency, async (teamPath) => {
      try {
        // The list's age counts from before its request is sent (retries and waits included):
        // HackMD may build the answer at any moment after that, and a push that takes the list as
        // its read must not trust it longer than it is known to hold.
        let sentAt = this.clock.now();
        const notes = await this.gate.step(async () => {
          sentAt = this.clock.now();
          if (this.listSource === undefined) return this.client.listNotes(this.call, { teamPath });
          const shared = await this.listSource(teamPath);
          sentAt = shared.sentAt;
          return shared.notes;
        });
        listings.set(teamPath, { ok: true, byId: new Map(notes.map((note) => [note.id, note])), at: sentAt });
      } catch (error) {
        const failure = failureOf(error);
        const message = failure.rate_limited
          ? failure.message
          : `Listing the notes of ${workspaceWords(teamPath)} failed, so its notes were not synced: ${failure.message}`;
        listings.set(teamPath, { ok: false, failure: { ...failure, message } });
      }
      done += 1;
      this.progress({ phase: "listing", done, total: workspaces.length });
    });
    return listings;
  }

  // ---- plan: per note ----

  private async check(entries: readonly Entry[], listings: ReadonlyMap<string | null, Listing>): Promise<void> {
    let done = 0;
    this.progress({ phase: "checking", done, total: entries.length });
    // The working files first, more of them in flight than requests (local calls wait on the
    // disk and the thread pool, not on HackMD); then the notes, `concurrency` at a time.
    const locals = new Map<Entry, LocalFact>();
    await forEachBounded(entries, Math.max(this.concurrency, LOCAL_CHECKS_IN_FLIGHT), async (entry) => {
      if (entry.damaged === undefined && entry.record !== undefined)
        locals.set(entry, await this.localFact({ key: entry.key, record: entry.record }));
    });
    await forEachBounded(entries, this.concurrency, async (entry) => {
      const facts = await this.factsOf(entry, listings, locals.get(entry));
      const plan = decideSyncAll(facts);
      entry.plan = plan;
      entry.item = this.plannedItem(entry, plan, facts);
      done += 1;
      this.progress({ phase: "checking", done, total: entries.length, note_id: entry.noteId });
    });
  }

  private async factsOf(
    entry: Entry,
    listings: ReadonlyMap<string | null, Listing>,
    checked: LocalFact | undefined,
  ): Promise<SyncAllFacts> {
    const record = entry.record;
    if (entry.damaged !== undefined || record === undefined) {
      const damaged = entry.damaged ?? { error_kind: "sync_state" as const, message: "The sync record is unreadable." };
      return { record: "damaged", ...damaged };
    }
    const local = checked ?? (await this.localFact({ key: entry.key, record }));
    const facts: SyncAllFacts = { record: "ok", baseline: record.baseline_body_hash, local };
    if (local.kind !== "hashed") return facts;
    const listing = listings.get(record.team_path);
    if (listing === undefined)
      return {
        ...facts,
        remote: {
          kind: "failed",
          error_kind: "internal",
          message: "The workspace was never listed; report this as a bug.",
          rate_limited: false,
        },
      };
    if (!listing.ok) return { ...facts, remote: listing.failure };
    const listed = listing.byId.get(record.internal_id);
    if (listed !== undefined) {
      const unchanged =
        listed.last_changed_at !== null &&
        record.last_observed_remote_timestamp !== "" &&
        String(listed.last_changed_at) === record.last_observed_remote_timestamp;
      if (unchanged) {
        entry.listed = { note: listed, at: listing.at };
        return { ...facts, remote: { kind: "unchanged" } };
      }
      // Real runs leave the confirming GET to the pull or push that follows (one GET either way).
      if (!this.dryRun) return { ...facts, remote: { kind: "moved" } };
    }
    const remote = await this.fetchRemote(record, listed === undefined);
    if (remote.kind !== "fetched") return { ...facts, remote };
    if (
      this.dryRun &&
      this.autoMerge &&
      remote.hash !== facts.baseline &&
      remote.hash !== local.hash &&
      local.hash !== facts.baseline
    ) {
      entry.mergeable = await this.mergesCleanly(entry.key, record, remote.body);
    }
    return { ...facts, remote: { kind: "fetched", hash: remote.hash } };
  }

  /** Whether baseline, file and remote body merge without overlap (dry runs; nothing written). */
  private async mergesCleanly(key: string, record: SyncRecord, remote: string): Promise<boolean> {
    try {
      const base = await this.files.state.read(baselineFile(key), { maxBytes: MAX_BODY_BYTES });
      const file = await this.files.read(record.local_path, { maxBytes: MAX_BODY_BYTES });
      const baseText = base === undefined || base.truncated ? undefined : decodeUtf8(base.bytes);
      const local = file.truncated ? undefined : decodeUtf8(file.bytes);
      if (baseText === undefined || local === undefined) return false;
      // The merge engine loads on first use (not with the plugin).
      const { threeWayMerge } = await import("./merge");
      return threeWayMerge({
        base: baseText,
        local: await this.sync.remoteFormOf({ key, record }, normalizeLineEndings(local)),
        remote,
      }).clean;
    } catch {
      return false;
    }
  }

  /** One GET of the note: its body hash, or gone (404), or why not. */
  private async fetchRemote(
    record: SyncRecord,
    unlisted: boolean,
  ): Promise<Exclude<RemoteFact, { kind: "fetched" }> | { kind: "fetched"; hash: string; body: string }> {
    try {
      const note = await this.gate.step(() =>
        this.client.getNote(this.call, { teamPath: record.team_path, noteId: record.internal_id }),
      );
      if (note.content === undefined) {
        return {
          kind: "failed",
          error_kind: "upstream",
          message: `HackMD sent note ${record.internal_id} without its body; retry later.`,
          rate_limited: false,
        };
      }
      return { kind: "fetched", hash: note.body_hash ?? (await bodyHash(note.content)), body: note.content };
    } catch (error) {
      if (isBridgeError(error, "not_found")) return { kind: "gone" };
      const failure = failureOf(error);
      if (unlisted && !failure.rate_limited)
        failure.message = `Note ${record.internal_id} is not listed in ${workspaceWords(record.team_path)} and reading it failed: ${failure.message}`;
      return failure;
    }
  }

  /** The working file's body hash (normalised line endings, in the baseline's form), through the hash cache. */
  private async localFact(found: { key: string; record: SyncRecord }): Promise<LocalFact> {
    const path = found.record.local_path;
    try {
      // Nothing cached for this path (a fresh process): the read's own stamp keys the cache, so a
      // stat first would only be asked again. Anything unusual (missing, not a file, too large,
      // not UTF-8, a failure) is judged by the stat path below, as before.
      if (!this.cache.has(path)) {
        const hash = await this.readAndHash(found, path).catch(() => undefined);
        if (hash !== undefined) return { kind: "hashed", hash };
      }
      const info = await this.files.stat(path);
      if (info.kind === "missing") return { kind: "missing" };
      if (info.kind !== "file" || info.stamp === undefined) {
        return {
          kind: "unreadable",
          error_kind: "invalid_input",
          message: `${path} is not a regular file; move it away and pull the note again, or untrack it.`,
        };
      }
      const cached = this.cache.lookup(path, info.stamp);
      if (cached !== undefined) return { kind: "hashed", hash: cached };
      const read = await this.files.read(path, { maxBytes: MAX_BODY_BYTES });
      if (read.truncated) {
        this.cache.forget(path);
        return {
          kind: "unreadable",
          error_kind: "too_large",
          message: `${path} is larger than 50 MiB, more than a note may hold; shorten it.`,
        };
      }
      const text = decodeUtf8(read.bytes);
      if (text === undefined) {
        this.cache.forget(path);
        return {
          kind: "unreadable",
          error_kind: "invalid_input",
          message: `${path} is not valid UTF-8; save it as UTF-8 text and sync again.`,
        };
      }
      const normalised = normalizeLineEndings(text);
      const hash = await bodyHash(
        this.conversions.has(conversionFile(found.key)) ? await this.sync.remoteFormOf(found, normalised) : normalised,
      );
      this.cache.remember(path, read.stamp, hash);
      return { kind: "hashed", hash };
    } catch (error) {
      this.cache.forget(path);
      if (isBridgeError(error)) return { kind: "unreadable", error_kind: error.kind, message: error.message };
      return { kind: "unreadable", error_kind: "local_io", message: `${path} cannot be read (${describe(error)}).` };
    }
  }

  /** The hash of a regular, UTF-8 working file within the size limit, remembered by the read's stamp; else undefined. */
  private async readAndHash(found: { key: string; record: SyncRecord }, path: string): Promise<string | undefined> {
    const read = await this.files.read(path, { maxBytes: MAX_BODY_BYTES });
    const text = read.truncated ? undefined : decodeUtf8(read.bytes);
    if (text === undefined) return undefined;
    const normalised = normalizeLineEndings(text);
    const hash = await bodyHash(
      this.conversions.has(conversionFile(found.key)) ? await this.sync.remoteFormOf(found, normalised) : normalised,
    );
    this.cache.remember(path, read.stamp, hash);
    return hash;
  }

  private plannedItem(entry: Entry, plan: SyncAllPlan, facts: SyncAllFacts): SyncAllItem {
    const base = {
      note_id: entry.noteId,
      team_path: entry.teamPath,
      local_path: entry.localPath,
      plan: plan.id,
      branch: plan.branch,
    };
    switch (plan.id) {
      case "in_sync":
        return { ...base, outcome: "unchanged" };
      case "missing_local":
        return {
          ...base,
          outcome: "missing_local",
          message: `${entry.localPath} is missing; pull note ${entry.noteId} to it again to restore it, or untrack the note with ${this.words.step({ action: "untrack", path: entry.localPath, noteId: entry.noteId, teamPath: entry.teamPath })}.`,
        };
      case "missing_remote":
        return {
          ...base,
          outcome: "missing_remote",
          message: `Note ${entry.noteId} no longer exists in ${workspaceWords(entry.teamPath)} (deleted or in the trash); restore it on HackMD, or untrack it with ${this.words.step({ action: "untrack", path: entry.localPath, noteId: entry.noteId, teamPath: entry.teamPath })} (${entry.localPath} is kept).`,
        };
      case "error": {
        const skipped = facts.record === "ok" && facts.remote?.kind === "failed" && facts.remote.rate_limited;
        return skipped
          ? this.skippedItem(base, this.gate.stopReason)
          : { ...base, outcome: "error", error_kind: plan.error_kind, message: plan.message };
      }
      case "conflict":
        return entry.mergeable === true
          ? {
              ...base,
              outcome: "planned",
              merges: true,
              message:
                "Both sides changed, but not the same lines: a real run merges them into the file and pushes the result.",
            }
          : { ...base, outcome: "planned" };
      default:
        return { ...base, outcome: "planned" };
    }
  }

  private skippedItem(base: Omit<SyncAllItem, "outcome">, reason: BridgeError | undefined): SyncAllItem {
    return {
      ...base,
      outcome: "skipped",
      error_kind: "rate_limited",
      message:
        `Not synced: sync-all stopped when HackMD's rate limit was reached; run it again later. ${reason?.message ?? ""}`.trimEnd(),
    };
  }

  // ---- execute ----

  private async execute(entries: readonly Entry[]): Promise<void> {
    const work = entries.filter((entry) => entry.item?.outcome === "planned");
    let done = 0;
    this.progress({ phase: "syncing", done, total: work.length });
    await forEachBounded(work, this.concurrency, async (entry) => {
      const planned = entry.item;
      if (planned === undefined || entry.record === undefined || entry.plan === undefined) return;
      const base: Omit<SyncAllItem, "outcome"> = {
        note_id: planned.note_id,
        team_path: planned.team_path,
        local_path: planned.local_path,
        plan: planned.plan,
        branch: planned.branch,
      };
      if (this.holdBack?.(planned.local_path) === true) {
        entry.item = {
          ...base,
          outcome: "skipped",
          message: `${planned.local_path} is being edited; it syncs once editing stops.`,
        };
        done += 1;
        this.progress({ phase: "syncing", done, total: work.length, note_id: entry.noteId });
        return;
      }
      try {
        entry.item = await this.gate.step(() =>
          entry.plan?.id === "pull"
            ? this.pull(base, entry.record as SyncRecord)
            : this.push(base, entry.record as SyncRecord, entry.listed),
        );
      } catch (error) {
        if (error instanceof RateLimitStop) entry.item = this.skippedItem(base, error.reason);
        else {
          const failure = failureOf(error);
          entry.item = { ...base, outcome: "error", error_kind: failure.error_kind, message: failure.message };
        }
      }
      done += 1;
      this.progress({ phase: "syncing", done, total: work.length, note_id: entry.noteId });
    });
  }

  /** A pull over a file that matched its baseline when planned; the service re-checks it. */
  private async pull(base: Omit<SyncAllItem, "outcome">, record: SyncRecord): Promise<SyncAllItem> {
    const result = await this.sync.pull({
      localPath: record.local_path,
      resolveTarget: () =>
        Promise.resolve({ status: "resolved", teamPath: record.team_path, noteId: record.internal_id }),
      overwriteLocal: true,
      discardLocalChanges: false,
      createParentDirs: false,
      confirmLargeFile: this.confirmLargeFiles,
      call: this.call,
    });
    if (result.kind !== "pulled")
      throw new BridgeError("internal", "A direct note id did not resolve; report this as a bug.");
    this.cache.forget(record.local_path);
    const snapshot = result.snapshot === undefined ? {} : { snapshot_cleanup: result.snapshot };
    if (result.output.body_hash === record.baseline_body_hash) {
      return {
        ...base,
        outcome: "unchanged",
        message:
          "The note's timestamp moved but its body equals the baseline; only the sync record's timestamp was refreshed.",
        ...snapshot,
      };
    }
    return { ...base, outcome: "pulled", ...snapshot };
  }

  /** A safe push: its own GET decides between pushed, baseline advanced and conflict. */
  private async push(
    base: Omit<SyncAllItem, "outcome">,
    record: SyncRecord,
    listed: Entry["listed"],
  ): Promise<SyncAllItem> {
    const strategy = this.autoMerge ? "merge" : "safe";
    const trusted = this.trustListing && listed !== undefined ? { listed } : {};
    const result = await this.sync.push({
      localPath: record.local_path,
      strategy,
      confirm: false,
      confirmLargeFile: this.confirmLargeFiles,
      call: this.call,
      ...trusted,
    });
    if (result.kind === "pushed" && result.output.merged === true) this.cache.forget(record.local_path);
    if (result.kind !== "pushed")
      throw new BridgeError("internal", "A push without note_ref returned a resolution; report this as a bug.");
    const item = pushItem(base, record, result.output);
    const cleaned = result.snapshot === undefined ? item : { ...item, snapshot_cleanup: result.snapshot };
    const overwritten = result.safety?.overwritten ?? [];
    if (overwritten.length === 0) return cleaned;
    return {
      ...cleaned,
      overwritten_versions: overwritten,
      message: [cleaned.message, overwrittenSentence(overwritten)].filter((part) => part !== undefined).join(" "),
    };
  }

  private progress(progress: SyncAllProgress): void {
    if (this.onProgress === undefined) return;
    try {
      this.onProgress(progress);
    } catch (error) {
      this.logger.warn("sync_all_progress_failed", { message: describe(error) });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** The item for a push's output. */
function pushItem(base: Omit<SyncAllItem, "outcome">, record: SyncRecord, output: PushOutput): SyncAllItem {
  if (output.merged === true) {
    return output.status === "pushed"
      ? {
          ...base,
          outcome: "merged",
          message: `Both ${record.local_path} and the note had changed; the edits did not overlap, so they were merged into the file and pushed.`,
        }
      : {
          ...base,
          outcome: "merged",
          message: `The note already held every local edit of ${record.local_path}; the file was updated with the note's changes, nothing was sent.`,
        };
  }
  switch (output.status) {
    case "pushed":
      return { ...base, outcome: "pushed" };
    case "nothing_to_push":
      // S5 moves the baseline to the local body; S1 (the file went back to its baseline) does not.
      return output.body_hash !== undefined && output.body_hash !== record.baseline_body_hash
        ? {
            ...base,
            outcome: "baseline_advanced",
            message: "Both sides already held the same text; the baseline was advanced, nothing was sent.",
          }
        : { ...base, outcome: "unchanged" };
    case "remote_changed":
      return {
        ...base,
        outcome: "skipped",
        message: `${record.local_path} went back to its baseline while sync-all ran, and the note changed on HackMD; run sync-all again to pull it.`,
      };
    case "conflict": {
      const message = [output.instructions, output.snapshot_error]
        .filter((part): part is string => part !== undefined)
        .join(" ");
      return {
        ...base,
        outcome: "conflict",
        ...(message === "" ? {} : { message }),
        ...(output.snapshot_path === undefined ? {} : { snapshot_path: output.snapshot_path }),
        ...(output.remote_body_hash === undefined ? {} : { remote_body_hash: output.remote_body_hash }),
      };
    }
  }
}

/** Counts of nothing: every outcome 0. */
export function emptyCounts(): SyncAllCounts {
  return {
    in_sync: 0,
    pulled: 0,
    pushed: 0,
    merged: 0,
    conflicts: 0,
    missing_local: 0,
    missing_remote: 0,
    errors: 0,
    skipped: 0,
  };
}

/** Counts of a result; a dry run counts the outcome each plan would have. */
function countItems(items: readonly SyncAllItem[]): SyncAllCounts {
  const counts = emptyCounts();
  for (const item of items) {
    const outcome =
      item.outcome === "planned" && item.merges === true
        ? "merged"
        : item.outcome === "planned"
          ? projectedOutcome(item.plan)
          : item.outcome;
    switch (outcome) {
      case "unchanged":
      case "baseline_advanced":
        counts.in_sync += 1;
        break;
      case "pulled":
        counts.pulled += 1;
        break;
      case "pushed":
        counts.pushed += 1;
        break;
      case "merged":
        counts.merged += 1;
        break;
      case "conflict":
        counts.conflicts += 1;
        break;
      case "missing_local":
        counts.missing_local += 1;
        break;
      case "missing_remote":
        counts.missing_remote += 1;
        break;
      case "error":
        counts.errors += 1;
        break;
      case "skipped":
      case "planned":
        counts.skipped += 1;
        break;
    }
  }
  return counts;
}

/** What a planned step is expected to end as (dry-run counts). */
function projectedOutcome(plan: SyncAllPlanId): SyncAllOutcome {
  switch (plan) {
    case "pull":
      return "pulled";
    case "push":
    case "reconcile": // never planned by a dry run, which fetches every moved note
      return "pushed";
    case "same_change":
      return "baseline_advanced";
    case "conflict":
      return "conflict";
    case "in_sync":
      return "unchanged";
    case "missing_local":
    case "missing_remote":
    case "error":
      return plan;
  }
}

/** A failed list or GET as a remote fact (a rate-limit stop included). */
function failureOf(error: unknown): Extract<RemoteFact, { kind: "failed" }> {
  if (error instanceof RateLimitStop)
    return { kind: "failed", error_kind: "rate_limited", message: error.reason.message, rate_limited: true };
  if (isBridgeError(error))
    return { kind: "failed", error_kind: error.kind, message: error.message, rate_limited: false };
  return {
    kind: "failed",
    error_kind: "internal",
    message: `Unexpected failure: ${describe(error)}`,
    rate_limited: false,
  };
}

/**
 * The wait a `rate_limited` error asks for, from its fixed `reset after <S> seconds` fragment
 * (docs/tools.md §6.3); undefined when HackMD sent no reset hint.
 */
function rateLimitWaitMs(error: BridgeError): number | undefined {
  const match = /reset after (\d+) seconds/.exec(error.message);
  return match === null ? undefined : Number(match[1]) * 1000;
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function forEachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, () => worker()));
}

/** Personal (null) first, then team paths by code point. */
function compareWorkspaces(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return compareCodePoints(a, b);
}

/** Workspace and note id of a record key (docs/tools.md §13.2), best effort for damaged records. */
function decodeKey(key: string): { teamPath: string | null; noteId: string } {
  const team = /^team--([^-]*)--([^-]*)$/.exec(key);
  if (team) return { teamPath: decodePart(team[1] ?? ""), noteId: decodePart(team[2] ?? "") };
  const personal = /^personal--([^-]*)$/.exec(key);
  if (personal) return { teamPath: null, noteId: decodePart(personal[1] ?? "") };
  return { teamPath: null, noteId: key };
}

/** Reverses `enc` of §13.2 (`%XX` bytes of UTF-8); the raw text when it does not decode. */
function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** How a workspace reads in messages. */
function workspaceWords(teamPath: string | null): string {
  return teamPath === null ? "the personal workspace" : `team ${teamPath}`;
}

/** Strict UTF-8 decoding; undefined when the bytes are not UTF-8. */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A short description of a failure for messages. */
function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
