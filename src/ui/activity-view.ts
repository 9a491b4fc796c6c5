/**
 * The activity log view: a side-panel history of agent calls, newest first, refreshed as calls
 * complete, filtered by note and by client, with Undo on each note write that can be undone. Each entry reads as a sentence a person understands — what the agent did ("Pushed a
 * file to HackMD"), to which note (the tracked file's name when there is one), and how it ended
 * in words ("Done", "Refused: both sides changed") — with the tool name kept only as a tooltip.
 * Dumb UI over `ActivityLog` (docs/style.md rule 15); note names come from an injected lookup.
 */
import { ButtonComponent, DropdownComponent, ItemView, type Plugin, type WorkspaceLeaf } from "obsidian";
import type { ErrorKind } from "../core/errors";
import type { ActivityEntry, ActivityLog } from "../obsidian/activity-log";
import { ERROR_NOTICES } from "../obsidian/notices";

/** The view type id of the activity log. */
export const ACTIVITY_VIEW_TYPE = "hackmd-bridge-activity";

/** What each tool did, in words (sentence case); unknown tools show their name. */
export const TOOL_WORDS: Readonly<Record<string, string>> = {
  hackmd_get_me: "Read your HackMD profile",
  hackmd_list_notes: "Listed notes",
  hackmd_get_note: "Read a note",
  hackmd_create_note: "Created a note",
  hackmd_update_note: "Changed a note",
  hackmd_delete_note: "Deleted or restored a note",
  hackmd_upload_note_image: "Uploaded an image",
  hackmd_list_folders: "Listed folders",
  hackmd_create_folder: "Created a folder",
  hackmd_update_folder: "Changed a folder",
  hackmd_delete_folder: "Deleted a folder",
  hackmd_pull_note: "Pulled a note into the vault",
  hackmd_push_note: "Pushed a file to HackMD",
  hackmd_untrack_note: "Untracked a note",
  hackmd_list_versions: "Listed a note's versions",
  hackmd_get_version: "Read a version of a note",
  hackmd_create_version: "Saved a version of a note",
  hackmd_list_comments: "Listed a note's comments",
  hackmd_list_journal: "Read the sync journal",
  hackmd_resolve_comment: "Resolved or reopened a comment",
  hackmd_search_notes: "Searched the tracked notes",
};

/** Looks up a readable name for a note (its tracked file), or undefined. */
export type DescribeNote = (noteId: string) => Promise<string | undefined>;

/** How a call ended, in words. */
export function outcomeWords(entry: Pick<ActivityEntry, "ok" | "errorKind">): string {
  if (entry.ok) return "Done";
  const kind = entry.errorKind as ErrorKind | undefined;
  const sentence = kind !== undefined ? ERROR_NOTICES[kind] : undefined;
  if (sentence === undefined) return "Failed";
  // The notice's first sentence says what happened; the rest is advice for the user's own actions.
  const first = (sentence.split(". ")[0] ?? sentence).replace(/\.$/, "");
  return `Failed: ${first.startsWith("HackMD") ? first : `${first.charAt(0).toLowerCase()}${first.slice(1)}`}`;
}

/** Undoes one entry's change (asks, writes, tells the user); the view only offers it. */
export type UndoEntry = (entry: ActivityEntry) => Promise<void>;

/** Filter value meaning "every note" or "every client". */
const ALL = "";

/** An ItemView listing the activity log. */
export class ActivityView extends ItemView {
  private readonly names = new Map<string, string | null>();
  /** The note id and the client shown; `ALL` shows every one. */
  private filter = { note: ALL, client: ALL };

  constructor(
    leaf: WorkspaceLeaf,
    private readonly log: ActivityLog,
    private readonly describeNote?: DescribeNote,
    private readonly undo?: UndoEntry,
  ) {
    super(leaf);
  }

  /** Shows only the calls about this note and from this client (`""`: all). */
  setFilter(filter: { note?: string; client?: string }): void {
    this.filter = { ...this.filter, ...filter };
    this.render();
  }

  override getViewType(): string {
    return ACTIVITY_VIEW_TYPE;
  }

  override getDisplayText(): string {
    return "Agent activity";
  }

  override getIcon(): string {
    return "activity";
  }

  override async onOpen(): Promise<void> {
    this.register(this.log.subscribe(() => this.render()));
    this.render();
    await Promise.resolve();
  }

  /** Redraws the list from the log. */
  render(): void {
    const root = this.contentEl;
    root.empty();
    root.addClass("hackmd-bridge-activity");
    const all = this.log.list().reverse();
    if (all.length === 0) {
      root.createEl("p", { cls: "hackmd-bridge-muted", text: "No agent calls yet. Calls from AI agents appear here." });
      return;
    }
    this.renderFilters(root, all);
    const entries = all.filter(
      (entry) =>
        (this.filter.note === ALL || entry.noteId === this.filter.note) &&
        (this.filter.client === ALL || entry.client === this.filter.client),
    );
    if (entries.length === 0) {
      root.createEl("p", { cls: "hackmd-bridge-muted", text: "No calls match these filters." });
      return;
    }
    const list = root.createEl("ul", { cls: "hackmd-bridge-activity-list" });
    for (const entry of entries) this.renderEntry(list, entry);
  }

