/**
 * The status-bar item: the active file's sync state and, when known and enabled, the HackMD API
 * quota. It never makes a request: the state comes from `localSyncState` (the record, a cached
 * hash of the file, and the last check), refreshed on file-open, on save and after every check.
 */
import type { FileSyncState } from "../obsidian/sync-status";
import { SYNC_STATE_LABELS } from "../obsidian/sync-status";
import type { Quota } from "../hackmd/quota";

/** The parts of the status-bar element this view uses. */
export interface StatusBarElement {
  setText(text: string): void;
  setAttr(name: string, value: string | null): void;
}

/** What the status bar shows. */
export interface StatusBarModel {
  /** The active Markdown file's state, or null when no Markdown file is active. */
  state: FileSyncState | null;
  /** The last quota HackMD reported, when the setting shows it. */
  quota: Quota | null;
}

/** The text of the status bar for a model (sentence case; empty when there is nothing to show). */
export function statusBarText(model: StatusBarModel): string {
  const parts: string[] = [];
  if (model.state !== null) parts.push(`HackMD: ${SYNC_STATE_LABELS[model.state]}`);
  const quota = model.quota;
  if (quota !== null && quota.remaining !== null) {
    parts.push(quota.limit !== null ? `quota ${quota.remaining}/${quota.limit}` : `quota ${quota.remaining}`);
  }
  return parts.join(" · ");
}

/** Renders a model into the status-bar element. */
export class StatusBarView {
  private readonly el: StatusBarElement;
  private lastText: string | undefined;

  /** A view over the element `addStatusBarItem()` returned. */
  constructor(el: StatusBarElement) {
    this.el = el;
  }

  /** Shows a model; unchanged text is not rewritten. */
  render(model: StatusBarModel): void {
    const text = statusBarText(model);
    if (text === this.lastText) return;
    this.lastText = text;
    this.el.setText(text);
    this.el.setAttr("aria-label", model.state === null ? null : "Sync state of the current file");
  }

  /** The text shown now (tests). */
  get text(): string {
    return this.lastText ?? "";
  }
}
