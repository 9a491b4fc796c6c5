import { z } from "zod/v4";
import { invalidInput } from "../../core/errors";
import { noteDetailFields, noteRefInput, refreshInput, resolutionOutput, teamPathInput } from "./schemas";
import { resolveRef } from "../../app/notes";
import { workspaceArg } from "../../app/inputs";
import { unresolved } from "./shared";
import { tool } from "./tool";

const syncOutput = z.object({
  mode: z.literal("sync"),
  status: z.enum(["in_sync", "local_changed", "remote_changed", "conflict"]),
  local_path: z.string(),
  baseline_path: z.string(),
  note_id: z.string(),
  remote_timestamp: z.string(),
  baseline_body_hash: z.string(),
  local_body_hash: z.string(),
  remote_body_hash: z.string(),
});

/** `hackmd_get_note` (docs/tools.md §9.3): one note with its body, or a tracked file's sync state. */
export const getNoteTool = tool({
  name: "hackmd_get_note",
  title: "Get HackMD Note",
  description:
    "Pass exactly one of note_ref or local_path. With note_ref (a note id or HackMD URL; team_path names the workspace of a bare id): returns the note's full body, metadata, folder_ids, patch_path (the target for hackmd_update_note patches) and body_hash (pass it as expected_hash). With local_path (a tracked Markdown file): returns how it stands against its baseline and the note — in_sync, local_changed (push), remote_changed (pull with overwrite_local) or conflict.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: z
    .object({
      note_ref: noteRefInput.optional(),
      local_path: z
        .string()
        .optional()
        .describe("A tracked Markdown file under the root (root-relative or absolute inside it)."),
      team_path: teamPathInput,
      refresh: refreshInput,
    })
    .strict(),
  output: z.union([
    z.object({ mode: z.literal("note"), ...noteDetailFields, content: z.string().optional() }),
    syncOutput,
    resolutionOutput,
  ]),
  create: (deps) => async (args, call) => {
    if ((args.note_ref === undefined) === (args.local_path === undefined)) {
      throw invalidInput("Pass exactly one of note_ref (a note) or local_path (a tracked file's sync state).");
    }
    if (args.local_path !== undefined) {
      if (args.team_path !== undefined || args.refresh) {
        throw invalidInput(
          "team_path and refresh do not apply with local_path: the sync record names the note and its workspace; remove them.",
        );
      }
      const state = await deps.sync.check({ localPath: args.local_path, call });
      return { summary: `Sync state of note ${state.note_id}: ${state.status}.`, output: { mode: "sync", ...state } };
    }
    const resolution = await resolveRef(deps, call, args.note_ref ?? "", {
      teamPath: workspaceArg(args.team_path),
      refresh: args.refresh,
    });
    if (resolution.status !== "resolved") return unresolved(resolution);
    const note = await deps.client.getNote(call, { teamPath: resolution.teamPath, noteId: resolution.noteId });
    return { summary: `Fetched note ${note.id} (${note.title || "untitled"}).`, output: { mode: "note", ...note } };
  },
});
