import { Plugin, TFile, type TAbstractFile } from "obsidian";
import { registerCommands, registerMergeCommands } from "./commands";
import type { BridgeActions } from "./obsidian/actions";
import { AutoSyncHost, type AutoSyncTuning } from "./obsidian/auto-sync";
import { wireMergeEditor } from "./obsidian/conflict-wiring";
import { desktopImageFetcher, loadDesktopPaths } from "./obsidian/desktop-loaders";
import { wireSettingsAndEndpoint } from "./obsidian/endpoint-wiring";
import { wireNoteHistory } from "./obsidian/history-wiring";
import { lazyActions } from "./obsidian/lazy-actions";
import { ObsidianUi } from "./obsidian/obsidian-ui";
import { PluginServices } from "./obsidian/plugin-services";
import { RenameTracker } from "./obsidian/rename-tracking";
import { registerFileMenu, registerRibbon } from "./obsidian/ribbon-menus";
import { registerQueuedPushesCommand } from "./obsidian/queued-pushes";
import { PluginSecrets } from "./obsidian/secrets";
import { StatusController } from "./obsidian/status-controller";
import { extractLegacyToken, migrateSettings } from "./settings/migrate";
import { DEFAULT_SETTINGS, type Settings } from "./settings/schema";
import { StatusBarView } from "./ui/status-bar";

/** HackMD Bridge: wiring only (STYLE.md rule 1); behaviour lives in the core and host adapters. */
export default class HackmdBridgePlugin extends Plugin {
  /** The migrated settings (data.json). */
  override settings: Settings = { ...DEFAULT_SETTINGS };
  /** The services the commands and the UI share. */
  services!: PluginServices;
  /** The use-cases behind the commands. */
  actions!: BridgeActions;
  /** The modals and workspace calls the use-cases ask through. */
  ui!: ObsidianUi;
  /** Automatic sync (off unless the setting is on). */
  autoSync!: AutoSyncHost;
  /** Automatic sync's timings; the defaults are the product's (tests shorten them before onload). */
  autoSyncTuning: Partial<AutoSyncTuning> = {};
  private status: StatusController | undefined;

  /** Loads settings and registers everything; no request and no vault scan happen here. */
  override async onload(): Promise<void> {
    const secrets = new PluginSecrets({ app: this.app, tokenSecretId: () => this.settings.apiTokenSecret });
    await this.loadSettings(secrets);
    const desktop = await loadDesktopPaths(this.app);
    this.services = new PluginServices({
      app: this.app,
      settings: () => this.settings,
      token: secrets.hackmdToken,
      timers: window,
      ...(desktop ? { desktop } : {}),
      images: desktopImageFetcher(),
    });
    this.ui = new ObsidianUi(this.app);
    const editors = wireMergeEditor({ plugin: this, services: this.services, ui: this.ui });
    // The use-cases load with their first command (issue 13).
    this.actions = lazyActions({ services: this.services, ui: this.ui });
    registerCommands(this, this.actions);
    registerMergeCommands(this, editors);
    registerRibbon(this, this.actions);
    registerFileMenu(this, this.actions);
    wireNoteHistory({ plugin: this, services: this.services, ui: this.ui });

    this.autoSync = new AutoSyncHost({ plugin: this, services: this.services, tuning: this.autoSyncTuning });
    registerQueuedPushesCommand(this, this.autoSync, this.ui);

    const statusItem = this.addStatusBarItem();
    this.status = new StatusController({ plugin: this, services: this.services, actions: this.actions, view: new StatusBarView(statusItem), item: statusItem, autoSync: this.autoSync });
    this.status.register();

    const renames = new RenameTracker({ services: this.services });
    this.registerEvent(this.app.vault.on("rename", (file: TAbstractFile, oldPath: string) => void renames.handleRename(file, oldPath)));
    this.registerEvent(
      this.app.vault.on("delete", (file: TAbstractFile) => {
        // A deleted file keeps its record (TOOLS.md §13.9); only cached facts about it go.
        if (file instanceof TFile) this.services.hashCache.forget(file.path);
      }),
    );

    wireSettingsAndEndpoint({ plugin: this, services: this.services, secrets, autoSync: this.autoSync, saveSettings: (change) => this.saveSettings(change) });
    // The sync engine's modules load after start-up, not during it (issue 13); a command or a
    // status refresh of a tracked file that comes first loads them itself.
    // Deferred past onload even when the layout is already ready (the plugin enabled later).
    this.app.workspace.onLayoutReady(() => {
      // A failure here is reported by the first command that needs the engine.
      const timer = window.setTimeout(() => void this.services.loadDeps().catch(() => undefined), 0);
      this.register(() => window.clearTimeout(timer));
    });
    // Last: its start waits for the layout, and its first request for the first scheduled step.
    this.autoSync.register();
  }

  /** Migrates data.json; a token an old version kept there moves to secret storage. */
  private async loadSettings(secrets: PluginSecrets): Promise<void> {
    const raw: unknown = await this.loadData();
    this.settings = migrateSettings(raw);
    const legacy = extractLegacyToken(raw);
    if (legacy !== undefined && !secrets.hackmdToken.isSet()) secrets.hackmdToken.set(legacy);
    if (JSON.stringify(raw) !== JSON.stringify(this.settings)) await this.saveData(this.settings);
  }

  /** data.json changed on disk (another device synced it): apply it. */
  override async onExternalSettingsChange(): Promise<void> {
    this.settings = migrateSettings(await this.loadData());
    this.services.settingsChanged();
    this.status?.applySettings();
    this.autoSync.applySettings();
  }

  /** Merges, validates, saves and applies a settings change. */
  async saveSettings(change: Partial<Settings>): Promise<void> {
    this.settings = migrateSettings({ ...this.settings, ...change });
    await this.saveData(this.settings);
    this.services.settingsChanged();
    this.status?.applySettings();
    this.autoSync.applySettings();
    void this.status?.refresh();
  }
}
