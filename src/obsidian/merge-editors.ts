/**
 * The plugin's merge editor tabs: registers the view type, opens a conflict or a diff in a tab
 * (reusing the tab already showing that file), routes the "next / previous conflict" commands to
 * the active tab, and keeps drafts — the unfinished work of a tab closed without an answer, and a
 * merged result until it is saved — in memory for the plugin's lifetime, so that no merge work is
 * dropped without the user asking (docs/style.md rule 6). Nothing here reads or writes a file.
 */
import type { App, Plugin, WorkspaceLeaf } from "obsidian";
import { confirm } from "../ui/confirm-modal";
import type { ConflictChoice, ConflictViewModel, MergeQuestion } from "../ui/conflict-view-model";
import type { DiffViewOptions, MergeDraft } from "../ui/merge-editor-dom";
import { MERGE_VIEW_TYPE, MergeEditorView, type MergeViewDeps } from "../ui/merge-editor-view";

/** A draft and the conflict it belongs to: it is restored only onto the same two versions. */
interface KeptDraft {
  mine: string;
  remoteHash: string;
  draft: MergeDraft;
}

/** What the merge editors need. */
export interface MergeEditorsOptions {
  plugin: Plugin;
  /** Tells the user something (a notice). */
  notify: (message: string) => void;
  /** Asks a question; defaults to the confirmation modal. */
  confirm?: (question: MergeQuestion) => Promise<boolean>;
  /** Loads the editor code; defaults to the dynamic import. */
  load?: MergeViewDeps["load"];
}

/** The merge editor tabs of one plugin instance. */
export class MergeEditors {
  private readonly app: App;
  private readonly plugin: Plugin;
  private readonly notify: (message: string) => void;
  private readonly deps: MergeViewDeps;
  private readonly drafts = new Map<string, KeptDraft>();

  constructor(options: MergeEditorsOptions) {
    this.plugin = options.plugin;
    this.app = options.plugin.app;
    this.notify = options.notify;
    this.deps = {
      confirm: options.confirm ?? ((question) => confirm(this.app, question)),
      load: options.load ?? (() => import("../ui/merge-editor-dom")),
    };
  }

  /** Registers the view type (call once from onload). */
  register(): void {
    this.plugin.registerView(MERGE_VIEW_TYPE, (leaf) => new MergeEditorView(leaf, this.deps));
    this.plugin.register(() => this.drafts.clear());
  }

  /** Shows a conflict in a tab and resolves the user's answer (`cancel` when the tab closes). */
  async openConflict(vm: ConflictViewModel): Promise<ConflictChoice> {
    const path = vm.localPath;
    const kept = this.drafts.get(path);
    const draft =
      kept !== undefined && kept.mine === vm.mine && kept.remoteHash === vm.remoteHash ? kept.draft : undefined;
    if (draft === undefined) this.drafts.delete(path);
    const view = await this.openTab(path, "conflict", `Merge ${baseName(path)}`);
    if (draft !== undefined) this.notify(`Restored your unfinished merge of ${path}.`);
    return new Promise<ConflictChoice>((resolve) => {
      void view.show({
        kind: "conflict",
        viewModel: vm,
        draft,
        onAnswer: (choice) => {
          if (choice.action !== "merged") this.drafts.delete(path);
          resolve(choice);
        },
        onDraft: (next) => {
          this.drafts.set(path, { mine: vm.mine, remoteHash: vm.remoteHash, draft: next });
        },
      });
    });
  }

  /** Called when a resolution of `path` is over: the tab closes; a saved result's draft goes. */
  finish(path: string, saved: boolean): void {
    if (saved) this.drafts.delete(path);
    else if (this.drafts.has(path))
      this.notify(
        `Your unfinished merge of ${path} is kept until Obsidian closes. Resolve the file again to continue.`,
      );
    for (const leaf of this.leavesFor(path, "conflict")) leaf.detach();
  }

  /** Shows a read-only diff of a file in a tab. */
  async openDiff(path: string, diff: DiffViewOptions): Promise<void> {
    const view = await this.openTab(path, "diff", diff.title);
    await view.show({ kind: "diff", diff });
  }

  /** Moves the active tab to its next conflict or change; false when no merge tab is active. */
  next(): boolean {
    return this.active()?.next() ?? false;
  }

  /** Moves the active tab to its previous conflict or change; false when no merge tab is active. */
  previous(): boolean {
    return this.active()?.previous() ?? false;
  }

  /** Whether a merge or diff tab is active. */
  hasActive(): boolean {
    return this.active() !== undefined;
  }

  private active(): MergeEditorView | undefined {
    return this.app.workspace.getActiveViewOfType(MergeEditorView) ?? undefined;
  }

  /** The tab for `path` in `mode`, reused when open, else a new one; made active. */
  private async openTab(path: string, mode: "conflict" | "diff", title: string): Promise<MergeEditorView> {
    const leaf = this.leavesFor(path, mode)[0] ?? this.app.workspace.getLeaf("tab");
    await leaf.setViewState({ type: MERGE_VIEW_TYPE, active: true, state: { path, mode, title } });
    await this.app.workspace.revealLeaf(leaf);
    const view = leaf.view;
    if (!(view instanceof MergeEditorView)) throw new Error("The merge editor tab did not open.");
    return view;
  }

  private leavesFor(path: string, mode: "conflict" | "diff"): WorkspaceLeaf[] {
    return this.app.workspace.getLeavesOfType(MERGE_VIEW_TYPE).filter((leaf) => {
      const view = leaf.view;
      return view instanceof MergeEditorView && view.path === path && view.getState().mode === mode;
    });
  }
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
