/**
 * The question an agent's call puts to the user before it changes something (docs/tool-contract-extensions.md): which
 * client, which tool, which note, and the exact change — a diff of the text for edits, pushes and
 * pulls; the note's title and a warning for a delete. Dumb UI (docs/style.md rule 15): it receives a
 * view model and resolves `approve`, `deny` or `allow_session`; closing it any other way is `deny`.
 */
import { structuredPatch } from "diff";
import { Modal, Setting, type App } from "obsidian";
import { isEditableChange, type ProposedChange } from "../core/approval";
import type { ApprovalDecision, ApprovalRequest } from "../mcp/gate";

/** One line of the diff, marked as kept, removed or added. */
export interface DiffLine {
  kind: "context" | "removed" | "added" | "hunk";
  text: string;
}

/** What the modal shows. */
export interface ApprovalViewModel {
  title: string;
  /** Label → value rows: client, tool, note or folder, file. */
  facts: Array<{ label: string; value: string }>;
  /** A warning shown above the change (deletes, whole-body replacements). */
  warning?: string;
  /** Fields the call sets besides the text. */
  fields: Array<{ label: string; value: string }>;
  /** The text change; empty when the call changes no text. */
  diff: DiffLine[];
  /** Says when the text does not change at all. */
  unchangedText?: boolean;
  /** The proposed text, when the user may edit it before approving (a note body the call writes as given). */
  editable?: string;
}

/** Lines of context around each change in the diff. */
const DIFF_CONTEXT = 3;

const ACTION_TITLES: Readonly<Record<ProposedChange["action"], string>> = {
  read: "Allow the agent to read this?",
  edit_note: "Allow the agent to edit this note?",
  update_note: "Allow the agent to change this note?",
  create_note: "Allow the agent to create a note?",
  delete_note: "Allow the agent to delete this note?",
  restore_note: "Allow the agent to restore this note from the trash?",
  upload_image: "Allow the agent to upload an image?",
  create_folder: "Allow the agent to create a folder?",
  update_folder: "Allow the agent to change this folder?",
  delete_folder: "Allow the agent to delete this folder?",
  pull_note: "Allow the agent to write this note into your vault?",
  push_note: "Allow the agent to push this file to HackMD?",
  untrack_note: "Allow the agent to untrack this note?",
  create_version: "Allow the agent to save a version of this note?",
  resolve_comment: "Allow the agent to change this comment thread?",
};

/** Builds what the modal shows; `noteName` is how the user knows the note (its file, else its title). */
export function approvalViewModel(request: ApprovalRequest, noteName: string | undefined): ApprovalViewModel {
  const { change } = request;
  const facts = [
    { label: "Client", value: request.client },
    { label: "Tool", value: request.tool },
  ];
  if (change.note !== undefined)
    facts.push({ label: "Note", value: noteName ?? change.note.title ?? change.note.noteId });
  if (change.folder !== undefined)
    facts.push({ label: "Folder", value: change.folder.name ?? change.folder.folderId ?? "" });
  if (change.localPath !== undefined) facts.push({ label: "File", value: change.localPath });
  if (change.note?.teamPath) facts.push({ label: "Team", value: change.note.teamPath });
  const model: ApprovalViewModel = {
    title: ACTION_TITLES[change.action],
    facts,
    fields: Object.entries(change.fields ?? {}).map(([label, value]) => ({ label, value })),
    diff: [],
  };
  const warning = warningOf(change);
  if (warning !== undefined) model.warning = warning;
  if (request.bulk !== undefined) {
    // The bulk guard: the session is paused; the set so far, then the change it would make next.
    const { writes, minutes } = request.bulk;
    model.title = `Let ${request.client} go on?`;
    model.warning = `It made ${writes.length} changes in the last ${minutes} minutes. Nothing more is written until you answer; Approve lets it go on, Deny stops this change.`;
    model.fields = [...writes.map((write, index) => ({ label: String(index + 1), value: write })), ...model.fields];
  }
  const body = change.body;
  if (body !== undefined) {
    if (body.before !== undefined && body.before === body.after) model.unchangedText = true;
    else model.diff = diffLines(body.before ?? "", body.after);
    if (isEditableChange(change)) model.editable = body.after;
  }
  return model;
}

