/**
 * The plugin body (issue 13): the services, the use-cases behind the commands, the merge editor,
 * the history views, automatic sync, the status bar, the settings tab and the MCP endpoint. The
 * shell (main.ts) loads this module after the layout is ready, or at the first use of one of its
 * stand-ins, and hands it a Plugin to register through (deferred-registry.ts: commands, views and
 * the settings tab bind the shell's stand-ins). Wiring only (STYLE.md rule 1).
 */
import { TFile, type App, type Editor, type MarkdownFileInfo, type MarkdownView, type Plugin, type TAbstractFile } from "obsidian";
import type { BridgeActions } from "./actions";
import { AutoSyncHost, type AutoSyncTuning } from "./auto-sync";
import { wireMergeEditor } from "./conflict-wiring";
import { desktopImageFetcher, loadDesktopPaths } from "./desktop-loaders";
import { wireSettingsAndEndpoint } from "./endpoint-wiring";
import { wireNoteHistory } from "./history-wiring";
import { lazyActions } from "./lazy-actions";
import type { MergeEditors } from "./merge-editors";
import { ObsidianUi } from "./obsidian-ui";
import { PluginServices } from "./plugin-services";
import { registerQueuedPushesCommand } from "./queued-pushes";
import { RenameTracker } from "./rename-tracking";
import { PluginSecrets } from "./secrets";
import { StatusController } from "./status-controller";
import { extractLegacyToken, migrateSettings } from "../settings/migrate";
import type { Settings } from "../settings/schema";
import { StatusBarView } from "../ui/status-bar";

/** The plugin as the body keeps its settings on it. */
export interface SettingsHost {
  app: App;
  settings: Settings;
  loadData(): Promise<unknown>;
  saveData(data: unknown): Promise<void>;
  register(cb: () => unknown): void;
}

/** What the body needs from the shell. */
export interface BodyShell {
  /** The plugin itself: data.json, and where the settings are kept (main.ts). */
  plugin: SettingsHost;
  /** The Plugin to register through (the shell's deferred registry). */
  host: Plugin;
  /** The status bar item the shell added in onload (its place in the bar is the plugin's). */
  statusItem: HTMLElement;
  /** Automatic sync's timings (tests shorten them). */
  tuning: Partial<AutoSyncTuning>;
  /** Whether the plugin was unloaded meanwhile (then nothing is wired). */
  unloaded(): boolean;
}

/** Everything onload used to build, built once the shell asks. */
export class PluginBody {
  readonly services: PluginServices;
  readonly ui: ObsidianUi;
  readonly actions: BridgeActions;
  readonly editors: MergeEditors;
  readonly autoSync: AutoSyncHost;
  readonly status: StatusController;
  private readonly renames: RenameTracker;
  private readonly plugin: BodyShell["plugin"];

  /** Loads data.json and wires everything; no request and no vault scan happen here. */
  static async start(shell: BodyShell): Promise<PluginBody> {
    const { plugin } = shell;
    const secrets = new PluginSecrets({ app: plugin.app, tokenSecretId: () => plugin.settings.apiTokenSecret });
    // data.json: migrated; a token an old version kept there moves to secret storage.
    const raw: unknown = await plugin.loadData();
    plugin.settings = migrateSettings(raw);
    const legacy = extractLegacyToken(raw);
    if (legacy !== undefined && !secrets.hackmdToken.isSet()) secrets.hackmdToken.set(legacy);
    if (JSON.stringify(raw) !== JSON.stringify(plugin.settings)) await plugin.saveData(plugin.settings);
    const desktop = await loadDesktopPaths(plugin.app);
    // The wiring below is synchronous: an unload cannot come between this check and its end.
    if (shell.unloaded()) throw new Error("HackMD Bridge was unloaded while it started");
    return new PluginBody(shell, secrets, desktop);
  }

  private constructor(shell: BodyShell, secrets: PluginSecrets, desktop: Awaited<ReturnType<typeof loadDesktopPaths>>) {
    const { plugin, host } = shell;
    this.plugin = plugin;
    this.services = new PluginServices({
      app: plugin.app,
      settings: () => plugin.settings,
      token: secrets.hackmdToken,
      timers: window,
      ...(desktop ? { desktop } : {}),
      images: desktopImageFetcher(),
    });
    this.ui = new ObsidianUi(plugin.app);
    this.editors = wireMergeEditor({ plugin: host, services: this.services, ui: this.ui });
    // The use-cases load with their first command (issue 13).
    this.actions = lazyActions({ services: this.services, ui: this.ui });
    wireNoteHistory({ plugin: host, services: this.services, ui: this.ui });

    this.autoSync = new AutoSyncHost({ plugin: host, services: this.services, tuning: shell.tuning });
    registerQueuedPushesCommand(host, this.autoSync, this.ui);

    this.status = new StatusController({ plugin: host, services: this.services, actions: this.actions, view: new StatusBarView(shell.statusItem), item: shell.statusItem, autoSync: this.autoSync });
    this.status.register();
    this.renames = new RenameTracker({ services: this.services });

    wireSettingsAndEndpoint({ plugin: host, services: this.services, secrets, autoSync: this.autoSync, saveSettings: (change) => this.saveSettings(change) });
    // The sync engine's modules load after start-up, not during it (issue 13); a command or a
    // status refresh of a tracked file that comes first loads them itself.
    plugin.app.workspace.onLayoutReady(() => {
      // A failure here is reported by the first command that needs the engine.
      const timer = window.setTimeout(() => void this.services.loadDeps().catch(() => undefined), 0);
      plugin.register(() => window.clearTimeout(timer));
    });
    // Last: its start waits for the layout, and its first request for the first scheduled step.
    this.autoSync.register();
  }

  /** The vault's `rename` (the shell hears it from onload on; records follow, TOOLS.md §13.9). */
  renamed(file: TAbstractFile, oldPath: string): void {
    void this.renames.handleRename(file, oldPath);
  }

  /** The vault's `delete`: a deleted file keeps its record (TOOLS.md §13.9); only cached facts about it go. */
  deleted(file: TAbstractFile): void {
    if (file instanceof TFile) this.services.hashCache.forget(file.path);
  }

  /** The vault's `modify`. */
  modified(file: TAbstractFile): void {
    void this.autoSync.modified(file);
  }

  /** An editor's `editor-change`. */
  typed(editor: Editor, info: MarkdownView | MarkdownFileInfo): void {
    this.autoSync.typed(editor, info);
  }

  /** data.json changed on disk (another device synced it): apply it. */
  async settingsChangedOnDisk(): Promise<void> {
    this.plugin.settings = migrateSettings(await this.plugin.loadData());
    this.applySettings();
  }

  /** Merges, validates, saves and applies a settings change. */
  async saveSettings(change: Partial<Settings>): Promise<void> {
    this.plugin.settings = migrateSettings({ ...this.plugin.settings, ...change });
    await this.plugin.saveData(this.plugin.settings);
    this.applySettings();
    void this.status.refresh();
  }

  private applySettings(): void {
    this.services.settingsChanged();
    this.status.applySettings();
    this.autoSync.applySettings();
  }
}
