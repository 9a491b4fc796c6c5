/**
 * The fuzzy-searchable list of personal and team notes to pull from (FuzzySuggestModal). It only
 * shows the list it is given and resolves the chosen note, or undefined when dismissed. Notes read
 * as people know them — title and workspace; a raw note id shows only to tell apart notes that
 * share a title in one workspace.
 */
import type { App } from "obsidian";
import { PickerModal } from "./picker-modal";
import type { PickableNote } from "../obsidian/actions";

/** Lets the user pick one note by title, workspace or id. */
export class NotePickerModal extends PickerModal<PickableNote> {
  private readonly notes: PickableNote[];
  /** Title and workspace pairs held by more than one note. */
  private readonly shared: Set<string>;

  /** A picker over `notes`; call `pick()` to show it. */
  constructor(app: App, notes: PickableNote[]) {
    super(app);
    this.notes = notes;
    const seen = new Set<string>();
    this.shared = new Set<string>();
    for (const note of notes) {
      const key = labelOf(note);
      if (seen.has(key)) this.shared.add(key);
      seen.add(key);
    }
    this.setPlaceholder("Type a title to search your notes");
    this.emptyStateText = "No matching notes.";
  }

  override getItems(): PickableNote[] {
    return this.notes;
  }

  override getItemText(note: PickableNote): string {
    const label = labelOf(note);
    return this.shared.has(label) ? `${label} · ${note.noteId.slice(0, 8)}` : label;
  }
}

/** How a workspace reads in the picker. */
export function noteWorkspaceLabel(teamPath: string | null): string {
  return teamPath === null ? "Personal" : `Team ${teamPath}`;
}

/** A note's title and workspace, as the picker shows them. */
function labelOf(note: PickableNote): string {
  return `${note.title.trim() === "" ? "Untitled note" : note.title} · ${noteWorkspaceLabel(note.teamPath)}`;
}
