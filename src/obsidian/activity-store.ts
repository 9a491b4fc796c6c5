/**
 * The activity history on disk: `<plugin folder>/activity/log.json` and, for Undo, the note texts
 * from before agent writes in `activity/before/<hex>.md`, over the vault adapter (the plugin's
 * folder is inside the configuration folder, which the vault index and the agents' tools leave
 * alone). Paths are normalised; a missing file reads as undefined.
 */
import { normalizePath, type DataAdapter } from "obsidian";
import type { ActivityStore } from "./activity-log";

/** The history store in `pluginFolder` (e.g. `.obsidian/plugins/hackmd-bridge`). */
export function vaultActivityStore(adapter: DataAdapter, pluginFolder: string): ActivityStore {
  const folder = normalizePath(`${pluginFolder}/activity`);
  const logPath = normalizePath(`${folder}/log.json`);
  const textPath = (hash: string): string =>
    normalizePath(`${folder}/before/${hash.replace(/^sha256:/, "").replace(/[^0-9a-f]/g, "")}.md`);
  const ensure = async (path: string): Promise<void> => {
    const parent = path.slice(0, path.lastIndexOf("/"));
    if (!(await adapter.exists(parent))) await adapter.mkdir(parent);
  };
  const readIfThere = async (path: string): Promise<string | undefined> =>
    (await adapter.exists(path)) ? adapter.read(path) : undefined;
  return {
    loadLog: () => readIfThere(logPath),
    saveLog: async (text) => {
      await ensure(logPath);
      await adapter.write(logPath, text);
    },
    readText: (hash) => readIfThere(textPath(hash)),
    writeText: async (hash, text) => {
      const path = textPath(hash);
      await ensure(path);
      await adapter.write(path, text);
    },
    removeText: async (hash) => {
      const path = textPath(hash);
      if (await adapter.exists(path)) await adapter.remove(path);
    },
  };
}
