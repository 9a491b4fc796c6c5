/**
 * The "Note history" view: the saved versions of a tracked file's note on HackMD, newest first,
 * each with its name, time and author, and four actions — view it, compare it with the file,
 * compare it with the next newer version (both in the merge editor's diff tab), restore it into
 * the file as an unpushed change. It fetches only when opened or asked (TrackedFileView).
 */
import type { WorkspaceLeaf } from "obsidian";
import type { HistoryEntry, NoteHistory } from "../obsidian/note-history";
import { showError, showInfo } from "../obsidian/notices";
import { TrackedFileView } from "./tracked-file-view";

/** The view type id of the note history. */
export const HISTORY_VIEW_TYPE = "hackmd-bridge-history";

/** A side-panel list of a tracked file's versions. */
export class NoteHistoryView extends TrackedFileView {
  protected readonly words = {
    what: "history",
    noFile: "Open a file that is linked to a HackMD note to see its saved versions.",
    loading: "Loading the versions from HackMD…",
    failed: "The versions could not be loaded. Refresh to try again.",
  };
  private entries: HistoryEntry[] = [];
  private total = 0;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly history: NoteHistory,
  ) {
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

  protected isTracked(path: string): Promise<boolean> {
    return this.history.isTracked(path);
  }

  protected async fetch(path: string): Promise<void> {
    const found = await this.history.versions(path);
    this.entries = found.entries;
    this.total = found.total;
  }

  protected clear(): void {
    this.entries = [];
  }

  protected headerButtons(): void {
    // Refresh is all the history needs.
  }

  protected renderLoaded(root: HTMLElement, path: string): void {
    if (this.entries.length === 0) {
      root.createEl("p", { cls: "hackmd-bridge-muted", text: "No saved versions of this note yet." });
      return;
    }
    if (this.total > this.entries.length)
      root.createEl("p", {
        cls: "hackmd-bridge-muted",
        text: `The newest ${this.entries.length} of ${this.total} versions.`,
      });
    const list = root.createEl("ul", { cls: "hackmd-bridge-history-list" });
    this.entries.forEach((entry, index) => this.renderEntry(list, path, entry, this.entries[index - 1]));
  }

  private renderEntry(list: HTMLElement, path: string, entry: HistoryEntry, newer: HistoryEntry | undefined): void {
    const item = list.createEl("li", {
      cls: entry.version.name_source === "user" ? "hackmd-bridge-history-named" : "hackmd-bridge-history-system",
    });
    item.dataset.versionId = entry.version.id;
    item.createDiv({ cls: "hackmd-bridge-history-name", text: entry.label });
    item.createDiv({ cls: "hackmd-bridge-history-detail", text: entry.detail });
    const actions = item.createDiv({ cls: "hackmd-bridge-history-actions" });
    const action = (label: string, name: string, run: () => Promise<void>): void => {
      const button = actions.createEl("button", { text: label });
      button.dataset.action = name;
      button.addEventListener(
        "click",
        () => void run().catch((error: unknown) => showError(error, { operation: "check" })),
      );
    };
    action("View", "view", () => this.history.view(path, entry));
    action("Compare with file", "compare-file", () => this.history.compareWithFile(path, entry));
    if (newer !== undefined)
      action("Compare with newer", "compare-newer", () => this.history.compareVersions(path, entry, newer));
    action("Restore", "restore", async () => {
      const done = await this.history.restore(path, entry);
      if (done.message !== "") showInfo(done.message);
    });
  }
}
