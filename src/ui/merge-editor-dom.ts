/**
 * The merge editor and the read-only diff view, built on `@codemirror/merge` (bundled into
 * main.js; CodeMirror's state, view, commands and language come from Obsidian, one instance).
 * Loaded lazily by merge-editor-view.ts, so loading the plugin does not evaluate any of it.
 *
 * Dumb UI (docs/style.md rule 15): it shows a ConflictViewModel, keeps the editors' state, asks the
 * questions the view model words (`wholeFileQuestion`) through the injected `confirm`, and calls
 * `onAnswer` once with a ConflictChoice. It reads and writes nothing. It uses Obsidian's DOM
 * helpers (createDiv, setText…) but never imports `obsidian`, so the screenshot page
 * (scripts/screenshots) mounts exactly this code outside the app.
 *
 * Layout: a header (title, progress, previous / next conflict), the panes — mine and theirs each
 * against the base (line and word highlighting, unchanged stretches collapsed) over the editable
 * result, whose settled lines are marked by origin and whose conflicts carry accept buttons —
 * and an action bar that stays visible below them. In a narrow container (a phone) one pane shows
 * at a time, picked with tabs.
 */
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { goToNextChunk, goToPreviousChunk, unifiedMergeView } from "@codemirror/merge";
import { EditorState, Prec, type Extension } from "@codemirror/state";
import { Decoration, EditorView, keymap, WidgetType } from "@codemirror/view";
import type { MergeChoice } from "../sync/merge";
import {
  hasWork,
  linesWords,
  wholeFileQuestion,
  type ConflictChoice,
  type ConflictViewModel,
  type LineRange,
  type MergeQuestion,
  type MergeWork,
} from "./conflict-view-model";
import {
  conflictsField,
  currentConflictEffect,
  draftOf,
  originMarks,
  pickChoice,
  type ConflictBarActions,
  type ConflictsState,
  type MergeDraft,
  type RegionStatus,
} from "./merge-conflicts";

export type { MergeDraft } from "./merge-conflicts";

/** What the merge editor needs. */
export interface MergeEditorOptions {
  viewModel: ConflictViewModel;
  /** Asks a question (the confirmation modal in the app); resolves whether the user confirmed. */
  confirm(question: MergeQuestion): Promise<boolean>;
  /** Called once, with the user's answer. */
  onAnswer(choice: ConflictChoice): void;
  /** Unfinished work to restore (kept when the editor was closed without an answer). */
  draft?: MergeDraft | undefined;
}

/** A mounted merge editor. */
export interface MergeEditorHandle {
  /** Moves to the next conflict (wrapping), in every pane. */
  nextConflict(): void;
  /** Moves to the previous conflict (wrapping), in every pane. */
  previousConflict(): void;
  /** Puts a choice's lines into a conflict (as its button does). */
  pick(index: number, choice: MergeChoice): void;
  /** The result's text now. */
  resultText(): string;
  /** What each conflict holds now. */
  statuses(): RegionStatus[];
  /** The unfinished work, or undefined when there is none. */
  draft(): MergeDraft | undefined;
  /** Shows one pane in a narrow layout. */
  showPane(pane: PaneName): void;
  /** Removes the editors. */
  destroy(): void;
}

/** The panes of the merge editor. */
export type PaneName = "mine" | "theirs" | "result";

/** The words of the editor (sentence case; "HackMD" as written). */
const WORDS = {
  mine: { title: "Mine", hint: "This file, against the last sync" },
  theirs: { title: "Theirs", hint: "HackMD, against the last sync" },
  result: { title: "Result", hint: "Editable; saved to the file and pushed" },
  statuses: {
    unresolved: "Not chosen yet",
    local: "Mine",
    remote: "Theirs",
    both: "Both, mine first",
    edited: "Edited by hand",
  } satisfies Record<RegionStatus, string>,
} as const;

/** The per-conflict buttons in the result. */
const PICKS: ConflictBarActions["buttons"] = [
  { choice: "local", label: "Accept mine", tip: "Use this file's lines here" },
  { choice: "remote", label: "Accept theirs", tip: "Use HackMD's lines here" },
  { choice: "both", label: "Accept both", tip: "Use this file's lines, then HackMD's" },
];

