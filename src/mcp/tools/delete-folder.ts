import { z } from "zod/v4";
import { BridgeError } from "../../core/errors";
import { teamPathInput } from "./schemas";
import { idArg, workspaceArg } from "../../app/inputs";
import { workspaceName } from "./shared";
import { tool } from "./tool";

/** `hackmd_delete_folder` (docs/tools.md §9.11): deletes a folder; child folders need confirmation. */
export const deleteFolderTool = tool({
  name: "hackmd_delete_folder",
  title: "Delete HackMD Folder",
  description:
    "Deletes a folder. If it has child folders, nothing is deleted until you call again with confirm: true (the result says confirmation_required and child_count). Notes inside are not counted.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  input: z.object({ folder_id: z.string(), team_path: teamPathInput, confirm: z.boolean().default(false) }).strict(),
  output: z.object({
    team_path: z.string().nullable(),
    folder_id: z.string(),
    deleted: z.boolean(),
    child_count: z.number().int(),
    confirmation_required: z.boolean(),
  }),
  create: (deps) => async (args, call) => {
    const teamPath = workspaceArg(args.team_path);
    idArg("folder id", args.folder_id);
    const folders = await deps.client.listFolders(call, { teamPath });
    if (!folders.some((folder) => folder.id === args.folder_id)) {
      throw new BridgeError(
        "not_found",
        `There is no folder ${args.folder_id} in ${workspaceName(teamPath)}; list the folders with hackmd_list_folders.`,
      );
    }
    const childCount = folders.filter((folder) => folder.parent_folder_id === args.folder_id).length;
    const base = { team_path: teamPath, folder_id: args.folder_id, child_count: childCount };
    if (childCount > 0 && !args.confirm) {
      return {
        summary: `Folder ${args.folder_id} has ${childCount} child folder${childCount === 1 ? "" : "s"}; confirm to delete.`,
        output: { ...base, deleted: false, confirmation_required: true },
      };
    }
    const name = folders.find((folder) => folder.id === args.folder_id)?.name;
    await call.beforeChange({
      action: "delete_folder",
      folder: { teamPath, folderId: args.folder_id, ...(name === undefined ? {} : { name }) },
      fields: { child_folders: String(childCount) },
    });
    await deps.lists.aroundWrite(() => deps.client.deleteFolder(call, { teamPath, folderId: args.folder_id }));
    return {
      summary: `Deleted folder ${args.folder_id}.`,
      output: { ...base, deleted: true, confirmation_required: false },
    };
  },
});
