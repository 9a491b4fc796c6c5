/**
 * The persistent outbox of automatic sync (docs/auto-sync.md): a push that could not be sent (offline,
 * rate limited, HackMD down) is remembered per note in the sync state folder
 * (`outbox/<record key>.json`), so it survives restarts and is shared by the plugin and the
 * command over the same folder. An entry is only a reminder: replaying it is a normal push
 * through the SyncService, which re-reads the remote first and decides by hash. A write whose
 * outcome was unknown (`readback`) is never queued (docs/tools.md §4.2; the pending-write rule).
 */
import type { ErrorKind } from "../../core/errors";
import type { StateFiles } from "../../core/local-files";
import { recordKey } from "../store";

/** Folder of the entries inside the state folder. */
const OUTBOX = "outbox";
const MAX_ENTRY_BYTES = 64 * 1024;
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The failures a push is queued for: nothing was written, so trying again later is safe. */
export const QUEUED_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(["network", "rate_limited", "upstream"]);

/** Whether a failed push is queued (true) or reported for the user (false). */
export function isQueuedKind(kind: ErrorKind): boolean {
  return QUEUED_KINDS.has(kind);
}

/** One queued push. */
export interface OutboxEntry {
  team_path: string | null;
  note_id: string;
  local_path: string;
  /** Epoch ms of the first failure (the delay the user waits is counted from here). */
  queued_at: number;
  /** Failed attempts so far. */
  attempts: number;
  /** Epoch ms of the last failed attempt (the next retry waits from here). */
  last_attempt_at: number;
  /** The kind of the last failure. */
  last_error_kind: ErrorKind;
}

function parseEntry(text: string): OutboxEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const entry = value as Partial<OutboxEntry>;
  if (typeof entry.note_id !== "string" || typeof entry.local_path !== "string") return undefined;
  if (entry.team_path !== null && typeof entry.team_path !== "string") return undefined;
  if (
    typeof entry.queued_at !== "number" ||
    typeof entry.attempts !== "number" ||
    typeof entry.last_error_kind !== "string"
  )
    return undefined;
  if (typeof entry.last_attempt_at !== "number") return undefined;
  return {
    team_path: entry.team_path,
    note_id: entry.note_id,
    local_path: entry.local_path,
    queued_at: entry.queued_at,
    attempts: entry.attempts,
    last_attempt_at: entry.last_attempt_at,
    last_error_kind: entry.last_error_kind,
  };
}

/** The outbox over a state folder. Keeps nothing in memory: every call reads the folder. */
export class Outbox {
  constructor(private readonly files: StateFiles) {}

  /** Queues (or re-queues) a push of the note; the first failure's time is kept. */
  async add(
    entry: Omit<OutboxEntry, "attempts" | "queued_at" | "last_attempt_at"> & { at: number },
  ): Promise<OutboxEntry> {
    const key = recordKey(entry.team_path, entry.note_id);
    const before = await this.read(key);
    const next: OutboxEntry = {
      team_path: entry.team_path,
      note_id: entry.note_id,
      local_path: entry.local_path,
      queued_at: before?.queued_at ?? entry.at,
      attempts: (before?.attempts ?? 0) + 1,
      last_attempt_at: entry.at,
      last_error_kind: entry.last_error_kind,
    };
    await this.files.write(`${OUTBOX}/${key}.json`, `${JSON.stringify(next, null, 2)}\n`);
    return next;
  }

  /** Forgets the note's queued push (sent, or dropped by the user); false when none was queued. */
  remove(teamPath: string | null, noteId: string): Promise<boolean> {
    return this.files.remove(`${OUTBOX}/${recordKey(teamPath, noteId)}.json`);
  }

  /** Every queued push, oldest first. Unreadable entries are left on disk and skipped. */
  async list(): Promise<OutboxEntry[]> {
    const entries = await this.files.list(OUTBOX);
    const out: OutboxEntry[] = [];
    for (const file of entries) {
      if (file.kind !== "file" || !file.name.endsWith(".json")) continue;
      const entry = await this.read(file.name.slice(0, -".json".length));
      if (entry !== undefined) out.push(entry);
    }
    return out.sort((a, b) => a.queued_at - b.queued_at || a.note_id.localeCompare(b.note_id));
  }

  private async read(key: string): Promise<OutboxEntry | undefined> {
    const read = await this.files.read(`${OUTBOX}/${key}.json`, { maxBytes: MAX_ENTRY_BYTES });
    if (read === undefined || read.truncated) return undefined;
    try {
      return parseEntry(decoder.decode(read.bytes));
    } catch {
      return undefined;
    }
  }
}

export { stateFileBudgetStorage } from "./budget-file";

/** First wait before a queued push is retried; doubled per failure up to `MAX_RETRY_MS`. */
export const FIRST_RETRY_MS = 60_000;
export const MAX_RETRY_MS = 30 * 60_000;

/**
 * When a queued push is next tried: after its last failure, waiting longer after each. A last
 * failure saved after `now` (the clock was set back since) counts as made now, so a clock moved
 * back never holds a queued push until its old future passes.
 */
export function retryAt(entry: OutboxEntry, now = Infinity): number {
  const wait = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, entry.attempts - 1));
  return Math.min(entry.last_attempt_at, now) + wait;
}
