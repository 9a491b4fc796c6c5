/**
 * What `onload` leaves behind (src/main.ts): every command, view type, the settings tab, the
 * ribbon icon and the status bar item, registered once, with no default hotkeys and no request
 * sent; restored views and the settings tab draw at once; a rename after a restart is followed;
 * unload leaves nothing listening. Real plugin on the fake `obsidian` module, over the emulator.
 */
import { App, Plugin, TFile, WorkspaceLeaf } from "../__mocks__/obsidian";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import HackmdBridgePlugin from "../../src/main";
import { NoteHistoryView } from "../../src/ui/history-view";
import { startPlugin, waitFor, type PluginHarness } from "./helpers";

let h: PluginHarness | undefined;
const extra: Plugin[] = [];

afterEach(async () => {
  for (const plugin of extra.splice(0)) plugin.unload();
  await h?.close();
  h = undefined;
});

it("onload registers every command, view type, the settings tab, ribbon and status bar item once, and sends nothing", async () => {
  h = await startPlugin();
  const { fake } = h;
  const ids = fake.commands.map((command) => command.id);
  expect(ids).toEqual(
    expect.arrayContaining([
      "pull-note",
      "sync-all",
      "push-file",
      "next-conflict",
      "open-note-history",
      "open-comments",
      "show-queued-pushes",
      "toggle-mcp-endpoint",
      "copy-mcp-client-config",
      "open-mcp-activity-log",
      "open-sync-history",
    ]),
  );
  expect(new Set(ids).size).toBe(ids.length);
  expect([...fake.views.keys()].sort()).toEqual([
    "hackmd-bridge-activity",
    "hackmd-bridge-comments",
    "hackmd-bridge-history",
    "hackmd-bridge-merge",
    "hackmd-bridge-sync-history",
  ]);
  expect(fake.settingTabs).toHaveLength(1);
  expect(fake.ribbonIcons).toHaveLength(1);
  expect(fake.statusBarItems).toHaveLength(1);
  expect(fake.commands.every((command) => command.hotkeys === undefined)).toBe(true);
  expect(h.requestCount()).toBe(0);
});

it("a view the workspace restores is the real view at once, and keeps its state", async () => {
  h = await startPlugin();
  const leaf = h.app.workspace.getRightLeaf(false) as WorkspaceLeaf;
  await leaf.setViewState({ type: "hackmd-bridge-history", state: { kept: "yes" } });
  expect(leaf.view).toBeInstanceOf(NoteHistoryView);
  const other = h.app.workspace.getRightLeaf(false) as WorkspaceLeaf;
  await other.setViewState({ type: "hackmd-bridge-comments" });
  expect(other.view?.getViewType()).toBe("hackmd-bridge-comments");
});

it("the settings tab draws its settings at once", async () => {
  h = await startPlugin();
  const tab = h.fake.settingTabs[0] as {
    display(): void;
    hide(): void;
    containerEl: HTMLElement;
    getSettingDefinitions(): Array<{ heading?: string }>;
  };
  tab.display();
  await waitFor(() => (tab.containerEl.textContent ?? "").includes("API token"));
  expect(tab.getSettingDefinitions().map((group) => group.heading)).toContain("HackMD account");
  tab.hide();
});

it("a tracked file renamed right after a restart is followed", async () => {
  h = await startPlugin({ data: { defaultPullFolder: "HackMD" } });
  h.plugin.ui.askNoteRef = () => Promise.resolve(DEMO_NOTE_IDS.weeklySync);
  await h.run("pull-note");
  const pulled = "HackMD/Weekly sync — Project Aurora.md";
  expect(await h.app.vault.adapter.exists(pulled)).toBe(true);
  h.fake.unload();

  const again = new HackmdBridgePlugin(h.app as never, { id: "hackmd-bridge" } as never);
  const fake = again as unknown as Plugin;
  fake.data = h.fake.data;
  extra.push(fake);
  await again.onload();
  const file = h.app.vault.getFileByPath(pulled);
  if (!(file instanceof TFile)) throw new Error("the pulled file is not in the vault");
  await h.app.vault.rename(file, "HackMD/Renamed.md");
  await waitFor(
    async () =>
      (await again.services.store.findByPath("HackMD/Renamed.md"))?.record.internal_id === DEMO_NOTE_IDS.weeklySync,
  );
  expect(await again.services.store.findByPath(pulled)).toBeUndefined();
});

it("unloaded: nothing is left listening and nothing is logged", async () => {
  const app = new App();
  const plugin = new HackmdBridgePlugin(app as never, { id: "hackmd-bridge" } as never);
  const fake = plugin as unknown as Plugin;
  fake.data = { version: 1 };
  const errors = jest.spyOn(console, "error").mockImplementation(() => undefined);
  await plugin.onload();
  fake.unload();
  await new Promise((resolve) => setTimeout(resolve, 30));
  for (const event of ["rename", "modify", "delete"]) expect(app.vault.listenerCount(event)).toBe(0);
  for (const event of ["file-open", "file-menu", "editor-change"]) expect(app.workspace.listenerCount(event)).toBe(0);
  expect(errors).not.toHaveBeenCalled();
  errors.mockRestore();
});
