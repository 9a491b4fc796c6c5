/**
 * The activity log of agent calls, kept as a history (docs/tool-contract-extensions.md): every call with its time, client,
 * tool, note, outcome and, for a change of text, the body hash before and after. It is fed by the
 * MCP host's `onCallCompleted` and stored in the plugin's folder (`ActivityStore`), bounded in
 * entries and in bytes. For a note write it also keeps the note's text from before the call, so
 * the view can offer Undo; that text is stored beside the log, never in it, and never logged.
 * Tokens and arguments are never kept.
 */
import type { ChangeAction, ProposedChange } from "../core/approval";
import type { ToolCallEvent } from "../mcp/server";
import { MAX_ACTIVITY_LOG_ENTRIES } from "../settings/schema";

/** One agent call as the log keeps it. */
export interface ActivityEntry {
  /** Unique across restarts: the time and the server's request id. */
  id: string;
  /** When the call completed (epoch milliseconds). */
  at: number;
  /** The MCP tool name. */
  tool: string;
  /** The MCP client's name, as it introduced itself. */
  client?: string;
  /** The note the call was about, when the result or the change named one. */
  noteId?: string;
  /** The note's workspace (null: personal), when the call changed the note. */
  teamPath?: string | null;
  /** The ROOT-relative file the call changed, when there was one. */
  localPath?: string;
  /** What the call changed (or was about to), when it got that far. */
  action?: ChangeAction;
  /** Whether the call succeeded. */
  ok: boolean;
  /** The error kind of a failed call (`conflict`, `approval_denied`, …). */
  errorKind?: string;
  /** How long the call took, in milliseconds (approval time included). */
  durationMs: number;
  /** The server's request id, as in the log lines. */
  requestId: string;
  /** `body_hash` of the text before and after a change of text. */
  hashBefore?: string;
  hashAfter?: string;
  /** The length of the note's text from before the call, when it is kept (Undo needs it). */
  keptLength?: number;
  /** When the user undid this call's change. */
  undoneAt?: number;
}

/** Where the history lives (the plugin's folder over the vault adapter; memory in tests). */
export interface ActivityStore {
  /** The saved log, or undefined when there is none. */
  loadLog(): Promise<string | undefined>;
  saveLog(text: string): Promise<void>;
  /** The kept text whose body hash is `hash`, or undefined. */
  readText(hash: string): Promise<string | undefined>;
  writeText(hash: string, text: string): Promise<void>;
  removeText(hash: string): Promise<void>;
}

/** The largest note text kept for Undo, in UTF-16 code units (larger writes are logged without Undo). */
export const MAX_KEPT_TEXT_LENGTH = 2 * 1024 * 1024;
/** The most text kept for Undo across all entries; the oldest go first. */
export const MAX_KEPT_TEXT_TOTAL = 16 * 1024 * 1024;

/** Actions whose text before can be restored by Undo: writes of a note's body on HackMD. */
const UNDOABLE: ReadonlySet<ChangeAction> = new Set(["edit_note", "update_note"]);

/** A bounded log of agent calls, newest last, with change listeners for views. */
export class ActivityLog {
  private entries: ActivityEntry[] = [];
  private capacity: number;
  private readonly listeners = new Set<() => void>();
  private readonly now: () => number;
  private readonly store: ActivityStore | undefined;
  private saving: Promise<void> = Promise.resolve();

  constructor(options: { capacity: number; now?: () => number; store?: ActivityStore }) {
    this.capacity = clampCapacity(options.capacity);
    this.now = options.now ?? (() => Date.now());
    this.store = options.store;
  }

  /** Reads the saved history (plugin load); a damaged file starts an empty log. */
  async load(): Promise<void> {
    const text = await this.store?.loadLog().catch(() => undefined);
    if (text === undefined) return;
    try {
      const saved = JSON.parse(text) as { entries?: unknown };
      const entries = Array.isArray(saved.entries) ? saved.entries.filter(isEntry) : [];
      this.entries = [...entries, ...this.entries];
    } catch {
      return;
    }
    this.trim();
    this.changed();
  }

