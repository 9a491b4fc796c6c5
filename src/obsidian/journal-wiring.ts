/**
 * Wires the "Sync history" view (docs/sync-journal.md) into the plugin: the view over the sync
 * journal of the plugin's core, "Open other side" (the conflict's `.remote.md`, or the note on
 * HackMD), each agent write's diff from the texts the journal kept, Restore of one write and Undo of an agent session (src/app/journal-undo.ts), each asked
 * first and told in a notice. Only registration happens during onload; the journal is read when
 * the view opens.
 */
import type { Plugin } from "obsidian";
import { entryTexts } from "../app/journal";
import { WIRED_COMMANDS } from "../commands";
import type { JournalEntry } from "../sync/journal";
import { SYNC_HISTORY_VIEW_TYPE, SyncHistoryView, type SyncHistorySource } from "../ui/sync-history-view";
import { showError, showInfo } from "./notices";
import type { ObsidianUi } from "./obsidian-ui";
import type { PluginServices } from "./plugin-services";

const USER = { kind: "user", door: "obsidian" } as const;

/** The view's source over the plugin's services (tests drive it). */
export function syncHistorySource(services: PluginServices, ui: ObsidianUi): SyncHistorySource {
  const listeners = new Set<() => void>();
  let forwarding = false;
  const forward = async (): Promise<void> => {
    if (forwarding) return;
    forwarding = true;
    const deps = await services.loadDeps();
    deps.journal.subscribe(() => {
      for (const listener of [...listeners]) listener();
    });
  };
  return {
    read: async () => (await services.loadDeps()).journal.read({ limit: 500 }),
    texts: async (entry: JournalEntry) => entryTexts((await services.loadDeps()).journal, entry),
    subscribe: (listener) => {
      listeners.add(listener);
      void forward().catch(() => undefined);
      return () => {
        listeners.delete(listener);
      };
    },
    openOtherSide: async (entry: JournalEntry) => {
      const snapshot = entry.replaced?.find((place) => place.where === "remote_md")?.path;
      if (snapshot !== undefined) return ui.openFile(snapshot);
      const url = entry.note === undefined ? undefined : services.noteUrl(entry.note.note_id);
      if (url !== undefined) ui.openUrl(url);
      else if (entry.file !== undefined) await ui.openFile(entry.file);
    },
    restore: async (entry: JournalEntry) => {
      const go = await ui.confirm({
        title: "Restore this change?",
        message: `The text this write replaced goes back to ${entry.file ?? entry.note?.title ?? "the note"}, unless someone changed it since.`,
        confirmText: "Restore",
      });
      if (!go) return;
      try {
        const { applyMergedUndo, undoJournalEntry } = await import("../app/journal-undo");
        const deps = await services.loadDeps();
        const result = await undoJournalEntry(deps, entry, USER);
        const merge = result.merge;
        // Someone edited elsewhere in the note since: offer to take back only this write.
        if (
          merge !== undefined &&
          (await ui.confirm({
            title: "Merge the undo?",
            message: result.message,
            confirmText: "Take back only this write",
          }))
        ) {
          showInfo((await applyMergedUndo(deps, entry, merge, USER)).message);
          return;
        }
        showInfo(result.message);
      } catch (error) {
        showError(error);
      }
    },
    undoSession: async (session: string, entries: readonly JournalEntry[]) => {
      const client = entries[0]?.actor.client ?? "the agent";
      const go = await ui.confirm({
        title: `Undo ${client}'s session?`,
        message: `Each of its ${entries.length} writes is undone, newest first. A note or file someone changed after the agent is left as it is, and named.`,
        confirmText: "Undo session",
      });
      if (!go) return;
      try {
        const { undoSession } = await import("../app/journal-undo");
        const results = await undoSession(await services.loadDeps(), session, USER);
        const done = results.filter((result) => result.undone).length;
        const refused = results.filter((result) => !result.undone).map((result) => result.message);
        showInfo([`Undid ${done} of ${results.length} writes.`, ...refused].join("\n"));
      } catch (error) {
        showError(error);
      }
    },
  };
}

/** Registers the view and its command. */
export function wireSyncHistory(options: { plugin: Plugin; services: PluginServices; ui: ObsidianUi }): void {
  const { plugin, services, ui } = options;
  const source = syncHistorySource(services, ui);
  plugin.registerView(SYNC_HISTORY_VIEW_TYPE, (leaf) => new SyncHistoryView(leaf, source));
  plugin.addCommand({
    ...WIRED_COMMANDS.openSyncHistory,
    callback: () => {
      void (async () => {
        const { workspace } = plugin.app;
        let leaf = workspace.getLeavesOfType(SYNC_HISTORY_VIEW_TYPE)[0] ?? null;
        if (!leaf) {
          leaf = workspace.getRightLeaf(false);
          if (!leaf) return;
          await leaf.setViewState({ type: SYNC_HISTORY_VIEW_TYPE, active: true });
        }
        await workspace.revealLeaf(leaf);
      })();
    },
  });
}
