/**
 * The settings' list of mirrors (src/obsidian/mirror-actions.ts): each mirror with its folder, its
 * exclude patterns and a remove button, rendered below the "Mirrored folders" row of the settings
 * tab (src/ui/settings-tab.ts).
 */
import { Setting } from "obsidian";

/** One mirror as the settings tab lists it. */
export interface MirrorListing {
  id: string;
  /** `personal`, a team path, or either with `/<folder path>`. */
  target: string;
  local_dir: string;
  notes: number;
  exclude: string[];
}

/** What the "Mirrors" section can do. */
export interface MirrorSettings {
  list(): Promise<MirrorListing[]>;
  /** Forgets a mirror; its files stay tracked. */
  remove(id: string): Promise<void>;
  /** Replaces a mirror's exclude patterns (one per line); throws on a bad pattern. */
  setExclude(id: string, lines: string): Promise<void>;
}

/** Fills the "Mirrored folders" row: each mirror with its exclude patterns and a remove button; returns its cleanup. */
export function renderMirrorList(setting: Setting, mirrors: MirrorSettings): () => void {
  // Below the row, not inside it: a setting row lays its parts out side by side.
  const list = (setting.settingEl.parentElement ?? setting.settingEl).createDiv({ cls: "hackmd-bridge-mirrors" });
  setting.settingEl.after(list);
  let gone = false;
  const fill = async (): Promise<void> => {
    const listed = await mirrors.list().catch(() => []);
    if (gone) return;
    list.empty();
    if (listed.length === 0) list.createEl("p", { text: "No mirrors yet." });
    for (const mirror of listed) {
      const row = new Setting(list)
        .setName(`${mirror.target} → ${mirror.local_dir === "" ? "the vault" : mirror.local_dir}`)
        .setDesc(`${mirror.notes} notes. Files matching these patterns are left alone (one per line, * ** ?).`);
      row.addTextArea((area) =>
        area
          .setPlaceholder("drafts/\n*.private.md")
          .setValue(mirror.exclude.join("\n"))
          .onChange(async (value) => {
            await mirrors.setExclude(mirror.id, value).catch(() => undefined);
          }),
      );
      row.addButton((button) => {
        button.setButtonText("Remove").onClick(async () => {
          await mirrors.remove(mirror.id);
          await fill();
        });
        // The class setWarning and setDestructive both set (confirm-modal.ts says why not them).
        button.buttonEl.addClass("mod-warning");
      });
    }
  };
  void fill();
  return () => {
    gone = true;
    list.remove();
  };
}
