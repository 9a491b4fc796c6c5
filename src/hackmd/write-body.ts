/**
 * The one way a note body is written and confirmed (docs/tools.md §7; docs/architecture.md §3
 * "Writes"): one PATCH carrying `content`, never retried, then read back until the note shows
 * it. Every door reaches it: the sync engine's push and merge (sync/service.ts) and the edits of
 * the application layer (app/update-note.ts: `hackmd_update_note`, the plugin's Undo). A write
 * whose outcome is unknown is remembered by `PendingWrites`, so no later write overwrites it unseen.
 */
import type { BridgeError } from "../core/errors";
import { utf8Length } from "../core/hash";
import type { Clock, Sleep } from "../core/ports";
import type { NoteListCache } from "./cache";
import type { CallContext } from "./call-context";
import type { HackmdClient } from "./client";
import type { PendingWrites } from "./pending-writes";
import { pollUntil } from "./readback";
import type { NoteDetail, NoteSummary, UpdateNoteRequest } from "./types";

/** What a body write needs from a core. */
export interface BodyWriterDeps {
  client: HackmdClient;
  pending: PendingWrites;
  /** The note-list cache, cleared around the PATCH and after the read-back (absent: no cache). */
  lists?: NoteListCache<NoteSummary> | undefined;
  clock: Clock;
  sleep: Sleep;
}

/** One body write. */
export interface BodyWrite {
  address: { teamPath: string | null; noteId: string };
  /** The whole body, sent in the PATCH (every note PATCH carries `content`). */
  content: string;
  /** Other fields sent in the same PATCH. */
  fields?: Omit<UpdateNoteRequest, "content">;
  /**
   * What a read-back must show for the write to count as confirmed (default: exactly `content`).
   * A write whose read-backs never show it fails with `unconfirmed()`.
   */
  shows?: (note: NoteDetail) => boolean;
  /** What the read-back also waits for without requiring it (a folder move, reported as a flag). */
  waitsFor?: (note: NoteDetail) => boolean;
  /** The `readback` error for a write that never showed, in the door's words. */
  unconfirmed: () => BridgeError;
}

/** Sends the PATCH, polls until the note shows the write, and returns the last read-back. */
export function writeBody(deps: BodyWriterDeps, call: CallContext, write: BodyWrite): Promise<NoteDetail> {
  const { address, content } = write;
  const shows = write.shows ?? ((note: NoteDetail) => note.content === content);
  const waitsFor = write.waitsFor;
  const patch = (): Promise<void> => deps.client.updateNote(call, { ...address, body: { ...write.fields, content } });
  return deps.pending.track(address, content, {
    send: () => (deps.lists ? deps.lists.aroundWrite(patch) : patch()),
    confirm: async () => {
      const poll = await pollUntil({
        context: call,
        clock: deps.clock,
        sleep: deps.sleep,
        writtenBytes: utf8Length(content),
        read: (deadlineAt) => deps.client.getNote(call, { ...address, deadlineAt }),
        matches: (note) => shows(note) && (waitsFor === undefined || waitsFor(note)),
        subject: `note ${address.noteId}`,
      });
      deps.lists?.invalidate();
      if (!poll.confirmed && !shows(poll.last)) throw write.unconfirmed();
      return poll.last;
    },
  });
}
