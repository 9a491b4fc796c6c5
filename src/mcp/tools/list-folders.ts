import { z } from "zod/v4";
import { tool } from "./tool";
import { folderFields, limitInput, offsetInput, pageFields, teamPathInput } from "./schemas";
import { workspaceArg } from "../../app/inputs";
import { page, workspaceName } from "./shared";

/** `hackmd_list_folders` (docs/tools.md §9.8): one page of a workspace's folders, never cached. */
export const listFoldersTool = tool({
  name: "hackmd_list_folders",
  title: "List HackMD Folders",
  description:
    "Lists the folders of the personal workspace or a team (flat; parent_folder_id gives the tree), in HackMD's order, one page at a time. Use a folder id as parent_folder_id when creating or moving notes.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: z.object({ team_path: teamPathInput, limit: limitInput, offset: offsetInput }).strict(),
  output: z.object({ team_path: z.string().nullable(), ...pageFields, folders: z.array(z.object(folderFields)) }),
  create: (deps) => async (args, call) => {
    const { limit, offset } = args;
    const teamPath = workspaceArg(args.team_path);
    const folders = await deps.client.listFolders(call, { teamPath });
    const { slice, paging } = page(folders, offset, limit);
    return {
      summary: `Listed ${paging.count} of ${paging.total} folders in ${workspaceName(teamPath)}.`,
      output: {
        team_path: teamPath,
        ...paging,
        folders: slice.map((folder) => ({
          id: folder.id,
          name: folder.name,
          description: folder.description,
          icon: folder.icon,
          color: folder.color,
          parent_folder_id: folder.parent_folder_id,
        })),
      },
    };
  },
});
