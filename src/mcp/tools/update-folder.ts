import { z } from "zod/v4";
import { BridgeError, invalidInput, isBridgeError } from "../../core/errors";
import { pollUntil } from "../../hackmd/readback";
import type { Folder, FolderOrder, UpdateFolderRequest } from "../../hackmd/types";
import { folderWithTimesOutput, teamPathInput } from "./schemas";
import { defined, idArg, workspaceArg } from "../../app/inputs";
import { tool } from "./tool";

/** `hackmd_update_folder` (docs/tools.md §9.10): team folder fields and/or a parent's child order. */
export const updateFolderTool = tool({
  name: "hackmd_update_folder",
  title: "Update HackMD Folder",
  description:
    "Changes a team folder's name, description, icon or color (null clears a field; personal folders cannot be changed through the API), and/or sets child_order: the complete new order of folder_id's direct child folders (omit folder_id for the top level; works in personal workspaces too). Folder moves are refused because HackMD ignores them.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  input: z
    .object({
      team_path: teamPathInput,
      folder_id: z
        .string()
        .optional()
        .describe("The folder to change; for child_order, the parent (omit for the top level)."),
      name: z.string().optional(),
      description: z.string().nullable().optional(),
      icon: z.string().nullable().optional(),
      color: z.string().nullable().optional(),
      parent_folder_id: z
        .string()
        .nullable()
        .optional()
        .describe("Always refused: HackMD accepts folder moves but ignores them."),
      child_order: z
        .array(z.string())
        .optional()
        .describe("Complete new order of the parent's direct child folder ids."),
    })
    .strict(),
  aliases: { folder_ids: "child_order" },
  output: z.object({
    team_path: z.string().nullable(),
    folder: folderWithTimesOutput.optional(),
    child_order: z.object({ parent: z.string(), folder_ids: z.array(z.string()) }).optional(),
  }),
  create: (deps) => async (args, call) => {
    const teamPath = workspaceArg(args.team_path);
    if (args.folder_id !== undefined) idArg("folder id", args.folder_id);
    const fields = defined({
      name: args.name,
      description: args.description,
      icon: args.icon,
      color: args.color,
    }) as UpdateFolderRequest;
    const hasFields = Object.keys(fields).length > 0;
    const order = args.child_order;
    if (order !== undefined && args.folder_id === undefined && args.parent_folder_id !== undefined) {
      throw invalidInput(
        "child_order applies to the children of folder_id (omit it for the top level); parent_folder_id would be a move — remove it.",
      );
    }
    if (!hasFields && order === undefined)
      throw invalidInput("Nothing to update: pass a field to change or child_order.");
    if (typeof args.parent_folder_id === "string") idArg("folder id", args.parent_folder_id);
    for (const id of order ?? []) idArg("folder id", id);
    // One pass with a set: indexOf per entry made a long child_order quadratic.
    const seen = new Set<string>();
    const duplicate = order?.find((id) => seen.size === seen.add(id).size);
    if (duplicate !== undefined)
      throw invalidInput(`child_order lists ${duplicate} more than once; list each child folder once.`);
    if (hasFields || args.parent_folder_id !== undefined) {
      if (args.folder_id === undefined) throw invalidInput("Field changes need folder_id: the folder to change.");
      if (args.name !== undefined && args.name.trim() === "")
        throw invalidInput("name cannot be empty; give a new name or leave it out.");
      if (teamPath === null)
        throw invalidInput(
          "HackMD offers field updates for team folders only; personal folders cannot be renamed through the API.",
        );
      if (args.parent_folder_id !== undefined)
        throw invalidInput(
          "Folder moves are refused: HackMD accepts parent_folder_id but ignores it. Move the folder in HackMD's web interface.",
        );
    }

    await call.beforeChange({
      action: "update_folder",
      folder: defined({ teamPath, folderId: args.folder_id }) as { teamPath: string | null; folderId?: string },
      fields: defined({
        name: args.name,
        description: args.description === null ? "(cleared)" : args.description,
        icon: args.icon === null ? "(cleared)" : args.icon,
        color: args.color === null ? "(cleared)" : args.color,
        child_order: order?.join(", "),
      }),
    });
    const output: Record<string, unknown> = { team_path: teamPath };
    if (hasFields && args.folder_id !== undefined && teamPath !== null) {
      const address = { teamPath, folderId: args.folder_id };
      await deps.client.updateFolder(call, { ...address, body: fields });
      const poll = await pollUntil({
        context: call,
        clock: deps.clock,
        sleep: deps.sleep,
        writtenBytes: 0,
        read: (deadlineAt) => deps.client.getFolder(call, { ...address, deadlineAt }),
        matches: (folder) => folder !== null && showsFields(folder, fields),
        subject: `folder ${args.folder_id}`,
      });
      if (!poll.confirmed || poll.last === null) {
        throw new BridgeError(
          "readback",
          `HackMD accepted the change to folder ${args.folder_id}, but reading it back never showed it; read the folder and compare before changing it again.`,
        );
      }
      output.folder = poll.last;
    }
    if (order !== undefined) {
      const parent = args.folder_id ?? "root";
      try {
        await setChildOrder(parent, order);
      } catch (error) {
        if (!output.folder) throw error;
        throw new BridgeError(
          "partial_write",
          `Folder ${args.folder_id ?? ""} was updated, but setting its child order failed (${isBridgeError(error) ? error.message : "unexpected error"}); call again with child_order only.`,
          { cause: error },
        );
      }
      output.child_order = { parent, folder_ids: order };
    }
    const summary = [
      output.folder ? `Updated folder ${args.folder_id ?? ""}` : undefined,
      order !== undefined ? `set folder order for ${args.folder_id ?? "the top level"}` : undefined,
    ]
      .filter(Boolean)
      .join(" and ");
    return { summary: `${summary}.`, output };

    async function setChildOrder(parent: string, ids: string[]): Promise<void> {
      const current = await deps.client.getFolderOrder(call, { teamPath });
      const next: FolderOrder = { ...current };
      if (ids.length === 0) delete next[parent];
      else next[parent] = ids;
      await deps.client.putFolderOrder(call, { teamPath, order: next });
      const poll = await pollUntil({
        context: call,
        clock: deps.clock,
        sleep: deps.sleep,
        writtenBytes: 0,
        read: (deadlineAt) => deps.client.getFolderOrder(call, { teamPath, deadlineAt }),
        matches: (map) => (ids.length === 0 ? map[parent] === undefined : sameList(map[parent], ids)),
        subject: "the folder order",
      });
      if (!poll.confirmed) {
        throw new BridgeError(
          "readback",
          "The folder order was probably overwritten by another client; read it and set it again.",
        );
      }
    }
  },
});

function showsFields(folder: Folder, sent: UpdateFolderRequest): boolean {
  return (Object.keys(sent) as Array<keyof UpdateFolderRequest>).every((key) => folder[key] === sent[key]);
}

function sameList(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a !== undefined && a.length === b.length && a.every((id, index) => id === b[index]);
}
