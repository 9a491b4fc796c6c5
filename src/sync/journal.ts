/**
 * The sync journal (docs/sync-journal.md): one entry per write, whoever made it — the user from
 * Obsidian or the command, an agent (with its MCP client's name and session), an automatic round —
 * with its time, the note and file, the decision-table branch (docs/sync-decision-table.md), the
 * body hashes before and after on each side, and where any text it replaced now lives.
 *
 * On disk, in the sync state folder (shared by the plugin and the command):
 * - `journal/<segment>.jsonl`: JSON lines, oldest segment first. Each append rewrites the newest
 *   segment with `StateFiles.write` (an atomic replace), holding the journal's cross-process lock
 *   (`locks/journal.lock`, sync/record-lock.ts), so a process killed mid-write leaves the segment
 *   as it was before or after, never half written. Reading is tolerant all the same: a line that
 *   does not parse (a file edited by hand) is skipped, never fatal.
 * - `journal/text/<hex>.md`: replaced text kept by content hash, so every entry names a place that
 *   holds the text it replaced.
 * Bounded: a segment holds at most `SEGMENT_BYTES`; when the segments exceed `MAX_JOURNAL_BYTES`
 * the oldest segment is dropped, with the kept texts no remaining entry names. Entries never hold
 * a token, a request header or a note body — only hashes, paths, ids and names.
 */
import { bodyHash, utf8Length } from "../core/hash";
import type { CallActor } from "../hackmd/call-context";
import type { StateFiles } from "../core/local-files";
import type { Logger } from "../core/ports";
import { RecordLocks, REAL_LOCK_TIMING, type LockTiming } from "./record-lock";

/** The journal's folder inside the state folder. */
export const JOURNAL = "journal";
/** The largest segment file. */
export const SEGMENT_BYTES = 64 * 1024;
/** The most the segments hold together; the oldest segment goes first. */
export const MAX_JOURNAL_BYTES = 1024 * 1024;
/** The largest text kept for one entry (larger replaced text is named by its hash only). */
export const MAX_KEPT_TEXT_BYTES = 2 * 1024 * 1024;
/** The longest line read back (a longer one is skipped). */
const MAX_LINE = 16 * 1024;

/** Who made a write. */
export type JournalActor = CallActor;

/** What kind of write an entry records. */
export type JournalKind =
  | "pull"
  | "push"
  | "force_push"
  | "merge"
  | "advance_baseline"
  | "conflict"
  | "create_note"
  | "update_note"
  | "delete_note"
  | "folder"
  | "image"
  | "version"
  | "comment"
  | "untrack"
  | "undo";

/** Where text an entry replaced now lives. */
export interface ReplacedText {
  side: "local" | "remote";
  /** `body_hash` of the replaced text. */
  hash: string;
  /**
   * `journal`: `journal/text/<hex>.md` in the state folder; `remote_md`: the conflict snapshot
   * beside the file; `trash`: a copy in the vault's `.trash`; `version`: a named HackMD version;
   * `outbox`: the push still queued (the text is the working file's).
   */
  where: "journal" | "remote_md" | "trash" | "version" | "outbox";
  /** The file (state-folder-relative for `journal`, ROOT-relative otherwise). */
  path?: string;
  version_id?: string;
}

/** Hashes of one side before and after. */
export interface SideHashes {
  before?: string;
  after?: string;
}

/** One journal entry (format 1). */
export interface JournalEntry {
  v: 1;
  /** Unique: time, process tag and counter. */
  id: string;
  /** Epoch milliseconds. */
  at: number;
  actor: JournalActor;
  kind: JournalKind;
  note?: { team_path: string | null; note_id: string; title?: string };
  /** The ROOT-relative file written, if any. */
  file?: string;
  /** The decision-table branch (S3, G7, O3, …) or the operation for writes outside the tables. */
  branch?: string;
  local?: SideHashes;
  remote?: SideHashes;
  /** The sync record's `baseline_body_hash` before and after (pulls and pushes). */
  baseline?: SideHashes;
  replaced?: ReplacedText[];
  /**
   * The text the write left, kept in the journal (`journal/text/<hex>.md`): on HackMD for a note
   * edit, a push or a merge; in the file for a pull.
   */
  written?: { hash: string; path: string };
  /** The entry this one undid. */
  undoes?: string;
  /** A short status (`pushed`, `conflict`, `nothing_to_push`, …). */
  outcome?: string;
}

/** What a writer gives; the journal adds `v`, `id` and `at`. */
export type JournalDraft = Omit<JournalEntry, "v" | "id" | "at" | "actor"> & {
  /** Who wrote; default: the host's user. */
  actor?: JournalActor;
  /** Replaced text to keep in the journal's own store (`where: "journal"` is added for it). */
  keep?: { side: "local" | "remote"; text: string }[];
  /** The text the write left on HackMD, kept so a later undo can merge around others' edits. */
  keepWritten?: string;
};

