/**
 * Wires the merge editor into the plugin: the conflict flow (ui/conflict-flow.ts) gets the merge
 * editor tab as its view and the trash copy of a losing side (keep-copy.ts); the sync engine
 * removes the `.remote.md` snapshot itself (sync/snapshots.ts). The diff views get the same tabs. Adapts
 * PluginServices; nothing here runs during onload but the view registration.
 */
import type { Plugin } from "obsidian";
import type { ConflictOutcome } from "../ui/conflict-flow";
import { keepCopyInTrash } from "./keep-copy";
import { MergeEditors } from "./merge-editors";
import { showInfo } from "./notices";
import type { ObsidianUi } from "./obsidian-ui";
import type { PluginServices } from "./plugin-services";

/** What the wiring needs. */
export interface ConflictWiringOptions {
  plugin: Plugin;
  services: PluginServices;
  ui: ObsidianUi;
}

/** Registers the merge editor and gives the UI port its conflict and diff views. */
export function wireMergeEditor(options: ConflictWiringOptions): MergeEditors {
  const { plugin, services, ui } = options;
  const editors = new MergeEditors({ plugin, notify: (text) => void showInfo(text) });
  editors.register();
  ui.resolveConflict = async (path) => {
    let outcome: ConflictOutcome | undefined;
    try {
      const deps = await services.loadDeps();
      // The conflict flow loads with the first conflict opened (docs/architecture.md §5).
      const { openConflictResolution } = await import("../ui/conflict-flow");
      outcome = await openConflictResolution(
        {
          sync: deps.sync,
          client: deps.client,
          files: services.files,
          store: services.store,
          notify: (text) => void showInfo(text),
          newCall: () => services.newCall(),
          openModal: (viewModel) => editors.openConflict(viewModel),
          keepCopy: (file, text, side) => keepCopyInTrash(plugin.app, file, text, side),
        },
        path,
      );
      observe(services, path, outcome);
    } finally {
      editors.finish(path, outcome !== undefined && outcome.outcome !== "cancelled" && outcome.outcome !== "gave-up");
    }
  };
  ui.showDiff = (path, diff) => editors.openDiff(path, diff);
  return editors;
}

/** After a resolution both sides hold the same body: the status bar can say so without a request. */
function observe(services: PluginServices, path: string, outcome: ConflictOutcome): void {
  services.hashCache.forget(path);
  const hash =
    outcome.outcome === "merged" || outcome.outcome === "kept-mine"
      ? outcome.push.body_hash
      : outcome.outcome === "took-theirs"
        ? outcome.pull.body_hash
        : undefined;
  if (hash !== undefined) services.status.observe(path, { baseline_body_hash: hash, remote_body_hash: hash });
}
