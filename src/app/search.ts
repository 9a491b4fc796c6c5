/**
 * Full-text search over the bodies of tracked (and so mirrored) notes, with no request to HackMD
 * (docs/tool-contract-extensions.md "hackmd_search_notes"): words, "quoted phrases", `tag:` and
 * `folder:` filters; results ranked and bounded, each with its matching lines and how fresh the
 * file is against its last sync.
 *
 * The index lives in memory, one per core (`AppDeps.search`). It is kept current by the sync
 * records: every pull, push and merge of ours saves a record with a new baseline hash or path, and
 * a search reloads exactly the notes whose record changed (one stat of the state folder when none
 * did, `SyncStateStore.indexedRecords`). Edits made outside — an editor, a script — are caught by
 * comparing each file's size and mtime: every hit is checked before it is returned, and the whole
 * index is swept in the background at most once per `sweepMs`. A posting list per word keeps a
 * search over 10,000 notes to a few milliseconds (bench/search.bench.ts).
 */
import { BridgeError } from "../core/errors";
import { bodyHash } from "../core/hash";
import type { FileStamp, LocalFiles } from "../core/local-files";
import type { Clock } from "../core/ports";
import { bodyTitle, normalizeLineEndings } from "../core/text";
import { noteUrl } from "../hackmd/read";
import { MAX_BODY_BYTES } from "../sync/service";
import type { SyncRecord } from "../sync/store";
import type { SyncTools } from "../sync/types";

/** Longest query (characters) and most terms in one. */
export const MAX_QUERY_LENGTH = 500;
export const MAX_QUERY_TERMS = 20;
/** Results per search by default and at most. */
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 100;
/** Matching lines shown per note, and the longest line shown (characters). */
const LINES_PER_HIT = 5;
const LINE_CHARS = 240;

/** A parsed query. */
export interface SearchQuery {
  words: string[];
  phrases: string[];
  tags: string[];
  folders: string[];
}

/** How a hit's file stands against its last sync (no request to HackMD is made to know more). */
export type SearchHitState = "in_sync" | "local_changed" | "missing_local";

/** One note found. */
export interface SearchHit {
  note_id: string;
  team_path: string | null;
  note_url?: string;
  title: string;
  local_path: string;
  score: number;
  /** The file against its last synced text: unchanged since (`in_sync`) or edited (`local_changed`). */
  state: SearchHitState;
  /** HackMD's timestamp of the note at its last sync (`""` when not settled yet). */
  last_synced_remote_timestamp: string;
  /** Matching lines, 1-based, at most five. */
  matches: Array<{ line: number; text: string }>;
}

/** A search's answer. */
export interface SearchResult {
  query: string;
  /** Notes that matched, before the limit. */
  total: number;
  results: SearchHit[];
  /** Notes in the index. */
  indexed: number;
}

interface Doc {
  key: string;
  record: SyncRecord;
  title: string;
  tags: string[];
  lines: string[];
  lower: string;
  tokens: Set<string>;
  stamp: FileStamp | undefined;
  state: SearchHitState;
}

const TOKEN = /[\p{L}\p{N}_]+/gu;

function tokensOf(text: string): string[] {
  return text.toLowerCase().match(TOKEN) ?? [];
}

