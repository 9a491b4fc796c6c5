/**
 * The conflicts of the merge editor's result, as CodeMirror state: where each conflict region is
 * (mapped through every edit), what the user picked for it, and what it holds now. A region's
 * status is derived from its text, so undo, redo and typing can never leave a stale choice: the
 * base's lines mean "not chosen yet", a choice's exact lines mean that choice, anything else
 * means "edited by hand" (which counts as handled). Also the marks of the settled lines' origin.
 * Part of the lazily loaded merge editor; no Obsidian import.
 */
import {
  Annotation,
  Prec,
  RangeSetBuilder,
  StateEffect,
  StateField,
  type EditorState,
  type Extension,
  type Range,
  type Transaction,
} from "@codemirror/state";
import { Decoration, EditorView, WidgetType, type DecorationSet } from "@codemirror/view";
import type { MergeChoice } from "../sync/merge";
import type { ConflictViewModel, LineSide } from "./conflict-view-model";

/** What a conflict region holds now. */
export type RegionStatus = "unresolved" | MergeChoice | "edited";

/** One conflict region of the result. */
export interface Region {
  index: number;
  /** Start of the region's first line. */
  from: number;
  /** End of the region: the start of the line after it (or the document's end). */
  to: number;
  /** The last choice the user clicked (undefined: none). */
  picked: MergeChoice | undefined;
  /** Derived from the text (see the module comment). */
  status: RegionStatus;
}

/** The conflict state of the result editor. */
export interface ConflictsState {
  regions: readonly Region[];
  /** The conflict navigation is at (-1: none yet). */
  current: number;
  /** Whether the user typed anywhere in the result (the save then takes the text as it is). */
  handEdited: boolean;
}

/** A draft of unfinished work, kept when the editor closes without an answer. */
export interface MergeDraft {
  text: string;
  regions: ReadonlyArray<Pick<Region, "index" | "from" | "to" | "picked">>;
  handEdited: boolean;
}

/** Marks a transaction as the editor's own (an accept button), not the user's typing. */
const ours = Annotation.define<boolean>();

/** Sets a region's choice and its bounds after the accept transaction's change. */
const pickEffect = StateEffect.define<{ index: number; picked: MergeChoice; from: number; to: number }>();

/** Moves the navigation to a conflict. */
export const currentConflictEffect = StateEffect.define<number>();

/** The state field, configured per editor with the view model (see `conflictsExtension`). */
export interface ConflictsField {
  field: StateField<ConflictsState>;
  extension: Extension;
}

/** What the result editor's conflict bar shows and does. */
export interface ConflictBarActions {
  /** Labels of the per-conflict buttons, in order. */
  buttons: ReadonlyArray<{ choice: MergeChoice; label: string; tip: string }>;
  /** The words of each status. */
  statusWords: Readonly<Record<RegionStatus, string>>;
  /** A per-conflict button was clicked. */
  onPick(view: EditorView, index: number, choice: MergeChoice): void;
}

/** The region's status from its text. */
function statusOf(
  vm: ConflictViewModel,
  state: EditorState,
  region: Pick<Region, "index" | "from" | "to" | "picked">,
): RegionStatus {
  const text = state.doc.sliceString(region.from, region.to);
  if (region.picked !== undefined && text === vm.regionText(region.index, region.picked)) return region.picked;
  if (text === vm.regionText(region.index, "base")) return "unresolved";
  for (const choice of ["local", "remote", "both"] as const)
    if (text === vm.regionText(region.index, choice)) return choice;
  return "edited";
}

