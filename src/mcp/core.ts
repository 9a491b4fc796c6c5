/**
 * One core instance (TOOLS.md §1.3): the HackMD client, its caches and the tool deps, built from
 * the ports a host supplies. Both hosts (the standalone command and the plugin) call this.
 */
import { hackmdSiteOrigins, IMAGE_MAX_BYTES, isHackmdSiteLink, type ImageFetcher } from "../core/image";
import type { LocalFiles } from "../core/local-files";
import type { Clock, HttpTransport, Logger, Random, SecretSource, Sleep } from "../core/ports";
import { AccountCache, NoteListCache } from "../hackmd/cache";
import { CallContext, retryMetaForResult } from "../hackmd/call-context";
import { HackmdClient } from "../hackmd/client";
import type { ClientConfig } from "../hackmd/config";
import { PendingWrites } from "../hackmd/pending-writes";
import { SafetyVersions } from "../hackmd/safety-version";
import type { NoteSummary, Team } from "../hackmd/types";
import { SyncQueue } from "../sync/queue";
import { SyncService } from "../sync/service";
import { SyncStateStore } from "../sync/store";
import type { ToolDeps } from "./deps";
import type { ToolGate } from "./gate";
import type { McpHost } from "./server";
import { TOOLS } from "./tools";
import type { Words } from "../core/wording";

/** The ports and settings of a core instance. */
export interface BridgeCoreOptions {
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
   * Whether pulls write notes in Obsidian's syntax (issue 11) unless a pull says otherwise, read at
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
}

/** A running core: the deps tools use, and a factory for MCP hosts over them. */
export interface BridgeCore {
  deps: ToolDeps;
  /** An MCP host over this core; each MCP session gets a server built from it. */
  mcpHost(options: { name: string; version: string; /** Every secret to scrub from results: the HackMD token and, over HTTP, the endpoint token. */
    secrets: () => ReadonlyArray<string | undefined>; onCallCompleted?: McpHost<ToolDeps, CallContext>["onCallCompleted"];
    /** The per-tool policy and approver (issue 14); absent: every tool allowed. */
    gate?: ToolGate }): McpHost<ToolDeps, CallContext>;
}

/** Rough size of a cached list for the cache's size cap. */
/**
 * An image on HackMD's own site (the API origin, or it without `api.`), read signed out, as the
 * readability probe reads it (TOOLS.md §16.8); anything else is not fetched. Undefined when the
 * answer is not a 200 with a body.
 */
async function fetchSiteImage(transport: HttpTransport, apiOrigin: string, url: string): Promise<Uint8Array | undefined> {
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
      const value = (JSON.parse(new TextDecoder().decode(read.bytes)) as { attachmentFolderPath?: unknown }).attachmentFolderPath;
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

function estimateListBytes(list: readonly NoteSummary[]): number {
  let bytes = 0;
  for (const note of list) bytes += 200 + 2 * (note.title.length + (note.description?.length ?? 0) + note.tags.join("").length);
  return bytes;
}

/** Builds a core instance. */
export function createBridgeCore(options: BridgeCoreOptions): BridgeCore {
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
  const lists = new NoteListCache<NoteSummary>({ clock: options.clock, estimate: estimateListBytes, ...(ttl === undefined ? {} : { ttlMs: ttl }) });
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
  // Every host has LocalFiles, so every core carries the sync engine over its own client and cache.
  const sync = new SyncService({
    client,
    files: options.files,
    store: new SyncStateStore({
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
    ...(options.words === undefined ? {} : { words: options.words }),
    conversion: {
      enabled: options.convertByDefault ?? (() => false),
      // Links to tracked notes carry the note's page on HackMD's site (the API origin without `api.`).
      noteUrl: (_teamPath, noteId) => `${noteSiteOrigin(options.config.api.origin)}/${noteId}`,
      downloads: {
        enabled: options.downloadImages ?? (() => true),
        fetch: (url) => fetchSiteImage(options.transport, options.config.api.origin, url),
        folder: (notePath) => attachmentFolder(options.files, notePath),
      },
    },
  });
  const deps: ToolDeps = {
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
    clock: options.clock,
    sleep: options.sleep,
    logger: options.logger,
  };
  let requests = 0;
  return {
    deps,
    mcpHost: (host) => ({
      name: host.name,
      version: host.version,
      tools: TOOLS,
      deps,
      newCall: (guard) => new CallContext({ guard }),
      retryMeta: (call) => retryMetaForResult(call),
      secrets: () => host.secrets().filter((secret): secret is string => typeof secret === "string" && secret.trim() !== ""),
      logger: options.logger,
      nextRequestId: () => `req-${++requests}`,
      ...(host.onCallCompleted ? { onCallCompleted: host.onCallCompleted } : {}),
      ...(host.gate ? { gate: host.gate } : {}),
    }),
  };
}
