import { z } from "zod/v4";
import { BridgeError, isBridgeError } from "../../core/errors";
import { utf8Length } from "../../core/hash";
import { normalizeLineEndings } from "../../core/text";
import { pollUntil } from "../../hackmd/readback";
import type { CreateNoteRequest, NoteDetail } from "../../hackmd/types";
import { noteDetailOutput, permissionInput, teamPathInput } from "./schemas";
import { ensureTeamMember } from "../../app/notes";
import { checkPermissions, defined, idArg, workspaceArg } from "../../app/inputs";
import { workspaceName } from "./shared";
import { showsPlacement, unshownFields, withoutContent } from "../../app/note-writes";
import { tool } from "./tool";

/** `hackmd_create_note` (docs/tools.md §9.4). */
export const createNoteTool = tool({
  name: "hackmd_create_note",
  title: "Create HackMD Note",
  description:
    "Creates a note in the personal workspace or a team and returns its metadata and patch_path (not the body). Pass title explicitly (a note created without one takes it from front matter or the first H1); pass read_permission whenever access matters. comment_permission and suggest_edit_permission cannot be set through the API. Never retried: if the result is a readback error, list notes before creating again. Fix unconfirmed_fields with hackmd_update_note, never by creating again.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: z
    .object({
      team_path: teamPathInput,
      title: z.string().optional(),
      content: z.string().optional().describe("Full Markdown body; line endings are normalised to \\n."),
      tags: z.array(z.string()).optional(),
      description: z.string().optional(),
      permalink: z.string().optional().describe("Custom slug, unique per account or team."),
      read_permission: permissionInput.optional(),
      write_permission: permissionInput.optional().describe("Not more permissive than read_permission."),
      comment_permission: z.string().optional().describe("Not settable through the API; any value is refused."),
      suggest_edit_permission: z.string().optional().describe("Not settable through the API; any value is refused."),
      parent_folder_id: z.string().optional().describe("Place the note in this folder."),
      note_features: z.record(z.string(), z.unknown()).optional(),
      origin: z.string().optional(),
    })
    .strict(),
  output: z.object({
    note: noteDetailOutput,
    folder_placement_requested: z.boolean(),
    folder_placement_confirmed: z.boolean(),
    compatibility_patch_applied: z.boolean(),
    unconfirmed_fields: z.array(z.string()),
  }),
  create: (deps) => async (args, call) => {
    checkPermissions(args);
    const teamPath = workspaceArg(args.team_path);
    if (args.parent_folder_id !== undefined) idArg("folder id", args.parent_folder_id);
    await ensureTeamMember(deps, call, teamPath);
    const content = args.content === undefined ? undefined : normalizeLineEndings(args.content);
    const body = defined({
      title: args.title,
      content,
      tags: args.tags,
      description: args.description,
      readPermission: args.read_permission,
      writePermission: args.write_permission,
      permalink: args.permalink,
      parentFolderId: args.parent_folder_id,
      noteFeatures: args.note_features,
      origin: args.origin,
    }) as CreateNoteRequest;
    await call.beforeChange({
      action: "create_note",
      body: { where: "note", before: "", after: content ?? "" },
      fields: defined({
        workspace: workspaceName(teamPath),
        title: args.title,
        tags: args.tags?.join(", "),
        description: args.description,
        read_permission: args.read_permission,
        write_permission: args.write_permission,
        permalink: args.permalink,
        parent_folder_id: args.parent_folder_id,
      }),
    });
    const created = await deps.lists.aroundWrite(() => deps.client.createNote(call, { teamPath, body }));
    let latest: NoteDetail = created.note;
    let confirmed = false;
    let patched = false;
    const folderId = args.parent_folder_id;
    if (folderId !== undefined) {
      const noteId = created.note.id;
      try {
        latest = await deps.client.getNote(call, { teamPath, noteId });
        confirmed = showsPlacement(latest, folderId);
        // A read this early can show a stale empty body, so the body this call sent wins.
        const resend = content ?? latest.content;
        if (!confirmed && resend !== undefined) {
          patched = true;
          await deps.lists.aroundWrite(() =>
            deps.client.updateNote(call, { teamPath, noteId, body: { content: resend, parentFolderId: folderId } }),
          );
          const poll = await pollUntil({
            context: call,
            clock: deps.clock,
            sleep: deps.sleep,
            writtenBytes: utf8Length(resend),
            read: (deadlineAt) => deps.client.getNote(call, { teamPath, noteId, deadlineAt }),
            matches: (note) => showsPlacement(note, folderId),
            subject: `note ${noteId}`,
          });
          latest = poll.last;
          confirmed = poll.confirmed;
          if (confirmed) deps.lists.invalidate();
        }
      } catch (error) {
        throw new BridgeError(
          "partial_write",
          `Note ${noteId} was created in ${workspaceName(teamPath)}, but placing it in folder ${folderId} failed (${isBridgeError(error) ? error.message : "unexpected error"}). Do not create it again; set the folder with hackmd_update_note parent_folder_id.`,
          { cause: error, details: { note_id: noteId } },
        );
      }
    }
    const output = {
      note: withoutContent(latest),
      folder_placement_requested: folderId !== undefined,
      folder_placement_confirmed: confirmed,
      compatibility_patch_applied: patched,
      unconfirmed_fields: unshownFields(args, latest),
    };
    return {
      summary: `Created note ${latest.id} (${latest.title || "untitled"}) in ${workspaceName(teamPath)}.`,
      output,
    };
  },
});
