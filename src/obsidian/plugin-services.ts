/**
 * The plugin's services, built from the App and the settings with one named-parameter object
 * (STYLE.md rules 1 and 3): the requestUrl transport, the vault's LocalFiles, the core (client,
 * caches, sync engine) and the small host state the commands and the UI share. The core is
 * rebuilt when the API URL setting changes; everything else lives as long as the plugin.
 */
import type { App } from "obsidian";
import { unavailableImageFetcher, type ImageFetcher } from "../core/image";
import type { Clock, HttpTransport, Logger, LogFields, SecretSource, Sleep } from "../core/ports";
import { CallContext } from "../hackmd/call-context";
import { createClientConfig, PLUGIN_TOKEN_HINT } from "../hackmd/config";
import { createBridgeCore, type BridgeCore } from "../mcp/core";
import type { ToolDeps } from "../mcp/deps";
import type { Settings } from "../settings/schema";
import { LocalHashCache } from "../sync/local-hash-cache";
import { SyncStateStore } from "../sync/store";
import { RequestUrlTransport, type TransportTimers } from "./request-url-transport";
import { SyncStatusMemory } from "./sync-status";
import { VaultLocalFiles, type DesktopPaths } from "./vault-files";

/** Timers the plugin uses: the transport's timeout and the background check (the plugin passes `window`). */
export interface PluginTimers extends TransportTimers {
  setInterval(callback: () => void, ms: number): number;
  clearInterval(id: number): void;
}

/** How the plugin builds its services. */
export interface PluginServicesOptions {
  /** The app whose vault is the ROOT. */
  app: App;
  /** The current settings, read at every use so a change applies at once. */
  settings: () => Settings;
  /** The HackMD token (secret storage). */
  token: SecretSource;
  /** `window` in the plugin; a fake in tests. */
  timers: PluginTimers;
  /** Desktop symlink checks, when the plugin supplies them. */
  desktop?: DesktopPaths;
  /** The image-URL fetcher on desktop (DNS and sockets); mobile has none (TOOLS.md §16.9). */
  images?: ImageFetcher;
  /** Overrides the requestUrl transport (tests only). */
  transport?: HttpTransport;
  /** Overrides the debug-console logger (tests only). */
  logger?: Logger;
}

/** A logger that writes to `console.debug` only, so normal operation prints nothing visible. */
export function debugConsoleLogger(): Logger {
  const write = (level: string, event: string, fields?: LogFields): void => {
    console.debug(`[hackmd-bridge] ${level} ${event}`, fields ?? {});
  };
  return {
    debug: (event, fields) => write("debug", event, fields),
    info: (event, fields) => write("info", event, fields),
    warn: (event, fields) => write("warn", event, fields),
    error: (event, fields) => write("error", event, fields),
  };
}

const clock: Clock = { now: () => Date.now() };

/** Everything the commands, the status bar and the settings tab use; one per plugin instance. */
export class PluginServices {
  /** The Obsidian app. */
  readonly app: App;
  /** The vault as the core's LocalFiles (user files and the sync state folder). */
  readonly files: VaultLocalFiles;
  /** The sync records, read from disk at every use (stores keep no state). */
  readonly store: SyncStateStore;
  /** The HackMD token. */
  readonly token: SecretSource;
  /** Timers (`window` in the plugin). */
  readonly timers: PluginTimers;
  /** The plugin's logger (debug console only). */
  readonly logger: Logger;
  /** Body hashes of working files by path and stamp, kept for the plugin's lifetime. */
  readonly hashCache = new LocalHashCache({ maxEntries: 10_000 });
  /** What the last checks found, per path, for the status bar. */
  readonly status = new SyncStatusMemory();
  private readonly readSettings: () => Settings;
  private readonly images: ImageFetcher;
  private readonly transport: HttpTransport;
  private readonly sleep: Sleep;
  private built: { apiUrl: string; core: BridgeCore } | undefined;

  /** Builds the services; no request and no vault scan happen here. */
  constructor(options: PluginServicesOptions) {
    this.app = options.app;
    this.readSettings = options.settings;
    this.images = options.images ?? unavailableImageFetcher;
    this.token = options.token;
    this.timers = options.timers;
    this.logger = options.logger ?? debugConsoleLogger();
    this.transport = options.transport ?? new RequestUrlTransport({ timers: options.timers });
    this.sleep = (ms) =>
      new Promise((resolve) => {
        options.timers.setTimeout(resolve, Math.max(0, ms));
      });
    this.files = new VaultLocalFiles({
      app: options.app,
      ...(options.desktop ? { desktop: options.desktop } : {}),
      protectAgentFiles: () => this.readSettings().protectAgentFiles,
    });
    this.store = new SyncStateStore({ files: this.files.state, logger: this.logger });
  }

  /** The current settings. */
  get settings(): Settings {
    return this.readSettings();
  }

  /** The core for the current API URL, built on first use and rebuilt when the URL changed. */
  get core(): BridgeCore {
    const apiUrl = this.settings.apiUrl;
    if (this.built?.apiUrl !== apiUrl) {
      const core = createBridgeCore({
        transport: this.transport,
        config: createClientConfig({ apiUrl, tokenHint: PLUGIN_TOKEN_HINT }),
        secrets: this.token,
        files: this.files,
        images: this.images,
        clock,
        sleep: this.sleep,
        random: () => Math.random(),
        logger: this.logger,
      });
      this.built = { apiUrl, core };
    }
    return this.built.core;
  }

  /** The current core's tool dependencies (client, sync engine, caches). */
  get deps(): ToolDeps {
    return this.core.deps;
  }

  /** Call after the settings were saved: a changed API URL gets a new core (and fresh caches). */
  settingsChanged(): void {
    if (this.built !== undefined && this.built.apiUrl !== this.settings.apiUrl) {
      this.built = undefined;
      this.status.clear();
    }
  }

  /** A fresh per-operation call context (TOOLS.md §4.3). */
  newCall(): CallContext {
    return new CallContext();
  }

  /** The browser link of a note, or undefined when a non-default API URL is configured. */
  noteUrl(noteId: string): string | undefined {
    return this.deps.isDefaultApiUrl ? `https://hackmd.io/${encodeURIComponent(noteId)}` : undefined;
  }
}
