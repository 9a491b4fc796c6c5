/**
 * Publish a Markdown file as a new note (docs/tools.md §14.8, adoption): create the note, then wait
 * until HackMD shows the text that was sent, so the pull that tracks the file next adopts that
 * text and not a stale read. Two doors: the plugin's "Publish" (obsidian/actions.ts) and
 * `hackmd-bridge publish` (node/commands/publish.ts); each then tracks the file through the sync
 * engine's pull and says, in its own words, what to do when that fails.
 */
import { bodyHash, utf8Length } from "../core/hash";
import type { CallContext } from "../hackmd/call-context";
import { pollUntil } from "../hackmd/readback";
import type { CreatedNote, CreateNoteRequest } from "../hackmd/types";
import type { AppDeps } from "./deps";

/** A created note, and whether a read-back showed its text within the read-back window. */
export interface Published {
  created: CreatedNote;
  noteId: string;
  /** False when HackMD did not show the text yet; the door decides whether to track the file anyway. */
  shown: boolean;
}

/** Creates a note with `body` (one POST, never retried) and reads it back until it shows `body.content`. */
export async function publishNote(
  deps: AppDeps,
  call: CallContext,
  teamPath: string | null,
  body: CreateNoteRequest & { content: string },
): Promise<Published> {
  const created = await deps.lists.aroundWrite(() => deps.client.createNote(call, { teamPath, body }));
  const noteId = created.note.id;
  // A read right after a create can show a stale body; wait until HackMD shows ours.
  const shown = await pollUntil({
    context: call,
    clock: deps.clock,
    sleep: deps.sleep,
    writtenBytes: utf8Length(body.content),
    read: (deadlineAt) => deps.client.getNote(call, { teamPath, noteId, deadlineAt }),
    matches: (note) => note.content === body.content,
    subject: `note ${noteId}`,
  });
  // A new note is a write too: one journal entry (the pull that tracks the file adds its own).
  await deps.journal.append({
    ...(call.actor === undefined ? {} : { actor: call.actor }),
    kind: "create_note",
    branch: "publish",
    outcome: shown.confirmed ? "done" : "unconfirmed (readback)",
    note: { team_path: teamPath, note_id: noteId, title: created.note.title },
    remote: { after: await bodyHash(body.content) },
  });
  return { created, noteId, shown: shown.confirmed };
}
