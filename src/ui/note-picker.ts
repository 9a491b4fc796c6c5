/**
 * The fuzzy-searchable list of personal and team notes to pull from (FuzzySuggestModal). It only
 * shows the list it is given and resolves the chosen note, or undefined when dismissed.
 */
import { FuzzySuggestModal, type App } from "obsidian";
import type { PickableNote } from "../obsidian/actions";

/** Lets the user pick one note by title, workspace or id. */
export class NotePickerModal extends FuzzySuggestModal<PickableNote> {
  private readonly notes: PickableNote[];
  private chosen: PickableNote | undefined;
  private settle: ((note: PickableNote | undefined) => void) | undefined;

  /** A picker over `notes`; call `pick()` to show it. */
  constructor(app: App, notes: PickableNote[]) {
    super(app);
    this.notes = notes;
    this.setPlaceholder("Type to search your notes");
    this.emptyStateText = "No matching notes.";
  }

  /** Opens the picker and resolves when it closes. */
  pick(): Promise<PickableNote | undefined> {
    return new Promise((resolve) => {
      this.settle = resolve;
      this.open();
    });
  }

  override getItems(): PickableNote[] {
    return this.notes;
  }

  override getItemText(note: PickableNote): string {
    return `${note.title || "Untitled"} · ${noteWorkspaceLabel(note.teamPath)} · ${note.noteId}`;
  }

  override onChooseItem(note: PickableNote): void {
    this.chosen = note;
  }

  override onClose(): void {
    super.onClose();
    // Obsidian calls onChooseItem after onClose; settle on the next tick so the choice counts.
    window.setTimeout(() => {
      const settle = this.settle;
      this.settle = undefined;
      settle?.(this.chosen);
    }, 0);
  }
}

/** How a workspace reads in the picker. */
export function noteWorkspaceLabel(teamPath: string | null): string {
  return teamPath === null ? "personal" : `team ${teamPath}`;
}
