/**
 * The conflict modal (STYLE.md rule 15): a dumb view of a ConflictViewModel that resolves a
 * promise of a ConflictChoice. It shows base, mine and theirs for each overlapping change with
 * a mine / theirs / both choice, a live preview of the result, and the whole-file actions. It
 * reads and writes nothing; closing it any other way than an action button resolves `cancel`.
 */
import { Modal, type App } from "obsidian";
import type { ConflictChoice, ConflictSection, ConflictViewModel, HunkChoice, StableSection } from "./conflict-view-model";

/**
 * Texts naming HackMD, written in sentence case by hand: the linter's sentence-case rule runs
 * with `enforceCamelCaseLower` and no "HackMD" brand, so it would ask for "hackmd" in literals.
 */
const TEXT = {
  clean: "Both the file and the note on HackMD changed since the last sync, but the changes do not overlap, so they merge cleanly.",
  conflicted: (count: string): string => `Both the file and the note on HackMD changed since the last sync. ${count}: choose mine, theirs or both for each.`,
  keepMine: "Keep mine and push: HackMD's version is replaced by this file.",
  takeTheirs: "Take theirs: this file is replaced by HackMD's version; its edits are dropped.",
  keepBoth: "Keep both: nothing is pushed; HackMD's version is saved beside the file as a .remote.md copy.",
  theirsLabel: "Theirs (HackMD)",
} as const;

/** The per-hunk buttons, in order: choice, label, tooltip. */
const HUNK_BUTTONS: ReadonlyArray<{ choice: Exclude<HunkChoice, undefined>; label: string; tip: string }> = [
  { choice: "local", label: "Use mine", tip: "Keep this file's lines here" },
  { choice: "remote", label: "Use theirs", tip: "Keep HackMD's lines here" },
  { choice: "both", label: "Use both", tip: "Keep this file's lines, then HackMD's" },
];

/** The modal; `result` settles once, when the user acts or the modal closes. */
export class ConflictModal extends Modal {
  /** The user's answer; `cancel` when the modal closes without an action. */
  readonly result: Promise<ConflictChoice>;
  private readonly viewModel: ConflictViewModel;
  private choices: HunkChoice[];
  private settled = false;
  private resolve: (choice: ConflictChoice) => void = () => undefined;
  private previewEl: HTMLElement | undefined;
  private progressEl: HTMLElement | undefined;
  private mergeButton: HTMLButtonElement | undefined;
  private readonly hunkButtons = new Map<number, HTMLButtonElement[]>();

  /** A modal over `app` showing `viewModel`; call `open()` and await `result`. */
  constructor(app: App, viewModel: ConflictViewModel) {
    super(app);
    this.viewModel = viewModel;
    this.choices = viewModel.initialChoices();
    this.result = new Promise<ConflictChoice>((resolve) => {
      this.resolve = resolve;
    });
  }

  override onOpen(): void {
    const vm = this.viewModel;
    this.setTitle(`Resolve the conflict in ${fileName(vm.localPath)}`);
    this.modalEl.addClass("hackmd-bridge-conflict-modal");
    const { contentEl } = this;
    contentEl.empty();
    contentEl.addClass("hackmd-bridge-conflict");
    contentEl.createEl("p", { cls: "hackmd-bridge-conflict-path", text: vm.localPath });
    if (vm.clean !== undefined) {
      contentEl.createEl("p", { text: TEXT.clean });
    } else {
      const count = vm.conflictCount === 1 ? "One change overlaps" : `${vm.conflictCount} changes overlap`;
      contentEl.createEl("p", { text: TEXT.conflicted(count) });
      this.renderSections(contentEl.createDiv({ cls: "hackmd-bridge-conflict-sections" }));
    }
    contentEl.createDiv({ cls: "hackmd-bridge-conflict-heading", text: "Result" });
    this.progressEl = contentEl.createDiv({ cls: "hackmd-bridge-conflict-progress" });
    this.previewEl = contentEl.createEl("pre", { cls: ["hackmd-bridge-conflict-pre", "hackmd-bridge-conflict-preview"] });
    this.renderActions(contentEl);
    this.refresh();
  }

  override onClose(): void {
    this.contentEl.empty();
    this.hunkButtons.clear();
    this.settle({ action: "cancel" });
  }

  /** Stable runs (collapsed) and conflicts, in text order. */
  private renderSections(container: HTMLElement): void {
    for (const section of this.viewModel.sections) {
      if (section.kind === "stable") this.renderStable(container, section);
      else this.renderConflict(container, section);
    }
  }

  private renderStable(container: HTMLElement, section: StableSection): void {
    const el = container.createDiv({ cls: "hackmd-bridge-conflict-stable" });
    if (section.head.length > 0) el.createEl("pre", { cls: "hackmd-bridge-conflict-pre", text: section.head.join("\n") });
    if (section.hidden > 0) {
      const lines = section.hidden === 1 ? "1 line" : `${section.hidden} lines`;
      el.createDiv({ cls: "hackmd-bridge-conflict-hidden", text: `${lines} merged without conflict` });
    }
    if (section.tail.length > 0) el.createEl("pre", { cls: "hackmd-bridge-conflict-pre", text: section.tail.join("\n") });
  }

