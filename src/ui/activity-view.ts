/**
 * The activity log view: a side-panel list of agent calls (time, tool, note, outcome, duration),
 * newest first, refreshed as calls complete. Dumb UI over `ActivityLog` (STYLE.md rule 15).
 */
import { ItemView, type Plugin, type WorkspaceLeaf } from "obsidian";
import type { ActivityEntry, ActivityLog } from "../obsidian/activity-log";

/** The view type id of the activity log. */
export const ACTIVITY_VIEW_TYPE = "hackmd-bridge-activity";

/** An ItemView listing the activity log. */
export class ActivityView extends ItemView {
  constructor(
    leaf: WorkspaceLeaf,
    private readonly log: ActivityLog,
  ) {
    super(leaf);
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
    const entries = this.log.list().reverse();
    if (entries.length === 0) {
      root.createEl("p", { cls: "hackmd-bridge-muted", text: "No agent calls yet. Calls from AI agents appear here while Obsidian runs." });
      return;
    }
    const list = root.createEl("ul", { cls: "hackmd-bridge-activity-list" });
    for (const entry of entries) renderEntry(list, entry);
  }
}

function renderEntry(list: HTMLElement, entry: ActivityEntry): void {
  const item = list.createEl("li", { cls: entry.ok ? "hackmd-bridge-activity-ok" : "hackmd-bridge-activity-failed" });
  const head = item.createDiv({ cls: "hackmd-bridge-activity-head" });
  head.createSpan({ cls: "hackmd-bridge-activity-time", text: new Date(entry.at).toLocaleTimeString() });
  head.createSpan({ cls: "hackmd-bridge-activity-tool", text: entry.tool });
  const detail = item.createDiv({ cls: "hackmd-bridge-activity-detail" });
  detail.createSpan({ text: entry.ok ? "OK" : `Failed (${entry.errorKind ?? "error"})` });
  detail.createSpan({ text: ` · ${entry.durationMs} ms` });
  if (entry.noteId) detail.createSpan({ text: ` · note ${entry.noteId}` });
}

/** Opens (or reveals) the activity log view. */
export type OpenActivityView = () => Promise<void>;

/** Registers the activity view on the plugin and returns a function that opens it (one line in main.ts). */
export function registerActivityView(plugin: Plugin, log: ActivityLog): OpenActivityView {
  plugin.registerView(ACTIVITY_VIEW_TYPE, (leaf) => new ActivityView(leaf, log));
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
