import { z } from "zod/v4";
import { noteTarget, versionOutput, versionView } from "./history-schemas";
import { resolutionOutput } from "./schemas";
import { resolveRef } from "../../app/notes";
import { workspaceArg } from "../../app/inputs";
import { listNoteVersions } from "../../app/versions";
import { unresolved } from "./shared";
import { tool } from "./tool";

/** `hackmd_list_versions` (docs/versions-and-comments.md): one page of a note's saved versions, newest first. */
export const listVersionsTool = tool({
  name: "hackmd_list_versions",
  title: "List HackMD Note Versions",
  description:
    'Lists the saved versions of a note, newest first: named ones (name_source user, e.g. the "Before push from …" versions HackMD Bridge makes before it overwrites a note) and ones HackMD made by itself (system). Read one with hackmd_get_version; name the current text with hackmd_create_version. A not_found error on a note that exists means this HackMD has no versions API.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: z
    .object({
      ...noteTarget,
      named_only: z.boolean().default(false).describe("Only named versions."),
      query: z.string().optional().describe("Only versions whose name contains this text."),
      page: z.number().int().min(1).default(1).describe("Page number, from 1."),
      limit: z.number().int().min(1).max(100).default(20).describe("Page size (1–100)."),
    })
    .strict(),
  output: z.union([
    z.object({
      team_path: z.string().nullable(),
      note_id: z.string(),
      total: z.number().int(),
      page: z.number().int(),
      total_pages: z.number().int(),
      versions: z.array(versionOutput),
    }),
    resolutionOutput,
  ]),
  create: (deps) => async (args, call) => {
    const resolution = await resolveRef(deps, call, args.note_ref, {
      teamPath: workspaceArg(args.team_path),
      refresh: args.refresh,
    });
    if (resolution.status !== "resolved") return unresolved(resolution);
    const page = await listNoteVersions(deps, call, resolution.noteId, {
      page: args.page,
      limit: args.limit,
      ...(args.named_only ? { namedOnly: true } : {}),
      ...(args.query === undefined ? {} : { q: args.query }),
    });
    return {
      summary: `Listed ${page.versions.length} of ${page.total} versions of note ${resolution.noteId}.`,
      output: {
        team_path: resolution.teamPath,
        note_id: resolution.noteId,
        total: page.total,
        page: page.page,
        total_pages: page.total_pages,
        versions: page.versions.map(versionView),
      },
    };
  },
});
