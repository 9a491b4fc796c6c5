import { z } from "zod/v4";
import { invalidInput } from "../../core/errors";
import { teamPathInput } from "./schemas";
import { idArg, workspaceArg } from "../../app/inputs";
import { tool } from "./tool";

/** `hackmd_untrack_note` (docs/tools.md §9.14): forgets a sync record; local only, no request. */
export const untrackNoteTool = tool({
  name: "hackmd_untrack_note",
  title: "Untrack HackMD Note",
  description:
    "Forgets the sync record of a tracked note (its baseline and by-path hint too) without touching the Markdown file, a .remote.md snapshot or the note; needs confirm: true. Works after the file was deleted; use it for stale or duplicate records. Afterwards pulling over an edited file needs discard_local_changes: true.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      note_id: z.string().describe("The tracked note's id (see hackmd_list_notes with source: tracked)."),
      team_path: teamPathInput.describe("The record's workspace; omit or null for personal."),
      confirm: z.boolean().default(false).describe("Must be true; the Markdown file is kept."),
    })
    .strict(),
  output: z.object({ team_path: z.string().nullable(), note_id: z.string(), local_path: z.string() }),
  create: (deps) => async (args, call) => {
    const teamPath = workspaceArg(args.team_path);
    if (args.note_id.trim() === "")
      throw invalidInput(
        "note_id is blank; pass the note_id of a tracked note (see hackmd_list_notes with source: tracked).",
      );
    idArg("note id", args.note_id);
    if (args.confirm) await call.beforeChange({ action: "untrack_note", note: { teamPath, noteId: args.note_id } });
    const out = await deps.sync.untrack({ teamPath, noteId: args.note_id, confirm: args.confirm, call });
    return {
      summary: `Stopped tracking note ${out.note_id} (${out.local_path || "no file recorded"} is kept).`,
      output: out,
    };
  },
});
