/**
 * Issue 13: onload is a shell. It registers every command, the views, the settings tab, the
 * ribbon and the file menu, and hears the vault's events; the body (services, status bar,
 * automatic sync, endpoint) loads after the layout is ready or at the first use of a stand-in.
 * Real plugin on the fake `obsidian` module, over the emulator.
 */
import { App, Notice, Plugin, TFile, WorkspaceLeaf } from "../__mocks__/obsidian";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import HackmdBridgePlugin from "../../src/main";
import { DEFERRED_VIEWS, DeferredRegistry } from "../../src/obsidian/deferred-registry";
import { NoteHistoryView } from "../../src/ui/history-view";
import { startPlugin, waitFor, type PluginHarness } from "./helpers";

let h: PluginHarness | undefined;
const extra: Plugin[] = [];

afterEach(async () => {
  for (const plugin of extra.splice(0)) plugin.unload();
  await h?.close();
  h = undefined;
});

/** The plugin's parts are the body's: before it loads they say so. */
function bodyLoaded(plugin: HackmdBridgePlugin): boolean {
  try {
    void plugin.services;
    return true;
  } catch (error) {
    expect(String(error)).toMatch(/body is not loaded yet/);
    return false;
  }
}

it("onload registers every command, view type, the settings tab, ribbon and status bar item before the body; the body binds them without adding any", async () => {
  h = await startPlugin({ awaitBody: false });
  const { plugin, fake } = h;
  expect(bodyLoaded(plugin)).toBe(false);
  const ids = fake.commands.map((command) => command.id);
  expect(ids).toEqual(expect.arrayContaining(["pull-note", "sync-all", "push-file", "next-conflict", "open-note-history", "open-comments", "show-queued-pushes", "toggle-mcp-endpoint", "copy-mcp-client-config", "open-mcp-activity-log"]));
  expect(new Set(ids).size).toBe(ids.length);
  expect([...fake.views.keys()].sort()).toEqual(DEFERRED_VIEWS.map((view) => view.type).sort());
  expect(fake.settingTabs).toHaveLength(1);
  expect(fake.ribbonIcons).toHaveLength(1);
  expect(fake.statusBarItems).toHaveLength(1);
  expect(fake.commands.every((command) => command.hotkeys === undefined)).toBe(true);

  await plugin.loaded();
  expect(bodyLoaded(plugin)).toBe(true);
  expect(fake.commands.map((command) => command.id)).toEqual(ids);
  expect(fake.settingTabs).toHaveLength(1);
  expect(fake.ribbonIcons).toHaveLength(1);
  expect(fake.statusBarItems).toHaveLength(1);
  expect(h.requestCount()).toBe(0);
});

it("a command run before the body loads waits for it and works", async () => {
  h = await startPlugin({ awaitBody: false, data: { defaultPullFolder: "HackMD" } });
  const { fake, plugin } = h;
  const command = fake.commands.find((c) => c.id === "pull-note");
  if (!command?.callback) throw new Error("no pull-note command");
  const before = Notice.shown.length;
  // Runs first; the body is only there when the callback's wait ends.
  command.callback();
  expect(bodyLoaded(plugin)).toBe(false);
  await plugin.loaded();
  // The body's UI port is there before the use-cases ask it (they load after the body).
  plugin.ui.askNoteRef = () => Promise.resolve(DEMO_NOTE_IDS.weeklySync);
  await waitFor(() => Notice.shown.length > before);
  await waitFor(async () => h !== undefined && (await h.app.vault.adapter.exists("HackMD/Weekly sync — Project Aurora.md")));
});

it("a view the workspace restores before the body loads is a stand-in, and becomes the real view when the body is there", async () => {
  h = await startPlugin({ awaitBody: false });
  const { app, plugin } = h;
  const leaf = app.workspace.getRightLeaf(false) as WorkspaceLeaf;
  await leaf.setViewState({ type: "hackmd-bridge-history", state: { kept: "yes" } });
  const standIn = leaf.view as unknown as { getDisplayText(): string; getIcon(): string; getState(): unknown; contentEl: HTMLElement };
  expect(standIn).not.toBeInstanceOf(NoteHistoryView);
  expect(standIn.getDisplayText()).toBe("Note history");
  expect(standIn.getIcon()).toBe("history");
  expect(standIn.getState()).toEqual({ kept: "yes" });
  expect(standIn.contentEl.textContent).toBe("Loading…");
  // Opening the stand-in asked for the body.
  await plugin.loaded();
  expect(leaf.view).toBeInstanceOf(NoteHistoryView);
  // A view opened after the body is there is the real one at once.
  const other = app.workspace.getRightLeaf(false) as WorkspaceLeaf;
  await other.setViewState({ type: "hackmd-bridge-comments" });
  expect(other.view?.getViewType()).toBe("hackmd-bridge-comments");
  expect((other.view as unknown as { contentEl: HTMLElement }).contentEl.textContent).not.toBe("Loading…");
});

it("the settings tab shown before the body loads draws the body's tab once it is there", async () => {
  h = await startPlugin({ awaitBody: false });
  const tab = h.fake.settingTabs[0] as { display(): void; hide(): void; containerEl: HTMLElement; getSettingDefinitions(): Array<{ heading?: string }> };
  tab.display();
  expect(tab.containerEl.textContent).toBe("Loading the settings…");
  await h.plugin.loaded();
  await waitFor(() => (tab.containerEl.textContent ?? "").includes("API token"));
  expect(tab.getSettingDefinitions().map((group) => group.heading)).toContain("HackMD account");
  tab.hide();
});

