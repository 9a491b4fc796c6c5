/**
 * The settings tab's "Mirrors" section over the plugin's mirror use-cases
 * (src/obsidian/mirror-actions.ts), which load only when the tab lists them.
 */
import { mirrorTarget } from "../app/mirror-state";
import type { MirrorSettings } from "../ui/mirror-list";
import type { MirrorActions } from "./mirror-actions";

/** The settings tab's "Mirrors" section over the plugin's use-cases (loaded when the tab lists them). */
export function mirrorSettings(actions: { mirrors(): Promise<MirrorActions> }): MirrorSettings {
  return {
    list: async () =>
      (await (await actions.mirrors()).list()).map((mirror) => ({
        id: mirror.id,
        target: mirrorTarget(mirror),
        local_dir: mirror.local_dir,
        notes: Object.values(mirror.notes).filter((note) => note.untracked !== true).length,
        exclude: mirror.exclude,
      })),
    remove: async (id) => (await actions.mirrors()).remove(id),
    setExclude: async (id, lines) => {
      const mirrors = await actions.mirrors();
      const mirror = (await mirrors.list()).find((candidate) => candidate.id === id);
      if (mirror !== undefined) await mirrors.setExclude(mirror, lines);
    },
  };
}
