import { z } from "zod/v4";
import { bodyHash } from "../../core/hash";
import { noteTarget, versionOutput, versionView } from "./history-schemas";
import { resolutionOutput } from "./schemas";
import { resolveRef } from "../../app/notes";
import { idArg, workspaceArg } from "../../app/inputs";
import { getNoteVersion } from "../../app/versions";
import { unresolved } from "./shared";
import { tool } from "./tool";

/** `hackmd_get_version` (docs/versions-and-comments.md): one saved version with its text. */
export const getVersionTool = tool({
  name: "hackmd_get_version",
  title: "Get HackMD Note Version",
  description:
    "Returns one saved version of a note (version_id from hackmd_list_versions) with its full text and body_hash. To bring that text back, replace the note's body with it through hackmd_update_note (content) — HackMD Bridge names the current text as a version first.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: z
    .object({ ...noteTarget, version_id: z.string().describe("The version's id from hackmd_list_versions.") })
    .strict(),
  output: z.union([
    z.object({
      team_path: z.string().nullable(),
      note_id: z.string(),
      version: versionOutput,
      content: z.string().nullable(),
      body_hash: z.string().nullable(),
    }),
    resolutionOutput,
  ]),
  create: (deps) => async (args, call) => {
    const versionId = idArg("version id", args.version_id);
    const resolution = await resolveRef(deps, call, args.note_ref, {
      teamPath: workspaceArg(args.team_path),
      refresh: args.refresh,
    });
    if (resolution.status !== "resolved") return unresolved(resolution);
    const version = await getNoteVersion(deps, call, resolution.noteId, versionId);
    return {
      summary: `Fetched version "${version.name}" of note ${resolution.noteId}.`,
      output: {
        team_path: resolution.teamPath,
        note_id: resolution.noteId,
        version: versionView(version),
        content: version.content,
        body_hash: version.content === null ? null : await bodyHash(version.content),
      },
    };
  },
});
