import { z } from "zod/v4";
import { commentOutput, commentView, noteTarget } from "./history-schemas";
import { resolutionOutput } from "./schemas";
import { resolveRef } from "../../app/notes";
import { idArg, workspaceArg } from "../../app/inputs";
import { unresolved } from "./shared";
import { tool } from "./tool";

/** `hackmd_resolve_comment` (docs/versions-and-comments.md): resolves a thread or comment, or reopens it with `resolved: false`. */
export const resolveCommentTool = tool({
  name: "hackmd_resolve_comment",
  title: "Resolve HackMD Note Comment",
  description:
    "Resolves a comment thread (comment_id of its head, from hackmd_list_comments), which hides it in HackMD; resolved: false reopens it. A reply's id acts on that reply only. A conflict error means it already is in the state asked for.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: z
    .object({
      ...noteTarget,
      comment_id: z.string().describe("The comment's id from hackmd_list_comments."),
      resolved: z.boolean().default(true).describe("true resolves, false reopens."),
    })
    .strict(),
  output: z.union([
    z.object({
      team_path: z.string().nullable(),
      note_id: z.string(),
      comment: commentOutput,
      thread_changed: z.boolean(),
    }),
    resolutionOutput,
  ]),
  create: (deps) => async (args, call) => {
    const commentId = idArg("comment id", args.comment_id);
    const resolution = await resolveRef(deps, call, args.note_ref, {
      teamPath: workspaceArg(args.team_path),
      refresh: args.refresh,
    });
    if (resolution.status !== "resolved") return unresolved(resolution);
    await call.beforeChange({
      action: "resolve_comment",
      note: { teamPath: resolution.teamPath, noteId: resolution.noteId },
      fields: { comment_id: commentId, resolved: args.resolved ? "resolve" : "reopen" },
    });
    const done = await deps.client.setCommentResolved(call, {
      noteId: resolution.noteId,
      commentId,
      resolved: args.resolved,
    });
    return {
      summary: `${args.resolved ? "Resolved" : "Reopened"} ${done.cascade_thread_id === null ? "comment" : "thread"} ${commentId} of note ${resolution.noteId}.`,
      output: {
        team_path: resolution.teamPath,
        note_id: resolution.noteId,
        comment: commentView(done.comment),
        thread_changed: done.cascade_thread_id !== null,
      },
    };
  },
});
