import { z } from "zod/v4";
import { invalidInput } from "../../core/errors";
import { noteTarget } from "./history-schemas";
import { resolutionOutput } from "./schemas";
import { resolveRef } from "../../app/notes";
import { workspaceArg } from "../../app/inputs";
import { nameNoteVersion } from "../../app/versions";
import { unresolved } from "./shared";
import { tool } from "./tool";

/** `hackmd_create_version` (docs/versions-and-comments.md): names the note's current text as a version. */
export const createVersionTool = tool({
  name: "hackmd_create_version",
  title: "Create HackMD Note Version",
  description:
    "Saves the note's current text as a named version (a checkpoint the user can return to), e.g. before a large rewrite. When the newest named version already holds exactly this text, nothing new is made and that version is returned with reused: true. A readback error means HackMD may have saved it: list the versions before trying again.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: z
    .object({
      ...noteTarget,
      name: z.string().describe("1–80 characters, not only blanks."),
      description: z.string().optional().describe("Up to 500 characters."),
    })
    .strict(),
  output: z.union([
    z.object({
      team_path: z.string().nullable(),
      note_id: z.string(),
      version_id: z.string(),
      name: z.string(),
      reused: z.boolean(),
    }),
    resolutionOutput,
  ]),
  create: (deps) => async (args, call) => {
    if (args.name.length < 1 || args.name.length > 80 || args.name.trim() === "") {
      throw invalidInput(
        'name must be 1 to 80 characters and not only blanks; pass a short name such as "Before the rewrite".',
      );
    }
    if (args.description !== undefined && args.description.length > 500) {
      throw invalidInput("description may hold at most 500 characters; shorten it.");
    }
    const resolution = await resolveRef(deps, call, args.note_ref, {
      teamPath: workspaceArg(args.team_path),
      refresh: args.refresh,
    });
    if (resolution.status !== "resolved") return unresolved(resolution);
    const made = await nameNoteVersion(
      deps,
      call,
      { teamPath: resolution.teamPath, noteId: resolution.noteId },
      { name: args.name, description: args.description },
    );
    const name = made.version?.name ?? args.name;
    return {
      summary: made.reused
        ? `Note ${resolution.noteId} is unchanged since its newest named version ${made.id}; nothing new was saved.`
        : `Saved the text of note ${resolution.noteId} as version "${name}" (${made.id}).`,
      output: {
        team_path: resolution.teamPath,
        note_id: resolution.noteId,
        version_id: made.id,
        name: made.reused ? "" : name,
        reused: made.reused,
      },
    };
  },
});
