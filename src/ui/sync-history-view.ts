/**
 * The "Sync history" view (docs/sync-journal.md): the sync journal, newest first, refreshed as
 * entries are added, filtered by note, by actor and by kind. An agent session's writes are grouped
 * as a change set under one header with "Undo session"; each entry says who wrote what, the
 * decision-table branch and where the replaced text lives, with "Open other side" and "Restore".
 * Each write of an agent session shows its change as a line diff of the texts the journal kept,
 * or says plainly that the journal does not hold them.
 * Dumb UI over `SyncHistorySource` (docs/style.md); the plugin wires the source
 * (src/obsidian/journal-wiring.ts), in the manner of the activity view (src/ui/activity-view.ts).
 */
import { ButtonComponent, DropdownComponent, ItemView, type WorkspaceLeaf } from "obsidian";
import { actorWords, canUndoEntry, entryTime, replacedWords, type EntryTexts } from "../app/journal";
import type { JournalEntry, JournalKind } from "../sync/journal";
import { reduceDiffInput } from "../sync/diff";
import { diffLines, type DiffLine } from "./approval-modal";

/** The view type id of the sync history. */
export const SYNC_HISTORY_VIEW_TYPE = "hackmd-bridge-sync-history";

/** What each kind of write did, in words (sentence case). */
export const KIND_WORDS: Readonly<Record<JournalKind, string>> = {
  pull: "Pulled into the vault",
  push: "Pushed to HackMD",
  force_push: "Force pushed to HackMD",
  merge: "Merged both sides",
  advance_baseline: "Both sides already agreed",
  conflict: "Conflict: HackMD's text kept beside the file",
  create_note: "Created a note",
  update_note: "Changed a note",
  delete_note: "Deleted or restored a note",
  folder: "Changed a folder",
  image: "Uploaded an image",
  version: "Saved a version",
  comment: "Resolved or reopened a comment",
  untrack: "Untracked a note",
  undo: "Undid a change",
};

/** What the view needs. */
export interface SyncHistorySource {
  read(): Promise<JournalEntry[]>;
  /** Calls `listener` after every new entry; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** Opens the other side of an entry: the `.remote.md` it wrote, or the note on HackMD. */
  openOtherSide?: (entry: JournalEntry) => Promise<void>;
  /** Undoes one entry (asks first, tells the user how it ended). */
  restore?: (entry: JournalEntry) => Promise<void>;
  /** Undoes an agent session's writes, newest first (asks first, tells the user how it ended). */
  undoSession?: (session: string, entries: readonly JournalEntry[]) => Promise<void>;
  /** The texts before and after a write, as the journal kept them (src/app/journal.ts entryTexts). */
  texts?: (entry: JournalEntry) => Promise<EntryTexts>;
}

const ALL = "";
/** Diffs are read for at most this many agent writes, the newest. */
export const MAX_DIFFS = 20;
/** A diff shows at most this many lines, then says how many more there are. */
export const MAX_DIFF_LINES = 80;

/** An ItemView listing the sync journal. */
export class SyncHistoryView extends ItemView {
  private filter = { note: ALL, actor: ALL, kind: ALL };
  private entries: JournalEntry[] = [];
  /** Each agent write's diff (or the sentence shown instead), computed once per read. */
  private diffs = new Map<string, DiffShown>();

  constructor(
    leaf: WorkspaceLeaf,
    private readonly source: SyncHistorySource,
  ) {
    super(leaf);
  }

  override getViewType(): string {
    return SYNC_HISTORY_VIEW_TYPE;
  }

  override getDisplayText(): string {
    return "Sync history";
  }

  override getIcon(): string {
    return "history";
  }

  override async onOpen(): Promise<void> {
    this.register(this.source.subscribe(() => void this.refresh()));
    await this.refresh();
  }

  /** Reads the journal again and redraws. */
  async refresh(): Promise<void> {
    this.entries = await this.source.read();
    const texts = this.source.texts;
    const agentWrites = this.entries.filter((entry) => entry.actor.session !== undefined && entry.kind !== "undo");
    const diffs = new Map<string, DiffShown>();
    // One diff at a time between reads of kept texts, so a long one does not hold the window up with the rest.
    if (texts !== undefined)
      for (const entry of agentWrites.slice(-MAX_DIFFS)) diffs.set(entry.id, diffOf(await texts(entry)));
    this.diffs = diffs;
    this.render();
  }

