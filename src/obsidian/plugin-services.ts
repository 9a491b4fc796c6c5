/**
 * The plugin's services, built from the App and the settings with one named-parameter object
 * (docs/style.md rules 1 and 3): the requestUrl transport, the vault's LocalFiles, the core (client,
 * caches, sync engine) and the small host state the commands and the UI share.
 *
 * One core per plugin load (docs/tools.md §1.3, docs/architecture.md §5): the commands and the MCP endpoint share its
 * queue and its memory of unconfirmed writes for the plugin's whole life. Its client
 * configuration follows the settings: the API URL is read at every request (the token always
 * was, from secret storage), and a changed URL empties the caches of the old server's answers
 * (note lists, account) and the status memory. The memory of unconfirmed writes is kept: it is
 * keyed by note, and refusing a write a little longer is the safe side.
 */
import type { App } from "obsidian";
import { unavailableImageFetcher, type ImageFetcher } from "../core/image";
import {
  useHostTimer,
  type Clock,
  type HttpTransport,
  type Logger,
  type LogFields,
  type SecretSource,
  type Sleep,
} from "../core/ports";
import { CallContext } from "../hackmd/call-context";
import { AccountCache } from "../hackmd/cache";
import { createClientConfig, PLUGIN_TOKEN_HINT, type ClientConfig } from "../hackmd/config";
import type { Team } from "../hackmd/types";
import type { BridgeCore } from "../mcp/core";
import type { AppDeps } from "../app/deps";
import type { Settings } from "../settings/schema";
import { LocalHashCache } from "../sync/local-hash-cache";
import { SyncStateStore } from "../sync/store";
import { RequestUrlTransport, type TransportTimers } from "./request-url-transport";
import { OpenThreadCounts } from "./open-threads";
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
  /** The image-URL fetcher on desktop (DNS and sockets); mobile has none (docs/tools.md §16.9). */
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
  /** The sync records (one store, shared with the core, so one record index serves both). */
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
  /** Open comment threads per path, as the comments view last saw them (for the status bar). */
  readonly openThreads = new OpenThreadCounts();
  private readonly readSettings: () => Settings;
  private readonly images: ImageFetcher;
  private readonly transport: HttpTransport;
  private readonly sleep: Sleep;
  private built: AppDeps | undefined;
  private loadingDeps: Promise<AppDeps> | undefined;
  private core: Promise<BridgeCore> | undefined;
  /** The configuration of the API URL requests last used. */
  private current: { apiUrl: string; config: ClientConfig } | undefined;

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
    // The core's own real waits (systemSleep, the record lock's default timing) on window's timers too.
    useHostTimer((callback, ms) => {
      options.timers.setTimeout(callback, ms);
    });
    this.files = new VaultLocalFiles({
      app: options.app,
      ...(options.desktop ? { desktop: options.desktop } : {}),
      protectAgentFiles: () => this.readSettings().protectAgentFiles,
    });
    this.store = new SyncStateStore({
      files: this.files.state,
      logger: this.logger,
      timing: { now: () => Date.now(), sleep: this.sleep },
      stateFolder: this.files.root.stateFolder,
    });
  }

  /** The current settings. */
  get settings(): Settings {
    return this.readSettings();
  }

  /**
   * The plugin's one core's deps (client, caches, queue, sync engine), loaded and built on first
   * use (`loadDeps`); its requests follow the API URL setting. The engine's modules are not
   * evaluated when the plugin loads: they run with the first command or status refresh of a
   * tracked file (docs/architecture.md, "The bundle"). Loading them does not evaluate the
   * MCP tool registry, its schemas or the SDK: those load with `loadCore()`.
   */
  loadDeps(): Promise<AppDeps> {
    if (this.built !== undefined) return Promise.resolve(this.built);
    this.loadingDeps ??= import("../app/compose").then(({ createAppDeps }) => {
      const config = (): ClientConfig => this.clientConfig();
      // The numbers are the same for every URL; `api` is looked up again at every request.
      const live: ClientConfig = {
        ...createClientConfig({ tokenHint: PLUGIN_TOKEN_HINT }),
        get api() {
          return config().api;
        },
      };
      this.built ??= createAppDeps({
        transport: this.transport,
        config: live,
        secrets: this.token,
        files: this.files,
        images: this.images,
        clock,
        sleep: this.sleep,
        random: () => Math.random(),
        logger: this.logger,
        convertByDefault: () => this.readSettings().convertObsidianSyntax,
        downloadImages: () => this.readSettings().downloadImages,
        hostLabel: "Obsidian",
        door: "obsidian",
        requireVersion: () => this.readSettings().requireVersionBeforeOverwrite,
        requireVersionHint: 'turn off "Require a version before overwriting" in the plugin settings',
        store: this.store,
      });
      return this.built;
    });
    // A failed load is not kept: the next use tries again (and reports its own failure).
    this.loadingDeps.catch(() => {
      this.loadingDeps = undefined;
    });
    return this.loadingDeps;
  }

  /** The deps once `loadDeps` has built them; undefined before (for what must not wait, like the quota shown). */
  get loadedDeps(): AppDeps | undefined {
    return this.built;
  }

  /** The deps; only after `loadDeps()` resolved (throws before). */
  get deps(): AppDeps {
    if (this.built === undefined) throw new Error("The sync engine is not loaded yet: await loadDeps() first.");
    return this.built;
  }

  /** The plugin's one core with its MCP side, over the same deps; the MCP modules load here, once. */
  async loadCore(): Promise<BridgeCore> {
    this.core ??= Promise.all([import("../mcp/core"), this.loadDeps()]).then(([{ bridgeCoreOver }, deps]) =>
      bridgeCoreOver(deps),
    );
    return this.core;
  }

  /** Call after the settings were saved: a changed API URL empties the old server's caches now. */
  settingsChanged(): void {
    if (this.current === undefined || this.current.apiUrl === this.settings.apiUrl) return;
    try {
      this.clientConfig();
    } catch {
      // An unusable URL is reported by the next request that needs it.
    }
  }

  /**
   * The configuration for the current API URL setting (invalid_input when it is unusable). The
   * first use after the URL changed drops what the caches learned from the old server.
   */
  private clientConfig(): ClientConfig {
    const apiUrl = this.settings.apiUrl;
    if (this.current?.apiUrl === apiUrl) return this.current.config;
    const config = createClientConfig({ apiUrl, tokenHint: PLUGIN_TOKEN_HINT });
    const changed = this.current !== undefined;
    this.current = { apiUrl, config };
    if (changed && this.built !== undefined) {
      this.built.lists.invalidate();
      this.built.account = new AccountCache<Team>(clock);
      this.status.clear();
    }
    return config;
  }

  /** A fresh per-operation call context (docs/tools.md §4.3). */
  newCall(): CallContext {
    return new CallContext();
  }

  /** The browser link of a note, or undefined when a non-default API URL is configured. */
  noteUrl(noteId: string): string | undefined {
    return this.clientConfig().api.isDefault ? `https://hackmd.io/${encodeURIComponent(noteId)}` : undefined;
  }
}
