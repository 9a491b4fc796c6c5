/**
 * Wires the "Note history" and "Comments" views (docs/versions-and-comments.md) into the plugin: the use-cases over
 * the plugin's services and UI port, the two view types and one command each to open them. Only
 * registration happens during onload; the views fetch when they open.
 */
import type { Plugin } from "obsidian";
import { WIRED_COMMANDS } from "../commands";
import { COMMENTS_VIEW_TYPE, CommentsView } from "../ui/comments-view";
import { HISTORY_VIEW_TYPE, NoteHistoryView } from "../ui/history-view";
import { TrackedFileView } from "../ui/tracked-file-view";
import { keepCopyInTrash } from "./keep-copy";
import { NoteHistory } from "./note-history";
import type { ObsidianUi } from "./obsidian-ui";
import type { PluginServices } from "./plugin-services";

/** Registers the views and their commands; returns the use-cases (tests drive them). */
export function wireNoteHistory(options: { plugin: Plugin; services: PluginServices; ui: ObsidianUi }): NoteHistory {
  const { plugin, services, ui } = options;
  const history = new NoteHistory({
    services,
    // Read at each use: the merge editor sets `showDiff` on the UI port when it is wired.
    ui: {
      confirm: (dialog) => ui.confirm(dialog),
      openUrl: (url) => ui.openUrl(url),
      get showDiff() {
        return ui.showDiff;
      },
    },
    keepCopy: (path, text, side) => keepCopyInTrash(plugin.app, path, text, side),
  });
  plugin.registerView(HISTORY_VIEW_TYPE, (leaf) => new NoteHistoryView(leaf, history));
  plugin.registerView(COMMENTS_VIEW_TYPE, (leaf) => new CommentsView(leaf, history));
  const reveal = async (type: string): Promise<void> => {
    const { workspace } = plugin.app;
    let leaf = workspace.getLeavesOfType(type)[0] ?? null;
    if (leaf) {
      // Opening again means "show the active file now".
      const view = leaf.view;
      if (view instanceof TrackedFileView) await view.show();
    } else {
      leaf = workspace.getRightLeaf(false);
      if (!leaf) return;
      await leaf.setViewState({ type, active: true });
    }
    await workspace.revealLeaf(leaf);
  };
  plugin.addCommand({ ...WIRED_COMMANDS.openNoteHistory, callback: () => void reveal(HISTORY_VIEW_TYPE) });
  plugin.addCommand({ ...WIRED_COMMANDS.openComments, callback: () => void reveal(COMMENTS_VIEW_TYPE) });
  return history;
}