/** Builds the state field of one result editor. */
export function conflictsField(vm: ConflictViewModel, actions: ConflictBarActions, draft?: MergeDraft): ConflictsField {
  const field = StateField.define<ConflictsState>({
    create(state) {
      const starts = draft?.regions ?? startingRegions(vm, state);
      const regions = starts.map((region) => ({ ...region, status: statusOf(vm, state, region) }));
      return { regions, current: -1, handEdited: draft?.handEdited ?? false };
    },
    update(value, tr) {
      let { regions, current, handEdited } = value;
      if (tr.docChanged) {
        const mine = tr.annotation(ours) === true;
        if (!mine) handEdited = true;
        regions = regions.map((region) => {
          const empty = region.from === region.to;
          const from = tr.changes.mapPos(region.from, -1);
          // An empty region grows with what is inserted at it; a full one keeps its end.
          const to = Math.max(from, tr.changes.mapPos(region.to, empty ? 1 : -1));
          return { ...region, from, to };
        });
      }
      for (const effect of tr.effects) {
        if (effect.is(pickEffect)) {
          const { index, picked, from, to } = effect.value;
          regions = regions.map((region) => (region.index === index ? { ...region, picked, from, to } : region));
        } else if (effect.is(currentConflictEffect)) {
          current = effect.value;
        }
      }
      if (tr.docChanged || tr.effects.some((effect) => effect.is(pickEffect)))
        regions = regions.map((region) => ({ ...region, status: statusOf(vm, tr.state, region) }));
      return regions === value.regions && current === value.current && handEdited === value.handEdited
        ? value
        : { regions, current, handEdited };
    },
    // Highest precedence: a conflict's bar sits above the base's deleted lines the merge view draws there.
    provide: (self) =>
      Prec.highest(
        EditorView.decorations.compute([self], (state) => regionDecorations(state, state.field(self), vm, actions)),
      ),
  });
  return { field, extension: field };
}

/** The regions at the start: the document's line ranges as offsets. */
function startingRegions(
  vm: ConflictViewModel,
  state: EditorState,
): Array<Pick<Region, "index" | "from" | "to" | "picked">> {
  const doc = state.doc;
  const offsetOfLine = (line: number): number => (line >= doc.lines ? doc.length : doc.line(line + 1).from);
  return vm.document.regions.map((region) => ({
    index: region.index,
    from: offsetOfLine(region.lines.from),
    to: offsetOfLine(region.lines.to),
    picked: undefined,
  }));
}

/** Replaces a region's text by a choice's lines (one undoable transaction). */
export function pickChoice(
  view: EditorView,
  field: StateField<ConflictsState>,
  vm: ConflictViewModel,
  index: number,
  picked: MergeChoice,
): void {
  const region = view.state.field(field).regions.find((candidate) => candidate.index === index);
  if (!region) return;
  const insert = vm.regionText(index, picked);
  view.dispatch({
    changes: { from: region.from, to: region.to, insert },
    effects: [
      pickEffect.of({ index, picked, from: region.from, to: region.from + insert.length }),
      currentConflictEffect.of(index),
    ],
    annotations: ours.of(true),
    scrollIntoView: false,
  });
}

/** The draft of a result editor's state. */
export function draftOf(state: EditorState, field: StateField<ConflictsState>): MergeDraft {
  const value = state.field(field);
  return {
    text: state.doc.toString(),
    regions: value.regions.map(({ index, from, to, picked }) => ({ index, from, to, picked })),
    handEdited: value.handEdited,
  };
}

/** Whether a transaction came from an accept button. */
export function isOwnTransaction(tr: Transaction): boolean {
  return tr.annotation(ours) === true;
}

/** The bar above each conflict region and the marks on its lines. */
function regionDecorations(
  state: EditorState,
  value: ConflictsState,
  vm: ConflictViewModel,
  actions: ConflictBarActions,
): DecorationSet {
  const ranges: Array<Range<Decoration>> = [];
  for (const region of value.regions) {
    const current = region.index === value.current;
    ranges.push(
      Decoration.widget({
        widget: new ConflictBar(
          region.index,
          vm.conflictCount,
          region.status,
          current,
          region.from === region.to,
          actions,
        ),
        block: true,
        side: -1,
      }).range(region.from),
    );
    const line = Decoration.line({
      class: `hackmd-bridge-merge-region ${region.status === "unresolved" ? "is-unresolved" : "is-handled"}${current ? " is-current" : ""}`,
      attributes: { "data-conflict": String(region.index) },
    });
    // A region ends at the start of the line after it: its lines are those starting before `to`.
    for (let pos = region.from; pos < region.to && pos <= state.doc.length;) {
      const at = state.doc.lineAt(pos);
      ranges.push(line.range(at.from));
      if (at.to + 1 <= pos) break;
      pos = at.to + 1;
    }
  }
  return Decoration.set(ranges, true);
}

