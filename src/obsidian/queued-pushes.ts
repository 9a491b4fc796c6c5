/**
 * "Show queued pushes" (docs/auto-sync.md): lists automatic sync's outbox — path, why the push waits, when
 * it is tried next — and drops the one the user picks after asking. Dropping removes the outbox
 * entry only: the file and its sync record stay, so a later sync still finds and sends its edits.
 */
import type { Plugin } from "obsidian";
import { WIRED_COMMANDS } from "../commands";
import type { OutboxEntry } from "../sync/auto/outbox";
import { retryAt } from "../sync/auto/outbox";
import type { ConfirmDialog } from "./actions";
import type { AutoSyncHost } from "./auto-sync";
import { QUEUED_REASONS } from "./auto-sync";
import { showInfo } from "./notices";

/** How the command asks (ObsidianUi in the app; scripted in tests). */
export interface QueuedPushesUi {
  pickQueuedPush(choices: Array<{ label: string; value: OutboxEntry }>): Promise<OutboxEntry | undefined>;
  confirm(dialog: ConfirmDialog): Promise<boolean>;
}

/** One row of the list: the file, the reason, the next try. */
export function queuedPushLabel(entry: OutboxEntry, now: number): string {
  const reason = QUEUED_REASONS[entry.last_error_kind] ?? "HackMD refused it";
  const at = retryAt(entry);
  const next = at <= now ? "next try: with the next step" : `next try: ${new Date(at).toLocaleString()}`;
  const tries = entry.attempts === 1 ? "1 try" : `${entry.attempts} tries`;
  return `${entry.local_path} · ${reason} (${tries}) · ${next}`;
}

/** Lists the queued pushes and drops the one picked, after asking. */
export async function showQueuedPushes(options: {
  host: Pick<AutoSyncHost, "queued" | "drop">;
  ui: QueuedPushesUi;
  now?: () => number;
}): Promise<void> {
  const now = options.now ?? (() => Date.now());
  const entries = await options.host.queued();
  if (entries.length === 0) {
    showInfo("No pushes are queued.");
    return;
  }
  const entry = await options.ui.pickQueuedPush(
    entries.map((value) => ({ label: queuedPushLabel(value, now()), value })),
  );
  if (entry === undefined) return;
  const ok = await options.ui.confirm({
    title: "Drop the queued push?",
    message: `Automatic sync stops retrying the push of ${entry.local_path}. The file and its link to the note are kept, so a later sync still finds its changes and sends them.`,
    confirmText: "Drop",
  });
  if (!ok) return;
  const removed = await options.host.drop(entry);
  showInfo(
    removed
      ? `Dropped the queued push of ${entry.local_path}.`
      : `The push of ${entry.local_path} was no longer queued.`,
  );
}

/** Registers "Show queued pushes" (stable id, no hotkey). */
export function registerQueuedPushesCommand(plugin: Plugin, host: AutoSyncHost, ui: QueuedPushesUi): void {
  plugin.addCommand({
    ...WIRED_COMMANDS.showQueuedPushes,
    callback: () => void showQueuedPushes({ host, ui }).catch(() => showInfo("The queued pushes could not be read.")),
  });
}
