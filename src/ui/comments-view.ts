/**
 * The "Comments" view: the comment threads of a tracked file's note on HackMD — who wrote what,
 * on which text (the excerpt), how many replies — with resolve / reopen and a link to the note in
 * HackMD. It fetches only when opened or asked (Refresh, "Show resolved", or "Show comments of
 * <file>" after switching files), and records the open threads for the status bar.
 */
import { ItemView, type WorkspaceLeaf } from "obsidian";
import { isOpenThread, type NoteComment } from "../hackmd/versions-comments";
import type { NoteHistory } from "../obsidian/note-history";
import { showError, showInfo } from "../obsidian/notices";

/** The view type id of the comments. */
export const COMMENTS_VIEW_TYPE = "hackmd-bridge-comments";

/** A side-panel list of a tracked file's comment threads. */
export class CommentsView extends ItemView {
  private path: string | undefined;
  private noteId: string | undefined;
  private threads: NoteComment[] = [];
  private more = false;
  private includeResolved = false;
  private state: "idle" | "loading" | "loaded" | "failed" = "idle";

  constructor(leaf: WorkspaceLeaf, private readonly history: NoteHistory) {
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

  override async onOpen(): Promise<void> {
    this.registerEvent(this.app.workspace.on("file-open", () => this.render()));
    await this.show(this.activePath());
  }

  /** Fetches and shows the threads of `path` (the active file by default). */
  async show(path = this.activePath()): Promise<void> {
    this.path = path;
    this.threads = [];
    if (path === undefined || !(await this.history.isTracked(path))) {
      this.state = "idle";
      this.render();
      return;
    }
    this.state = "loading";
    this.render();
    try {
      const found = await this.history.threads(path, this.includeResolved);
      this.noteId = found.noteId;
      this.threads = found.threads;
      this.more = found.more;
      this.state = "loaded";
    } catch (error) {
      this.state = "failed";
      showError(error, { operation: "check" });
    }
    this.render();
  }

  /** Redraws the panel from what was fetched (no request). */
  render(): void {
    const root = this.contentEl;
    root.empty();
    root.addClass("hackmd-bridge-comments");
    const active = this.activePath();
    const head = root.createDiv({ cls: "hackmd-bridge-comments-head" });
    if (this.path === undefined) {
      head.createEl("p", { cls: "hackmd-bridge-muted", text: "Open a file that is linked to a HackMD note to see its comments." });
      return;
    }
    head.createEl("h4", { text: this.path });
    const buttons = head.createDiv({ cls: "hackmd-bridge-comments-buttons" });
    buttons.createEl("button", { text: "Refresh" }).addEventListener("click", () => void this.show(this.path));
    const toggle = buttons.createEl("button", { text: this.includeResolved ? "Hide resolved" : "Show resolved" });
    toggle.dataset.action = "toggle-resolved";
    toggle.addEventListener("click", () => {
      this.includeResolved = !this.includeResolved;
      void this.show(this.path);
    });
    if (this.noteId !== undefined && this.state === "loaded") {
      const noteId = this.noteId;
      buttons.createEl("button", { text: "Open in HackMD" }).addEventListener("click", () => {
        if (!this.history.openInHackmd(noteId)) showInfo("Links need the default HackMD API URL; open the note from your HackMD server instead.");
      });
    }
    if (active !== undefined && active !== this.path) {
      buttons.createEl("button", { text: `Show comments of ${active}` }).addEventListener("click", () => void this.show(active));
    }
    if (this.state === "idle") {
      root.createEl("p", { cls: "hackmd-bridge-muted", text: `${this.path} is not linked to a HackMD note, so it has no comments there.` });
      return;
    }
    if (this.state === "loading") {
      root.createEl("p", { cls: "hackmd-bridge-muted", text: "Loading the comments from HackMD…" });
      return;
    }
    if (this.state === "failed") {
      root.createEl("p", { cls: "hackmd-bridge-muted", text: "The comments could not be loaded. Refresh to try again." });
      return;
    }
    const open = this.threads.filter(isOpenThread).length;
    root.createEl("p", { cls: "hackmd-bridge-comments-count", text: open === 0 ? "No open threads." : `${open} open ${open === 1 ? "thread" : "threads"}${this.more ? " (more in HackMD)" : ""}.` });
    const list = root.createEl("ul", { cls: "hackmd-bridge-comments-list" });
    for (const thread of this.threads) this.renderThread(list, thread);
  }

  private renderThread(list: HTMLElement, thread: NoteComment): void {
    const path = this.path;
    if (path === undefined) return;
    const open = isOpenThread(thread);
    const item = list.createEl("li", { cls: open ? "hackmd-bridge-comment-open" : "hackmd-bridge-comment-resolved" });
    item.dataset.commentId = thread.id;
    const meta = [thread.author.display_name, thread.created_at === null ? undefined : new Date(thread.created_at).toLocaleString(), open ? undefined : "resolved"];
    item.createDiv({ cls: "hackmd-bridge-comment-meta", text: meta.filter((part) => part !== undefined).join(" · ") });
    if (thread.excerpt !== null && thread.excerpt !== "") item.createEl("blockquote", { cls: "hackmd-bridge-comment-excerpt", text: thread.excerpt });
    item.createDiv({ cls: "hackmd-bridge-comment-body", text: thread.body });
    if (thread.reply_count !== null && thread.reply_count > 0) {
      item.createDiv({ cls: "hackmd-bridge-muted", text: `${thread.reply_count} ${thread.reply_count === 1 ? "reply" : "replies"} in HackMD` });
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

  private activePath(): string | undefined {
    const file = this.app.workspace.getActiveFile();
    return file !== null && file.extension === "md" ? file.path : undefined;
  }
}
