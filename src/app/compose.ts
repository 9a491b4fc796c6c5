/**
 * The composition point of the application layer: builds one core instance's services (client,
 * caches, queue, sync engine) from the ports a host supplies. It does not reach the MCP tool
 * registry, its schemas or the SDK, so the plugin builds these services at first use and loads
 * `mcp/core.ts` (the MCP door over them) only when the endpoint starts.
 */
import { AccountCache, NoteListCache } from "../hackmd/cache";
import { HackmdClient } from "../hackmd/client";
import { hackmdSiteOrigins, IMAGE_MAX_BYTES, isHackmdSiteLink, type ImageFetcher } from "../core/image";
import type { LocalFiles } from "../core/local-files";
import type { Clock, HttpTransport, Logger, Random, SecretSource, Sleep } from "../core/ports";
import type { ClientConfig } from "../hackmd/config";
import type { Words } from "../core/wording";
import { PendingWrites } from "../hackmd/pending-writes";
import { SafetyVersions } from "../hackmd/safety-version";
import type { NoteSummary, Team } from "../hackmd/types";
import { SyncQueue } from "../sync/queue";
import { SyncService } from "../sync/service";
import { SyncJournal } from "../sync/journal";
import { SyncStateStore } from "../sync/store";
import type { AppDeps } from "./deps";
import { SearchIndex } from "./search";

/** The ports and settings of a core instance. */
export interface AppOptions {
  transport: HttpTransport;
  config: ClientConfig;
  secrets: SecretSource;
  files: LocalFiles;
  images: ImageFetcher;
  clock: Clock;
  sleep: Sleep;
  random: Random;
  logger: Logger;
  /** Time to live of the list and account caches (0 disables them; tests). */
  cacheTtlMs?: number;
  /** The vocabulary of the fixes the sync engine's messages name (default: the tools' words). */
  words?: Words;
  /**
   * Whether pulls write notes in Obsidian's syntax unless a pull says otherwise, read at
   * each pull. Default: off (every note byte for byte).
   */
  convertByDefault?: () => boolean;
  /** Whether a converting pull downloads collaborators' HackMD-hosted images into the vault (default: on). */
  downloadImages?: () => boolean;
  /** Who overwrites, in the names of versions made before overwrites (default "hackmd-bridge"). */
  hostLabel?: string;
  /** Whether an overwrite stops when no version could be made first (read at each use; default never). */
  requireVersion?: () => boolean;
  /** How to turn that requirement off, in the host's words. */
  requireVersionHint?: string;
  /** The sync state store to use (the plugin shares its own, so one record index serves both). */
  store?: SyncStateStore;
  /** Which host's user makes the writes no agent or automatic round makes (the journal's actor; default the command). */
  door?: "obsidian" | "command";
}

/**
 * An image on HackMD's own site (the API origin, or it without `api.`), read signed out, as the
 * readability probe reads it (docs/tools.md §16.8); anything else is not fetched. Undefined when the
 * answer is not a 200 with a body.
 */
async function fetchSiteImage(
  transport: HttpTransport,
  apiOrigin: string,
  url: string,
): Promise<Uint8Array | undefined> {
  if (!isHackmdSiteLink({ link: url, apiUrl: apiOrigin })) return undefined;
  const response = await transport.request({
    method: "GET",
    url,
    headers: {},
    timeouts: { connectMs: 10_000, headersMs: 30_000, idleMs: 30_000, totalMs: 60_000 },
    maxResponseBytes: IMAGE_MAX_BYTES,
  });
  return response.status === 200 && response.body.byteLength > 0 ? response.body : undefined;
}

/**
 * Where Obsidian puts a new attachment for a note (`attachmentFolderPath` in the vault's
 * `app.json`): `/` or unset is the vault's top folder, `./` the note's folder, `./sub` a folder
 * under it, anything else a vault path.
 */
async function attachmentFolder(files: LocalFiles, notePath: string): Promise<string> {
  let setting = "/";
  if (files.root.isVault) {
    try {
      const read = await files.read(`${files.root.configDir}/app.json`, { maxBytes: 1_048_576 });
      const value = (JSON.parse(new TextDecoder().decode(read.bytes)) as { attachmentFolderPath?: unknown })
        .attachmentFolderPath;
      if (typeof value === "string") setting = value;
    } catch {
      setting = "/";
    }
  }
  const noteFolder = notePath.includes("/") ? notePath.slice(0, notePath.lastIndexOf("/")) : "";
  const trimmed = setting.replace(/\/+$/, "");
  if (trimmed === "" || trimmed === "/") return "";
  if (trimmed === ".") return noteFolder;
  if (trimmed.startsWith("./")) return [noteFolder, trimmed.slice(2)].filter((part) => part !== "").join("/");
  return trimmed.replace(/^\/+/, "");
}

