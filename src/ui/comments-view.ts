/**
 * The "Comments" view: the comment threads of a tracked file's note on HackMD — who wrote what,
 * on which text (the excerpt), how many replies — with resolve / reopen and a link to the note in
 * HackMD. It fetches only when opened or asked (TrackedFileView; "Show resolved" asks too), and
 * records the open threads for the status bar.
 */
import type { WorkspaceLeaf } from "obsidian";
import { isOpenThread } from "../hackmd/comment-thread";
import type { NoteComment } from "../hackmd/versions-comments";
import type { NoteHistory } from "../obsidian/note-history";
import { showError, showInfo } from "../obsidian/notices";
import { TrackedFileView } from "./tracked-file-view";

/** The view type id of the comments. */
export const COMMENTS_VIEW_TYPE = "hackmd-bridge-comments";

/** A side-panel list of a tracked file's comment threads. */
export class CommentsView extends TrackedFileView {
  protected readonly words = {
    what: "comments",
    noFile: "Open a file that is linked to a HackMD note to see its comments.",
    loading: "Loading the comments from HackMD…",
    failed: "The comments could not be loaded. Refresh to try again.",
  };
  private noteId: string | undefined;
  private threads: NoteComment[] = [];
  private more = false;
  private includeResolved = false;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly history: NoteHistory,
  ) {
    super(leaf);
  }

  override getViewType(): string {
    return COMMENTS_VIEW_TYPE;
  }

  override getDisplayText(): string {
    return "Comments";
  }

  override getIcon(): string {
    return "message-square";
  }

  protected isTracked(path: string): Promise<boolean> {
    return this.history.isTracked(path);
  }

  protected async fetch(path: string): Promise<void> {
    const found = await this.history.threads(path, this.includeResolved);
    this.noteId = found.noteId;
    this.threads = found.threads;
    this.more = found.more;
  }

  protected clear(): void {
    this.threads = [];
  }

  protected headerButtons(buttons: HTMLElement): void {
    const toggle = buttons.createEl("button", { text: this.includeResolved ? "Hide resolved" : "Show resolved" });
    toggle.dataset.action = "toggle-resolved";
    toggle.addEventListener("click", () => {
      this.includeResolved = !this.includeResolved;
      void this.show(this.path);
    });
    const noteId = this.noteId;
    if (noteId !== undefined && this.state === "loaded") {
      buttons.createEl("button", { text: "Open in browser" }).addEventListener("click", () => {
        if (!this.history.openInHackmd(noteId))
          showInfo("Links need the default HackMD API URL; open the note from your HackMD server instead.");
      });
    }
  }

  protected renderLoaded(root: HTMLElement, path: string): void {
    const open = this.threads.filter(isOpenThread).length;
    root.createEl("p", {
      cls: "hackmd-bridge-comments-count",
      text:
        open === 0
          ? "No open threads."
          : `${open} open ${open === 1 ? "thread" : "threads"}${this.more ? " (more in HackMD)" : ""}.`,
    });
    const list = root.createEl("ul", { cls: "hackmd-bridge-comments-list" });
    for (const thread of this.threads) this.renderThread(list, path, thread);
  }

  private renderThread(list: HTMLElement, path: string, thread: NoteComment): void {
    const open = isOpenThread(thread);
    const item = list.createEl("li", { cls: open ? "hackmd-bridge-comment-open" : "hackmd-bridge-comment-resolved" });
    item.dataset.commentId = thread.id;
    const meta = [
      thread.author.display_name,
      thread.created_at === null ? undefined : new Date(thread.created_at).toLocaleString(),
      open ? undefined : "resolved",
    ];
    item.createDiv({ cls: "hackmd-bridge-comment-meta", text: meta.filter((part) => part !== undefined).join(" · ") });
    if (thread.excerpt !== null && thread.excerpt !== "")
      item.createEl("blockquote", { cls: "hackmd-bridge-comment-excerpt", text: thread.excerpt });
    item.createDiv({ cls: "hackmd-bridge-comment-body", text: thread.body });
    if (thread.reply_count !== null && thread.reply_count > 0) {
      item.createDiv({
        cls: "hackmd-bridge-muted",
        text: `${thread.reply_count} ${thread.reply_count === 1 ? "reply" : "replies"} in HackMD`,
      });
    }
    const button = item.createEl("button", { text: open ? "Resolve" : "Reopen" });
    button.dataset.action = open ? "resolve" : "reopen";
    button.addEventListener("click", () => {
      void this.history
        .setResolved(path, thread, open)
        .then(() => this.show(path))
        .catch((error: unknown) => showError(error, { operation: "check" }));
    });
  }
}
