/**
 * The deps of a core instance (client, caches, queue, sync engine) without its MCP side: this
 * module does not reach the tool registry, its schemas or the SDK, so the plugin can build the
 * deps at first use and load `core.ts` only when the MCP endpoint starts.
 */
import { AccountCache, NoteListCache } from "../hackmd/cache";
import { HackmdClient } from "../hackmd/client";
import { PendingWrites } from "../hackmd/pending-writes";
import type { NoteSummary, Team } from "../hackmd/types";
import { SyncQueue } from "../sync/queue";
import { SyncService } from "../sync/service";
import { SyncStateStore } from "../sync/store";
import type { BridgeCoreOptions } from "./core";
import type { ToolDeps } from "./deps";

/** Rough size of a cached list for the cache's size cap. */
function estimateListBytes(list: readonly NoteSummary[]): number {
  let bytes = 0;
  for (const note of list) bytes += 200 + 2 * (note.title.length + (note.description?.length ?? 0) + note.tags.join("").length);
  return bytes;
}

/** Builds the deps of a core instance; `createBridgeCore` adds the MCP side. */
export function createCoreDeps(options: BridgeCoreOptions): ToolDeps {
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
  // One queue per core: the sync engine and every tool that writes a note body wait in it.
  const queue = new SyncQueue();
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
    ...(options.words === undefined ? {} : { words: options.words }),
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
    clock: options.clock,
    sleep: options.sleep,
    logger: options.logger,
  };
}
