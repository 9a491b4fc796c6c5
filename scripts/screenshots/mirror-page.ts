/**
 * The page scripts/screenshots-mirror.mjs shoots: the real "Mirror a HackMD workspace" modal
 * (src/ui/mirror-modal.ts) and the settings' "Mirrors" list (src/ui/settings-tab.ts
 * `renderMirrorList`), built on the test suite's fake `obsidian` module (aliased by the script)
 * over Obsidian's DOM helpers. Not shipped.
 */
import "obsidian-dom-extensions";
import { App, Setting } from "obsidian";
import { MirrorModal } from "../../src/ui/mirror-modal";
import { renderMirrorList } from "../../src/ui/mirror-list";

/** The row's description, as src/ui/settings-tab.ts words it. */
const ROW_DESC = [
  "Folders kept as a HackMD workspace or folder.",
  'Start one with the command "Mirror a HackMD workspace".',
  "Removing a mirror keeps its files and their links.",
].join(" ");

const params = new URLSearchParams(location.search);
document.body.addClass(params.get("theme") === "light" ? "theme-light" : "theme-dark");

if (params.get("view") === "settings") {
  const pane = document.body.createDiv({ cls: "vertical-tab-content" });
  new Setting(pane).setName("Mirrors").setHeading();
  const row = new Setting(pane).setName("Mirrored folders").setDesc(ROW_DESC);
  renderMirrorList(row, {
    list: () =>
      Promise.resolve([
        { id: "a", target: "personal", local_dir: "HackMD/Personal", notes: 214, exclude: ["drafts/", "*.private.md"] },
        { id: "b", target: "course/Handouts", local_dir: "Teaching/Handouts", notes: 37, exclude: [] },
      ]),
    remove: () => Promise.resolve(),
    setExclude: () => Promise.resolve(),
  });
} else {
  const modal = new MirrorModal(new App(), {
    teams: ["course", "lab"],
    defaultFolder: (team, folder) => ["HackMD", team ?? "Personal", ...(folder === "" ? [] : [folder])].join("/"),
  });
  void modal.ask();
  const container = document.body.createDiv({ cls: "modal-container" });
  container.createDiv({ cls: "modal-bg" });
  const frame = container.createDiv({ cls: "modal" });
  frame.appendChild(modal.titleEl);
  modal.titleEl.addClass("modal-title");
  frame.appendChild(modal.contentEl);
  modal.contentEl.addClass("modal-content");
}
