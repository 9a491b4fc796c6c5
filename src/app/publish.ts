/**
 * Publish a Markdown file as a new note (docs/tools.md §14.8, adoption): create the note, then wait
 * until HackMD shows the text that was sent, so the pull that tracks the file next adopts that
 * text. Two doors: the plugin's "Publish" (obsidian/actions.ts) and `hackmd-bridge publish`
 * (node/commands/publish.ts) both call `publishFile`, which sends the file's remote form and
 * tracks exactly that as the baseline (the sync engine's `adopt`).
 */
import { BridgeError, isBridgeError } from "../core/errors";
import { bodyHash, utf8Length } from "../core/hash";
import { baseName } from "../core/paths";
import { bodyTitle } from "../core/text";
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

/** Where and how a file is published. */
export interface PublishFileRequest {
  path: string;
  teamPath: string | null;
  /** The note's title; default: the file's first heading, else its name. */
  title?: string | undefined;
  readPermission: CreateNoteRequest["readPermission"];
  writePermission: CreateNoteRequest["writePermission"];
  parentFolderId?: string | undefined;
}

/** A published and tracked file. */
export interface PublishedFile extends Published {
  path: string;
  title: string;
}

/**
 * Publishes an untracked file and tracks it (both doors): the note is created with the file's
 * remote form (docs/conversion-rules.md: links converted, comments kept in the vault), then the
 * sync engine records exactly what was sent as the baseline — nothing is pulled back over the
 * file. When tracking fails, the note just created is deleted again, so no untracked copy is left
 * on HackMD; if even that fails, the error names the note.
 */
export async function publishFile(
  deps: AppDeps,
  call: CallContext,
  request: PublishFileRequest,
): Promise<PublishedFile> {
  const form = await deps.sync.publishForm(request.path);
  const path = form.path;
  const title = request.title ?? bodyTitle(form.text) ?? baseName(path).replace(/\.md$/i, "");
  const body: CreateNoteRequest & { content: string } = {
    title,
    content: form.content,
    readPermission: request.readPermission,
    writePermission: request.writePermission,
    ...(request.parentFolderId === undefined ? {} : { parentFolderId: request.parentFolderId }),
  };
  const published = await publishNote(deps, call, request.teamPath, body);
  const { noteId } = published;
  try {
    await deps.sync.adopt({ form, teamPath: request.teamPath, noteId, call });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    try {
      await deps.lists.aroundWrite(() => deps.client.deleteNote(call, { teamPath: request.teamPath, noteId }));
    } catch (deleteError) {
      throw new BridgeError(
        isBridgeError(error) ? error.kind : "internal",
        `Note ${noteId} was created, but ${path} could not be linked to it (${reason}), and deleting the note failed too (${deleteError instanceof Error ? deleteError.message : String(deleteError)}); delete note ${noteId} on HackMD, then publish again.`,
        { cause: error },
      );
    }
    throw new BridgeError(
      isBridgeError(error) ? error.kind : "internal",
      `${path} could not be linked to its new note (${reason}), so the note was deleted again and nothing is left on HackMD; fix that, then publish again.`,
      { cause: error },
    );
  }
  return { ...published, path, title };
}
