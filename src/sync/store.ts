/**
 * The sync state store (docs/tools.md §13): one record and one baseline per tracked note, plus a
 * by-path hint per file, kept in the host's private state files. Host-neutral.
 *
 * Record index (docs/architecture.md §5): the records are held in memory by key and by path, built by one scan
 * on first need and trusted only while the `tracked/` folder's change stamp is the one seen when
 * the index last matched the disk. Every record and baseline is replaced by a rename in that
 * folder, so a save by another process (or an older version) changes the stamp and the next use
 * scans again; this store's own writes update the index and take the new stamp, serialised in
 * process so no other use of the index sees them half done. The index answers "which records
 * name this path" and lists; whatever the engine acts on is still read from disk first (the hint
 * and the record by key, and every candidate the index names), and a candidate that no longer
 * matches drops the index.
 */
import { BridgeError } from "../core/errors";
import { bodyHash, sha256Hex } from "../core/hash";
import { sameStamp, type FileStamp, type StateFiles } from "../core/local-files";
import type { Logger } from "../core/ports";
import { TOOL_WORDS, type Words } from "../core/wording";
import { compareCodePoints } from "../core/text";
import type { ConversionDependencies } from "../convert";
import { RecordLocks, REAL_LOCK_TIMING, type LockTiming } from "./record-lock";

/** The record format this code reads and writes. */
export const RECORD_FORMAT = 1;

/** Largest record file read (records are a few hundred bytes). */
const RECORD_MAX_BYTES = 65_536;

/** Largest baseline read: the 50 MiB body limit. */
const BASELINE_MAX_BYTES = 50 * 1_048_576;

const TRACKED = "tracked";
/** Record reads in flight while the index is built. */
const INDEX_READS_IN_FLIGHT = 8;
const BY_PATH = "by-path";
/** Per record, how its working file converts (docs/conversion-rules.md): `convert/<key>.json`. */
export const CONVERT = "convert";
/** Largest conversion file read (answers and kept comments of one note). */
const CONVERSION_MAX_BYTES = 8 * 1_048_576;
/** Conversion files a store keeps parsed in memory (most recently read or written). */
const CONVERSIONS_KEPT = 4096;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** One sync record as stored (docs/tools.md §13.3). */
export interface SyncRecord {
  format: number;
  internal_id: string;
  team_path: string | null;
  local_path: string;
  baseline_body_hash: string;
  last_observed_remote_timestamp: string;
  remote_snapshot_hash?: string;
  /**
   * The file this note was tracked at before a pull moved its record to `local_path` (an optional
   * field older versions ignore): lets a check or push of that file say where the note went.
   */
  moved_from?: string;
}

/** A record with its key. */
export interface KeyedRecord {
  key: string;
  record: SyncRecord;
}

/** A record whose baseline was read and verified against `baseline_body_hash`. */
export interface LoadedRecord extends KeyedRecord {
  baseline: string;
  /**
   * How the working file converts to the baseline's form (docs/conversion-rules.md): the dependencies of the
   * conversion saved with this baseline; undefined when the note is synced byte for byte.
   */
  conversion?: ConversionDependencies;
}

/** The conversion file of a key. */
export function conversionFile(key: string): string {
  return `${CONVERT}/${key}.json`;
}

/**
 * What a record rewrite expects to find (docs/tools.md §13.8): the record as the operation read it
 * (its key, path and baseline hash), `absent` when there was none, `damaged` when it was unreadable.
 * Every rewrite re-reads the record and writes only if it still matches (compare-and-swap), so a
 * save decided on an old view never replaces what another operation or process saved meanwhile.
 */
export type RecordExpectation = "absent" | "damaged" | Pick<SyncRecord, "local_path" | "baseline_body_hash">;

/** The expectation that matches a record as `readRecord` returned it. */
export function expectationOf(read: SyncRecord | string | undefined): RecordExpectation {
  if (read === undefined) return "absent";
  if (typeof read === "string") return "damaged";
  return { local_path: read.local_path, baseline_body_hash: read.baseline_body_hash };
}

/** Whether a record as read now still matches what an operation read earlier. */
function matchesExpectation(read: SyncRecord | string | undefined, expect: RecordExpectation): boolean {
  if (expect === "absent") return read === undefined;
  if (expect === "damaged") return typeof read === "string";
  return (
    typeof read === "object" &&
    read.local_path === expect.local_path &&
    read.baseline_body_hash === expect.baseline_body_hash
  );
}

/**
 * Thrown when a record is no longer the one an operation read: another operation (in another
 * process, since one process serialises per note) saved it meanwhile. Nothing was written by the
 * store; the operation redoes its decision, or reports the conflict if it already wrote elsewhere.
 */