/** Collapse settings of the read-only panes and the result. */
const COLLAPSE = { margin: 3, minSize: 4 };

/** Mounts the merge editor into `parent` (emptied first). */
export function renderMergeEditor(parent: HTMLElement, options: MergeEditorOptions): MergeEditorHandle {
  const vm = options.viewModel;
  parent.empty();
  const root = parent.createDiv({ cls: "hackmd-bridge-merge", attr: { "data-show": "result" } });
  let answered = false;
  let busy = false;

  // ---- header ----
  const header = root.createDiv({ cls: "hackmd-bridge-merge-header" });
  const titleRow = header.createDiv({ cls: "hackmd-bridge-merge-title-row" });
  const titles = titleRow.createDiv({ cls: "hackmd-bridge-merge-titles" });
  titles.createDiv({ cls: "hackmd-bridge-merge-title", text: `Merge ${fileName(vm.localPath)}` });
  const progress = titles.createDiv({ cls: "hackmd-bridge-merge-progress", attr: { "aria-live": "polite" } });
  const nav = titleRow.createDiv({ cls: "hackmd-bridge-merge-nav" });
  const previousButton = nav.createEl("button", {
    text: "Previous",
    attr: { type: "button", "aria-label": "Previous conflict", "data-nav": "previous" },
  });
  const nextButton = nav.createEl("button", {
    text: "Next",
    attr: { type: "button", "aria-label": "Next conflict", "data-nav": "next" },
  });
  const legend = header.createDiv({ cls: "hackmd-bridge-merge-legend" });
  legendItem(legend, "mine", "From your file");
  legendItem(legend, "theirs", "From HackMD");
  if (vm.conflictCount > 0) legendItem(legend, "conflict", "Conflict");
  const tabs = header.createDiv({ cls: "hackmd-bridge-merge-tabs", attr: { role: "tablist" } });
  const tabButtons = new Map<PaneName, HTMLButtonElement>();
  for (const pane of ["result", "mine", "theirs"] as const) {
    const tab = tabs.createEl("button", {
      text: WORDS[pane].title,
      attr: { type: "button", role: "tab", "data-pane": pane, "aria-selected": String(pane === "result") },
    });
    tabButtons.set(pane, tab);
  }

  // ---- panes ----
  const panes = root.createDiv({ cls: "hackmd-bridge-merge-panes" });
  const mineHost = pane(panes, "mine");
  const theirsHost = pane(panes, "theirs");
  const resultHost = pane(panes, "result");

  const mineView = new EditorView({
    parent: mineHost,
    state: EditorState.create({
      doc: vm.mine,
      extensions: readOnlyPane(
        vm.base,
        vm.document.regions.map((r) => r.mineLines),
        "local",
      ),
    }),
  });
  const theirsView = new EditorView({
    parent: theirsHost,
    state: EditorState.create({
      doc: vm.theirs,
      extensions: readOnlyPane(
        vm.base,
        vm.document.regions.map((r) => r.theirsLines),
        "remote",
      ),
    }),
  });

  const conflicts = conflictsField(
    vm,
    {
      buttons: PICKS,
      statusWords: WORDS.statuses,
      onPick: (view, index, choice) => {
        pickChoice(view, conflicts.field, vm, index, choice);
        view.focus();
      },
    },
    options.draft,
  );
  const resultView = new EditorView({
    parent: resultHost,
    state: EditorState.create({
      doc: options.draft?.text ?? vm.document.text,
      extensions: [
        history(),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": "Merged result", spellcheck: "false" }),
        unifiedMergeView({
          original: vm.base,
          mergeControls: false,
          syntaxHighlightDeletions: false,
          collapseUnchanged: { margin: 3, minSize: 8 },
        }),
        conflicts.extension,
        originMarks(vm.document.origins),
        EditorView.updateListener.of((update) => {
          if (update.docChanged || update.transactions.some((tr) => tr.effects.length > 0)) refresh();
        }),
      ],
    }),
  });
  const editors = [mineView, theirsView, resultView];

  // ---- actions ----
  const actions = root.createDiv({ cls: "hackmd-bridge-merge-actions" });
  const saveButton = actionButton(
    actions,
    "merged",
    "Save and push",
    "Write the result to the file and push it to HackMD",
  );
  saveButton.addClass("mod-cta");
  actionButton(
    actions,
    "keep-both",
    "Keep both",
    "Push nothing; save HackMD's version beside the file as a .remote.md copy",
  );
  actionButton(actions, "keep-mine", "Keep mine…", "Overwrite HackMD's version with this file (asks first)").addClass(
    "mod-warning",
  );
  actionButton(actions, "take-theirs", "Take theirs…", "Replace this file with HackMD's version (asks first)").addClass(
    "mod-warning",
  );
  actionButton(actions, "cancel", "Cancel", "Close without writing anything");

  const state = (): ConflictsState => resultView.state.field(conflicts.field);
  const work = (): MergeWork => {
    const value = state();
    return {
      chosen: value.regions.filter((region) => region.status !== "unresolved").length,
      edited: value.handEdited,
    };
  };
  const complete = (): boolean => state().regions.every((region) => region.status !== "unresolved");

  function refresh(): void {
    const value = state();
    const left = value.regions.filter((region) => region.status === "unresolved").length;
    if (vm.conflictCount === 0)
      progress.setText("The two sides changed different lines and merge cleanly. Review the result, then save.");
    else if (left > 0)
      progress.setText(
        `${vm.conflictCount === 1 ? "1 conflict" : `${vm.conflictCount} conflicts`}: ${left} left to choose.`,
      );
    else
      progress.setText(
        `All ${vm.conflictCount === 1 ? "1 conflict is" : `${vm.conflictCount} conflicts are`} handled. Review the result, then save.`,
      );
    root.toggleClass("is-answered", answered);
    if (answered) progress.setText("Working on it…");
    saveButton.disabled = busy || answered || left > 0;
    saveButton.setAttr("aria-disabled", String(saveButton.disabled));
    previousButton.disabled = vm.conflictCount === 0;
    nextButton.disabled = vm.conflictCount === 0;
  }

  const answer = (choice: ConflictChoice): void => {
    if (answered) return;
    answered = true;
    refresh();
    options.onAnswer(choice);
  };

  const ask = async (question: MergeQuestion | undefined): Promise<boolean> => {
    if (question === undefined) return true;
    busy = true;
    refresh();
    try {
      return await options.confirm(question);
    } finally {
      busy = false;
      refresh();
    }
  };

  const resultText = (): string => {
    const value = state();
    if (value.handEdited) return resultView.state.doc.toString();
    // Only buttons were used: the text is exactly the engine's resolution of those choices.
    if (vm.clean !== undefined) return vm.clean;
    return vm.result(value.regions.map((region) => region.status as MergeChoice));
  };

  const onAction = async (action: ConflictChoice["action"]): Promise<void> => {
    if (answered || busy) return;
    switch (action) {
      case "merged":
        if (!complete()) return;
        answer({ action: "merged", text: resultText() });
        return;
      case "keep-mine":
      case "take-theirs":
      case "keep-both":
      case "cancel":
        if (await ask(wholeFileQuestion(vm, action, work()))) answer({ action });
        return;
    }
  };
  for (const button of Array.from(actions.querySelectorAll<HTMLButtonElement>("button[data-action]"))) {
    const action = button.getAttribute("data-action") as ConflictChoice["action"];
    button.addEventListener("click", () => void onAction(action));
  }

  // ---- navigation ----
  const go = (step: 1 | -1): void => {
    const count = vm.conflictCount;
    if (count === 0) return;
    const current = state().current;
    const index = current < 0 ? (step === 1 ? 0 : count - 1) : (current + step + count) % count;
    const region = state().regions[index];
    if (!region) return;
    resultView.dispatch({
      selection: { anchor: region.from },
      effects: [currentConflictEffect.of(index), EditorView.scrollIntoView(region.from, { y: "start", yMargin: 48 })],
    });
    const place = vm.document.regions[index];
    scrollToLine(mineView, place?.mineLines);
    scrollToLine(theirsView, place?.theirsLines);
  };
  previousButton.addEventListener("click", () => go(-1));
  nextButton.addEventListener("click", () => go(1));

  const showPane = (name: PaneName): void => {
    root.setAttr("data-show", name);
    for (const [pane, tab] of tabButtons) tab.setAttr("aria-selected", String(pane === name));
    const shown = name === "mine" ? mineView : name === "theirs" ? theirsView : resultView;
    shown.requestMeasure();
  };
  for (const [name, tab] of tabButtons) tab.addEventListener("click", () => showPane(name));

  refresh();

  return {
    nextConflict: () => go(1),
    previousConflict: () => go(-1),
    pick: (index, choice) => pickChoice(resultView, conflicts.field, vm, index, choice),
    resultText,
    statuses: () => state().regions.map((region) => region.status),
    draft: () => (hasWork(work()) ? draftOf(resultView.state, conflicts.field) : undefined),
    showPane,
    destroy: () => {
      for (const view of editors) view.destroy();
      parent.empty();
    },
  };
}