/** The bar above a conflict: its number, its status and the accept buttons. */
class ConflictBar extends WidgetType {
  constructor(
    readonly index: number,
    readonly count: number,
    readonly status: RegionStatus,
    readonly current: boolean,
    /** The region holds no lines (the base had none there, or the choice has none). */
    readonly empty: boolean,
    readonly actions: ConflictBarActions,
  ) {
    super();
  }

  override eq(other: ConflictBar): boolean {
    return (
      other.index === this.index &&
      other.count === this.count &&
      other.status === this.status &&
      other.current === this.current &&
      other.empty === this.empty
    );
  }

  override toDOM(view: EditorView): HTMLElement {
    const bar = createDiv({
      cls: ["hackmd-bridge-merge-conflict-bar", this.status === "unresolved" ? "is-unresolved" : "is-handled"],
      attr: { "data-conflict": String(this.index) },
    });
    if (this.current) bar.addClass("is-current");
    const label = bar.createDiv({ cls: "hackmd-bridge-merge-conflict-label" });
    label.createSpan({
      cls: "hackmd-bridge-merge-conflict-title",
      text: `Conflict ${this.index + 1} of ${this.count}`,
    });
    label.createSpan({ cls: "hackmd-bridge-merge-conflict-status", text: this.actions.statusWords[this.status] });
    if (this.empty && this.status === "unresolved")
      label.createSpan({ cls: "hackmd-bridge-merge-conflict-hint", text: "Both sides added different lines here." });
    const buttons = bar.createDiv({ cls: "hackmd-bridge-merge-conflict-buttons" });
    for (const { choice, label: text, tip } of this.actions.buttons) {
      const on = this.status === choice;
      const button = buttons.createEl("button", {
        cls: on ? ["hackmd-bridge-merge-accept", "mod-cta"] : ["hackmd-bridge-merge-accept"],
        text,
        attr: {
          "data-choice": choice,
          "data-conflict": String(this.index),
          "aria-label": tip,
          "aria-pressed": String(on),
          type: "button",
        },
      });
      button.addEventListener("click", () => this.actions.onPick(view, this.index, choice));
    }
    return bar;
  }

  override ignoreEvent(): boolean {
    return true;
  }
}

/** Line marks for the settled lines that came from one side, mapped through edits. */
export function originMarks(origins: ReadonlyArray<{ line: number; side: LineSide }>): Extension {
  return StateField.define<DecorationSet>({
    create(state) {
      const builder = new RangeSetBuilder<Decoration>();
      // Origins come in line order, which RangeSetBuilder needs.
      for (const { line, side } of origins) {
        if (line >= state.doc.lines) continue;
        const from = state.doc.line(line + 1).from;
        builder.add(from, from, ORIGIN_MARKS[side]);
      }
      return builder.finish();
    },
    update: (marks, tr) => (tr.docChanged ? marks.map(tr.changes) : marks),
    provide: (self) => EditorView.decorations.from(self),
  });
}

/** The line mark of each origin. */
const ORIGIN_MARKS: Readonly<Record<LineSide, Decoration>> = {
  mine: Decoration.line({ class: "hackmd-bridge-merge-from-mine", attributes: { "data-origin": "mine" } }),
  theirs: Decoration.line({ class: "hackmd-bridge-merge-from-theirs", attributes: { "data-origin": "theirs" } }),
  both: Decoration.line({ class: "hackmd-bridge-merge-from-both", attributes: { "data-origin": "both" } }),
};
