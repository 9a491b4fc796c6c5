/**
 * The change a call is about to make, handed to its host before anything is written (docs/tool-contract-extensions.md,
 * docs/adr/0005-ask-by-rerun.md). The host may show it to the user and stop the call, and records it in
 * the activity history. Host-neutral data: what is changed, never how it is shown.
 */

/** What kind of change a call is about to make. */
export type ChangeAction =
  /** Not a change: a tool that reads only, set to "ask"; `fields` holds its arguments. */
  | "read"
  | "edit_note"
  | "update_note"
  | "create_note"
  | "delete_note"
  | "restore_note"
  | "upload_image"
  | "create_folder"
  | "update_folder"
  | "delete_folder"
  | "pull_note"
  | "push_note"
  | "untrack_note"
  | "create_version"
  | "resolve_comment";

/** A change of text: a note's body (on HackMD) or a working file's content (in the ROOT). */
export interface BodyChange {
  /** Where the text lives: the note on HackMD, or the local file. */
  where: "note" | "file";
  /** The text before the change; `""` for a new note or file. Absent until `readBefore` ran. */
  before?: string;
  /** Reads the text before the change, for callers that did not need it themselves. */
  readBefore?: () => Promise<string>;
  /** The text after the change. */
  after: string;
}

/** What a call is about to change (nothing has been written yet when a host sees it). */
export interface ProposedChange {
  action: ChangeAction;
  /** The note concerned, when there is one. */
  note?: {
    teamPath: string | null;
    noteId: string;
    title?: string;
    /** Reads the title, for callers that did not need it themselves. */ readTitle?: () => Promise<string>;
  };
  /** The ROOT-relative file concerned, when there is one. */
  localPath?: string;
  /** The folder concerned (its id, or for a new folder its name). */
  folder?: { teamPath: string | null; folderId?: string; name?: string };
  /** The text change, for edits, replacements, pushes, pulls and new notes. */
  body?: BodyChange;
  /** Other fields set by the call, name → value as the agent gave it (e.g. `title`, `read_permission`). */
  fields?: Readonly<Record<string, string>>;
}

/**
 * Called by an operation just before it changes something, with the change it will make.
 * Resolves to go on; throws to stop (nothing written). The default lets every change through.
 */
export type ChangeGuard = (change: ProposedChange) => Promise<void | ChangeEdit>;

/**
 * The user's own text in place of a proposed body (the approval modal's "Edit text"): the
 * operation writes `after` instead of what it proposed. Only edits of a note's body honour it
 * (app/update-note.ts); the gate offers editing for those alone.
 */
export interface ChangeEdit {
  after: string;
}

/** Whether the user may edit a proposed change before approving it: a note body the call writes as given. */
export function isEditableChange(change: ProposedChange): boolean {
  return (change.action === "edit_note" || change.action === "update_note") && change.body?.where === "note";
}