  /** Records one completed call (the MCP host's `onCallCompleted`); `change` may carry the text before. */
  record(event: ToolCallEvent, change?: ProposedChange): void {
    if (this.capacity === 0) return;
    const at = this.now();
    const entry: ActivityEntry = {
      id: `${at}:${event.request_id}`,
      at,
      tool: event.tool,
      ok: event.ok,
      durationMs: event.duration_ms,
      requestId: event.request_id,
    };
    if (event.client !== undefined) entry.client = event.client;
    if (event.note_id !== undefined) entry.noteId = event.note_id;
    if (event.team_path !== undefined) entry.teamPath = event.team_path;
    if (event.local_path !== undefined) entry.localPath = event.local_path;
    if (change !== undefined) entry.action = change.action;
    if (event.error_kind !== undefined) entry.errorKind = event.error_kind;
    if (event.body_hash_before !== undefined) entry.hashBefore = event.body_hash_before;
    if (event.body_hash_after !== undefined) entry.hashAfter = event.body_hash_after;
    const before = change?.body?.where === "note" ? change.body.before : undefined;
    const keep =
      event.ok &&
      entry.hashBefore !== undefined &&
      entry.hashBefore !== entry.hashAfter &&
      before !== undefined &&
      UNDOABLE.has(change?.action ?? "create_note");
    if (keep && before.length <= MAX_KEPT_TEXT_LENGTH && this.store !== undefined && entry.hashBefore !== undefined) {
      entry.keptLength = before.length;
      const hash = entry.hashBefore;
      this.queue(() => this.store?.writeText(hash, before));
    }
    this.entries.push(entry);
    this.trim();
    this.save();
    this.changed();
  }

  /** The entries, oldest first (a copy). */
  list(): ActivityEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }

  /** How many entries are kept. */
  get size(): number {
    return this.entries.length;
  }

  /** Whether the view offers Undo for an entry: a successful note write whose text before is kept, not undone yet. */
  canUndo(entry: ActivityEntry): boolean {
    return (
      entry.ok &&
      entry.keptLength !== undefined &&
      entry.undoneAt === undefined &&
      entry.noteId !== undefined &&
      entry.hashAfter !== undefined &&
      entry.action !== undefined &&
      UNDOABLE.has(entry.action)
    );
  }

  /** The kept text from before an entry's call, or undefined. */
  async textBefore(entry: ActivityEntry): Promise<string | undefined> {
    if (entry.keptLength === undefined || entry.hashBefore === undefined) return undefined;
    await this.saving;
    return this.store?.readText(entry.hashBefore);
  }

  /** Marks an entry as undone (Undo is then no longer offered). */
  markUndone(id: string): void {
    const entry = this.entries.find((candidate) => candidate.id === id);
    if (entry === undefined) return;
    entry.undoneAt = this.now();
    this.save();
    this.changed();
  }

  /** Changes how many entries are kept (0 keeps none), dropping the oldest when it shrinks. */
  setCapacity(capacity: number): void {
    this.capacity = clampCapacity(capacity);
    this.trim();
    this.save();
    this.changed();
  }

  /** Forgets every entry and the texts kept for them. */
  clear(): void {
    const dropped = this.entries;
    this.entries = [];
    this.forgetTexts(dropped);
    this.save();
    this.changed();
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves once every pending write to the store has run. */
  flushed(): Promise<void> {
    return this.saving;
  }

  private trim(): void {
    if (this.entries.length > this.capacity) {
      const dropped = this.entries.slice(0, this.entries.length - this.capacity);
      this.entries = this.entries.slice(this.entries.length - this.capacity);
      this.forgetTexts(dropped);
    }
    // Bounded bytes too: the oldest kept texts go first (their entries stay, without Undo).
    let total = 0;
    for (const entry of [...this.entries].reverse()) {
      if (entry.keptLength === undefined) continue;
      total += entry.keptLength;
      if (total > MAX_KEPT_TEXT_TOTAL) {
        const dropped = { ...entry };
        delete entry.keptLength;
        this.forgetTexts([dropped]);
      }
    }
  }

  /** Removes kept texts no remaining entry needs. */
  private forgetTexts(dropped: readonly ActivityEntry[]): void {
    const needed = new Set(
      this.entries.filter((entry) => entry.keptLength !== undefined).map((entry) => entry.hashBefore),
    );
    for (const entry of dropped) {
      const hash = entry.hashBefore;
      if (entry.keptLength !== undefined && hash !== undefined && !needed.has(hash))
        this.queue(() => this.store?.removeText(hash));
    }
  }

  private save(): void {
    if (this.store === undefined) return;
    const text = JSON.stringify({ version: 1, entries: this.entries });
    this.queue(() => this.store?.saveLog(text));
  }

  /** Store writes run one after another; a failed write is dropped (the history is best effort). */
  private queue(task: () => Promise<void> | undefined): void {
    this.saving = this.saving.then(task).catch(() => undefined);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

function isEntry(value: unknown): value is ActivityEntry {
  if (typeof value !== "object" || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry.id === "string" &&
    typeof entry.at === "number" &&
    typeof entry.tool === "string" &&
    typeof entry.ok === "boolean" &&
    typeof entry.requestId === "string"
  );
}

function clampCapacity(value: number): number {
  if (!Number.isFinite(value) || value < 0) return 0;
  return Math.min(Math.floor(value), MAX_ACTIVITY_LOG_ENTRIES);
}