it("a tracked file renamed before the body loads is followed once it is there", async () => {
  h = await startPlugin({ data: { defaultPullFolder: "HackMD" } });
  h.plugin.ui.askNoteRef = () => Promise.resolve(DEMO_NOTE_IDS.weeklySync);
  await h.run("pull-note");
  const pulled = "HackMD/Weekly sync — Project Aurora.md";
  expect(await h.app.vault.adapter.exists(pulled)).toBe(true);
  h.fake.unload();

  // Obsidian starts again: the rename comes between onload and the body.
  const again = new HackmdBridgePlugin(h.app as never, { id: "hackmd-bridge" } as never);
  const fake = again as unknown as Plugin;
  fake.data = h.fake.data;
  extra.push(fake);
  again.onload();
  const file = h.app.vault.getFileByPath(pulled);
  if (!(file instanceof TFile)) throw new Error("the pulled file is not in the vault");
  await h.app.vault.rename(file, "HackMD/Renamed.md");
  expect(bodyLoaded(again)).toBe(false);
  await again.loaded();
  await waitFor(async () => (await again.services.store.findByPath("HackMD/Renamed.md"))?.record.internal_id === DEMO_NOTE_IDS.weeklySync);
  expect(await again.services.store.findByPath(pulled)).toBeUndefined();
});

it("unloaded before the body loads: the body never starts, nothing is left listening and nothing is logged", async () => {
  const app = new App();
  const plugin = new HackmdBridgePlugin(app as never, { id: "hackmd-bridge" } as never);
  const fake = plugin as unknown as Plugin;
  fake.data = { version: 1 };
  const errors = jest.spyOn(console, "error").mockImplementation(() => undefined);
  plugin.onload();
  fake.unload();
  await new Promise((resolve) => setTimeout(resolve, 30));
  expect(bodyLoaded(plugin)).toBe(false);
  await expect(plugin.loaded()).rejects.toThrow(/unloaded/);
  for (const event of ["rename", "modify", "delete"]) expect(app.vault.listenerCount(event)).toBe(0);
  for (const event of ["file-open", "file-menu", "editor-change"]) expect(app.workspace.listenerCount(event)).toBe(0);
  expect(errors).not.toHaveBeenCalled();
  errors.mockRestore();
});

it("the body's registrations must be the shell's: an unknown command or view type is refused", () => {
  const app = new App();
  const plugin = new Plugin(app, { id: "hackmd-bridge" });
  const registry = new DeferredRegistry(plugin as never, () => Promise.resolve());
  registry.addCommands([{ id: "known", name: "Known" }]);
  const host = registry.host();
  expect(() => host.addCommand({ id: "known", name: "Known", callback: () => undefined })).not.toThrow();
  expect(() => host.addCommand({ id: "stray", name: "Stray", callback: () => undefined })).toThrow(/does not know the command stray/);
  expect(() => host.addCommand({ id: "known", name: "Known", checkCallback: () => true })).toThrow(/must have a plain callback/);
  expect(() => host.registerView("stray-view", () => undefined as never)).toThrow(/does not know the view type stray-view/);
});

it("a stand-in the body leaves unbound is reported when the body is ready, not left waiting", async () => {
  const app = new App();
  const plugin = new Plugin(app, { id: "hackmd-bridge" });
  const registry = new DeferredRegistry(plugin as never, () => Promise.resolve());
  registry.addCommands([{ id: "bound", name: "Bound" }, { id: "forgotten", name: "Forgotten" }]);
  registry.registerViews([{ type: "forgotten-view", title: "Forgotten", icon: "x" }]);
  registry.host().addCommand({ id: "bound", name: "Bound", callback: () => undefined });
  await expect(registry.bodyReady()).rejects.toThrow("the plugin body did not bind forgotten, forgotten-view");
});

it("a body that cannot start is told in a notice, at start and when a command is used, and the stand-ins say so", async () => {
  const app = new App();
  const plugin = new HackmdBridgePlugin(app as never, { id: "hackmd-bridge" } as never);
  const fake = plugin as unknown as Plugin;
  extra.push(fake);
  fake.data = { version: 1 };
  fake.loadData = () => Promise.reject(new Error("data.json is unreadable"));
  const errors = jest.spyOn(console, "error").mockImplementation(() => undefined);
  const before = Notice.shown.length;
  plugin.onload();
  const told = "HackMD Bridge could not start. The developer console has the details; reload the plugin to try again.";
  await waitFor(() => Notice.shown.length > before);
  expect(Notice.shown.slice(before)).toEqual([told]);
  expect(errors).toHaveBeenCalledWith("HackMD Bridge could not start", expect.any(Error));

  // A command used afterwards says it again rather than doing nothing.
  fake.commands.find((command) => command.id === "open-note-history")?.callback?.();
  await waitFor(() => Notice.shown.length > before + 1);
  expect(Notice.shown.at(-1)).toBe(told);
  // The settings tab and a restored view say it too.
  const tab = fake.settingTabs[0] as { display(): void; containerEl: HTMLElement };
  tab.display();
  await waitFor(() => (tab.containerEl.textContent ?? "").includes("could not start"));
  const leaf = app.workspace.getRightLeaf(false) as WorkspaceLeaf;
  await leaf.setViewState({ type: "hackmd-bridge-activity" });
  await waitFor(() => ((leaf.view as unknown as { contentEl: HTMLElement }).contentEl.textContent ?? "").includes("could not start"));
  expect(bodyLoaded(plugin)).toBe(false);
  // Nothing is kept for a body that will not come: a vault change afterwards is not held.
  const typed = await app.vault.create("typed after the failure.md", "text");
  await app.vault.modify(typed, "more text");
  expect((plugin as unknown as { loader: { kept: number } }).loader.kept).toBe(0);
  errors.mockRestore();
});
