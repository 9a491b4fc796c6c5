/**
 * The application layer's services (docs/architecture.md §1): one core instance's client, caches,
 * queue and sync engine, shared by its three doors — the MCP tools (which see them as `ToolDeps`),
 * the Obsidian commands and the command line's subcommands. Built by `createAppDeps` (compose.ts).
 */
import type { ImageFetcher } from "../core/image";
import type { LocalFiles } from "../core/local-files";
import type { Clock, HttpTransport, Logger, Sleep } from "../core/ports";
import type { AccountCache, NoteListCache } from "../hackmd/cache";
import type { HackmdClient } from "../hackmd/client";
import type { PendingWrites } from "../hackmd/pending-writes";
import type { SafetyVersions } from "../hackmd/safety-version";
import type { NoteSummary, Team } from "../hackmd/types";
import type { SyncJournal } from "../sync/journal";
import type { SyncQueue } from "../sync/queue";
import type { SyncTools } from "../sync/types";
import type { SearchIndex } from "./search";

/** One core instance's services, shared by every door. */
export interface AppDeps {
  client: HackmdClient;
  lists: NoteListCache<NoteSummary>;
  account: AccountCache<Team>;
  /** Whether the default API URL is configured (results then carry `note_url`). */
  isDefaultApiUrl: boolean;
  /** The API origin, e.g. `https://api.hackmd.io`, for the image readability probe. */
  apiOrigin: string;
  files: LocalFiles;
  /** The plain transport, for the signed-out image readability probe (never carries the token). */
  transport: HttpTransport;
  images: ImageFetcher;
  /** Body writes whose outcome is unknown, so no later write overwrites them unseen. */
  pending: PendingWrites;
  /**
   * The core's one queue (docs/architecture.md §3): a use-case that reads a note to decide a write
   * holds the note's key (`noteQueueKey(recordKey(team, id))`) from that read through the write.
   */
  queue: SyncQueue;
  /** The sync engine (pull, push, check, untrack, the tracked list). */
  sync: SyncTools;
  /** Named versions before deliberate overwrites (docs/versions-and-comments.md). */
  safety: SafetyVersions;
  /** The full-text index of tracked notes' bodies (src/app/search.ts), built at the first search. */
  search: SearchIndex;
  /** The sync journal: one entry per write, whoever made it (src/sync/journal.ts). */
  journal: SyncJournal;
  clock: Clock;
  sleep: Sleep;
  logger: Logger;
}