export class RecordChangedError extends BridgeError {
  constructor(readonly localPath: string) {
    super(
      "conflict",
      `The sync record of ${localPath} was changed by another window or process while this operation ran; nothing more was written. Run it again.`,
    );
  }
}

/** The in-memory record index: every record file by key (a string: why it is damaged) and by path. */
interface RecordIndex {
  /** The `tracked/` folder's stamp when the index last matched the disk; null when it was missing. */
  stamp: FileStamp | null;
  records: Map<string, SyncRecord | string>;
  byPath: Map<string, Set<string>>;
}

/** What the store has read and built, for the benches (and for tests that count reads). */
export interface StoreCounters {
  /** Record files read (`tracked/<key>.json`). */
  recordReads: number;
  /** Full scans that (re)built the record index. */
  indexBuilds: number;
}

function sameFolderStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  return a === null || b === null ? a === b : sameStamp(a, b);
}

function indexAdd(index: RecordIndex, key: string, record: SyncRecord | string): void {
  indexDelete(index, key);
  index.records.set(key, record);
  if (typeof record === "string") return;
  let keys = index.byPath.get(record.local_path);
  if (keys === undefined) index.byPath.set(record.local_path, (keys = new Set()));
  keys.add(key);
}

function indexDelete(index: RecordIndex, key: string): void {
  const before = index.records.get(key);
  index.records.delete(key);
  if (before === undefined || typeof before === "string") return;
  const keys = index.byPath.get(before.local_path);
  keys?.delete(key);
  if (keys?.size === 0) index.byPath.delete(before.local_path);
}

/** `move` was not made because its `unless` condition held. */
export class MoveSkipped extends Error {
  override readonly name = "MoveSkipped";
}

/** What the store knows about one local path (docs/tools.md §13.4), before any refusal is chosen. */
export type PathState =
  | { kind: "none" }
  | ({ kind: "one" } & KeyedRecord)
  | { kind: "several"; keys: string[] }
  | { kind: "damaged"; reason: string };

/** Writes `enc` of §13.2: keeps `A–Z a–z 0–9 _ .`, every other UTF-8 byte as `%XX` (uppercase). */
export function encodeKeyPart(value: string): string {
  let out = "";
  for (const byte of encoder.encode(value)) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The record key of a note (docs/tools.md §13.2). */
export function recordKey(teamPath: string | null, noteId: string): string {
  return teamPath === null
    ? `personal--${encodeKeyPart(noteId)}`
    : `team--${encodeKeyPart(teamPath)}--${encodeKeyPart(noteId)}`;
}

/** Whether a hint's content is a well-formed key (prefix, allowed characters, well-formed `%XX`). */
export function isWellFormedKey(key: string): boolean {
  return /^(personal--|team--)[A-Za-z0-9._%-]*$/.test(key) && !/%(?![0-9A-F]{2})/.test(key);
}

/** The path of a record's baseline, relative to the state folder. */
export function baselineFile(key: string): string {
  return `${TRACKED}/${key}.baseline.md`;
}

/** How a workspace reads in messages. */
function workspaceWords(teamPath: string | null): string {
  return teamPath === null ? "the personal workspace" : `team ${teamPath}`;
}

/** Parses a record file; a string says why it is damaged. */
export function parseRecord(text: string): SyncRecord | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return "it is not valid JSON";
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return "it is not a JSON object";
  const value = json as Record<string, unknown>;
  if (typeof value.format !== "number" || !Number.isInteger(value.format)) return "it has no format number";
  if (value.format > RECORD_FORMAT)
    return `it was written by a newer version of hackmd-bridge (format ${value.format})`;
  if (value.format !== RECORD_FORMAT) return `its format ${value.format} is unknown`;
  const strings = ["internal_id", "local_path", "baseline_body_hash", "last_observed_remote_timestamp"] as const;
  for (const field of strings) {
    if (typeof value[field] !== "string") return `its field ${field} is missing or not a string`;
  }
  if (value.team_path !== null && typeof value.team_path !== "string")
    return "its field team_path is neither null nor a string";
  if (value.remote_snapshot_hash !== undefined && typeof value.remote_snapshot_hash !== "string")
    return "its field remote_snapshot_hash is not a string";
  if (value.moved_from !== undefined && typeof value.moved_from !== "string")
    return "its field moved_from is not a string";
  return {
    format: RECORD_FORMAT,
    internal_id: value.internal_id as string,
    team_path: value.team_path,
    local_path: value.local_path as string,
    baseline_body_hash: value.baseline_body_hash as string,
    last_observed_remote_timestamp: value.last_observed_remote_timestamp as string,
    ...(typeof value.remote_snapshot_hash === "string" ? { remote_snapshot_hash: value.remote_snapshot_hash } : {}),
    ...(typeof value.moved_from === "string" ? { moved_from: value.moved_from } : {}),
  };
}

