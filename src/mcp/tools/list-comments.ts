import { z } from "zod/v4";
import { commentOutput, commentView, noteTarget } from "./history-schemas";
import { resolutionOutput } from "./schemas";
import { resolveRef } from "../../app/notes";
import { workspaceArg } from "../../app/inputs";
import { unresolved } from "./shared";
import { tool } from "./tool";

/** `hackmd_list_comments` (docs/versions-and-comments.md): one page of a note's comment threads (or all comments). */
export const listCommentsTool = tool({
  name: "hackmd_list_comments",
  title: "List HackMD Note Comments",
  description:
    "Lists the comments of a note, oldest first: by default the heads of open threads, each with its excerpt (the text it is anchored to), author and reply_count. status resolved or all widens the list; threads_only: false also lists replies. Resolve or reopen a thread with hackmd_resolve_comment and the head's id.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: z
    .object({
      ...noteTarget,
      status: z.enum(["open", "resolved", "all"]).default("open").describe("Threads that are open, resolved, or all."),
      threads_only: z.boolean().default(true).describe("Only thread heads (false: replies too)."),
      page: z.number().int().min(1).default(1).describe("Page number, from 1."),
      limit: z.number().int().min(1).max(100).default(20).describe("Page size (1–100)."),
    })
    .strict(),
  output: z.union([
    z.object({
      team_path: z.string().nullable(),
      note_id: z.string(),
      page: z.number().int(),
      has_next: z.boolean(),
      comments: z.array(commentOutput),
    }),
    resolutionOutput,
  ]),
  create: (deps) => async (args, call) => {
    const resolution = await resolveRef(deps, call, args.note_ref, {
      teamPath: workspaceArg(args.team_path),
      refresh: args.refresh,
    });
    if (resolution.status !== "resolved") return unresolved(resolution);
    const page = await deps.client.listComments(call, {
      noteId: resolution.noteId,
      page: args.page,
      limit: args.limit,
      ...(args.status === "all" ? {} : { threadStatus: args.status === "open" ? "open" : "hidden" }),
      ...(args.threads_only ? { threadHeadsOnly: true } : {}),
    });
    return {
      summary: `Listed ${page.comments.length} ${args.threads_only ? "threads" : "comments"} of note ${resolution.noteId}${page.has_next ? " (more on the next page)" : ""}.`,
      output: {
        team_path: resolution.teamPath,
        note_id: resolution.noteId,
        page: page.page,
        has_next: page.has_next,
        comments: page.comments.map(commentView),
      },
    };
  },
});
