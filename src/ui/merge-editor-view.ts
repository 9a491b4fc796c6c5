/**
 * The merge editor's workspace view: a tab that shows either a conflict (the merge editor) or a
 * read-only diff, both from merge-editor-dom.ts, which it loads on first use with a dynamic
 * import so that loading the plugin never evaluates CodeMirror's merge code. Dumb UI (docs/style.md
 * rule 15): a session brings the view model and the callbacks; the view answers once. Closing
 * the tab without an answer is a cancel, and any unfinished work is handed back as a draft, so
 * it is never dropped silently.
 */
import { ItemView, type ViewStateResult, type WorkspaceLeaf } from "obsidian";
import type { ConflictChoice, ConflictViewModel, MergeQuestion } from "./conflict-view-model";
import type { DiffViewHandle, DiffViewOptions, MergeDraft, MergeEditorHandle } from "./merge-editor-dom";

/** The view type id of the merge editor. */
export const MERGE_VIEW_TYPE = "hackmd-bridge-merge";

/** What a merge editor tab shows. */
export type MergeSession =
  | {
      kind: "conflict";
      viewModel: ConflictViewModel;
      /** Unfinished work to restore. */
      draft?: MergeDraft | undefined;
      /** Called once with the user's answer (`cancel` when the tab closes or is reused). */
      onAnswer(choice: ConflictChoice): void;
      /**
       * The work a closed tab would lose (called after its `cancel`), or a merged result about to
       * be saved (called before its answer), so that neither is lost if nothing is saved.
       */
      onDraft(draft: MergeDraft): void;
    }
  | { kind: "diff"; diff: DiffViewOptions };

/** The part of the view state Obsidian saves with the layout. */
interface MergeViewState {
  /** The file the tab is about. */
  path?: string;
  /** The tab's title. */
  title?: string;
  mode?: "conflict" | "diff";
}

/** What the view needs from the plugin. */
export interface MergeViewDeps {
  /** Asks a question with the confirmation modal. */
  confirm(question: MergeQuestion): Promise<boolean>;
  /** Loads the editor code (a dynamic import; tests may pass it directly). */
  load(): Promise<typeof import("./merge-editor-dom")>;
}

type Mounted =
  | {
      kind: "conflict";
      handle: MergeEditorHandle;
      session: Extract<MergeSession, { kind: "conflict" }>;
      answered: boolean;
    }
  | { kind: "diff"; handle: DiffViewHandle };

/** A workspace tab holding one merge editor or one diff. */
export class MergeEditorView extends ItemView {
  private viewState: MergeViewState = {};
  private mounted: Mounted | undefined;
  private generation = 0;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly deps: MergeViewDeps,
  ) {
    super(leaf);
  }

  override getViewType(): string {
    return MERGE_VIEW_TYPE;
  }

  override getDisplayText(): string {
    return this.viewState.title ?? "Merge editor";
  }

  override getIcon(): string {
    return this.viewState.mode === "diff" ? "file-diff" : "git-merge";
  }

  /** The file this tab is about (undefined for an empty tab). */
  get path(): string | undefined {
    return this.viewState.path;
  }

  override async setState(state: unknown, result: ViewStateResult): Promise<void> {
    this.viewState = parseState(state);
    await super.setState(state, result);
  }

  override getState(): Record<string, unknown> {
    return { ...this.viewState };
  }

  override async onOpen(): Promise<void> {
    if (this.mounted === undefined) this.renderEmpty();
    await Promise.resolve();
  }

  override async onClose(): Promise<void> {
    this.unmount();
    await Promise.resolve();
  }

  /** Shows a session; an earlier one that has not answered is cancelled (its work kept as a draft). */
  async show(session: MergeSession): Promise<void> {
    this.unmount();
    const generation = ++this.generation;
    const dom = await this.deps.load();
    if (generation !== this.generation) {
      // Replaced while loading: the newer session owns the tab.
      if (session.kind === "conflict") session.onAnswer({ action: "cancel" });
      return;
    }
    const contentEl = this.contentEl;
    contentEl.addClass("hackmd-bridge-merge-view");
    if (session.kind === "diff") {
      this.mounted = { kind: "diff", handle: dom.renderDiffView(contentEl, session.diff) };
      return;
    }
    const mounted: Extract<Mounted, { kind: "conflict" }> = {
      kind: "conflict",
      session,
      answered: false,
      handle: dom.renderMergeEditor(contentEl, {
        viewModel: session.viewModel,
        draft: session.draft,
        confirm: (question) => this.deps.confirm(question),
        onAnswer: (choice) => {
          mounted.answered = true;
          // A merged result is handed over as a draft too: if saving it fails, it is not lost.
          if (choice.action === "merged") {
            const draft = mounted.handle.draft();
            if (draft !== undefined) session.onDraft(draft);
          }
          // The flow takes over; it shows the next round in this tab or closes it.
          session.onAnswer(choice);
        },
      }),
    };
    this.mounted = mounted;
  }

  /** Moves to the next conflict or change; false when the tab shows neither. */
  next(): boolean {
    const mounted = this.mounted;
    if (mounted === undefined) return false;
    if (mounted.kind === "conflict") mounted.handle.nextConflict();
    else mounted.handle.nextChange();
    return true;
  }

  /** Moves to the previous conflict or change; false when the tab shows neither. */
  previous(): boolean {
    const mounted = this.mounted;
    if (mounted === undefined) return false;
    if (mounted.kind === "conflict") mounted.handle.previousConflict();
    else mounted.handle.previousChange();
    return true;
  }

  /** The mounted merge editor (tests and the screenshot page). */
  get editor(): MergeEditorHandle | undefined {
    return this.mounted?.kind === "conflict" ? this.mounted.handle : undefined;
  }

  private unmount(): void {
    const mounted = this.mounted;
    this.mounted = undefined;
    this.generation += 1;
    if (mounted === undefined) return;
    if (mounted.kind === "conflict" && !mounted.answered) {
      mounted.answered = true;
      const draft = mounted.handle.draft();
      mounted.session.onAnswer({ action: "cancel" });
      if (draft !== undefined) mounted.session.onDraft(draft);
    }
    mounted.handle.destroy();
  }

  /** A tab restored from the saved layout has no session: say how to get one. */
  private renderEmpty(): void {
    const { contentEl } = this;
    contentEl.empty();
    contentEl.addClass("hackmd-bridge-merge-view");
    const text =
      this.viewState.path !== undefined
        ? `This tab was open when Obsidian last closed. To see ${this.viewState.path} again, run the command from the file's menu.`
        : "Nothing to show. Open a conflict or a diff from a tracked file's menu.";
    contentEl.createEl("p", { cls: "hackmd-bridge-muted", text });
  }
}

function parseState(state: unknown): MergeViewState {
  if (typeof state !== "object" || state === null) return {};
  const value = state as Record<string, unknown>;
  const out: MergeViewState = {};
  if (typeof value.path === "string") out.path = value.path;
  if (typeof value.title === "string") out.title = value.title;
  if (value.mode === "conflict" || value.mode === "diff") out.mode = value.mode;
  return out;
}
