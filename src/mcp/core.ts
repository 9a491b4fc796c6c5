/**
 * One core instance (TOOLS.md §1.3): the HackMD client, its caches and the tool deps, built from
 * the ports a host supplies. Both hosts (the standalone command and the plugin) call this.
 */
import type { ImageFetcher } from "../core/image";
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
import type { McpHost, ToolCallEvent } from "./server";
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
    secrets: () => ReadonlyArray<string | undefined>; onCallCompleted?: (event: ToolCallEvent) => void }): McpHost<ToolDeps, CallContext>;
}

/** Rough size of a cached list for the cache's size cap. */
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
    store: new SyncStateStore({ files: options.files.state, logger: options.logger, ...(options.words === undefined ? {} : { words: options.words }) }),
    clock: options.clock,
    sleep: options.sleep,
    logger: options.logger,
    lists,
    pending,
    queue,
    safety,
    ...(options.words === undefined ? {} : { words: options.words }),
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
      newCall: () => new CallContext(),
      retryMeta: (call) => retryMetaForResult(call),
      secrets: () => host.secrets().filter((secret): secret is string => typeof secret === "string" && secret.trim() !== ""),
      logger: options.logger,
      nextRequestId: () => `req-${++requests}`,
      ...(host.onCallCompleted ? { onCallCompleted: host.onCallCompleted } : {}),
    }),
  };
}
