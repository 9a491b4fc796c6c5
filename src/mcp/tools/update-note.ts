import { z } from "zod/v4";
import { checkNoteUpdate, updateNote } from "../../app/update-note";
import { withoutContent } from "../../app/note-writes";
import { resolveRef } from "../../app/notes";
import { workspaceArg } from "../../app/inputs";
import {
  noteDetailOutput,
  noteRefInput,
  permissionInput,
  refreshInput,
  resolutionOutput,
  teamPathInput,
} from "./schemas";
import { safetyReport } from "./safety";
import { unresolved } from "./shared";
import { tool } from "./tool";

/** `hackmd_update_note` (docs/tools.md §9.5): the door onto the edit use-case (app/update-note.ts). */
export const updateNoteTool = tool({
  name: "hackmd_update_note",
  title: "Update HackMD Note",
  description:
    "Edits a note. Prefer patch: context-anchored hunks in an envelope (*** Begin Patch / *** Update File: <patch_path from hackmd_get_note> / @@ hunks / *** End Patch); pass expected_hash (body_hash from hackmd_get_note) so a concurrent edit is refused instead of overwritten. patch cannot be combined with other changes. Without patch: change title, tags, description, permalink, permissions or folder (parent_folder_id: null moves to the workspace root), or replace the whole body with content (destructive). A patch_rejected error means: read the note again and rebuild the patch; a readback error means: read the note and compare before writing again.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  input: z
    .object({
      note_ref: noteRefInput,
      team_path: teamPathInput,
      refresh: refreshInput,
      patch: z.string().optional().describe("Patch envelope; exclusive with every changing field."),
      expected_hash: z
        .string()
        .optional()
        .describe("body_hash from hackmd_get_note; the update is refused if the note changed since."),
      title: z.string().optional(),
      content: z.string().optional().describe("Replaces the whole body (destructive)."),
      tags: z.array(z.string()).optional(),
      description: z.string().optional(),
      permalink: z.string().optional(),
      read_permission: permissionInput.optional(),
      write_permission: permissionInput.optional(),
      parent_folder_id: z
        .string()
        .nullable()
        .optional()
        .describe("Folder id to move into, or null for the workspace root."),
      comment_permission: z.string().optional().describe("Not settable through the API; any value is refused."),
      suggest_edit_permission: z.string().optional().describe("Not settable through the API; any value is refused."),
    })
    .strict(),
  output: z.union([
    z.object({
      mode: z.literal("patched"),
      team_path: z.string().nullable(),
      note_id: z.string(),
      patch_path: z.string(),
      changed: z.boolean(),
      bytes: z.number().int(),
    }),
    z.object({
      mode: z.literal("updated"),
      note: noteDetailOutput,
      folder_placement_confirmed: z.boolean().nullable(),
    }),
    resolutionOutput,
  ]),
  create: (deps) => async (args, call) => {
    checkNoteUpdate(args);
    const resolution = await resolveRef(deps, call, args.note_ref, {
      teamPath: workspaceArg(args.team_path),
      refresh: args.refresh,
    });
    if (resolution.status !== "resolved") return unresolved(resolution);
    const outcome = await updateNote(deps, call, { teamPath: resolution.teamPath, noteId: resolution.noteId }, args);
    // The user changed the proposed text before approving: say exactly what was written.
    const edited = outcome.edited;
    const editedSentence =
      edited === undefined
        ? ""
        : ` The user edited your proposed text before approving it; the note now holds their text (body_hash ${edited.bodyHash}, ${edited.bytes} bytes), not yours: read it with hackmd_get_note before editing again.`;
    const editedMeta =
      edited === undefined ? {} : { edited_by_user: { body_hash: edited.bodyHash, bytes: edited.bytes } };
    if (outcome.mode === "patched") {
      return {
        summary: outcome.changed
          ? `Edited note ${outcome.noteId}.${editedSentence}`
          : `Note ${outcome.noteId} is unchanged (the patch changes nothing).`,
        output: {
          mode: "patched",
          team_path: outcome.teamPath,
          note_id: outcome.noteId,
          patch_path: outcome.patchPath,
          changed: outcome.changed,
          bytes: outcome.bytes,
        },
        ...(edited === undefined ? {} : { meta: editedMeta }),
      };
    }
    const report = safetyReport(outcome.safety);
    return {
      summary: `Updated note ${resolution.noteId}.${report.sentence}${editedSentence}`,
      output: {
        mode: "updated",
        note: withoutContent(outcome.note),
        folder_placement_confirmed: outcome.placementConfirmed,
      },
      ...(report.meta || edited !== undefined ? { meta: { ...report.meta, ...editedMeta } } : {}),
    };
  },
});
