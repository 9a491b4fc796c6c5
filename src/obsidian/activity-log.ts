/**
 * The activity log of agent calls (PRODUCT.md: "an activity log of agent calls"): a bounded,
 * in-memory list fed by the MCP host's `onCallCompleted`. It holds what the call was, never note
 * bodies, arguments or tokens, and is gone when Obsidian closes.
 */
import type { ToolCallEvent } from "../mcp/server";
import { MAX_ACTIVITY_LOG_ENTRIES } from "../settings/schema";

/** One completed agent call as the log keeps it. */
export interface ActivityEntry {
  /** When the call completed (epoch milliseconds). */
  at: number;
  /** The MCP tool name. */
  tool: string;
  /** The note the call was about, when the result named one. */
  noteId?: string;
  /** Whether the call succeeded. */
  ok: boolean;
  /** The error kind of a failed call (`conflict`, `auth`, …). */
  errorKind?: string;
  /** How long the call took, in milliseconds. */
  durationMs: number;
  /** The server's request id, as in the log lines. */
  requestId: string;
}

/** A bounded in-memory log of agent calls, newest last, with change listeners for views. */
export class ActivityLog {
  private entries: ActivityEntry[] = [];
  private capacity: number;
  private readonly listeners = new Set<() => void>();
  private readonly now: () => number;

  constructor(options: { capacity: number; now?: () => number }) {
    this.capacity = clampCapacity(options.capacity);
    this.now = options.now ?? (() => Date.now());
  }

  /** Records one completed call (the MCP host's `onCallCompleted`). */
  record(event: ToolCallEvent): void {
    if (this.capacity === 0) return;
    const entry: ActivityEntry = { at: this.now(), tool: event.tool, ok: event.ok, durationMs: event.duration_ms, requestId: event.request_id };
    if (event.note_id !== undefined) entry.noteId = event.note_id;
    if (event.error_kind !== undefined) entry.errorKind = event.error_kind;
    this.entries.push(entry);
    this.trim();
    this.changed();
  }

  /** The entries, oldest first (a copy). */
  list(): ActivityEntry[] {
    return [...this.entries];
  }

  /** How many entries are kept. */
  get size(): number {
    return this.entries.length;
  }

  /** Changes how many entries are kept (0 keeps none), dropping the oldest when it shrinks. */
  setCapacity(capacity: number): void {
    this.capacity = clampCapacity(capacity);
    this.trim();
    this.changed();
  }

  /** Forgets every entry. */
  clear(): void {
    this.entries = [];
    this.changed();
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private trim(): void {
    if (this.entries.length > this.capacity) this.entries = this.entries.slice(this.entries.length - this.capacity);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

function clampCapacity(value: number): number {
  if (!Number.isFinite(value) || value < 0) return 0;
  return Math.min(Math.floor(value), MAX_ACTIVITY_LOG_ENTRIES);
}