  /** The note and client dropdowns, listing what the history holds. */
  private renderFilters(root: HTMLElement, entries: readonly ActivityEntry[]): void {
    const bar = root.createDiv({ cls: "hackmd-bridge-activity-filters" });
    const notes = [...new Set(entries.flatMap((entry) => (entry.noteId === undefined ? [] : [entry.noteId])))];
    const clients = [...new Set(entries.flatMap((entry) => (entry.client === undefined ? [] : [entry.client])))];
    const note = new DropdownComponent(bar).addOption(ALL, "All notes");
    for (const id of notes) note.addOption(id, this.names.get(id) ?? `Note ${shortId(id)}`);
    note.selectEl.addClass("hackmd-bridge-activity-note-filter");
    note.setValue(this.filter.note).onChange((value) => this.setFilter({ note: value }));
    const client = new DropdownComponent(bar).addOption(ALL, "All clients");
    for (const name of clients) client.addOption(name, name);
    client.selectEl.addClass("hackmd-bridge-activity-client-filter");
    client.setValue(this.filter.client).onChange((value) => this.setFilter({ client: value }));
  }

  private renderEntry(list: HTMLElement, entry: ActivityEntry): void {
    const item = list.createEl("li", { cls: entry.ok ? "hackmd-bridge-activity-ok" : "hackmd-bridge-activity-failed" });
    const head = item.createDiv({ cls: "hackmd-bridge-activity-head" });
    head.createSpan({ cls: "hackmd-bridge-activity-time", text: new Date(entry.at).toLocaleTimeString() });
    head.createSpan({
      cls: "hackmd-bridge-activity-tool",
      text: TOOL_WORDS[entry.tool] ?? entry.tool,
      attr: { "aria-label": entry.tool },
    });
    if (entry.client !== undefined) head.createSpan({ cls: "hackmd-bridge-activity-client", text: entry.client });
    if (entry.noteId) {
      const note = item.createDiv({ cls: "hackmd-bridge-activity-note" });
      this.showNoteName(note, entry.noteId);
    }
    const detail = item.createDiv({ cls: "hackmd-bridge-activity-detail" });
    detail.createSpan({ cls: "hackmd-bridge-activity-outcome", text: outcomeWords(entry) });
    detail.createSpan({ text: ` · ${formatDuration(entry.durationMs)}` });
    if (entry.hashBefore !== undefined && entry.hashAfter !== undefined && entry.hashBefore !== entry.hashAfter) {
      item.createDiv({
        cls: "hackmd-bridge-activity-hashes",
        text: `Text ${shortHash(entry.hashBefore)} → ${shortHash(entry.hashAfter)}`,
      });
    }
    if (entry.undoneAt !== undefined) item.createDiv({ cls: "hackmd-bridge-activity-undone", text: "Undone" });
    else if (this.undo !== undefined && this.log.canUndo(entry)) {
      const undo = this.undo;
      new ButtonComponent(item)
        .setButtonText("Undo")
        .setTooltip("Restore the note's text from before this call")
        .setClass("hackmd-bridge-activity-undo")
        .onClick(() => void undo(entry));
    }
  }

  /** The tracked file's name when known, else a short form of the id (looked up once per id). */
  private showNoteName(el: HTMLElement, noteId: string): void {
    const known = this.names.get(noteId);
    el.setText(known ?? `Note ${shortId(noteId)}`);
    if (known !== undefined || this.describeNote === undefined) return;
    this.names.set(noteId, null);
    void this.describeNote(noteId)
      .then((name) => {
        if (name === undefined) return;
        this.names.set(noteId, name);
        el.setText(name);
      })
      .catch(() => undefined);
  }
}

/** The first hex digits of a body hash, enough to tell versions apart. */
function shortHash(hash: string): string {
  return hash.replace(/^sha256:/, "").slice(0, 8);
}

/** "120 ms" or "2.4 s". */
function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The first eight characters of an id (HackMD ids are long and random). */
function shortId(id: string): string {
  return id.length > 10 ? `${id.slice(0, 8)}…` : id;
}

/** Opens (or reveals) the activity log view. */
export type OpenActivityView = () => Promise<void>;

/** Registers the activity view on the plugin and returns a function that opens it (one line in main.ts). */
export function registerActivityView(
  plugin: Plugin,
  log: ActivityLog,
  describeNote?: DescribeNote,
  undo?: UndoEntry,
): OpenActivityView {
  plugin.registerView(ACTIVITY_VIEW_TYPE, (leaf) => new ActivityView(leaf, log, describeNote, undo));
  return async () => {
    const { workspace } = plugin.app;
    let leaf = workspace.getLeavesOfType(ACTIVITY_VIEW_TYPE)[0] ?? null;
    if (!leaf) {
      leaf = workspace.getRightLeaf(false);
      if (!leaf) return;
      await leaf.setViewState({ type: ACTIVITY_VIEW_TYPE, active: true });
    }
    await workspace.revealLeaf(leaf);
  };
}
