/**
 * The "Note history" view: the saved versions of a tracked file's note on HackMD, newest first,
 * each with its name, time and author, and four actions — view it, compare it with the file,
 * compare it with the next newer version (both in the merge editor's diff tab), restore it into
 * the file as an unpushed change. It fetches only when opened or when the user asks (Refresh, or
 * "Show history of <file>" after switching files): no request at load, none per keystroke.
 */
import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { HistoryEntry, NoteHistory } from "../obsidian/note-history";
import { showError, showInfo } from "../obsidian/notices";

/** The view type id of the note history. */
export const HISTORY_VIEW_TYPE = "hackmd-bridge-history";

/** A side-panel list of a tracked file's versions. */
export class NoteHistoryView extends ItemView {
  /** The file whose history is shown (or was asked for last). */
  private path: string | undefined;
  private entries: HistoryEntry[] = [];
  private total = 0;
  private state: "idle" | "loading" | "loaded" | "failed" = "idle";

  constructor(leaf: WorkspaceLeaf, private readonly history: NoteHistory) {
    super(leaf);
  }

  override getViewType(): string {
    return HISTORY_VIEW_TYPE;
  }

  override getDisplayText(): string {
    return "Note history";
  }

  override getIcon(): string {
    return "history";
  }

  override async onOpen(): Promise<void> {
    // Another file becoming active only offers its history; fetching waits for the user.
    this.registerEvent(this.app.workspace.on("file-open", () => this.render()));
    await this.show(this.activePath());
  }

  /** Fetches and shows the history of `path` (the active file by default). */
  async show(path = this.activePath()): Promise<void> {
    this.path = path;
    this.entries = [];
    if (path === undefined || !(await this.history.isTracked(path))) {
      this.state = "idle";
      this.render();
      return;
    }
    this.state = "loading";
    this.render();
    try {
      const found = await this.history.versions(path);
      this.entries = found.entries;
      this.total = found.total;
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
    root.addClass("hackmd-bridge-history");
    const active = this.activePath();
    const head = root.createDiv({ cls: "hackmd-bridge-history-head" });
    if (this.path === undefined) {
      head.createEl("p", { cls: "hackmd-bridge-muted", text: "Open a file that is linked to a HackMD note to see its saved versions." });
      return;
    }
    head.createEl("h4", { text: this.path });
    const buttons = head.createDiv({ cls: "hackmd-bridge-history-buttons" });
    buttons.createEl("button", { text: "Refresh" }).addEventListener("click", () => void this.show(this.path));
    if (active !== undefined && active !== this.path) {
      buttons.createEl("button", { text: `Show history of ${active}` }).addEventListener("click", () => void this.show(active));
    }
    if (this.state === "idle") {
      root.createEl("p", { cls: "hackmd-bridge-muted", text: `${this.path} is not linked to a HackMD note, so it has no history there.` });
      return;
    }
    if (this.state === "loading") {
      root.createEl("p", { cls: "hackmd-bridge-muted", text: "Loading the versions from HackMD…" });
      return;
    }
    if (this.state === "failed") {
      root.createEl("p", { cls: "hackmd-bridge-muted", text: "The versions could not be loaded. Refresh to try again." });
      return;
    }
    if (this.entries.length === 0) {
      root.createEl("p", { cls: "hackmd-bridge-muted", text: "HackMD has no saved versions of this note yet." });
      return;
    }
    if (this.total > this.entries.length) root.createEl("p", { cls: "hackmd-bridge-muted", text: `The newest ${this.entries.length} of ${this.total} versions.` });
    const list = root.createEl("ul", { cls: "hackmd-bridge-history-list" });
    this.entries.forEach((entry, index) => this.renderEntry(list, entry, this.entries[index - 1]));
  }

  private renderEntry(list: HTMLElement, entry: HistoryEntry, newer: HistoryEntry | undefined): void {
    const path = this.path;
    if (path === undefined) return;
    const item = list.createEl("li", { cls: entry.version.name_source === "user" ? "hackmd-bridge-history-named" : "hackmd-bridge-history-system" });
    item.dataset.versionId = entry.version.id;
    item.createDiv({ cls: "hackmd-bridge-history-name", text: entry.label });
    item.createDiv({ cls: "hackmd-bridge-history-detail", text: entry.detail });
    const actions = item.createDiv({ cls: "hackmd-bridge-history-actions" });
    const action = (label: string, name: string, run: () => Promise<void>): void => {
      const button = actions.createEl("button", { text: label });
      button.dataset.action = name;
      button.addEventListener("click", () => void run().catch((error: unknown) => showError(error, { operation: "check" })));
    };
    action("View", "view", () => this.history.view(path, entry));
    action("Compare with file", "compare-file", () => this.history.compareWithFile(path, entry));
    if (newer !== undefined) action("Compare with newer", "compare-newer", () => this.history.compareVersions(path, entry, newer));
    action("Restore", "restore", async () => {
      const done = await this.history.restore(path, entry);
      if (done.message !== "") showInfo(done.message);
    });
  }

  private activePath(): string | undefined {
    const file = this.app.workspace.getActiveFile();
    return file !== null && file.extension === "md" ? file.path : undefined;
  }
}
