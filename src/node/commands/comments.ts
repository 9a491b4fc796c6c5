/**
 * `hackmd-bridge comments <path> [--all] [--resolve <id> | --reopen <id>]`: the comment threads of
 * a tracked file's note (one request), or resolve / reopen one thread (one request).
 */
import { UsageError } from "./output";
import { CallContext } from "../../hackmd/call-context";
import { isOpenThread, type NoteComment } from "../../hackmd/versions-comments";
import { flag, text, type CommandContext, type HumanCommand } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { indent, writeJson } from "./output";
import { trackedNote } from "./tracked-note";
import { commandLine } from "./words";

/** The checked arguments of `comments`. */
export interface CommentsArgs {
  path: string;
  all: boolean;
  /** A thread to resolve (true) or reopen (false). */
  change: { commentId: string; resolved: boolean } | undefined;
  json: boolean;
}

function describe(comment: NoteComment): string {
  const where = comment.excerpt === null ? "" : ` on "${comment.excerpt}"`;
  const replies = comment.reply_count
    ? `, ${comment.reply_count} ${comment.reply_count === 1 ? "reply" : "replies"}`
    : "";
  const status = isOpenThread(comment) ? "open" : "resolved";
  return `${comment.author.display_name}${where} (${status}${replies}) — ${comment.id}\n${indent(comment.body)}\n`;
}

/** Lists the threads, or changes one. */
export async function runComments(args: CommentsArgs, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  const { path, found } = await trackedNote(context, args.path, "note comments");
  const noteId = found.record.internal_id;
  if (args.change !== undefined) {
    const done = await core.deps.client.setCommentResolved(new CallContext(), { noteId, ...args.change });
    if (args.json) writeJson(io, { local_path: path, note_id: noteId, comment: done.comment });
    else
      io.out(
        `${args.change.resolved ? "Resolved" : "Reopened"} ${done.cascade_thread_id === null ? "comment" : "thread"} ${args.change.commentId} of ${path}.\n`,
      );
    return EXIT.ok;
  }
  const page = await core.deps.client.listComments(new CallContext(), {
    noteId,
    threadHeadsOnly: true,
    limit: 100,
    ...(args.all ? {} : { threadStatus: "open" }),
  });
  if (args.json) {
    writeJson(io, { local_path: path, note_id: noteId, has_next: page.has_next, comments: page.comments });
    return EXIT.ok;
  }
  if (page.comments.length === 0) {
    io.out(`${path} has no ${args.all ? "" : "open "}comment threads on HackMD.\n`);
    return EXIT.ok;
  }
  for (const comment of page.comments) io.out(describe(comment));
  io.out(
    `${page.comments.length}${page.has_next ? "+" : ""} ${args.all ? "" : "open "}thread${page.comments.length === 1 ? "" : "s"} on ${path}. Resolve one with \`${commandLine("comments", [path], " --resolve <id>")}\`.\n`,
  );
  return EXIT.ok;
}

/** The `comments` subcommand. */
export const commentsCommand: HumanCommand = {
  name: "comments",
  summary: "list the comment threads of a tracked file's note, or resolve or reopen one",
  synopsis: "<path> [--all] [--resolve <id> | --reopen <id>] [options]",
  description: [
    "Lists the note's open comment threads on HackMD (--all: resolved ones too), each with its",
    "author, the text it is anchored to and its id. --resolve and --reopen change one thread.",
    "One request either way; the file is not touched.",
  ].join("\n"),
  positionals: { required: ["path"] },
  options: {
    all: { type: "boolean", help: "resolved threads too" },
    resolve: { type: "string", value: "<id>", help: "resolve this thread" },
    reopen: { type: "string", value: "<id>", help: "reopen this resolved thread" },
  },
  shared: ["root", "json"],
  exitCodes: {
    0: "listed or changed",
    1: "the file is not tracked, or the thread already is in that state",
    2: "usage error, or trouble (no comments API, token, network)",
  },
  examples: ["hackmd-bridge comments notes/plan.md", "hackmd-bridge comments notes/plan.md --resolve 7d1e…"],
  parse: ({ values, positionals: given }) => {
    const resolve = text(values, "resolve");
    const reopen = text(values, "reopen");
    if (resolve !== undefined && reopen !== undefined) throw new UsageError("--resolve and --reopen go one at a time");
    const change =
      resolve !== undefined
        ? { commentId: resolve, resolved: true }
        : reopen !== undefined
          ? { commentId: reopen, resolved: false }
          : undefined;
    const args: CommentsArgs = { path: given[0] ?? "", all: flag(values, "all"), change, json: flag(values, "json") };
    return { json: args.json, run: (context) => runComments(args, context) };
  },
};