// ---- the read-only diff view ----

/** What the diff view shows: `modified` against `original`, read-only. */
export interface DiffViewOptions {
  /** The heading, e.g. "Changes in plan.md since the last sync". */
  title: string;
  /** One sentence under the heading. */
  description: string;
  original: string;
  modified: string;
  /** What the removed (original-only) lines are, e.g. "Only at the last sync". */
  originalLabel: string;
  /** What the added (modified-only) lines are, e.g. "Only in this file". */
  modifiedLabel: string;
}

/** A mounted diff view. */
export interface DiffViewHandle {
  nextChange(): void;
  previousChange(): void;
  destroy(): void;
}

/** Mounts a read-only diff into `parent` (emptied first). */
export function renderDiffView(parent: HTMLElement, options: DiffViewOptions): DiffViewHandle {
  parent.empty();
  const root = parent.createDiv({ cls: ["hackmd-bridge-merge", "hackmd-bridge-diff"] });
  const header = root.createDiv({ cls: "hackmd-bridge-merge-header" });
  const titleRow = header.createDiv({ cls: "hackmd-bridge-merge-title-row" });
  const titles = titleRow.createDiv({ cls: "hackmd-bridge-merge-titles" });
  titles.createDiv({ cls: "hackmd-bridge-merge-title", text: options.title });
  titles.createDiv({
    cls: "hackmd-bridge-merge-progress",
    text: `${options.description} ${summary(options.original, options.modified)}`,
  });
  const nav = titleRow.createDiv({ cls: "hackmd-bridge-merge-nav" });
  const previous = nav.createEl("button", {
    text: "Previous",
    attr: { type: "button", "aria-label": "Previous change", "data-nav": "previous" },
  });
  const next = nav.createEl("button", {
    text: "Next",
    attr: { type: "button", "aria-label": "Next change", "data-nav": "next" },
  });
  const legend = header.createDiv({ cls: "hackmd-bridge-merge-legend" });
  legendItem(legend, "removed", options.originalLabel);
  legendItem(legend, "added", options.modifiedLabel);
  const panes = root.createDiv({ cls: ["hackmd-bridge-merge-panes", "mod-single"] });
  const host = panes
    .createDiv({ cls: ["hackmd-bridge-merge-pane", "mod-diff"] })
    .createDiv({ cls: "hackmd-bridge-merge-editor" });
  const view = new EditorView({
    parent: host,
    state: EditorState.create({
      doc: options.modified,
      extensions: [
        EditorState.readOnly.of(true),
        EditorView.editable.of(false),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": options.title }),
        unifiedMergeView({
          original: options.original,
          mergeControls: false,
          syntaxHighlightDeletions: false,
          collapseUnchanged: COLLAPSE,
        }),
      ],
    }),
  });
  const step = (forward: boolean): void => {
    (forward ? goToNextChunk : goToPreviousChunk)({ state: view.state, dispatch: (tr) => view.dispatch(tr) });
  };
  previous.addEventListener("click", () => step(false));
  next.addEventListener("click", () => step(true));
  return {
    nextChange: () => step(true),
    previousChange: () => step(false),
    destroy: () => {
      view.destroy();
      parent.empty();
    },
  };
}

