/**
 * One core instance (TOOLS.md §1.3): the HackMD client, its caches and the tool deps, built from
 * the ports a host supplies. Both hosts (the standalone command and the plugin) call this.
 */
import type { ImageFetcher } from "../core/image";
import type { LocalFiles } from "../core/local-files";
import type { Clock, HttpTransport, Logger, Random, SecretSource, Sleep } from "../core/ports";
import { CallContext, retryMetaForResult } from "../hackmd/call-context";
import type { ClientConfig } from "../hackmd/config";
import { createCoreDeps } from "./core-deps";
import type { SyncStateStore } from "../sync/store";
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
  /** The sync state store to use (the plugin shares its own, so one record index serves both). */
  store?: SyncStateStore;
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

/** Builds a core instance. */
export function createBridgeCore(options: BridgeCoreOptions): BridgeCore {
  return bridgeCoreOver(createCoreDeps(options));
}

/**
 * The MCP side of a core over deps built by `createCoreDeps`. A host that needs the deps before
 * any MCP session (the plugin) builds them first and loads this module only when the endpoint
 * starts, so the tool registry and its schemas are not evaluated at load.
 */
export function bridgeCoreOver(deps: ToolDeps): BridgeCore {
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
      logger: deps.logger,
      nextRequestId: () => `req-${++requests}`,
      ...(host.onCallCompleted ? { onCallCompleted: host.onCallCompleted } : {}),
      ...(host.gate ? { gate: host.gate } : {}),
    }),
  };
}
