import { Plugin, TFile, type Editor, type MarkdownFileInfo, type MarkdownView, type TAbstractFile } from "obsidian";
import { registerCommands, registerMergeCommands } from "./commands";
import { BridgeActions } from "./obsidian/actions";
import { AutoSyncHost, type AutoSyncTuning } from "./obsidian/auto-sync";
import { wireMergeEditor } from "./obsidian/conflict-wiring";
import { desktopImageFetcher, loadDesktopPaths } from "./obsidian/desktop-loaders";
import { wireSettingsAndEndpoint } from "./obsidian/endpoint-wiring";
import { wireNoteHistory } from "./obsidian/history-wiring";
import { wireSyncHistory } from "./obsidian/journal-wiring";
import { ObsidianUi } from "./obsidian/obsidian-ui";
import { mirrorSettings } from "./obsidian/mirror-settings";
import { PluginServices } from "./obsidian/plugin-services";
import { registerQueuedPushesCommand } from "./obsidian/queued-pushes";
import { RenameTracker } from "./obsidian/rename-tracking";
import { registerFileMenu, registerRibbon } from "./obsidian/ribbon-menus";
import { PluginSecrets } from "./obsidian/secrets";
import { StatusController } from "./obsidian/status-controller";
import { extractLegacyToken, migrateSettings } from "./settings/migrate";
import type { Settings } from "./settings/schema";
import { StatusBarView } from "./ui/status-bar";

/**
 * HackMD Bridge: wiring only (docs/architecture.md, "The plugin's start"). `onload` loads data.json and
 * registers every command, the ribbon icon, the file menu, the views, the settings tab, the status
 * bar item and the vault's events; it sends no request and scans nothing. What can wait — the
 * endpoint's start and automatic sync's start-up round — waits for `onLayoutReady` in the modules
 * that own it; the MCP endpoint, the merge editor and the merge engine are evaluated only at their
 * first `import()` (docs/architecture.md, "The bundle").
 */
export default class HackmdBridgePlugin extends Plugin {
  /** The migrated settings (data.json). */
  declare settings: Settings;
  /** Automatic sync's timings; the defaults are the product's (tests shorten them before onload). */
  autoSyncTuning: Partial<AutoSyncTuning> = {};
  /** The services the commands and the UI share. */
  declare services: PluginServices;
  /** The modals and workspace calls the use-cases ask through. */
  declare ui: ObsidianUi;
  /** The use-cases behind the commands. */
  declare actions: BridgeActions;
  /** Automatic sync (off unless the setting is on). */
  declare autoSync: AutoSyncHost;
  /** The status bar. */
  declare status: StatusController;

  override async onload(): Promise<void> {
    const secrets = new PluginSecrets({ app: this.app, tokenSecretId: () => this.settings.apiTokenSecret });
    await this.loadSettings(secrets);
    const desktop = await loadDesktopPaths(this.app);
    const services = new PluginServices({
      app: this.app,
      settings: () => this.settings,
      token: secrets.hackmdToken,
      timers: window,
      ...(desktop ? { desktop } : {}),
      images: desktopImageFetcher(),
    });
    const ui = new ObsidianUi(this.app);
    const actions = new BridgeActions({ services, ui });
    Object.assign(this, { services, ui, actions });

    registerCommands(this, actions);
    registerMergeCommands(this, wireMergeEditor({ plugin: this, services, ui }));
    registerRibbon(this, actions);
    registerFileMenu(this, actions);
    wireNoteHistory({ plugin: this, services, ui });
    wireSyncHistory({ plugin: this, services, ui });

    this.autoSync = new AutoSyncHost({ plugin: this, services, tuning: this.autoSyncTuning });
    registerQueuedPushesCommand(this, this.autoSync, ui);
    const item = this.addStatusBarItem();
    this.status = new StatusController({
      plugin: this,
      services,
      actions,
      view: new StatusBarView(item),
      item,
      autoSync: this.autoSync,
    });
    this.status.register();
    wireSettingsAndEndpoint({
      plugin: this,
      services,
      secrets,
      autoSync: this.autoSync,
      saveSettings: (change) => this.saveSettings(change),
      mirrors: mirrorSettings(actions),
    });

    // Records follow renames; a deleted file keeps its record, only cached facts about it go.
    const renames = new RenameTracker({ services });
    const { vault, workspace } = this.app;
    this.registerEvent(
      vault.on("rename", (file: TAbstractFile, oldPath: string) => void renames.handleRename(file, oldPath)),
    );
    this.registerEvent(
      vault.on("delete", (file: TAbstractFile) => {
        if (file instanceof TFile) services.hashCache.forget(file.path);
      }),
    );
    this.registerEvent(vault.on("modify", (file: TAbstractFile) => void this.autoSync.modified(file)));
    this.registerEvent(
      workspace.on("editor-change", (editor: Editor, info: MarkdownView | MarkdownFileInfo) =>
        this.autoSync.typed(editor, info),
      ),
    );
    // Last: its start waits for the layout, and its first request for the first scheduled step.
    this.autoSync.register();
  }

  /** data.json, migrated; a token an old version kept there moves to secret storage. */
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
    this.applySettings();
  }

  /** Merges, validates, saves and applies a settings change. */
  async saveSettings(change: Partial<Settings>): Promise<void> {
    this.settings = migrateSettings({ ...this.settings, ...change });
    await this.saveData(this.settings);
    this.applySettings();
    void this.status.refresh();
  }

  private applySettings(): void {
    this.services.settingsChanged();
    this.status.applySettings();
    this.autoSync.applySettings();
  }
}