  /** Shows only entries about this note or file, by this actor kind, of this kind (`""`: all). */
  setFilter(filter: { note?: string; actor?: string; kind?: string }): void {
    this.filter = { ...this.filter, ...filter };
    this.render();
  }

  /** Redraws from the entries last read. */
  render(): void {
    const root = this.contentEl;
    root.empty();
    root.addClass("hackmd-bridge-sync-history");
    const all = [...this.entries].reverse();
    if (all.length === 0) {
      root.createEl("p", {
        cls: "hackmd-bridge-muted",
        text: "No writes yet. Every pull, push, merge and agent write appears here.",
      });
      return;
    }
    this.renderFilters(root, all);
    const shown = all.filter(
      (entry) =>
        (this.filter.note === ALL || subject(entry) === this.filter.note) &&
        (this.filter.actor === ALL || entry.actor.kind === this.filter.actor) &&
        (this.filter.kind === ALL || entry.kind === this.filter.kind),
    );
    if (shown.length === 0) {
      root.createEl("p", { cls: "hackmd-bridge-muted", text: "No writes match these filters." });
      return;
    }
    const undone = new Set(all.flatMap((entry) => (entry.undoes === undefined ? [] : [entry.undoes])));
    const list = root.createEl("ul", { cls: "hackmd-bridge-sync-history-list" });
    let session: string | undefined;
    for (const entry of shown) {
      const mine = entry.actor.kind === "agent" ? entry.actor.session : undefined;
      if (mine !== undefined && mine !== session) this.renderSession(list, mine, all);
      session = mine;
      this.renderEntry(list, entry, undone.has(entry.id), mine !== undefined);
    }
  }

  private renderFilters(root: HTMLElement, entries: readonly JournalEntry[]): void {
    const bar = root.createDiv({ cls: "hackmd-bridge-activity-filters" });
    const note = new DropdownComponent(bar).addOption(ALL, "All notes");
    for (const name of new Set(entries.map(subject))) if (name !== "") note.addOption(name, name);
    note.selectEl.addClass("hackmd-bridge-sync-history-note-filter");
    note.setValue(this.filter.note).onChange((value) => this.setFilter({ note: value }));
    const actor = new DropdownComponent(bar)
      .addOption(ALL, "Everyone")
      .addOption("user", "You")
      .addOption("agent", "Agents")
      .addOption("auto", "Automatic sync");
    actor.selectEl.addClass("hackmd-bridge-sync-history-actor-filter");
    actor.setValue(this.filter.actor).onChange((value) => this.setFilter({ actor: value }));
    const kind = new DropdownComponent(bar).addOption(ALL, "All kinds");
    for (const name of new Set(entries.map((entry) => entry.kind))) kind.addOption(name, KIND_WORDS[name]);
    kind.selectEl.addClass("hackmd-bridge-sync-history-kind-filter");
    kind.setValue(this.filter.kind).onChange((value) => this.setFilter({ kind: value }));
  }

  /** The header of an agent session: its client, how many writes, and "Undo session". */
  private renderSession(list: HTMLElement, session: string, all: readonly JournalEntry[]): void {
    const writes = all.filter((entry) => entry.actor.session === session && entry.kind !== "undo");
    const head = list.createEl("li", { cls: "hackmd-bridge-sync-history-session" });
    const client = writes[0]?.actor.client ?? "unknown client";
    head.createSpan({
      text: `${client}: ${writes.length} ${writes.length === 1 ? "write" : "writes"} in one session`,
    });
    const undoSession = this.source.undoSession;
    if (undoSession !== undefined && writes.some(canUndoEntry)) {
      new ButtonComponent(head)
        .setButtonText("Undo session")
        .setTooltip("Undo every write of this session, newest first")
        .setClass("hackmd-bridge-sync-history-undo-session")
        .onClick(() => void undoSession(session, writes));
    }
  }