/** Parses a query: `"a phrase"`, `tag:x`, `folder:path` (or `folder:"a path"`), words. Refuses blank, too long or too many terms. */
export function parseSearchQuery(input: string): SearchQuery {
  if (input.length > MAX_QUERY_LENGTH)
    throw new BridgeError("invalid_input", `The query is longer than ${MAX_QUERY_LENGTH} characters; shorten it.`);
  const query: SearchQuery = { words: [], phrases: [], tags: [], folders: [] };
  // `tag:"…"` and `folder:"…"` take a quoted value (a folder name with spaces).
  const pattern = /(tag|folder):"([^"]*)"|"([^"]*)"|(\S+)/gi;
  let terms = 0;
  for (let match = pattern.exec(input); match !== null; match = pattern.exec(input)) {
    terms += 1;
    if (match[1] !== undefined) {
      const value = (match[2] ?? "").trim();
      if (value === "") continue;
      if (match[1].toLowerCase() === "tag") query.tags.push(value.toLowerCase().replace(/^#/, ""));
      else query.folders.push(value.replace(/^\/+|\/+$/g, ""));
      continue;
    }
    if (match[3] !== undefined) {
      const phrase = match[3].trim().replace(/\s+/g, " ").toLowerCase();
      if (phrase !== "") query.phrases.push(phrase);
      continue;
    }
    const term = match[4] ?? "";
    const lower = term.toLowerCase();
    if (lower.startsWith("tag:") && lower.length > 4) query.tags.push(lower.slice(4).replace(/^#/, ""));
    else if (lower.startsWith("folder:") && term.length > 7)
      query.folders.push(term.slice(7).replace(/^\/+|\/+$/g, ""));
    else query.words.push(...tokensOf(term));
  }
  if (terms > MAX_QUERY_TERMS)
    throw new BridgeError("invalid_input", `The query has more than ${MAX_QUERY_TERMS} terms; use fewer.`);
  if (query.words.length + query.phrases.length + query.tags.length + query.folders.length === 0)
    throw new BridgeError(
      "invalid_input",
      'The query is empty; give words, a "quoted phrase", tag:<tag> or folder:<path>.',
    );
  return query;
}

/** Tags of a body: a YAML front matter `tags:` (list or inline) and HackMD's `###### tags:` line. */
export function tagsOf(text: string): string[] {
  const tags = new Set<string>();
  const front = /^---\n([\s\S]*?)\n---/.exec(text);
  if (front !== null) {
    const lines = (front[1] ?? "").split("\n");
    for (let i = 0; i < lines.length; i += 1) {
      const line = lines[i] ?? "";
      const inline = /^tags:\s*(.*)$/.exec(line);
      if (inline === null) continue;
      const value = (inline[1] ?? "").trim();
      if (value !== "") {
        for (const tag of value.replace(/^\[|\]$/g, "").split(",")) tags.add(tag.trim().replace(/^["'#]|["']$/g, ""));
      } else {
        for (let j = i + 1; j < lines.length && /^\s*-\s+/.test(lines[j] ?? ""); j += 1)
          tags.add(
            (lines[j] ?? "")
              .replace(/^\s*-\s+/, "")
              .trim()
              .replace(/^["'#]|["']$/g, ""),
          );
      }
    }
  }
  const hackmd = /^#{6}\s+tags:\s*(.*)$/im.exec(text);
  if (hackmd !== null) for (const tag of (hackmd[1] ?? "").matchAll(/`([^`]+)`/g)) tags.add((tag[1] ?? "").trim());
  return [...tags].filter((tag) => tag !== "").map((tag) => tag.toLowerCase());
}

/** The in-memory search index of one core. */
export class SearchIndex {
  private readonly docs = new Map<string, Doc>();
  private readonly postings = new Map<string, Set<string>>();
  private lastSweep = 0;
  private sweeping: Promise<void> | undefined;
  private readonly files: LocalFiles;
  private readonly sync: SyncTools;
  private readonly clock: Clock;
  private readonly sweepMs: number;
  private readonly isDefaultApiUrl: () => boolean;

  constructor(options: {
    files: LocalFiles;
    sync: SyncTools;
    clock: Clock;
    isDefaultApiUrl: () => boolean;
    /** Least time between two background sweeps of every file's stamp (default 5 s). */
    sweepMs?: number;
  }) {
    this.files = options.files;
    this.sync = options.sync;
    this.clock = options.clock;
    this.isDefaultApiUrl = options.isDefaultApiUrl;
    this.sweepMs = options.sweepMs ?? 5_000;
  }

  /** Searches (see the module comment). */
  async search(input: { query: string; limit?: number }): Promise<SearchResult> {
    const query = parseSearchQuery(input.query);
    const limit = input.limit ?? DEFAULT_SEARCH_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT)
      throw new BridgeError("invalid_input", `limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}.`);
    await this.followRecords();
    this.sweepInBackground();
    let ranked = this.rank(query);
    // Every hit returned is checked against its file; a changed one is reloaded and ranked again.
    const checked = ranked.slice(0, limit);
    let changed = false;
    for (const { doc } of checked) if (await this.refreshIfChanged(doc)) changed = true;
    if (changed) ranked = this.rank(query);
    const results = ranked.slice(0, limit).map(({ doc, score }) => this.hitOf(doc, score, query));
    return { query: input.query, total: ranked.length, results, indexed: this.docs.size };
  }

  /** Waits for a background sweep in flight (tests and benchmarks). */
  async idle(): Promise<void> {
    await this.sweeping;
  }

  private rank(query: SearchQuery): Array<{ doc: Doc; score: number }> {
    const needed = [...query.words, ...query.phrases.flatMap(tokensOf)];
    let candidates: Iterable<Doc>;
    if (needed.length === 0) candidates = this.docs.values();
    else {
      const lists = needed.map((token) => this.postings.get(token) ?? new Set<string>());
      lists.sort((a, b) => a.size - b.size);
      const [first, ...rest] = lists;
      const keys = [...(first ?? [])].filter((key) => rest.every((list) => list.has(key)));
      candidates = keys.map((key) => this.docs.get(key)).filter((doc): doc is Doc => doc !== undefined);
    }
    const ranked: Array<{ doc: Doc; score: number }> = [];
    for (const doc of candidates) {
      if (query.tags.some((tag) => !doc.tags.includes(tag))) continue;
      if (query.folders.some((folder) => !doc.record.local_path.startsWith(`${folder}/`))) continue;
      if (query.phrases.some((phrase) => !doc.lower.includes(phrase))) continue;
      let score = 0;
      const title = doc.title.toLowerCase();
      for (const term of [...query.words, ...query.phrases]) {
        score += Math.min(20, occurrences(doc.lower, term)) + (title.includes(term) ? 5 : 0);
      }
      ranked.push({ doc, score });
    }
    ranked.sort((a, b) => b.score - a.score || (a.doc.record.local_path < b.doc.record.local_path ? -1 : 1));
    return ranked;
  }

  private hitOf(doc: Doc, score: number, query: SearchQuery): SearchHit {
    const terms = [...query.words, ...query.phrases];
    const matches: Array<{ line: number; text: string }> = [];
    if (terms.length > 0) {
      for (let i = 0; i < doc.lines.length && matches.length < LINES_PER_HIT; i += 1) {
        const line = doc.lines[i] ?? "";
        const lower = line.toLowerCase();
        if (terms.some((term) => lower.includes(term)))
          matches.push({ line: i + 1, text: line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line });
      }
    }
    return {
      note_id: doc.record.internal_id,
      team_path: doc.record.team_path,
      ...(this.isDefaultApiUrl() ? { note_url: noteUrl(doc.record.internal_id) } : {}),
      title: doc.title,
      local_path: doc.record.local_path,
      score,
      state: doc.state,
      last_synced_remote_timestamp: doc.record.last_observed_remote_timestamp,
      matches,
    };
  }

  /** Loads notes whose record is new or changed (our own pulls and pushes), drops untracked ones. */
  private async followRecords(): Promise<void> {
    const store = this.sync.store;
    const records = new Map<string, SyncRecord>();
    if (store !== undefined) {
      for (const [key, record] of await store.indexedRecords())
        if (typeof record === "object") records.set(key, record);
    }
    for (const key of [...this.docs.keys()]) if (!records.has(key)) this.drop(key);
    const stale = [...records].filter(([key, record]) => {
      const doc = this.docs.get(key);
      return (
        doc === undefined ||
        doc.record.baseline_body_hash !== record.baseline_body_hash ||
        doc.record.local_path !== record.local_path ||
        doc.record.last_observed_remote_timestamp !== record.last_observed_remote_timestamp
      );
    });
    await forEachBounded(stale, 32, async ([key, record]) => this.load(key, record));
  }

  /** Starts a sweep of every file's stamp when the last one is older than `sweepMs`. */
  private sweepInBackground(): void {
    if (this.sweeping !== undefined || this.clock.now() - this.lastSweep < this.sweepMs) return;
    this.lastSweep = this.clock.now();
    // Few stats at once: the sweep runs beside searches and should not slow them.
    const sweep = forEachBounded([...this.docs.values()], 4, async (doc) => {
      await this.refreshIfChanged(doc).catch(() => undefined);
    });
    this.sweeping = sweep.finally(() => {
      this.sweeping = undefined;
    });
  }

  /** Reloads a note whose file's size or mtime changed since it was read; true when it did. */
  private async refreshIfChanged(doc: Doc): Promise<boolean> {
    const info = await this.files.stat(doc.record.local_path).catch(() => undefined);
    const stamp = info?.stamp;
    const same =
      stamp === undefined
        ? doc.stamp === undefined
        : doc.stamp !== undefined && stamp.size === doc.stamp.size && stamp.mtimeMs === doc.stamp.mtimeMs;
    if (same) return false;
    if (this.docs.get(doc.key) !== doc) return false;
    await this.load(doc.key, doc.record);
    return true;
  }

  private async load(key: string, record: SyncRecord): Promise<void> {
    let text: string | undefined;
    let stamp: FileStamp | undefined;
    try {
      const read = await this.files.read(record.local_path, { maxBytes: MAX_BODY_BYTES });
      stamp = read.stamp;
      if (!read.truncated)
        text = normalizeLineEndings(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(read.bytes));
    } catch {
      text = undefined;
    }
    let state: SearchHitState = "missing_local";
    if (text !== undefined) {
      const form = await this.sync.remoteFormOf({ key, record }, text).catch(() => text ?? "");
      state = (await bodyHash(form)) === record.baseline_body_hash ? "in_sync" : "local_changed";
    }
    const body = text ?? "";
    const fileName = record.local_path.split("/").pop() ?? record.local_path;
    this.drop(key);
    const doc: Doc = {
      key,
      record,
      title: bodyTitle(body) ?? fileName.replace(/\.md$/i, ""),
      tags: tagsOf(body),
      lines: body.split("\n"),
      lower: body.toLowerCase(),
      tokens: new Set([...tokensOf(body), ...tokensOf(fileName)]),
      stamp,
      state,
    };
    this.docs.set(key, doc);
    for (const token of doc.tokens) {
      let list = this.postings.get(token);
      if (list === undefined) this.postings.set(token, (list = new Set()));
      list.add(key);
    }
  }

  private drop(key: string): void {
    const doc = this.docs.get(key);
    if (doc === undefined) return;
    this.docs.delete(key);
    for (const token of doc.tokens) {
      const list = this.postings.get(token);
      list?.delete(key);
      if (list?.size === 0) this.postings.delete(token);
    }
  }
}

function occurrences(text: string, term: string): number {
  let count = 0;
  for (let at = text.indexOf(term); at >= 0 && count < 20; at = text.indexOf(term, at + term.length)) count += 1;
  return count;
}

async function forEachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
