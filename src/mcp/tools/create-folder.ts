import { z } from "zod/v4";
import { invalidInput } from "../../core/errors";
import { folderWithTimesOutput, teamPathInput } from "./schemas";
import { ensureTeamMember } from "../../app/notes";
import { defined, idArg, workspaceArg } from "../../app/inputs";
import { workspaceName } from "./shared";
import { tool } from "./tool";

/** `hackmd_create_folder` (docs/tools.md §9.9). */
export const createFolderTool = tool({
  name: "hackmd_create_folder",
  title: "Create HackMD Folder",
  description:
    "Creates a folder in the personal workspace or a team, at the top level or inside parent_folder_id. Not retried and not read back: if the reply is lost, list folders before creating again.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: z
    .object({
      name: z.string().describe("Folder name (required, not blank)."),
      team_path: teamPathInput,
      description: z.string().optional(),
      icon: z.string().optional().describe("Emoji code point, e.g. 1F600."),
      color: z.string().optional().describe("Hex colour, e.g. #4F46E5."),
      parent_folder_id: z.string().nullable().optional().describe("Parent folder id; omit or null for the top level."),
    })
    .strict(),
  output: z.object({ team_path: z.string().nullable(), folder: folderWithTimesOutput }),
  create: (deps) => async (args, call) => {
    if (args.name.trim() === "") throw invalidInput("name is blank; give the folder a name.");
    const teamPath = workspaceArg(args.team_path);
    if (typeof args.parent_folder_id === "string") idArg("folder id", args.parent_folder_id);
    await ensureTeamMember(deps, call, teamPath);
    await call.beforeChange({
      action: "create_folder",
      folder: { teamPath, name: args.name },
      fields: defined({
        description: args.description,
        icon: args.icon,
        color: args.color,
        parent_folder_id: args.parent_folder_id ?? undefined,
      }),
    });
    const folder = await deps.client.createFolder(call, {
      teamPath,
      body: defined({
        name: args.name,
        description: args.description,
        icon: args.icon,
        color: args.color,
        parentFolderId: args.parent_folder_id ?? undefined,
      }) as { name: string },
    });
    return {
      summary: `Created folder ${folder.name} (${folder.id}) in ${workspaceName(teamPath)}.`,
      output: { team_path: teamPath, folder },
    };
  },
});
