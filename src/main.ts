import { Notice, Plugin, type Editor, type MarkdownFileInfo, type MarkdownView, type TAbstractFile } from "obsidian";
import { BODY_COMMANDS, registerCommands, registerMergeCommands } from "./commands";
import type { BridgeActions } from "./obsidian/actions";
import type { AutoSyncHost, AutoSyncTuning } from "./obsidian/auto-sync";
import { BodyLoader } from "./obsidian/body-loader";
import { DEFERRED_VIEWS, DeferredRegistry } from "./obsidian/deferred-registry";
import { forwardActions } from "./obsidian/lazy-actions";
import type { ObsidianUi } from "./obsidian/obsidian-ui";
import type { PluginBody } from "./obsidian/plugin-body";
import type { PluginServices } from "./obsidian/plugin-services";
import { registerFileMenu, registerRibbon } from "./obsidian/ribbon-menus";
import type { StatusController } from "./obsidian/status-controller";
import type { Settings } from "./settings/schema";

/**
 * HackMD Bridge: wiring only (STYLE.md rule 1). `onload` is the shell (issue 13): it registers
 * every command, the ribbon icon, the file menu, the views, the settings tab and the status bar
 * item, and starts hearing the vault's events; the body (obsidian/plugin-body.ts) loads after the
 * layout is ready, or at once when a command, view or the settings tab is used first. Events that
 * arrive before it are handed to it, in order, when it is there.
 */
export default class HackmdBridgePlugin extends Plugin {
  /** The migrated settings (data.json), loaded with the body. */
  declare settings: Settings;
  /** Automatic sync's timings; the defaults are the product's (tests shorten them before onload). */
  autoSyncTuning: Partial<AutoSyncTuning> = {};
  private loader: BodyLoader<PluginBody> | undefined;

  /** Registers everything; nothing is loaded, requested or scanned here. */
  override onload(): void {
    const registry = new DeferredRegistry(this, () => this.loaded());
    const statusItem = this.addStatusBarItem();
    const loader = new BodyLoader<PluginBody>({
      start: async (stopped) => {
        const { PluginBody: Body } = await import("./obsidian/plugin-body");
        if (stopped()) throw new Error("HackMD Bridge was unloaded while it started");
        return Body.start({ plugin: this, host: registry.host(), statusItem, tuning: this.autoSyncTuning, unloaded: stopped });
      },
      ready: () => registry.bodyReady(),
      failed: (error) => {
        console.error("HackMD Bridge could not start", error);
        new Notice("HackMD Bridge could not start. The developer console has the details; reload the plugin to try again.");
      },
    });
    this.loader = loader;
    this.register(() => loader.stop());
    // The use-cases are the body's; a command waits for it.
    const actions = forwardActions(async () => (await this.loaded()).actions);
    registerCommands(this, actions);
    registerMergeCommands(this, {
      hasActive: () => loader.current?.editors.hasActive() ?? false,
      next: () => loader.current?.editors.next() ?? false,
      previous: () => loader.current?.editors.previous() ?? false,
    });
    registry.addCommands(Object.values(BODY_COMMANDS));
    registerRibbon(this, actions);
    registerFileMenu(this, actions);
    registry.registerViews(DEFERRED_VIEWS);
    registry.addSettingTab();

    const { vault, workspace } = this.app;
    this.registerEvent(vault.on("rename", (file: TAbstractFile, oldPath: string) => loader.deliver((body) => body.renamed(file, oldPath))));
    this.registerEvent(vault.on("delete", (file: TAbstractFile) => loader.deliver((body) => body.deleted(file))));
    this.registerEvent(vault.on("modify", (file: TAbstractFile) => loader.deliver((body) => body.modified(file))));
    this.registerEvent(workspace.on("editor-change", (editor: Editor, info: MarkdownView | MarkdownFileInfo) => loader.deliver((body) => body.typed(editor, info))));

    // Deferred past onload even when the layout is already ready (the plugin enabled later).
    workspace.onLayoutReady(() => {
      // A failure is reported by loaded() itself (a notice), and again at each later use.
      const timer = window.setTimeout(() => void this.loaded().catch(() => undefined), 0);
      this.register(() => window.clearTimeout(timer));
    });
  }

  /** The body, loading it on the first call (every stand-in and every caller waits on this). */
  loaded(): Promise<PluginBody> {
    if (this.loader === undefined) return Promise.reject(new Error("HackMD Bridge is not loaded"));
    return this.loader.load();
  }

  /** The loaded body's part; tests and the bench reach the plugin's parts through these. */
  private part<K extends keyof PluginBody>(key: K): PluginBody[K] {
    const body = this.loader?.current;
    if (body === undefined) throw new Error("HackMD Bridge's body is not loaded yet: await plugin.loaded()");
    return body[key];
  }

  /** The services the commands and the UI share. */
  get services(): PluginServices {
    return this.part("services");
  }

  /** The use-cases behind the commands. */
  get actions(): BridgeActions {
    return this.part("actions");
  }

  /** The modals and workspace calls the use-cases ask through. */
  get ui(): ObsidianUi {
    return this.part("ui");
  }

  /** Automatic sync (off unless the setting is on). */
  get autoSync(): AutoSyncHost {
    return this.part("autoSync");
  }

  /** The status bar. */
  get status(): StatusController {
    return this.part("status");
  }

  /** data.json changed on disk (another device synced it): apply it. */
  override async onExternalSettingsChange(): Promise<void> {
    await (await this.loaded()).settingsChangedOnDisk();
  }

  /** Merges, validates, saves and applies a settings change. */
  async saveSettings(change: Partial<Settings>): Promise<void> {
    await (await this.loaded()).saveSettings(change);
  }
}
