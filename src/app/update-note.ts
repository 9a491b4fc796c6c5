/**
 * Edit a note (docs/tools.md §9.5): a patch applied to the body as read, metadata changes, or a whole
 * body replacement, each read, decided and written under the note's queue key, and confirmed by
 * read-back through the one body write (hackmd/write-body.ts). Two doors use it: the agent's
 * `hackmd_update_note` (mcp/tools/update-note.ts) and the plugin's Undo of an agent's write
 * (obsidian/activity-undo.ts). Messages are in the tools' words, the contract's names.
 */
import { BridgeError, invalidInput } from "../core/errors";
import { bodyHash, utf8Length } from "../core/hash";
import { normalizeLineEndings } from "../core/text";
import type { CallContext } from "../hackmd/call-context";
import type { SafetyVersion } from "../hackmd/safety-version";
import type { NoteDetail, Permission, UpdateNoteRequest } from "../hackmd/types";
import { writeBody } from "../hackmd/write-body";
import { applyPatchAsync } from "../patch";
import type { AppDeps } from "./deps";
import { checkPermissions, defined, hashArg, idArg } from "./inputs";
import { showsPlacement, unshownFields } from "./note-writes";
import { underNote } from "./notes";

/** What an edit changes, in the contract's names (the decoded arguments of `hackmd_update_note`). */
export interface NoteUpdate {
  patch?: string | undefined;
  /** The body hash the caller read; the edit is refused when the note changed since. */
  expected_hash?: string | undefined;
  title?: string | undefined;
  /** Replaces the whole body (destructive). */
  content?: string | undefined;
  tags?: string[] | undefined;
  description?: string | undefined;
  permalink?: string | undefined;
  read_permission?: Permission | undefined;
  write_permission?: Permission | undefined;
  parent_folder_id?: string | null | undefined;
  comment_permission?: string | undefined;
  suggest_edit_permission?: string | undefined;
}

/** How an edit ended. */
export type UpdateOutcome = (
  | { mode: "patched"; teamPath: string | null; noteId: string; patchPath: string; changed: boolean; bytes: number }
  | {
      mode: "updated";
      /** The last read-back. */
      note: NoteDetail;
      /** Whether the note shows the folder asked for; null when no move was asked. */
      placementConfirmed: boolean | null;
      /** The version named before a blind replacement, when one was attempted. */
      safety: SafetyVersion | undefined;
    }
) & {
  /** The user edited the proposed text before approving it: the body written and its hash. */
  edited?: { bodyHash: string; bytes: number };
};

const CHANGING_FIELDS = [
  "title",
  "content",
  "tags",
  "description",
  "permalink",
  "read_permission",
  "write_permission",
  "parent_folder_id",
] as const;

/** Checks an edit before any request (invalid_input): hash form, patch exclusive, permissions, folder id. */
export function checkNoteUpdate(update: NoteUpdate): void {
  hashArg("expected_hash", update.expected_hash, "the body_hash from hackmd_get_note");
  const changing = CHANGING_FIELDS.filter((key) => update[key] !== undefined);
  if (update.patch !== undefined && changing.length > 0) {
    throw invalidInput(`patch cannot be combined with ${changing.join(", ")}; send the patch in a call of its own.`);
  }
  if (update.patch === undefined && changing.length === 0) {
    throw invalidInput("Nothing to update: pass a patch, or at least one field to change.");
  }
  checkPermissions(update);
  if (typeof update.parent_folder_id === "string") idArg("folder id", update.parent_folder_id);
}

/**
 * Edits a resolved note (checked first by `checkNoteUpdate`). Read, decide and write under the
 * note's key: a push or pull of the same note waits for this, and this for them.
 */