/** Filters of a read. */
export interface JournalQuery {
  /** Only entries about this file (ROOT-relative) or note id. */
  path?: string;
  noteId?: string;
  actorKind?: JournalActor["kind"];
  kind?: JournalKind;
  session?: string;
  /** The newest this many (default all kept). */
  limit?: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });
const SEGMENT = /^(\d{12})\.jsonl$/;
let counter = 0;
const processTag = Math.random().toString(36).slice(2, 8);

/** The journal over one state folder. */
export class SyncJournal {
  private readonly files: StateFiles;
  private readonly locks: RecordLocks;
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly defaultActor: JournalActor;
  private readonly listeners = new Set<() => void>();
  private tail: Promise<unknown> = Promise.resolve();
  private readonly segmentBytes: number;
  private readonly maxBytes: number;

  constructor(options: {
    files: StateFiles;
    logger: Logger;
    stateFolder: string;
    /** Who writes when a call names no actor (the host's user). */
    defaultActor: JournalActor;
    timing?: LockTiming;
    /** Bounds (tests): a segment's bytes and all segments' (defaults SEGMENT_BYTES, MAX_JOURNAL_BYTES). */
    segmentBytes?: number;
    maxBytes?: number;
  }) {
    this.segmentBytes = options.segmentBytes ?? SEGMENT_BYTES;
    this.maxBytes = options.maxBytes ?? MAX_JOURNAL_BYTES;
    this.files = options.files;
    const timing = options.timing ?? REAL_LOCK_TIMING;
    this.now = () => timing.now();
    this.logger = options.logger;
    this.defaultActor = options.defaultActor;
    this.locks = new RecordLocks(options.files, timing, options.logger, options.stateFolder);
  }

  /** The actor of a call that names none. */
  actorOr(actor: JournalActor | undefined): JournalActor {
    return actor ?? this.defaultActor;
  }

  /**
   * Appends one entry; resolves with it. Never throws: a journal that cannot be written is logged
   * (the write it records has happened and is not undone for that).
   */
  append(draft: JournalDraft): Promise<JournalEntry | undefined> {
    const run = this.tail.then(() => this.appendNow(draft));
    this.tail = run.catch(() => undefined);
    return run.then(
      (entry) => {
        for (const listener of [...this.listeners]) listener();
        return entry;
      },
      (error: unknown) => {
        this.logger.warn("journal_append_failed", { reason: error instanceof Error ? error.message : String(error) });
        return undefined;
      },
    );
  }

  /** Resolves once every append begun so far has ended. */
  async flushed(): Promise<void> {
    await this.tail;
  }

  /** Calls `listener` after every append of this process; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** The entries kept, oldest first, filtered. Lines that do not parse are skipped. */
  async read(query: JournalQuery = {}): Promise<JournalEntry[]> {
    const entries: JournalEntry[] = [];
    for (const segment of await this.segments()) {
      const read = await this.files.read(`${JOURNAL}/${segment}`, {
        maxBytes: Math.max(SEGMENT_BYTES, this.segmentBytes) * 2,
      });
      if (read === undefined) continue;
      for (const line of decoder.decode(read.bytes).split("\n")) {
        const entry = parseLine(line);
        if (entry !== undefined && matches(entry, query)) entries.push(entry);
      }
    }
    return query.limit === undefined ? entries : entries.slice(Math.max(0, entries.length - query.limit));
  }

  /** The kept text of `hash`, or undefined when it is not (or no longer) kept. */
  async keptText(hash: string): Promise<string | undefined> {
    const read = await this.files.read(textFile(hash), { maxBytes: MAX_KEPT_TEXT_BYTES + 1 });
    return read === undefined ? undefined : new TextDecoder("utf-8", { fatal: false }).decode(read.bytes);
  }

