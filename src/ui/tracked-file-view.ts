/**
 * What the "Note history" and "Comments" views share: a side view about one tracked file that
 * fetches only when it opens or the user asks (Refresh, or "Show … of <file>" after switching
 * files — a switch alone offers, never fetches), with a header, and a loading, failed, untracked
 * or loaded body. Subclasses fetch and draw the loaded part.
 */
import { ItemView } from "obsidian";
import { showError } from "../obsidian/notices";

/** The words a subclass shows in the shared parts. */
export interface TrackedFileWords {
  /** "history" or "comments", as in "Show history of plan.md". */
  what: string;
  /** Shown when no Markdown file is active. */
  noFile: string;
  /** While fetching. */
  loading: string;
  /** After a failed fetch. */
  failed: string;
}

/** A side view about the active tracked file. */
export abstract class TrackedFileView extends ItemView {
  /** The file shown (or asked for last). */
  protected path: string | undefined;
  protected state: "idle" | "loading" | "loaded" | "failed" = "idle";

  protected abstract readonly words: TrackedFileWords;
  /** Whether a file is linked to a note (no request). */
  protected abstract isTracked(path: string): Promise<boolean>;
  /** Fetches what the view shows for `path`. */
  protected abstract fetch(path: string): Promise<void>;
  /** Forgets what was fetched for the previous file. */
  protected abstract clear(): void;
  /** Adds the view's own header buttons (after Refresh). */
  protected abstract headerButtons(buttons: HTMLElement): void;
  /** Draws the fetched content. */
  protected abstract renderLoaded(root: HTMLElement, path: string): void;

  override async onOpen(): Promise<void> {
    this.registerEvent(this.app.workspace.on("file-open", () => this.render()));
    await this.show(this.activePath());
  }

  /** Fetches and shows `path` (the active file by default). */
  async show(path = this.activePath()): Promise<void> {
    this.path = path;
    this.clear();
    if (path === undefined || !(await this.isTracked(path))) {
      this.state = "idle";
      this.render();
      return;
    }
    this.state = "loading";
    this.render();
    try {
      await this.fetch(path);
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
    root.addClass(`hackmd-bridge-${this.getViewType().replace(/^hackmd-bridge-/, "")}`);
    const head = root.createDiv({ cls: "hackmd-bridge-view-head" });
    const path = this.path;
    if (path === undefined) {
      head.createEl("p", { cls: "hackmd-bridge-muted", text: this.words.noFile });
      return;
    }
    head.createEl("h4", { text: path });
    const buttons = head.createDiv({ cls: "hackmd-bridge-view-buttons" });
    buttons.createEl("button", { text: "Refresh" }).addEventListener("click", () => void this.show(path));
    this.headerButtons(buttons);
    const active = this.activePath();
    if (active !== undefined && active !== path) {
      buttons
        .createEl("button", { text: `Show ${this.words.what} of ${active}` })
        .addEventListener("click", () => void this.show(active));
    }
    const note = (text: string): void => void root.createEl("p", { cls: "hackmd-bridge-muted", text });
    if (this.state === "idle") note(`${path} is not linked to a HackMD note, so it has no ${this.words.what} there.`);
    else if (this.state === "loading") note(this.words.loading);
    else if (this.state === "failed") note(this.words.failed);
    else this.renderLoaded(root, path);
  }

  /** The active Markdown file, if any. */
  protected activePath(): string | undefined {
    const file = this.app.workspace.getActiveFile();
    return file !== null && file.extension === "md" ? file.path : undefined;
  }
}