/** HackMD's site origin for an API origin: `https://api.hackmd.io` → `https://hackmd.io`; others as they are. */
function noteSiteOrigin(apiOrigin: string): string {
  const sites = hackmdSiteOrigins(apiOrigin);
  return sites[sites.length - 1] ?? apiOrigin;
}

/** Rough size of a cached list for the cache's size cap. */
function estimateListBytes(list: readonly NoteSummary[]): number {
  let bytes = 0;
  for (const note of list)
    bytes += 200 + 2 * (note.title.length + (note.description?.length ?? 0) + note.tags.join("").length);
  return bytes;
}

/** Builds the services of a core instance; `createBridgeCore` (mcp/core.ts) adds the MCP door. */
export function createAppDeps(options: AppOptions): AppDeps {
  const client = new HackmdClient({
    transport: options.transport,
    config: options.config,
    secrets: options.secrets,
    clock: options.clock,
    sleep: options.sleep,
    random: options.random,
    logger: options.logger,
  });
  const ttl = options.cacheTtlMs;
  const lists = new NoteListCache<NoteSummary>({
    clock: options.clock,
    estimate: estimateListBytes,
    ...(ttl === undefined ? {} : { ttlMs: ttl }),
  });
  const pending = new PendingWrites(options.clock);
  const safety = new SafetyVersions({
    client,
    clock: options.clock,
    host: options.hostLabel ?? "hackmd-bridge",
    requireVersion: options.requireVersion ?? (() => false),
    requireHint: options.requireVersionHint ?? "unset HACKMD_BRIDGE_REQUIRE_VERSION",
  });
  // One queue per core: the sync engine and every tool that writes a note body wait in it.
  const queue = new SyncQueue();
  // One journal per state folder, shared by the plugin and the command (src/sync/journal.ts).
  const journal = new SyncJournal({
    files: options.files.state,
    logger: options.logger,
    stateFolder: options.files.root.stateFolder,
    defaultActor: { kind: "user", door: options.door ?? "command" },
    timing: { now: () => options.clock.now(), sleep: options.sleep },
  });
  // Every host has LocalFiles, so every core carries the sync engine over its own client and cache.
  const sync = new SyncService({
    client,
    files: options.files,
    store:
      options.store ??
      new SyncStateStore({
        files: options.files.state,
        logger: options.logger,
        timing: { now: () => options.clock.now(), sleep: options.sleep },
        stateFolder: options.files.root.stateFolder,
        ...(options.words === undefined ? {} : { words: options.words }),
      }),
    clock: options.clock,
    sleep: options.sleep,
    logger: options.logger,
    lists,
    pending,
    queue,
    safety,
    journal,
    ...(options.words === undefined ? {} : { words: options.words }),
    conversion: {
      enabled: options.convertByDefault ?? (() => false),
      // Links to tracked notes carry the note's page on HackMD's site (the API origin without `api.`).
      noteUrl: (_teamPath, noteId) => `${noteSiteOrigin(options.config.api.origin)}/${noteId}`,
      downloads: {
        enabled: options.downloadImages ?? (() => true),
        fetch: (url) => fetchSiteImage(options.transport, options.config.api.origin, url),
        downloadable: (url) => isHackmdSiteLink({ link: url, apiUrl: options.config.api.origin }),
        folder: (notePath) => attachmentFolder(options.files, notePath),
      },
    },
  });
  return {
    client,
    lists,
    account: new AccountCache<Team>(options.clock, ttl),
    // Read at each use: a host's configuration may follow its settings (the plugin's API URL).
    get isDefaultApiUrl() {
      return options.config.api.isDefault;
    },
    get apiOrigin() {
      return options.config.api.origin;
    },
    files: options.files,
    transport: options.transport,
    images: options.images,
    pending,
    queue,
    sync,
    safety,
    search: new SearchIndex({
      files: options.files,
      sync,
      clock: options.clock,
      isDefaultApiUrl: () => options.config.api.isDefault,
    }),
    journal,
    clock: options.clock,
    sleep: options.sleep,
    logger: options.logger,
  };
}