  private async appendNow(draft: JournalDraft): Promise<JournalEntry> {
    const { keep, keepWritten, ...rest } = draft;
    const replaced = [...(rest.replaced ?? [])];
    // Kept texts by hash: each goes to its own file, all at once (a push keeps two 1 MB texts, and
    // each write waits for its flush), before the entry that names them is appended.
    const texts = new Map<string, string>();
    for (const kept of keep ?? []) {
      const hash = await bodyHash(kept.text);
      if (utf8Length(kept.text) <= MAX_KEPT_TEXT_BYTES) {
        texts.set(hash, kept.text);
        replaced.push({ side: kept.side, hash, where: "journal", path: textFile(hash) });
      }
    }
    let written: JournalEntry["written"];
    if (keepWritten !== undefined && utf8Length(keepWritten) <= MAX_KEPT_TEXT_BYTES) {
      const hash = await bodyHash(keepWritten);
      texts.set(hash, keepWritten);
      written = { hash, path: textFile(hash) };
    }
    await Promise.all(
      [...texts].map(async ([hash, text]) => {
        // Named by its hash and written whole (by rename): a file there with the text's size holds
        // it already, so it is not written again (the text a pull wrote is what the next push
        // replaces; a 1 MB write and flush saved). A file cut short is written anew.
        const there = await this.files.stat(textFile(hash));
        if (there !== undefined && there.size === utf8Length(text)) return;
        await this.files.write(textFile(hash), text);
      }),
    );
    const at = this.now();
    counter += 1;
    const entry: JournalEntry = {
      v: 1,
      id: `${at.toString(36)}-${processTag}-${counter.toString(36)}`,
      at,
      ...rest,
      actor: rest.actor ?? this.defaultActor,
      ...(replaced.length > 0 ? { replaced } : {}),
      ...(written === undefined ? {} : { written }),
    };
    const line = `${JSON.stringify(entry)}\n`;
    await this.locks.hold("journal", async () => {
      const segments = await this.segments();
      const newest = segments[segments.length - 1];
      let name = newest ?? segmentName(1);
      let text = "";
      if (newest !== undefined) {
        const read = await this.files.read(`${JOURNAL}/${newest}`, {
          maxBytes: Math.max(SEGMENT_BYTES, this.segmentBytes) * 2,
        });
        text = read === undefined ? "" : decoder.decode(read.bytes);
        // A last line cut short (written by hand, or by an older format) is closed off.
        if (text !== "" && !text.endsWith("\n")) text += "\n";
        if (text !== "" && encoder.encode(text).byteLength + encoder.encode(line).byteLength > this.segmentBytes) {
          name = segmentName(Number(SEGMENT.exec(newest)?.[1] ?? "0") + 1);
          text = "";
          segments.push(name);
        }
      } else segments.push(name);
      await this.files.write(`${JOURNAL}/${name}`, text + line);
      const keepSegments = Math.max(1, Math.floor(this.maxBytes / this.segmentBytes));
      if (segments.length > keepSegments) await this.dropOldest(segments.slice(0, segments.length - keepSegments));
    });
    return entry;
  }

  /** Drops whole segments, oldest first, and the kept texts no remaining entry names. */
  private async dropOldest(segments: string[]): Promise<void> {
    for (const segment of segments) await this.files.remove(`${JOURNAL}/${segment}`);
    const named = new Set<string>();
    for (const entry of await this.read()) {
      for (const replaced of entry.replaced ?? []) if (replaced.where === "journal") named.add(replaced.hash);
      if (entry.written !== undefined) named.add(entry.written.hash);
    }
    for (const file of await this.files.list(`${JOURNAL}/text`)) {
      const hash = `sha256:${file.name.replace(/\.md$/, "")}`;
      if (!named.has(hash)) await this.files.remove(`${JOURNAL}/text/${file.name}`);
    }
  }

  private async segments(): Promise<string[]> {
    return (await this.files.list(JOURNAL))
      .map((entry) => entry.name)
      .filter((name) => SEGMENT.test(name))
      .sort();
  }
}

function segmentName(n: number): string {
  return `${String(n).padStart(12, "0")}.jsonl`;
}

/** The state-folder-relative file of a kept text. */
export function textFile(hash: string): string {
  return `${JOURNAL}/text/${hash.replace(/^sha256:/, "").replace(/[^0-9a-f]/g, "")}.md`;
}

function parseLine(line: string): JournalEntry | undefined {
  if (line.length === 0 || line.length > MAX_LINE) return undefined;
  try {
    const value = JSON.parse(line) as Partial<JournalEntry>;
    if (value.v !== 1 || typeof value.id !== "string" || typeof value.at !== "number") return undefined;
    if (typeof value.kind !== "string" || typeof value.actor !== "object" || value.actor === null) return undefined;
    return value as JournalEntry;
  } catch {
    return undefined;
  }
}

function matches(entry: JournalEntry, query: JournalQuery): boolean {
  if (query.path !== undefined && entry.file !== query.path && entry.note?.note_id !== query.path) return false;
  if (query.noteId !== undefined && entry.note?.note_id !== query.noteId) return false;
  if (query.actorKind !== undefined && entry.actor.kind !== query.actorKind) return false;
  if (query.kind !== undefined && entry.kind !== query.kind) return false;
  if (query.session !== undefined && entry.actor.session !== query.session) return false;
  return true;
}
