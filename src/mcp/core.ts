/**
 * One core instance (docs/tools.md §1.3) with its MCP door: the application layer's services
 * (`createAppDeps`, app/compose.ts) and a factory for MCP hosts over them. Both hosts (the
 * standalone command and the plugin) call this.
 */
import { journalToolWrite } from "./journal-writes";
import { createAppDeps, type AppOptions } from "../app/compose";
import { CallContext, retryMetaForResult } from "../hackmd/call-context";
import type { ToolDeps } from "./tools/tool";
import type { ToolGate } from "./gate";
import type { McpHost } from "./server";
import { TOOLS } from "./tools";

/** The ports and settings of a core instance (the application layer's options). */
export type BridgeCoreOptions = AppOptions;

/** A running core: the deps tools use, and a factory for MCP hosts over them. */
export interface BridgeCore {
  deps: ToolDeps;
  /** An MCP host over this core; each MCP session gets a server built from it. */
  mcpHost(options: {
    name: string;
    version: string; /** Every secret to scrub from results: the HackMD token and, over HTTP, the endpoint token. */
    secrets: () => ReadonlyArray<string | undefined>;
    onCallCompleted?: McpHost<ToolDeps, CallContext>["onCallCompleted"];
    /** The per-tool policy and approver; absent: every tool allowed. */
    gate?: ToolGate;
  }): McpHost<ToolDeps, CallContext>;
}

/** Builds a core instance. */
export function createBridgeCore(options: BridgeCoreOptions): BridgeCore {
  return bridgeCoreOver(createAppDeps(options));
}

/**
 * The MCP side of a core over services built by `createAppDeps`. A host that needs the deps before
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
      newCall: (guard, caller) =>
        new CallContext({
          guard,
          ...(caller === undefined
            ? {}
            : {
                actor: {
                  kind: "agent",
                  door: "mcp",
                  client: caller.client,
                  session: caller.session,
                  tool: caller.tool,
                },
              }),
        }),
      onWrite: (write) => journalToolWrite(deps.journal, write),
      retryMeta: (call) => retryMetaForResult(call),
      secrets: () =>
        host.secrets().filter((secret): secret is string => typeof secret === "string" && secret.trim() !== ""),
      logger: deps.logger,
      nextRequestId: () => `req-${++requests}`,
      ...(host.onCallCompleted ? { onCallCompleted: host.onCallCompleted } : {}),
      ...(host.gate ? { gate: host.gate } : {}),
    }),
  };
}
