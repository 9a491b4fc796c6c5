import { z } from "zod/v4";
import { invalidInput } from "../../core/errors";
import { parseNoteRef } from "../../hackmd/note-ref";
import { noteRefInput, refreshInput, resolutionOutput, teamPathInput } from "./schemas";
import { resolveRef, underNote } from "../../app/notes";
import { workspaceArg } from "../../app/inputs";
import { unresolved } from "./shared";
import { tool } from "./tool";

/** `hackmd_delete_note` (docs/tools.md §9.6): delete a note, or restore a personal one from the trash. */
export const deleteNoteTool = tool({
  name: "hackmd_delete_note",
  title: "Delete or Restore HackMD Note",
  description:
    'Deletes a note (a personal note moves to the trash; a team deletion cannot be undone through the API). With restore: true, brings a personal note back from the trash — pass the internal id from hackmd_list_notes source "trash" (no URL, no team_path, no refresh).',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  input: z
    .object({
      note_ref: noteRefInput,
      team_path: teamPathInput,
      refresh: refreshInput,
      restore: z.boolean().default(false),
    })
    .strict(),
  aliases: { note_id: "note_ref" },
  output: z.union([
    z.object({ team_path: z.string().nullable(), note_id: z.string(), restored: z.boolean() }),
    resolutionOutput,
  ]),
  create: (deps) => async (args, call) => {
    const teamPath = workspaceArg(args.team_path);
    if (args.restore) {
      if (args.refresh) throw invalidInput("refresh does not apply to restore; remove it.");
      if (teamPath !== null)
        throw invalidInput("Only personal notes can be restored through the API; remove team_path.");
      const ref = parseNoteRef(args.note_ref);
      if (ref.kind !== "direct") {
        throw invalidInput(
          'Restoring needs the internal note id, not a scoped URL; take it from hackmd_list_notes with source "trash".',
        );
      }
      await call.beforeChange({ action: "restore_note", note: { teamPath: null, noteId: ref.id } });
      await deps.lists.aroundWrite(() => deps.client.restoreNote(call, { noteId: ref.id }));
      return {
        summary: `Restored note ${ref.id} from the trash.`,
        output: { team_path: null, note_id: ref.id, restored: true },
      };
    }
    const resolution = await resolveRef(deps, call, args.note_ref, { teamPath, refresh: args.refresh });
    if (resolution.status !== "resolved") return unresolved(resolution);
    const address = { teamPath: resolution.teamPath, noteId: resolution.noteId };
    // Not in the middle of a push or an agent's write of the same note.
    await underNote(deps, address, async () => {
      await call.beforeChange({
        action: "delete_note",
        note: { ...address, readTitle: async () => (await deps.client.getNote(call, address)).title },
      });
      await deps.lists.aroundWrite(() => deps.client.deleteNote(call, address));
    });
    return {
      summary: `Deleted note ${resolution.noteId}${resolution.teamPath === null ? " (moved to the trash)" : ""}.`,
      output: { team_path: resolution.teamPath, note_id: resolution.noteId, restored: false },
    };
  },
});