  private renderEntry(list: HTMLElement, entry: JournalEntry, undone: boolean, inSession: boolean): void {
    const item = list.createEl("li", { cls: "hackmd-bridge-sync-history-entry" });
    if (inSession) item.addClass("hackmd-bridge-sync-history-in-session");
    const head = item.createDiv({ cls: "hackmd-bridge-activity-head" });
    head.createSpan({ cls: "hackmd-bridge-activity-time", text: entryTime(entry.at) });
    head.createSpan({ cls: "hackmd-bridge-activity-tool", text: KIND_WORDS[entry.kind] });
    head.createSpan({ cls: "hackmd-bridge-activity-client", text: actorWords(entry) });
    item.createDiv({ cls: "hackmd-bridge-activity-note", text: subject(entry) });
    const facts: string[] = [];
    if (entry.branch !== undefined) facts.push(`Branch ${entry.branch}`);
    const remote = entry.remote;
    if (remote?.before !== undefined && remote.after !== undefined && remote.before !== remote.after)
      facts.push(`HackMD ${short(remote.before)} → ${short(remote.after)}`);
    const local = entry.local;
    if (local?.after !== undefined && local.before !== local.after)
      facts.push(`File ${local.before === undefined ? "new" : short(local.before)} → ${short(local.after)}`);
    if (facts.length > 0) item.createDiv({ cls: "hackmd-bridge-activity-detail", text: facts.join(" · ") });
    if (entry.outcome?.startsWith("unconfirmed") === true)
      item.createDiv({
        cls: "hackmd-bridge-sync-history-unconfirmed",
        text: "Not confirmed: HackMD was sent this write but never showed it. Check the note before writing again.",
      });
    const replaced = replacedWords(entry);
    if (replaced !== "") item.createDiv({ cls: "hackmd-bridge-sync-history-replaced", text: `Replaced: ${replaced}` });
    if (inSession) renderDiff(item, this.diffs.get(entry.id));
    const buttons = item.createDiv({ cls: "hackmd-bridge-sync-history-buttons" });
    const open = this.source.openOtherSide;
    if (open !== undefined && entry.note !== undefined)
      new ButtonComponent(buttons)
        .setButtonText("Open other side")
        .setClass("hackmd-bridge-sync-history-open")
        .onClick(() => void open(entry));
    if (undone) item.createDiv({ cls: "hackmd-bridge-activity-undone", text: "Undone" });
    else if (this.source.restore !== undefined && canUndoEntry(entry)) {
      const restore = this.source.restore;
      new ButtonComponent(buttons)
        .setButtonText("Restore")
        .setTooltip("Put back the text this write replaced")
        .setClass("hackmd-bridge-sync-history-restore")
        .onClick(() => void restore(entry));
    }
  }
}

/** What the view shows for one write's change: a sentence, or the diff's lines. */
type DiffShown = { sentence: string } | { side: string; lines: DiffLine[] };

/** A write's change as a line diff, or why none can be shown. */
function diffOf(texts: EntryTexts): DiffShown {
  if (texts.side === undefined) return { sentence: texts.missing };
  if (texts.before === texts.after) return { sentence: "The text did not change." };
  // Long texts are diffed by their first and last 8 KiB (src/sync/diff.ts), so a view stays quick.
  return { side: texts.side, lines: diffLines(reduceDiffInput(texts.before), reduceDiffInput(texts.after)) };
}

function renderDiff(item: HTMLElement, shown: DiffShown | undefined): void {
  if (shown === undefined) return;
  if ("sentence" in shown) {
    item.createDiv({ cls: ["hackmd-bridge-muted", "hackmd-bridge-sync-history-no-diff"], text: shown.sentence });
    return;
  }
  item.createDiv({ cls: "hackmd-bridge-sync-history-diff-label", text: `Changes to the ${shown.side} text` });
  const pre = item.createEl("pre", { cls: ["hackmd-bridge-approval-diff", "hackmd-bridge-sync-history-diff"] });
  for (const line of shown.lines.slice(0, MAX_DIFF_LINES))
    pre.createDiv({ cls: `hackmd-bridge-diff-${line.kind}`, text: line.text });
  if (shown.lines.length > MAX_DIFF_LINES)
    pre.createDiv({ cls: "hackmd-bridge-diff-hunk", text: `… ${shown.lines.length - MAX_DIFF_LINES} more lines` });
}

/** The file an entry wrote, or its note's title or id. */
function subject(entry: JournalEntry): string {
  return entry.file ?? entry.note?.title ?? entry.note?.note_id ?? "";
}

function short(hash: string): string {
  return hash.replace(/^sha256:/, "").slice(0, 8);
}