function warningOf(change: ProposedChange): string | undefined {
  switch (change.action) {
    case "delete_note":
      return change.note?.teamPath === null
        ? "The note moves to your HackMD trash; everyone it is shared with loses it."
        : "A team note's deletion cannot be undone through HackMD's API.";
    case "delete_folder":
      return "The folder is deleted on HackMD.";
    case "update_note":
      return change.body === undefined ? undefined : "The note's whole text is replaced.";
    case "untrack_note":
      return "The file stays, but it is no longer linked to the note.";
    default:
      return undefined;
  }
}

/** The unified diff of two texts as marked lines (every hunk, nothing cut: the user approves what they see). */
export function diffLines(before: string, after: string): DiffLine[] {
  const patch = structuredPatch("before", "after", before, after, undefined, undefined, { context: DIFF_CONTEXT });
  const lines: DiffLine[] = [];
  for (const hunk of patch.hunks) {
    lines.push({ kind: "hunk", text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` });
    for (const line of hunk.lines) {
      if (line.startsWith("\\")) continue;
      const kind = line.startsWith("+") ? "added" : line.startsWith("-") ? "removed" : "context";
      lines.push({ kind, text: line });
    }
  }
  return lines;
}

/** The approval modal; `result` settles when the user answers or the modal closes. */
export class ApprovalModal extends Modal {
  private settled = false;
  private resolve: (decision: ApprovalDecision) => void = () => undefined;
  /** Settles with the user's answer; `deny` when the modal closes without one. */
  readonly result: Promise<ApprovalDecision>;

  constructor(
    app: App,
    private readonly model: ApprovalViewModel,
  ) {
    super(app);
    this.result = new Promise<ApprovalDecision>((resolve) => {
      this.resolve = resolve;
    });
  }

  override onOpen(): void {
    this.setTitle(this.model.title);
    const { contentEl } = this;
    contentEl.empty();
    contentEl.addClass("hackmd-bridge-approval");
    const facts = contentEl.createEl("dl", { cls: "hackmd-bridge-approval-facts" });
    for (const fact of this.model.facts) {
      facts.createEl("dt", { text: fact.label });
      facts.createEl("dd", { text: fact.value });
    }
    if (this.model.warning !== undefined)
      contentEl.createEl("p", { cls: ["hackmd-bridge-approval-warning", "mod-warning"], text: this.model.warning });
    if (this.model.fields.length > 0) {
      const list = contentEl.createEl("ul", { cls: "hackmd-bridge-approval-fields" });
      for (const field of this.model.fields) list.createEl("li", { text: `${field.label}: ${field.value}` });
    }
    if (this.model.unchangedText === true)
      contentEl.createEl("p", { cls: "hackmd-bridge-muted", text: "The text does not change." });
    if (this.model.diff.length > 0) {
      const pre = contentEl.createEl("pre", { cls: "hackmd-bridge-approval-diff" });
      for (const line of this.model.diff) pre.createDiv({ cls: `hackmd-bridge-diff-${line.kind}`, text: line.text });
    }
    // "Edit text": the user changes the proposed text; Approve then writes theirs (docs/sync-journal.md).
    let editor: HTMLTextAreaElement | undefined;
    const editable = this.model.editable;
    if (editable !== undefined) {
      const edit = contentEl.createDiv({ cls: "hackmd-bridge-approval-edit" });
      new Setting(edit).setName("Change the text before approving").addButton((button) =>
        button
          .setButtonText("Edit text")
          .setClass("hackmd-bridge-approval-edit-button")
          .onClick(() => {
            if (editor !== undefined) return;
            editor = edit.createEl("textarea", { cls: "hackmd-bridge-approval-editor" });
            editor.value = editable;
            editor.rows = 12;
            editor.focus();
          }),
      );
    }
    new Setting(contentEl)
      .addButton((button) => button.setButtonText("Deny").onClick(() => this.answer("deny")))
      .addButton((button) =>
        button.setButtonText("Allow this tool for this session").onClick(() => this.answer("allow_session")),
      )
      .addButton((button) =>
        button
          .setButtonText("Approve")
          .setCta()
          .onClick(() =>
            this.answer(editor !== undefined && editor.value !== editable ? { edited: editor.value } : "approve"),
          ),
      );
  }

  override onClose(): void {
    this.contentEl.empty();
    this.settle("deny");
  }

  private answer(decision: ApprovalDecision): void {
    this.settle(decision);
    this.close();
  }

  private settle(decision: ApprovalDecision): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(decision);
  }
}
