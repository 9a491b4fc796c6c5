import type { NoteComment } from "./versions-comments";

/** Whether a thread is open: its thread state, else the comment's own. */
export function isOpenThread(comment: NoteComment): boolean {
  return (comment.thread_state ?? comment.state).status === "open";
}
