/**
 * Keeps the status bar current: refreshes it on file-open, on save of the active file and after
 * every check, without any request, and runs the optional background check of the active file
 * (settings.backgroundCheckMinutes; off by default) on a registered interval. A click on the item
 * opens what the state suggests: the merge editor on a conflict, the diff otherwise.
 */
import type { Plugin, TAbstractFile } from "obsidian";
import { STATUS_CLICK, StatusBarView } from "../ui/status-bar";
import type { KeyedRecord } from "../sync/store";
import type { BridgeActions } from "./actions";
import type { AutoSyncHost } from "./auto-sync";
import type { PluginServices } from "./plugin-services";
import { localSyncState } from "./sync-status";

/** What the controller needs. */
export interface StatusControllerOptions {
  plugin: Plugin;
  services: PluginServices;
  actions: BridgeActions;
  view: StatusBarView;
  /** The status-bar item the view renders into (for its click). */
  item: HTMLElement;
  /** Automatic sync, for the queued pushes and the month's requests (tooltip). */
  autoSync?: Pick<AutoSyncHost, "summary" | "subscribe">;
}

/** Refreshes the status bar and owns the background check. */
export class StatusController {
  private readonly plugin: Plugin;
  private readonly services: PluginServices;
  private readonly actions: BridgeActions;
  private readonly view: StatusBarView;
  private readonly item: HTMLElement;
  private readonly autoSync: Pick<AutoSyncHost, "summary" | "subscribe"> | undefined;
  private interval: number | undefined;
  private intervalMinutes = 0;
  private generation = 0;

  /** A controller; call `register()` once from onload. */
  constructor(options: StatusControllerOptions) {
    this.plugin = options.plugin;
    this.services = options.services;
    this.actions = options.actions;
    this.view = options.view;
    this.item = options.item;
    this.autoSync = options.autoSync;
  }

  /** Registers the events, the memory subscription and the background check for cleanup. */
  register(): void {
    const { workspace, vault } = this.plugin.app;
    this.plugin.registerEvent(workspace.on("file-open", () => void this.refresh()));
    this.plugin.registerEvent(
      vault.on("modify", (file: TAbstractFile) => {
        if (file.path === this.activePath()) void this.refresh();
      }),
    );
    this.plugin.register(this.services.status.subscribe(() => void this.refresh()));
    this.plugin.register(this.services.openThreads.subscribe(() => void this.refresh()));
    if (this.autoSync !== undefined) this.plugin.register(this.autoSync.subscribe(() => void this.refresh()));
    this.plugin.registerDomEvent(this.item, "click", () => void this.clicked());
    this.plugin.register(() => this.stopInterval());
    this.applySettings();
  }

  /** Starts, restarts or stops the background check after a settings change. */
  applySettings(): void {
    const minutes = this.services.settings.backgroundCheckMinutes;
    if (minutes === this.intervalMinutes) return;
    this.stopInterval();
    this.intervalMinutes = minutes;
    if (minutes <= 0) return;
    const id = this.services.timers.setInterval(() => void this.backgroundCheck(), minutes * 60_000);
    this.interval = this.plugin.registerInterval(id);
  }

  /** Recomputes the active file's state from local facts and shows it. */
  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const path = this.activePath();
    const state = path === undefined ? null : await localSyncState(this.sources(), path).catch(() => "error" as const);
    if (generation !== this.generation) return;
    const settings = this.services.settings;
    const quota = settings.showQuotaInStatusBar ? (this.services.loadedDeps?.client.lastQuota ?? null) : null;
    const openThreads = path === undefined ? undefined : this.services.openThreads.get(path);
    this.view.render({
      state,
      quota,
      showUntracked: settings.showUntrackedInStatusBar,
      openThreads,
      autoSync: this.autoSync?.summary(),
    });
  }

  /** The item was clicked: run what the active file's state suggests. */
  async clicked(): Promise<void> {
    const path = this.activePath();
    if (path === undefined) return;
    const state = await localSyncState(this.sources(), path).catch(() => "error" as const);
    switch (STATUS_CLICK[state]?.click) {
      case "resolve":
        return this.actions.resolveConflict(path);
      case "changes-since-sync":
        return this.actions.showChangesSinceSync(path);
      case "compare":
        return this.actions.compareWithHackmd(path);
      case "check":
        return this.actions.showStatus(path);
      case undefined:
        return;
    }
  }

  private async backgroundCheck(): Promise<void> {
    const path = this.activePath();
    if (path === undefined || !(await this.actions.isTracked(path))) return;
    await this.actions.checkQuietly(path);
  }

  private stopInterval(): void {
    if (this.interval !== undefined) this.services.timers.clearInterval(this.interval);
    this.interval = undefined;
    this.intervalMinutes = 0;
  }

  private activePath(): string | undefined {
    const file = this.plugin.app.workspace.getActiveFile();
    return file !== null && file.extension === "md" ? file.path : undefined;
  }

  private sources() {
    const s = this.services;
    return {
      files: s.files,
      store: s.store,
      hashCache: s.hashCache,
      memory: s.status,
      remoteForm: async (found: KeyedRecord, text: string) => (await s.loadDeps()).sync.remoteFormOf(found, text),
    };
  }
}
