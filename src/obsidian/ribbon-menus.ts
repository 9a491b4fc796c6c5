/**
 * The ribbon icon and the file-menu entries. The ribbon syncs the active file when it is tracked
 * and otherwise offers to pull a note or publish the file; the file menu offers the file actions
 * on any Markdown file.
 */
import { Menu, TFile, type Plugin, type TAbstractFile } from "obsidian";
import type { BridgeActions } from "./actions";

/** One file-menu entry. */
interface MenuEntry {
  title: string;
  icon: string;
  run: (actions: BridgeActions, path: string) => Promise<unknown>;
}

/** File-menu entries for a tracked file. */
export const TRACKED_FILE_MENU: readonly MenuEntry[] = [
  { title: "Sync with HackMD", icon: "refresh-cw", run: (a, p) => a.syncFile(p) },
  { title: "Push to HackMD", icon: "upload", run: (a, p) => a.pushFile(p) },
  { title: "Show changes since last sync", icon: "file-diff", run: (a, p) => a.showChangesSinceSync(p) },
  { title: "Compare with HackMD", icon: "git-compare", run: (a, p) => a.compareWithHackmd(p) },
  { title: "Resolve conflict with HackMD", icon: "git-merge", run: (a, p) => a.resolveConflict(p) },
  { title: "Open in HackMD", icon: "external-link", run: (a, p) => a.openInBrowser(p) },
  { title: "Copy HackMD link", icon: "link", run: (a, p) => a.copyLink(p) },
];

/** File-menu entries for any Markdown file (publishing refuses an already tracked file). */
export const ANY_FILE_MENU: readonly MenuEntry[] = [
  { title: "Publish to HackMD", icon: "send", run: (a, p) => a.publishFile(p) },
];

/** The ribbon tooltip. */
const RIBBON_TITLE = "Sync with HackMD";

/** Registers the ribbon icon. */
export function registerRibbon(plugin: Plugin, actions: BridgeActions): HTMLElement {
  return plugin.addRibbonIcon(
    "refresh-cw",
    RIBBON_TITLE,
    (evt: MouseEvent) => void ribbonClicked(plugin, actions, evt),
  );
}

/** What the ribbon does: sync a tracked active file, else offer pull and publish in a menu. */
export async function ribbonClicked(plugin: Plugin, actions: BridgeActions, evt: MouseEvent): Promise<void> {
  const file = plugin.app.workspace.getActiveFile();
  const path = file !== null && file.extension === "md" ? file.path : undefined;
  if (path !== undefined && (await actions.isTracked(path))) {
    await actions.syncFile(path);
    return;
  }
  const menu = new Menu();
  menu.addItem((item) =>
    item
      .setTitle("Pull a note")
      .setIcon("download")
      .onClick(() => void actions.pullByRef()),
  );
  menu.addItem((item) =>
    item
      .setTitle("Pull from your notes list")
      .setIcon("list")
      .onClick(() => void actions.pullFromList()),
  );
  if (path !== undefined) {
    menu.addItem((item) =>
      item
        .setTitle("Publish current file as a new note")
        .setIcon("send")
        .onClick(() => void actions.publishFile(path)),
    );
  }
  menu.showAtMouseEvent(evt);
}

/** Registers the file-menu entries for Markdown files. */
export function registerFileMenu(plugin: Plugin, actions: BridgeActions): void {
  plugin.registerEvent(
    plugin.app.workspace.on("file-menu", (menu: Menu, file: TAbstractFile) => {
      if (!(file instanceof TFile) || file.extension !== "md") return;
      for (const entry of [...TRACKED_FILE_MENU, ...ANY_FILE_MENU]) {
        menu.addItem((item) =>
          item
            .setTitle(entry.title)
            .setIcon(entry.icon)
            .setSection("action")
            .onClick(() => void entry.run(actions, file.path)),
        );
      }
    }),
  );
}