  private renderConflict(container: HTMLElement, section: ConflictSection): void {
    const el = container.createDiv({ cls: "hackmd-bridge-conflict-hunk", attr: { "data-hunk": String(section.index) } });
    el.createDiv({ cls: "hackmd-bridge-conflict-heading", text: `Conflict ${section.index + 1} of ${this.viewModel.conflictCount}` });
    const blocks = el.createDiv({ cls: "hackmd-bridge-conflict-blocks" });
    block(blocks, "base", "Base (last synced)", section.base);
    block(blocks, "mine", "Mine (this file)", section.mine);
    block(blocks, "theirs", TEXT.theirsLabel, section.theirs);
    const row = el.createDiv({ cls: "hackmd-bridge-conflict-choices" });
    const buttons = HUNK_BUTTONS.map(({ choice, label, tip }) => {
      const button = row.createEl("button", { text: label, attr: { "data-choice": choice, "aria-label": tip, "aria-pressed": "false" } });
      button.addEventListener("click", () => this.choose(section.index, choice));
      return button;
    });
    this.hunkButtons.set(section.index, buttons);
  }

  private renderActions(contentEl: HTMLElement): void {
    const help = contentEl.createEl("ul", { cls: "hackmd-bridge-conflict-help" });
    for (const line of [TEXT.keepMine, TEXT.takeTheirs, TEXT.keepBoth]) help.createEl("li", { text: line });
    const row = contentEl.createDiv({ cls: ["modal-button-container", "hackmd-bridge-conflict-actions"] });
    this.mergeButton = actionButton(row, "merged", "Save merged text and push", () => this.answerMerged());
    this.mergeButton.addClass("mod-cta");
    actionButton(row, "keep-mine", "Keep mine and push", () => this.answer({ action: "keep-mine" }));
    actionButton(row, "take-theirs", "Take theirs", () => this.answer({ action: "take-theirs" }));
    actionButton(row, "keep-both", "Keep both", () => this.answer({ action: "keep-both" }));
    actionButton(row, "cancel", "Cancel", () => this.answer({ action: "cancel" }));
  }

  private choose(index: number, choice: Exclude<HunkChoice, undefined>): void {
    this.choices = this.choices.map((current, at) => (at === index ? choice : current));
    this.refresh();
  }

  /** Brings the choice buttons, the preview, the progress line and the merge button up to date. */
  private refresh(): void {
    const vm = this.viewModel;
    for (const [index, buttons] of this.hunkButtons) {
      for (const button of buttons) {
        const on = button.getAttribute("data-choice") === this.choices[index];
        button.toggleClass("mod-cta", on);
        button.setAttribute("aria-pressed", String(on));
      }
    }
    this.previewEl?.setText(vm.preview(this.choices));
    const chosen = this.choices.filter((choice) => choice !== undefined).length;
    this.progressEl?.setText(vm.clean !== undefined ? "The merged text:" : `${chosen} of ${vm.conflictCount} conflicts chosen.`);
    if (this.mergeButton) this.mergeButton.disabled = !vm.isComplete(this.choices);
  }

  private answerMerged(): void {
    const vm = this.viewModel;
    if (!vm.isComplete(this.choices)) return;
    this.answer({ action: "merged", text: vm.clean ?? vm.result(this.choices) });
  }

  private answer(choice: ConflictChoice): void {
    this.settle(choice);
    this.close();
  }

  private settle(choice: ConflictChoice): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(choice);
  }
}

/** Opens the conflict modal and resolves the user's answer. */
export function openConflictModal(app: App, viewModel: ConflictViewModel): Promise<ConflictChoice> {
  const modal = new ConflictModal(app, viewModel);
  modal.open();
  return modal.result;
}

/** One labelled monospace block of lines (an empty region says so). */
function block(container: HTMLElement, side: "base" | "mine" | "theirs", label: string, lines: readonly string[]): void {
  const el = container.createDiv({ cls: ["hackmd-bridge-conflict-block", `mod-${side}`], attr: { "data-side": side } });
  el.createDiv({ cls: "hackmd-bridge-conflict-label", text: label });
  if (lines.length === 0) el.createDiv({ cls: "hackmd-bridge-conflict-empty", text: "No lines" });
  else el.createEl("pre", { cls: "hackmd-bridge-conflict-pre", text: lines.join("\n") });
}

/** A whole-file action button. */
function actionButton(row: HTMLElement, action: ConflictChoice["action"], label: string, onClick: () => void): HTMLButtonElement {
  const button = row.createEl("button", { text: label, attr: { "data-action": action } });
  button.addEventListener("click", onClick);
  return button;
}

/** The last component of a ROOT-relative path. */
function fileName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