export function updateNote(
  deps: AppDeps,
  call: CallContext,
  address: Address,
  update: NoteUpdate,
): Promise<UpdateOutcome> {
  const expected = hashArg("expected_hash", update.expected_hash, "the body_hash from hackmd_get_note");
  return underNote(deps, address, async (): Promise<UpdateOutcome> => {
    if (update.patch !== undefined) {
      const note = await readBody(deps, call, address, expected);
      // Cooperative: a large patch yields between slices, so other sessions are not stalled meanwhile.
      const result = await applyPatchAsync({
        body: note.content,
        patch: update.patch,
        patchPath: note.patch_path,
        pause: () => deps.sleep(0),
      });
      let written = result.changed ? result.body : note.content;
      let edited: UpdateOutcome["edited"];
      if (result.changed) {
        deps.pending.assertClear(address, note.content);
        const edit = await call.beforeChange({
          action: "edit_note",
          note: { ...address, title: note.title },
          body: { where: "note", before: note.content, after: result.body },
        });
        // The user's own text, when they edited the change before approving it.
        if (edit !== undefined) {
          written = edit.after;
          edited = { bodyHash: await bodyHash(written), bytes: utf8Length(written) };
        }
        await sendAndConfirm(deps, call, address, written, {});
      }
      return {
        mode: "patched",
        ...address,
        patchPath: note.patch_path,
        changed: result.changed,
        bytes: utf8Length(written),
        ...(edited === undefined ? {} : { edited }),
      };
    }

    const replacement = update.content === undefined ? undefined : normalizeLineEndings(update.content);
    // A replacement without expected_hash needs nothing read first; otherwise the body is resent as read.
    let content: string;
    let current: (NoteDetail & { content: string }) | undefined;
    let version: SafetyVersion | undefined;
    if (replacement !== undefined && expected === undefined) {
      deps.pending.assertClear(address, undefined);
      content = replacement;
    } else {
      current = await readBody(deps, call, address, expected);
      deps.pending.assertClear(address, current.content);
      content = replacement ?? current.content;
    }
    const metadata = {
      tags: update.tags,
      description: update.description,
      permalink: update.permalink,
      read_permission: update.read_permission,
      write_permission: update.write_permission,
    };
    const fields = defined({
      title: update.title,
      tags: update.tags,
      description: update.description,
      permalink: update.permalink,
      readPermission: update.read_permission,
      writePermission: update.write_permission,
      parentFolderId: update.parent_folder_id,
    });
    const placement = update.parent_folder_id;
    // The text before is read only when the host needs it (a question, the activity history).
    const readCurrent = async (): Promise<NoteDetail & { content: string }> =>
      current ?? (current = await readBody(deps, call, address, undefined));
    const edit = await call.beforeChange({
      action: "update_note",
      note: {
        ...address,
        ...(current === undefined ? { readTitle: async () => (await readCurrent()).title } : { title: current.title }),
      },
      ...(replacement === undefined
        ? {}
        : {
            body: {
              where: "note" as const,
              ...(current === undefined
                ? { readBefore: async () => (await readCurrent()).content }
                : { before: current.content }),
              after: replacement,
            },
          }),
      fields: changedFields(update),
    });
    // The user's own text, when they edited the replacement before approving it.
    const edited =
      edit !== undefined && replacement !== undefined
        ? { bodyHash: await bodyHash(edit.after), bytes: utf8Length(edit.after) }
        : undefined;
    if (edited !== undefined && edit !== undefined) content = edit.after;
    // A body this call has not read is replaced blind: name HackMD's text first (one request),
    // once the host agreed to the change (nothing is written while it asks).
    if (replacement !== undefined && expected === undefined)
      version = await deps.safety.before(call, address.noteId, "agent update");
    const last = await sendAndConfirm(deps, call, address, content, fields, {
      metadata,
      checkBody: replacement !== undefined,
      placement,
    });
    return {
      mode: "updated",
      note: last,
      placementConfirmed: placement === undefined ? null : showsPlacement(last, placement),
      safety: version,
      ...(edited === undefined ? {} : { edited }),
    };
  });
}

/** A resolved note. */
type Address = { teamPath: string | null; noteId: string };

/** The metadata an update sets, as the user is shown it (the body is shown as a diff). */
function changedFields(args: {
  title?: string | undefined;
  tags?: string[] | undefined;
  description?: string | undefined;
  permalink?: string | undefined;
  read_permission?: string | undefined;
  write_permission?: string | undefined;
  parent_folder_id?: string | null | undefined;
}): Record<string, string> {
  return defined({
    title: args.title,
    tags: args.tags?.join(", "),
    description: args.description,
    permalink: args.permalink,
    read_permission: args.read_permission,
    write_permission: args.write_permission,
    parent_folder_id: args.parent_folder_id === null ? "(the workspace root)" : args.parent_folder_id,
  });
}

/** GETs the note, requires its body, and compares `expected_hash` (nothing written on mismatch). */
async function readBody(
  deps: AppDeps,
  call: CallContext,
  address: Address,
  expected: string | undefined,
): Promise<NoteDetail & { content: string }> {
  const note = await deps.client.getNote(call, address);
  if (note.content === undefined) {
    throw new BridgeError(
      "upstream",
      `HackMD sent note ${address.noteId} without its body, so nothing was written; retry later.`,
    );
  }
  if (expected !== undefined && (note.body_hash ?? (await bodyHash(note.content))) !== expected) {
    throw new BridgeError(
      "conflict",
      `Note ${address.noteId} changed after it was read (its body_hash is no longer ${expected}); nothing was written. Fetch it with hackmd_get_note and redo the change.`,
    );
  }
  return { ...note, content: note.content };
}

/**
 * Sends one PATCH carrying `content` (never retried) and polls until the body (and any sent
 * metadata) show; an unconfirmed write is `readback`. Returns the last read-back.
 */
function sendAndConfirm(
  deps: AppDeps,
  call: CallContext,
  address: Address,
  content: string,
  fields: Omit<UpdateNoteRequest, "content">,
  checks: {
    metadata?: Parameters<typeof unshownFields>[0];
    checkBody?: boolean;
    placement?: string | null | undefined;
  } = { checkBody: true },
): Promise<NoteDetail> {
  const checkBody = checks.checkBody ?? true;
  const placement = checks.placement;
  return writeBody(deps, call, {
    address,
    content,
    fields,
    shows: (note) =>
      (!checkBody || note.content === content) &&
      (checks.metadata === undefined || unshownFields(checks.metadata, note).length === 0),
    // The folder is waited for too, but a move that never shows is only a flag (§9.5).
    ...(placement === undefined ? {} : { waitsFor: (note: NoteDetail) => showsPlacement(note, placement) }),
    unconfirmed: () =>
      new BridgeError(
        "readback",
        `HackMD accepted the update of note ${address.noteId}, but reading it back never showed the change; get the note and compare before writing again.`,
      ),
  });
}
