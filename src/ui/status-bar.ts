/**
 * The status-bar item: the active file's sync state and, when it matters and is enabled, the
 * HackMD API quota. It never makes a request: the state comes from `localSyncState` (the record,
 * a cached hash of the file, and the last check), refreshed on file-open, on save and after every
 * check. Untracked files show nothing unless the user asks for it (most of a vault is untracked).
 * Clicking the item runs what its state suggests (`STATUS_CLICK`); the controller wires that.
 */
import type { FileSyncState } from "../obsidian/sync-status";
import { SYNC_STATE_LABELS } from "../obsidian/sync-status";
import type { Quota } from "../hackmd/quota";

/** The quota is shown only when less than this share of it is left. */
export const QUOTA_WARNING_FRACTION = 0.2;

/** Without a known limit, the quota is shown only below this many remaining requests. */
export const QUOTA_WARNING_REMAINING = 20;

/** The parts of the status-bar element this view uses. */
export interface StatusBarElement {
  setText(text: string): void;
  setAttr(name: string, value: string | null): void;
  toggleClass(classes: string | string[], value: boolean): void;
}

/** What the status bar shows. */
export interface StatusBarModel {
  /** The active Markdown file's state, or null when no Markdown file is active. */
  state: FileSyncState | null;
  /** The last quota HackMD reported, when the setting shows it. */
  quota: Quota | null;
  /** Whether an untracked file says so (the setting; off by default). */
  showUntracked: boolean;
  /** Open comment threads of the active file, when the comments view has fetched them. */
  openThreads?: number | undefined;
  /** Automatic sync, when it runs: requests used this month, the budget, queued pushes. */
  autoSync?: { used: number; monthly: number | "unlimited"; queued: number } | undefined;
}

/** What a click on the item does, per state (undefined: nothing, the item is not clickable). */
export type StatusClick = "resolve" | "changes-since-sync" | "compare" | "check";

/** The click of each state, and its tooltip. */
export const STATUS_CLICK: Readonly<Record<FileSyncState, { click: StatusClick; tip: string } | undefined>> = {
  untracked: undefined,
  checking: undefined,
  conflict: { click: "resolve", tip: "Open the merge editor" },
  local_changes: { click: "changes-since-sync", tip: "Show changes since last sync" },
  remote_changes: { click: "compare", tip: "Compare with HackMD" },
  in_sync: { click: "compare", tip: "Compare with HackMD" },
  error: { click: "check", tip: "Check the sync state again" },
};

/** Whether the quota is low enough to show. */
export function quotaMatters(quota: Quota | null): quota is Quota & { remaining: number } {
  if (quota === null || quota.remaining === null) return false;
  if (quota.limit !== null && quota.limit > 0) return quota.remaining < quota.limit * QUOTA_WARNING_FRACTION;
  return quota.remaining < QUOTA_WARNING_REMAINING;
}

/** The text of the status bar for a model (sentence case; empty when there is nothing to show). */
export function statusBarText(model: StatusBarModel): string {
  const parts: string[] = [];
  if (model.state !== null && (model.state !== "untracked" || model.showUntracked))
    parts.push(`HackMD: ${SYNC_STATE_LABELS[model.state]}`);
  const threads = model.openThreads ?? 0;
  if (threads > 0) parts.push(`${threads} open ${threads === 1 ? "thread" : "threads"}`);
  const quota = model.quota;
  if (quotaMatters(quota)) {
    const left = quota.limit !== null ? `${quota.remaining} of ${quota.limit}` : `${quota.remaining}`;
    parts.push(parts.length === 0 ? `HackMD quota: ${left} left` : `quota: ${left} left`);
  }
  const queued = model.autoSync?.queued ?? 0;
  if (queued > 0) parts.push(parts.length === 0 ? `HackMD: ${queued} queued` : `${queued} queued`);
  return parts.join(" · ");
}

/** The tooltip line of automatic sync: requests used this month of the budget, and the queued pushes. */
export function autoSyncTooltip(summary: NonNullable<StatusBarModel["autoSync"]>): string {
  const budget = summary.monthly === "unlimited" ? "no monthly limit" : summary.monthly.toLocaleString("en-US");
  const queued =
    summary.queued === 0
      ? "no pushes queued"
      : summary.queued === 1
        ? "1 push queued"
        : `${summary.queued} pushes queued`;
  return `Automatic sync: ${summary.used.toLocaleString("en-US")} requests used this month of ${budget}; ${queued}`;
}

/** Renders a model into the status-bar element. */
export class StatusBarView {
  private readonly el: StatusBarElement;
  private last: string | undefined;
  private lastText = "";
  private lastTip = "";

  /** A view over the element `addStatusBarItem()` returned. */
  constructor(el: StatusBarElement) {
    this.el = el;
  }

  /** Shows a model; an unchanged rendering is not rewritten. */
  render(model: StatusBarModel): void {
    const text = statusBarText(model);
    const click = model.state === null || text === "" ? undefined : STATUS_CLICK[model.state];
    const base = click?.tip ?? (text === "" ? undefined : "Sync state of the current file");
    const auto = model.autoSync === undefined || text === "" ? undefined : autoSyncTooltip(model.autoSync);
    const tip = [base, auto].filter((line): line is string => line !== undefined).join("\n");
    const key = `${text}\u0000${tip}`;
    if (key === this.last) return;
    this.last = key;
    this.lastText = text;
    this.lastTip = tip;
    this.el.setText(text);
    this.el.setAttr("aria-label", tip === "" ? null : tip);
    this.el.toggleClass("mod-clickable", click !== undefined);
  }

  /** The text shown now (tests). */
  get text(): string {
    return this.lastText;
  }

  /** The tooltip shown now (tests). */
  get tooltip(): string {
    return this.lastTip;
  }
}
