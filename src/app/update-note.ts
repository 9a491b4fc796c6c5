import { z } from "zod/v4";
import { BridgeError, invalidInput } from "../core/errors";
import { bodyHash, utf8Length } from "../core/hash";
import { normalizeLineEndings } from "../core/text";
import type { CallContext } from "../hackmd/call-context";
import type { SafetyVersion } from "../hackmd/safety-version";
import type { NoteDetail, UpdateNoteRequest } from "../hackmd/types";
import { writeBody } from "../hackmd/write-body";
import { applyPatchAsync } from "../patch";
import type { ToolDeps } from "../mcp/tools/tool";
import { noteDetailOutput, noteRefInput, permissionInput, refreshInput, resolutionOutput, teamPathInput } from "../mcp/tools/schemas";
import { resolveRef, underNote } from "./notes";
import { checkPermissions, defined, hashArg, idArg, workspaceArg } from "./inputs";
import { unresolved } from "../mcp/tools/shared";
import { showsPlacement, unshownFields, withoutContent } from "./note-writes";
import { safetyReport } from "../mcp/tools/safety";
import { tool } from "../mcp/tools/tool";

const CHANGING_FIELDS = ["title", "content", "tags", "description", "permalink", "read_permission", "write_permission", "parent_folder_id"] as const;

/** `hackmd_update_note` (TOOLS.md §9.5): patch edits, metadata changes, or a whole-body replacement. */
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
      expected_hash: z.string().optional().describe("body_hash from hackmd_get_note; the update is refused if the note changed since."),
      title: z.string().optional(),
      content: z.string().optional().describe("Replaces the whole body (destructive)."),
      tags: z.array(z.string()).optional(),
      description: z.string().optional(),
      permalink: z.string().optional(),
      read_permission: permissionInput.optional(),
      write_permission: permissionInput.optional(),
      parent_folder_id: z.string().nullable().optional().describe("Folder id to move into, or null for the workspace root."),
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
    z.object({ mode: z.literal("updated"), note: noteDetailOutput, folder_placement_confirmed: z.boolean().nullable() }),
    resolutionOutput,
  ]),
  create: (deps) => async (args, call) => {
    const expected = hashArg("expected_hash", args.expected_hash, "the body_hash from hackmd_get_note");
    const changing = CHANGING_FIELDS.filter((key) => args[key] !== undefined);
    if (args.patch !== undefined && changing.length > 0) {
      throw invalidInput(`patch cannot be combined with ${changing.join(", ")}; send the patch in a call of its own.`);
    }
    if (args.patch === undefined && changing.length === 0) {
      throw invalidInput("Nothing to update: pass a patch, or at least one field to change.");
    }
    checkPermissions(args);
    if (typeof args.parent_folder_id === "string") idArg("folder id", args.parent_folder_id);
    const resolution = await resolveRef(deps, call, args.note_ref, { teamPath: workspaceArg(args.team_path), refresh: args.refresh });
    if (resolution.status !== "resolved") return unresolved(resolution);
    const address = { teamPath: resolution.teamPath, noteId: resolution.noteId };
    // Read, decide and write under the note's key: a push or pull of the same note waits for this, and this for them.
    return underNote(deps, address, async () => {
      if (args.patch !== undefined) {
        const note = await readBody(deps, call, address, expected);
        // Cooperative: a large patch yields between slices, so other sessions are not stalled meanwhile.
        const result = await applyPatchAsync({ body: note.content, patch: args.patch, patchPath: note.patch_path, pause: () => deps.sleep(0) });
        if (result.changed) {
          deps.pending.assertClear(address, note.content);
          await call.beforeChange({ action: "edit_note", note: { ...address, title: note.title }, body: { where: "note", before: note.content, after: result.body } });
          await sendAndConfirm(deps, call, address, result.body, {});
        }
        return {
          summary: result.changed ? `Edited note ${address.noteId}.` : `Note ${address.noteId} is unchanged (the patch changes nothing).`,
          output: {
            mode: "patched",
            team_path: address.teamPath,
            note_id: address.noteId,
            patch_path: note.patch_path,
            changed: result.changed,
            bytes: utf8Length(result.changed ? result.body : note.content),
          },
        };
      }

      const replacement = args.content === undefined ? undefined : normalizeLineEndings(args.content);
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
      const metadata = { tags: args.tags, description: args.description, permalink: args.permalink, read_permission: args.read_permission, write_permission: args.write_permission };
      const fields = defined({
        title: args.title,
        tags: args.tags,
        description: args.description,
        permalink: args.permalink,
        readPermission: args.read_permission,
        writePermission: args.write_permission,
        parentFolderId: args.parent_folder_id,
      });
      const placement = args.parent_folder_id;
      // The text before is read only when the host needs it (a question, the activity history).
      const readCurrent = async (): Promise<NoteDetail & { content: string }> => current ?? (current = await readBody(deps, call, address, undefined));
      await call.beforeChange({
        action: "update_note",
        note: { ...address, ...(current === undefined ? { readTitle: async () => (await readCurrent()).title } : { title: current.title }) },
        ...(replacement === undefined ? {} : { body: { where: "note" as const, ...(current === undefined ? { readBefore: async () => (await readCurrent()).content } : { before: current.content }), after: replacement } }),
        fields: changedFields(args),
      });
      // A body this call has not read is replaced blind: name HackMD's text first (one request),
      // once the host agreed to the change (nothing is written while it asks).
      if (replacement !== undefined && expected === undefined) version = await deps.safety.before(call, address.noteId, "agent update");
      const last = await sendAndConfirm(deps, call, address, content, fields, {
        metadata,
        checkBody: replacement !== undefined,
        placement,
      });
      const report = safetyReport(version);
      return {
        summary: `Updated note ${address.noteId}.${report.sentence}`,
        output: {
          mode: "updated",
          note: withoutContent(last),
          folder_placement_confirmed: placement === undefined ? null : showsPlacement(last, placement),
        },
        ...(report.meta ? { meta: report.meta } : {}),
      };
    });
  },
});

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
async function readBody(deps: ToolDeps, call: CallContext, address: Address, expected: string | undefined): Promise<NoteDetail & { content: string }> {
  const note = await deps.client.getNote(call, address);
  if (note.content === undefined) {
    throw new BridgeError("upstream", `HackMD sent note ${address.noteId} without its body, so nothing was written; retry later.`);
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
  deps: ToolDeps,
  call: CallContext,
  address: Address,
  content: string,
  fields: Omit<UpdateNoteRequest, "content">,
  checks: { metadata?: Parameters<typeof unshownFields>[0]; checkBody?: boolean; placement?: string | null | undefined } = { checkBody: true },
): Promise<NoteDetail> {
  const checkBody = checks.checkBody ?? true;
  const placement = checks.placement;
  return writeBody(deps, call, {
    address,
    content,
    fields,
    shows: (note) => (!checkBody || note.content === content) && (checks.metadata === undefined || unshownFields(checks.metadata, note).length === 0),
    // The folder is waited for too, but a move that never shows is only a flag (§9.5).
    ...(placement === undefined ? {} : { waitsFor: (note: NoteDetail) => showsPlacement(note, placement) }),
    unconfirmed: () =>
      new BridgeError(
        "readback",
        `HackMD accepted the update of note ${address.noteId}, but reading it back never showed the change; get the note and compare before writing again.`,
      ),
  });
}
