/** Zod fragments shared by the tool schemas (inputs of docs/tools.md §3.1, outputs of §5.2 and §9). */
import { z } from "zod/v4";

/** `team_path`: flat nullable string; trimmed and checked in the handler (docs/tools.md §3.1). */
export const teamPathInput = z
  .string()
  .nullable()
  .optional()
  .describe("Team path from hackmd_get_me; omit or null for the personal workspace.");

/** Page size 1–100, default 20. */
export const limitInput = z.number().int().min(1).max(100).default(20).describe("Page size (1–100).");

/** Page offset ≥ 0, default 0. */
export const offsetInput = z.number().int().min(0).default(0).describe("Number of matches to skip.");

/** Bypass the account and list caches. */
export const refreshInput = z.boolean().default(false).describe("Bypass the 60-second account and list caches.");

/** A note id or HackMD URL. */
export const noteRefInput = z
  .string()
  .describe("Note id, https://hackmd.io/<id> or https://hackmd.io/@<owner>/<permalink or short id>.");

/** Read/write permission values. */
export const permissionInput = z.enum(["owner", "signed_in", "guest"]);

const permission = z.enum(["owner", "signed_in", "guest"]).nullable();
const commentPermission = z.enum(["disabled", "forbidden", "owners", "signed_in_users", "everyone"]).nullable();

/** The §3.3 shape of a reference that did not resolve to exactly one note. */
export const resolutionOutput = z
  .object({
    resolution: z.object({
      status: z.enum(["not_found", "ambiguous"]),
      query: z.string(),
      candidates: z
        .array(
          z.object({
            team_path: z.string().nullable(),
            note_id: z.string(),
            title: z.string(),
            short_id: z.string().nullable(),
            permalink: z.string().nullable(),
          }),
        )
        .optional(),
    }),
  })
  .strict();

/** The note detail of §5.2, without `mode` and `content`. */
export const noteDetailFields = {
  id: z.string(),
  short_id: z.string().nullable(),
  title: z.string(),
  body_hash: z.string().optional(),
  description: z.string().nullable(),
  tags: z.array(z.string()),
  team_path: z.string().nullable(),
  patch_path: z.string(),
  folder_ids: z.array(z.string()),
  created_at: z.number().int().nullable(),
  last_changed_at: z.number().int().nullable(),
  title_updated_at: z.number().int().optional(),
  tags_updated_at: z.number().int().optional(),
  last_change_user: z
    .object({ name: z.string(), user_path: z.string(), photo: z.string(), biography: z.string() })
    .optional(),
  publish_type: z.enum(["edit", "view", "slide", "book"]).optional(),
  published_at: z.number().int().optional(),
  publish_link: z.string().nullable(),
  permalink: z.string().nullable(),
  user_path: z.string().nullable(),
  read_permission: permission,
  write_permission: permission,
  comment_permission: commentPermission,
  note_url: z.string().optional(),
};

/** Note detail as embedded in other outputs. */
export const noteDetailOutput = z.object(noteDetailFields);

/** A note list item of §5.2. */
export const noteSummaryOutput = z.object({
  id: z.string(),
  note_url: z.string().optional(),
  short_id: z.string().nullable(),
  title: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()),
  team_path: z.string().nullable(),
  created_at: z.number().int().nullable(),
  last_changed_at: z.number().int().nullable(),
  last_visit: z.number().int().optional(),
  publish_link: z.string().nullable(),
  permalink: z.string().nullable(),
  read_permission: permission,
  write_permission: permission,
});

/** A folder of §5.2 (list form). */
export const folderFields = {
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  icon: z.string().nullable(),
  color: z.string().nullable(),
  parent_folder_id: z.string().nullable(),
};

/** A folder with its timestamps (create and update results). */
export const folderWithTimesOutput = z.object({
  ...folderFields,
  created_at: z.number().int().nullable(),
  updated_at: z.number().int().nullable(),
});

/** Paging fields of list outputs. */
export const pageFields = {
  total: z.number().int(),
  count: z.number().int(),
  offset: z.number().int(),
  has_more: z.boolean(),
  next_offset: z.number().int().nullable(),
};