// ---- pieces ----

/** A pane with its heading and the element its editor mounts into. */
function pane(panes: HTMLElement, name: PaneName): HTMLElement {
  const el = panes.createDiv({
    cls: ["hackmd-bridge-merge-pane", `mod-${name}`],
    attr: { "data-pane": name, role: "tabpanel" },
  });
  const heading = el.createDiv({ cls: "hackmd-bridge-merge-pane-heading" });
  heading.createSpan({ cls: "hackmd-bridge-merge-pane-title", text: WORDS[name].title });
  heading.createSpan({ cls: "hackmd-bridge-merge-pane-hint", text: WORDS[name].hint });
  return el.createDiv({ cls: "hackmd-bridge-merge-editor" });
}

/** A read-only pane: one side against the base, its conflict lines marked and labelled. */
function readOnlyPane(base: string, places: ReadonlyArray<LineRange | undefined>, side: "local" | "remote"): Extension {
  return [
    EditorState.readOnly.of(true),
    EditorView.editable.of(false),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({ "aria-label": side === "local" ? "Mine: this file" : "Theirs: HackMD" }),
    unifiedMergeView({
      original: base,
      mergeControls: false,
      syntaxHighlightDeletions: false,
      collapseUnchanged: COLLAPSE,
    }),
    // Highest precedence: the label goes above the base's deleted lines, not between them and the new ones.
    Prec.highest(
      EditorView.decorations.compute([], (state) => {
        const ranges = [];
        for (const [index, place] of places.entries()) {
          if (place === undefined) continue;
          const at = Math.min(place.from, state.doc.lines - 1);
          const start = state.doc.line(at + 1).from;
          ranges.push(Decoration.widget({ widget: new PaneLabel(index), block: true, side: -1 }).range(start));
          for (let line = place.from; line < place.to && line < state.doc.lines; line++) {
            ranges.push(
              Decoration.line({
                class: "hackmd-bridge-merge-region is-side",
                attributes: { "data-conflict": String(index) },
              }).range(state.doc.line(line + 1).from),
            );
          }
        }
        return Decoration.set(ranges, true);
      }),
    ),
  ];
}