/** The `moved_from` of a record saved at `localPath` after `before`. */
function movedFrom(before: SyncRecord | undefined, localPath: string): { moved_from?: string } {
  if (before === undefined) return {};
  if (before.local_path !== localPath) return { moved_from: before.local_path };
  return before.moved_from === undefined ? {} : { moved_from: before.moved_from };
}

/** Serialises a record (pretty-printed, fixed field order, trailing newline). */
function serialise(record: SyncRecord): string {
  const ordered: SyncRecord = {
    format: RECORD_FORMAT,
    internal_id: record.internal_id,
    team_path: record.team_path,
    local_path: record.local_path,
    baseline_body_hash: record.baseline_body_hash,
    last_observed_remote_timestamp: record.last_observed_remote_timestamp,
    ...(record.remote_snapshot_hash === undefined ? {} : { remote_snapshot_hash: record.remote_snapshot_hash }),
    ...(record.moved_from === undefined ? {} : { moved_from: record.moved_from }),
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** What `save` needs (docs/tools.md §13.6). */
export interface SaveRecordOptions {
  teamPath: string | null;
  noteId: string;
  /** Canonical ROOT-relative path of the working file. */
  localPath: string;
  /** The body both sides held when the save was decided. */
  baseline: string;
  /** `lastChangedAt` in ms as decimal digits, or `""`. */
  timestamp: string;
  /** How the working file converts to `baseline` (docs/conversion-rules.md); undefined: byte for byte. */
  conversion?: ConversionDependencies;
  /**
   * The note's record as the operation read it; a mismatch is `RecordChangedError` and nothing is
   * written. Every engine save passes it; only fixtures that lay out state directly omit it.
   */
  expect?: RecordExpectation;
  /**
   * Checked under the record's lock, after `expect`: when it answers false (the working file is
   * gone), nothing is written and `SaveSkipped` is thrown. A process that takes back a file its
   * own pull created checks, under the same lock, that no record names it first, so a record
   * never ends up naming a file another process removed.
   */
  fileStillThere?: () => Promise<boolean>;
}

/** `save` was not made because `fileStillThere` answered false. */
export class SaveSkipped extends Error {
  override readonly name = "SaveSkipped";
}

/** The sync state store over a host's private state files. Creating it writes nothing. */
export class SyncStateStore {
  private readonly files: StateFiles;
  private readonly logger: Logger;
  private readonly words: Words;
  /** The record index (see the header); undefined until first needed, or after a doubt. */
  private index: RecordIndex | undefined;
  /** Serialises in process every use of the index with this store's own writes to `tracked/`. */
  private indexTurn: Promise<unknown> = Promise.resolve();
  /** Reads and scans so far. */
  readonly counters: StoreCounters = { recordReads: 0, indexBuilds: 0 };
  /**
   * Conversion files as last read here, by record key, with the stamp they had when read: a
   * later `conversionOf` stats the file and reads and parses it again only when the stamp changed
   * (every write replaces the file by a rename). A relink asks for every record's conversion after each
   * note that becomes tracked; without this, publishing or pulling a vault's notes one by one read
   * and parsed all of them each time.
   */
  private readonly conversions = new Map<string, { stamp: FileStamp; parsed: StoredConversion | undefined }>();

  private readonly locks: RecordLocks;

  /**
   * A store over `files` (relative to the state folder); warnings go to `logger`; fixes in
   * `words`; `timing` paces the waits for a record lock (real time unless given).
   */
  constructor(options: {
    files: StateFiles;
    logger: Logger;
    words?: Words;
    timing?: LockTiming;
    stateFolder?: string;
  }) {
    this.files = options.files;
    this.logger = options.logger;
    this.words = options.words ?? TOOL_WORDS;
    this.locks = new RecordLocks(
      options.files,
      options.timing ?? REAL_LOCK_TIMING,
      options.logger,
      options.stateFolder ?? "the sync state folder",
    );
  }

  /** Runs `run` holding the cross-process lock `name` (a record key, or a store-wide name such as `images`). */
  withLock<T>(name: string, run: () => Promise<T>): Promise<T> {
    return this.locks.hold(name, run);
  }

  /** The hint file of a local path: `by-path/<sha256 hex of the path>`. */
  async hintFile(localPath: string): Promise<string> {
    return `${BY_PATH}/${await sha256Hex(localPath)}`;
  }

  /** Reads one record by key: undefined when absent, a string when damaged. */
  async readRecord(key: string): Promise<SyncRecord | string | undefined> {
    this.counters.recordReads += 1;
    const read = await this.files.read(`${TRACKED}/${key}.json`, { maxBytes: RECORD_MAX_BYTES });
    if (read === undefined) return undefined;
    if (read.truncated) return "it is larger than any record";
    let text: string;
    try {
      text = decoder.decode(read.bytes);
    } catch {
      return "it is not valid UTF-8";
    }
    const parsed = parseRecord(text);
    if (typeof parsed === "string") return parsed;
    if (recordKey(parsed.team_path, parsed.internal_id) !== key)
      return "its key does not match its internal_id and team_path";
    return parsed;
  }

  /** Every record key present, in no particular order. */
  private async keys(): Promise<string[]> {
    const entries = await this.files.list(TRACKED);
    return entries
      .filter((entry) => entry.kind === "file" && entry.name.endsWith(".json"))
      .map((entry) => entry.name.slice(0, -".json".length));
  }

  /**
   * Runs many operations (a sync-all run). The record index already spares each save the scan of
   * every record (§13.6 step 1), and it sees records other processes write meanwhile, so this
   * only warms the index first.
   */
  async batch<T>(run: () => Promise<T>): Promise<T> {
    await this.exclusive(() => this.currentIndex());
    return run();
  }

  /** Every record file by key as the index holds it (a string says why it is damaged), current with the disk. */
  async indexedRecords(): Promise<ReadonlyMap<string, SyncRecord | string>> {
    const index = await this.exclusive(() => this.currentIndex());
    return new Map(index.records);
  }

  /** Runs `work` alone among this store's uses of the index and its own writes (in process). */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.indexTurn.then(work, work);
    this.indexTurn = next.catch(() => undefined);
    return next;
  }

  /** The `tracked/` folder's stamp; null when it does not exist. */
  private async folderStamp(): Promise<FileStamp | null> {
    return (await this.files.stat(TRACKED)) ?? null;
  }

  /** The index, current with the disk: kept while the folder's stamp is unchanged, else rebuilt (call inside `exclusive`). */
  private async currentIndex(): Promise<RecordIndex> {
    const stamp = await this.folderStamp();
    if (this.index !== undefined && sameFolderStamp(this.index.stamp, stamp)) return this.index;
    this.counters.indexBuilds += 1;
    const index: RecordIndex = { stamp, records: new Map(), byPath: new Map() };
    const keys = await this.keys();
    const readOne = async (key: string): Promise<void> => {
      let record: SyncRecord | string | undefined;
      try {
        record = await this.readRecord(key);
      } catch (error) {
        record = `it cannot be read (${error instanceof Error ? error.message : String(error)})`;
      }
      if (typeof record === "string") this.logger.warn("sync_record_skipped", { key, reason: record });
      if (record !== undefined) indexAdd(index, key, record);
    };
    // A few reads in flight: the scan waits on the disk, not the CPU.
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < keys.length) await readOne(keys[next++] as string);
    };
    await Promise.all(Array.from({ length: Math.min(INDEX_READS_IN_FLIGHT, keys.length) }, () => worker()));
    this.index = index;
    return index;
  }

  /**
   * After this store's own writes to `tracked/` (inside `exclusive`, with `index` current before
   * them): applies them to the index and takes the folder's new stamp.
   */
  private async wrote(index: RecordIndex, change: (index: RecordIndex) => void): Promise<void> {
    if (this.index !== index) return;
    change(index);
    index.stamp = await this.folderStamp();
  }

  /** Records of other notes that name `localPath`, each read again from disk (call inside `exclusive`). */
  private async displacedBy(index: RecordIndex, key: string, localPath: string): Promise<string[]> {
    const out: string[] = [];
    for (const other of index.byPath.get(localPath) ?? []) {
      if (other === key) continue;
      const record = await this.readRecord(other);
      if (typeof record === "object" && record.local_path === localPath) out.push(other);
    }
    return out;
  }

  /** Deletes a displaced record and its baseline. */
  private async removeDisplaced(key: string): Promise<void> {
    await this.files.remove(`${TRACKED}/${key}.json`);
    await this.files.remove(baselineFile(key));
    await this.removeConversion(key);
  }

  /**
   * What the index holds for a local path, without reading any record: for what is shown and
   * decides nothing (the status bar). It may miss a change another process made within the same
   * tick of the folder's clock as the last look (see docs/architecture.md §5).
   */
  async peekPath(localPath: string): Promise<PathState> {
    const index = await this.exclusive(() => this.currentIndex());
    const keys = [...(index.byPath.get(localPath) ?? [])];
    if (keys.length > 1) return { kind: "several", keys: keys.sort(compareCodePoints) };
    const [key] = keys;
    const record = key === undefined ? undefined : index.records.get(key);
    return key !== undefined && typeof record === "object" ? { kind: "one", key, record } : { kind: "none" };
  }

  /** What the store holds for a local path (docs/tools.md §13.4), without refusing anything. */
  async inspectPath(localPath: string): Promise<PathState> {
    const hint = await this.files.read(await this.hintFile(localPath), { maxBytes: 1024 });
    let hintDamaged: string | undefined;
    const hinted = hint === undefined || hint.truncated ? undefined : safeDecode(hint.bytes)?.trim();
    if (hinted !== undefined && isWellFormedKey(hinted)) {
      const record = await this.readRecord(hinted);
      if (typeof record === "string") hintDamaged = record;
      else if (record?.local_path === localPath) return { kind: "one", key: hinted, record };
    }
    const found = await this.namingPath(localPath);
    if (found.length > 1) return { kind: "several", keys: found.map((entry) => entry.key).sort(compareCodePoints) };
    const [only] = found;
    if (only) return { kind: "one", ...only };
    return hintDamaged === undefined ? { kind: "none" } : { kind: "damaged", reason: hintDamaged };
  }

  /**
   * The records that name `localPath`: the index's candidates, each read again from disk. When a
   * candidate no longer matches, the index was wrong: it is rebuilt and asked again.
   */
  private async namingPath(localPath: string): Promise<KeyedRecord[]> {
    for (let attempt = 0; ; attempt++) {
      const index = await this.exclusive(() => this.currentIndex());
      const found: KeyedRecord[] = [];
      let stale = false;
      for (const key of index.byPath.get(localPath) ?? []) {
        const record = await this.readRecord(key);
        if (typeof record === "object" && record.local_path === localPath) found.push({ key, record });
        else stale = true;
      }
      if (!stale || attempt > 0) return found;
      if (this.index === index) this.index = undefined;
    }
  }

  /** The record of a local path, or undefined when untracked; several or damaged → `sync_state`. */
  async findByPath(localPath: string): Promise<KeyedRecord | undefined> {
    const state = await this.inspectPath(localPath);
    switch (state.kind) {
      case "none":
        return undefined;
      case "one":
        return { key: state.key, record: state.record };
      case "several":
        throw new BridgeError(
          "sync_state",
          `More than one sync record names ${localPath} (${state.keys.join(", ")}); untrack the stale ones with ${this.words.step({ action: "untrack", path: localPath })}, then pull again.`,
        );
      case "damaged":
        throw new BridgeError(
          "sync_state",
          `The sync record of ${localPath} is corrupt (${state.reason}); pull the note again or untrack it with ${this.words.step({ action: "untrack", path: localPath })}.`,
        );
    }
  }

  /**
   * The record of a note that a pull moved away from `localPath` (its `moved_from`) and that no
   * longer names it, or undefined; for messages only (it decides nothing).
   */
  async movedAwayFrom(localPath: string): Promise<KeyedRecord | undefined> {
    const index = await this.exclusive(() => this.currentIndex());
    for (const [key, record] of index.records) {
      if (typeof record === "object" && record.moved_from === localPath && record.local_path !== localPath)
        return { key, record };
    }
    return undefined;
  }

  /** The record of a note, or undefined; a damaged record → `sync_state`. */
  async findByNote(teamPath: string | null, noteId: string): Promise<KeyedRecord | undefined> {
    const key = recordKey(teamPath, noteId);
    const record = await this.readRecord(key);
    if (record === undefined) return undefined;
    if (typeof record === "string") {
      throw new BridgeError(
        "sync_state",
        `The sync record of note ${noteId} in ${workspaceWords(teamPath)} is corrupt (${record}); pull the note again or untrack it.`,
      );
    }
    return { key, record };
  }

  /** Reads and verifies a record's baseline (docs/tools.md §13.5): missing or mismatching → `sync_state`. */
  async load(found: KeyedRecord): Promise<LoadedRecord> {
    // Another process saving this note (baseline, then record) between the record read and the
    // baseline read looks like damage for a moment: judge the baseline by the newer record.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        return await this.loadOnce(found);
      } catch (error) {
        if (!(error instanceof BridgeError)) throw error;
        // A save in flight holds the record's lock: wait for it, then read the record it left.
        const again = await this.locks.hold(found.key, () => this.readRecord(found.key)).catch(() => undefined);
        if (typeof again !== "object" || again.baseline_body_hash === found.record.baseline_body_hash) {
          if (attempt === 0 && typeof again === "object") continue; // the writer finished: look once more
          throw error;
        }
        // Saved for another file meanwhile: the caller's decision is stale, it redoes it.
        if (again.local_path !== found.record.local_path) throw new RecordChangedError(found.record.local_path);
        found = { key: found.key, record: again };
      }
    }
    return this.loadOnce(found);
  }

  private async loadOnce(found: KeyedRecord): Promise<LoadedRecord> {
    const { record } = found;
    const repair = `pull note ${record.internal_id} from ${workspaceWords(record.team_path)} to ${record.local_path} again`;
    const read = await this.files.read(baselineFile(found.key), { maxBytes: BASELINE_MAX_BYTES });
    if (read === undefined)
      throw new BridgeError("sync_state", `The baseline of ${record.local_path} is missing; ${repair}.`);
    const hash = `sha256:${await sha256Hex(read.bytes)}`;
    const text = read.truncated ? undefined : safeDecode(read.bytes);
    if (text === undefined || hash !== record.baseline_body_hash) {
      throw new BridgeError(
        "sync_state",
        `The baseline of ${record.local_path} does not match its recorded hash; ${repair}.`,
      );
    }
    const conversion = await this.conversionOf(found);
    return { ...found, baseline: text, ...(conversion === undefined ? {} : { conversion }) };
  }

  /**
   * The conversion saved with a record's baseline, or undefined (byte for byte). A conversion file
   * written for another baseline (a save cut short) or unreadable counts as none, with a warning:
   * the file is then compared byte for byte, which can only report an edit, never hide one.
   */
  async conversionOf(found: KeyedRecord): Promise<ConversionDependencies | undefined> {
    const file = conversionFile(found.key);
    const kept = this.conversions.get(found.key);
    let parsed: StoredConversion | undefined;
    const stamp = kept === undefined ? undefined : await this.files.stat(file);
    if (kept !== undefined && stamp !== undefined && sameStamp(kept.stamp, stamp)) parsed = kept.parsed;
    else {
      const read = await this.files.read(file, { maxBytes: CONVERSION_MAX_BYTES });
      if (read === undefined) {
        this.conversions.delete(found.key);
        return undefined;
      }
      parsed = read.truncated ? undefined : parseConversion(safeDecode(read.bytes));
      this.keepConversion(found.key, read.stamp, parsed);
    }
    if (parsed === undefined || parsed.baseline_body_hash !== found.record.baseline_body_hash) {
      this.logger.warn("sync_conversion_skipped", {
        key: found.key,
        reason: parsed === undefined ? "unreadable" : "written for another baseline",
      });
      return undefined;
    }
    return parsed.dependencies;
  }

  /**
   * Saves a record after a pull, a confirmed push or a baseline-advancing no-op (docs/tools.md §13.6):
   * displaced records of other notes are deleted, a stale hint removed, the snapshot hash kept
   * only for the same note and file; then baseline, record and hint are written in that order.
   */
  async save(options: SaveRecordOptions): Promise<KeyedRecord> {
    const key = recordKey(options.teamPath, options.noteId);
    return this.locks.hold(key, () => this.exclusive(() => this.saveLocked(key, options)));
  }

  private async saveLocked(key: string, options: SaveRecordOptions): Promise<KeyedRecord> {
    const previous = await this.readRecord(key);
    if (options.expect !== undefined && !matchesExpectation(previous, options.expect))
      throw new RecordChangedError(options.localPath);
    if (options.fileStillThere !== undefined && !(await options.fileStillThere())) throw new SaveSkipped();
    const index = await this.currentIndex();
    const displaced = await this.displacedBy(index, key, options.localPath);
    for (const other of displaced) await this.removeDisplaced(other);
    const before = typeof previous === "object" ? previous : undefined;
    if (before && before.local_path !== options.localPath) await this.removeHintIfNames(before.local_path, key);
    const record: SyncRecord = {
      format: RECORD_FORMAT,
      internal_id: options.noteId,
      team_path: options.teamPath,
      local_path: options.localPath,
      baseline_body_hash: await bodyHash(options.baseline),
      last_observed_remote_timestamp: options.timestamp,
      ...(before?.local_path === options.localPath && before.remote_snapshot_hash !== undefined
        ? { remote_snapshot_hash: before.remote_snapshot_hash }
        : {}),
      // A pull to another path: remember the file it left (kept while the path stays).
      ...movedFrom(before, options.localPath),
    };
    if (options.conversion !== undefined) {
      const stored = { baseline_body_hash: record.baseline_body_hash, dependencies: options.conversion };
      // Read again at the next use: a write's stamp is not the one a later stat gives on every host.
      this.conversions.delete(key);
      await this.files.write(conversionFile(key), `${JSON.stringify(stored)}\n`);
    } else if (previous !== undefined) await this.removeConversion(key);
    // Baseline, then record, then hint, as always; a file that already holds exactly these bytes
    // (a pull that only refreshes the timestamp) is not rewritten, which is the same on disk
    // as rewriting it and saves its two flushes.
    if (!(
      before?.baseline_body_hash === record.baseline_body_hash &&
      (await this.holds(baselineFile(key), options.baseline, BASELINE_MAX_BYTES))
    )) {
      await this.files.write(baselineFile(key), options.baseline);
    }
    await this.files.write(`${TRACKED}/${key}.json`, serialise(record));
    await this.wrote(index, (current) => {
      for (const other of displaced) indexDelete(current, other);
      indexAdd(current, key, record);
    });
    const hint = await this.hintFile(options.localPath);
    if (!(await this.holds(hint, key, 1024))) await this.files.write(hint, key);
    return { key, record };
  }

  /** Remembers a conversion file as read (the oldest entry goes past `CONVERSIONS_KEPT`). */
  private keepConversion(key: string, stamp: FileStamp, parsed: StoredConversion | undefined): void {
    this.conversions.delete(key);
    this.conversions.set(key, { stamp, parsed });
    if (this.conversions.size > CONVERSIONS_KEPT) {
      const oldest = this.conversions.keys().next().value;
      if (oldest !== undefined) this.conversions.delete(oldest);
    }
  }

  private async removeConversion(key: string): Promise<void> {
    this.conversions.delete(key);
    await this.files.remove(conversionFile(key));
  }

  /** Replaces only the record's `remote_snapshot_hash` (docs/tools.md §14.7); the baseline is untouched. */
  async setSnapshotHash(found: KeyedRecord, hash: string): Promise<KeyedRecord> {
    return this.locks.hold(found.key, () =>
      this.exclusive(async () => {
        await this.expectRecord(found.key, expectationOf(found.record));
        const index = await this.currentIndex();
        const record: SyncRecord = { ...found.record, remote_snapshot_hash: hash };
        await this.files.write(`${TRACKED}/${found.key}.json`, serialise(record));
        await this.wrote(index, (current) => indexAdd(current, found.key, record));
        return { key: found.key, record };
      }),
    );
  }

  /**
   * Points a record at a new working file after a rename in the vault (docs/tools.md §13.9): records of
   * other notes naming `localPath` are deleted (§13.6 step 1), the old hint is removed, the
   * snapshot hash is dropped (the snapshot sat beside the old file), and the baseline is untouched.
   */
  async move(
    found: KeyedRecord,
    localPath: string,
    options: { unless?: () => Promise<boolean> } = {},
  ): Promise<KeyedRecord> {
    return this.locks.hold(found.key, () => this.exclusive(() => this.moveLocked(found, localPath, options.unless)));
  }

  private async moveLocked(
    found: KeyedRecord,
    localPath: string,
    unless: (() => Promise<boolean>) | undefined,
  ): Promise<KeyedRecord> {
    await this.expectRecord(found.key, expectationOf(found.record));
    // Checked under the record's lock: a save another process makes after this check waits for
    // the move, and then finds the record moved (its compare-and-swap fails).
    if (unless !== undefined && (await unless())) throw new MoveSkipped();
    const index = await this.currentIndex();
    const displaced = await this.displacedBy(index, found.key, localPath);
    for (const other of displaced) await this.removeDisplaced(other);
    const before = found.record;
    const record: SyncRecord = {
      format: RECORD_FORMAT,
      internal_id: before.internal_id,
      team_path: before.team_path,
      local_path: localPath,
      baseline_body_hash: before.baseline_body_hash,
      last_observed_remote_timestamp: before.last_observed_remote_timestamp,
      // A rename keeps what a pull left: that file's note is still tracked, now here.
      ...(before.moved_from === undefined || before.moved_from === localPath ? {} : { moved_from: before.moved_from }),
    };
    await this.files.write(`${TRACKED}/${found.key}.json`, serialise(record));
    // A process that does not take the record lock (an older version) may have saved (baseline,
    // then record) between the check above and this write, and this record then names a baseline
    // it does not match. Put back a record that matches the baseline at the path that save most
    // likely used, and report the move as not made.
    const baseline = await this.files.read(baselineFile(found.key), { maxBytes: BASELINE_MAX_BYTES });
    const actual = baseline === undefined ? undefined : `sha256:${await sha256Hex(baseline.bytes)}`;
    if (actual !== undefined && actual !== record.baseline_body_hash) {
      const repaired: SyncRecord = {
        ...record,
        local_path: before.local_path,
        baseline_body_hash: actual,
        last_observed_remote_timestamp: "",
      };
      await this.files.write(`${TRACKED}/${found.key}.json`, serialise(repaired));
      await this.wrote(index, (current) => {
        for (const other of displaced) indexDelete(current, other);
        indexAdd(current, found.key, repaired);
      });
      throw new RecordChangedError(before.local_path);
    }
    await this.wrote(index, (current) => {
      for (const other of displaced) indexDelete(current, other);
      indexAdd(current, found.key, record);
    });
    await this.removeHintIfNames(found.record.local_path, found.key);
    await this.files.write(await this.hintFile(localPath), found.key);
    return { key: found.key, record };
  }

  /**
   * Removes a note's record, its baseline and its hint (the hint only when it names this key).
   * Returns the record's local path (`""` when the record was damaged), or undefined when none.
   * With `expect`, a record that is no longer as expected is `RecordChangedError`, nothing removed.
   */
  async remove(
    teamPath: string | null,
    noteId: string,
    expect?: RecordExpectation,
  ): Promise<{ localPath: string } | undefined> {
    const key = recordKey(teamPath, noteId);
    return this.locks.hold(key, () => this.exclusive(() => this.removeLocked(key, expect)));
  }

  private async removeLocked(
    key: string,
    expect: RecordExpectation | undefined,
  ): Promise<{ localPath: string } | undefined> {
    const record = await this.readRecord(key);
    if (record === undefined) return undefined;
    if (expect !== undefined && !matchesExpectation(record, expect))
      throw new RecordChangedError(typeof record === "object" ? record.local_path : key);
    const index = await this.currentIndex();
    await this.files.remove(`${TRACKED}/${key}.json`);
    await this.files.remove(baselineFile(key));
    await this.removeConversion(key);
    await this.wrote(index, (current) => indexDelete(current, key));
    if (typeof record === "object") {
      await this.removeHintIfNames(record.local_path, key);
      return { localPath: record.local_path };
    }
    // A damaged record names no path: drop every hint that holds its key.
    for (const entry of await this.files.list(BY_PATH)) {
      const file = `${BY_PATH}/${entry.name}`;
      const read = await this.files.read(file, { maxBytes: 1024 });
      if (read && safeDecode(read.bytes)?.trim() === key) await this.files.remove(file);
    }
    return { localPath: "" };
  }

  /**
   * Throws `RecordChangedError` unless the record of `key` is still as `expect` says. Called
   * right before an operation writes anything it decided on the record (a PATCH, a file), and by
   * every record rewrite of this store.
   */
  async expectRecord(key: string, expect: RecordExpectation): Promise<void> {
    const current = await this.readRecord(key);
    if (!matchesExpectation(current, expect))
      throw new RecordChangedError(
        typeof current === "object"
          ? current.local_path
          : expect === "absent" || expect === "damaged"
            ? key
            : expect.local_path,
      );
  }

  /** Every readable record, personal first, then teams by path, each by note id (code points). */
  async list(): Promise<KeyedRecord[]> {
    const index = await this.exclusive(() => this.currentIndex());
    const all: KeyedRecord[] = [];
    for (const [key, record] of index.records) if (typeof record === "object") all.push({ key, record });
    return all.sort((a, b) => {
      const ta = a.record.team_path;
      const tb = b.record.team_path;
      if (ta !== tb) {
        if (ta === null) return -1;
        if (tb === null) return 1;
        return compareCodePoints(ta, tb);
      }
      return compareCodePoints(a.record.internal_id, b.record.internal_id);
    });
  }

  /** Whether the state file at `path` holds exactly the UTF-8 bytes of `text` now. */
  private async holds(path: string, text: string, maxBytes: number): Promise<boolean> {
    const read = await this.files.read(path, { maxBytes }).catch(() => undefined);
    if (read === undefined || read.truncated) return false;
    // Strict decoding that keeps a BOM: equal text means equal bytes.
    return safeDecode(read.bytes) === text;
  }

  private async removeHintIfNames(localPath: string, key: string): Promise<void> {
    const file = await this.hintFile(localPath);
    const read = await this.files.read(file, { maxBytes: 1024 });
    if (read && safeDecode(read.bytes)?.trim() === key) await this.files.remove(file);
  }
}

/** A conversion file's content. */
interface StoredConversion {
  baseline_body_hash: string;
  dependencies: ConversionDependencies;
}

/** A conversion file's content, or undefined when it is not one. */
function parseConversion(text: string | undefined): StoredConversion | undefined {
  if (text === undefined) return undefined;
  try {
    const json = JSON.parse(text) as { baseline_body_hash?: unknown; dependencies?: Partial<ConversionDependencies> };
    const d = json.dependencies;
    if (typeof json.baseline_body_hash !== "string" || typeof d !== "object" || d === null) return undefined;
    if (
      typeof d.enabled !== "boolean" ||
      (d.linkFormat !== "shortest" && d.linkFormat !== "absolute") ||
      !Array.isArray(d.answers) ||
      !Array.isArray(d.comments)
    )
      return undefined;
    return { baseline_body_hash: json.baseline_body_hash, dependencies: d as ConversionDependencies };
  } catch {
    return undefined;
  }
}

/** UTF-8 text, or undefined when the bytes are not valid UTF-8. */
function safeDecode(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}
