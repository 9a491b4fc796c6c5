/** Zod fragments of the versions and comments tools (docs/tool-contract-extensions.md, docs/versions-and-comments.md). */
import { z } from "zod/v4";
import type { NoteComment, NoteVersion } from "../../hackmd/versions-comments";
import { noteRefInput, refreshInput, teamPathInput } from "./schemas";

/** The note a versions or comments tool works on. */
export const noteTarget = {
  note_ref: noteRefInput,
  team_path: teamPathInput,
  refresh: refreshInput,
};

const user = z.object({ user_id: z.string().nullable(), display_name: z.string() });

/** A version's metadata as the tools return it. */
export const versionOutput = z.object({
  id: z.string(),
  name: z.string(),
  name_source: z.enum(["user", "system"]),
  description: z.string().nullable(),
  created_at: z.string(),
  created_by: user.nullable(),
  content_available: z.boolean(),
});

/** A version without the reader's epoch-ms helper field. */
export function versionView(version: NoteVersion): z.output<typeof versionOutput> {
  return {
    id: version.id,
    name: version.name,
    name_source: version.name_source,
    description: version.description,
    created_at: version.created_at,
    created_by: version.created_by,
    content_available: version.content_available,
  };
}

const state = z.object({ status: z.enum(["open", "hidden"]), reason: z.string().nullable() });

/** A comment as the tools return it. */
export const commentOutput = z.object({
  id: z.string(),
  thread_id: z.string(),
  is_thread_head: z.boolean(),
  author: user,
  body: z.string(),
  excerpt: z.string().nullable(),
  created_at: z.number().int().nullable(),
  state,
  thread_state: state.nullable(),
  reply_count: z.number().int().nullable(),
});

/** A comment as the tools return it (the reader's shape, field for field). */
export function commentView(comment: NoteComment): z.output<typeof commentOutput> {
  return { ...comment };
}