/** The small label above a conflict in the mine and theirs panes. */
class PaneLabel extends WidgetType {
  constructor(readonly index: number) {
    super();
  }
  override eq(other: PaneLabel): boolean {
    return other.index === this.index;
  }
  override toDOM(): HTMLElement {
    return createDiv({
      cls: "hackmd-bridge-merge-pane-label",
      text: `Conflict ${this.index + 1}`,
      attr: { "data-conflict": String(this.index) },
    });
  }
}

/** Scrolls a pane to a line range (its start). */
function scrollToLine(view: EditorView, place: LineRange | undefined): void {
  if (place === undefined || view.state.doc.lines === 0) return;
  const line = view.state.doc.line(Math.min(place.from, view.state.doc.lines - 1) + 1);
  view.dispatch({ effects: EditorView.scrollIntoView(line.from, { y: "start", yMargin: 48 }) });
}

/** A whole-file action button. */
function actionButton(
  row: HTMLElement,
  action: ConflictChoice["action"],
  label: string,
  tip: string,
): HTMLButtonElement {
  return row.createEl("button", { text: label, attr: { type: "button", "data-action": action, "aria-label": tip } });
}

/** One legend entry: a swatch and its words. */
function legendItem(legend: HTMLElement, kind: string, text: string): void {
  const item = legend.createSpan({ cls: ["hackmd-bridge-merge-legend-item", `mod-${kind}`] });
  item.createSpan({ cls: "hackmd-bridge-merge-swatch" });
  item.createSpan({ text });
}

/** "3 lines added, 1 removed." for a diff. */
function summary(original: string, modified: string): string {
  const before = splitLines(original);
  const after = splitLines(modified);
  const seen = new Map<string, number>();
  for (const line of before) seen.set(line, (seen.get(line) ?? 0) + 1);
  let kept = 0;
  for (const line of after) {
    const left = seen.get(line) ?? 0;
    if (left > 0) {
      kept += 1;
      seen.set(line, left - 1);
    }
  }
  // A multiset count, not a diff: moved lines count as kept. Enough for a one-line summary.
  return `${capitalise(linesWords({ added: after.length - kept, removed: before.length - kept }))}.`;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

function capitalise(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

/** The last component of a ROOT-relative path. */
function fileName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
