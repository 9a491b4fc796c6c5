/** `hackmd-bridge mcp` and `serve`, and what the sandbox reuses: the tools over stdio or loopback HTTP. */
import { randomBytes } from "node:crypto";
import process from "node:process";
import type { Logger } from "../core/ports";
import { VERSION } from "../core/version";
import { connectionHelpText } from "../mcp/client-configs";
import type { BridgeCore } from "../mcp/core";
import type { ToolGate } from "../mcp/gate";
import { startMcpListener, type McpListener } from "../mcp/http/listener";
// Node's modules for the code the plugin shares (node-apis.ts): this host has them at start.
import "./node-apis-install";
import { createMcpServer } from "../mcp/server";
import { createNodeCore, type NodeSettings } from "./runtime";
import { BoundedStdioServerTransport } from "./stdio-transport";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

/** Default port of the MCP endpoint (docs/architecture.md §4). */
export const DEFAULT_MCP_PORT = 27183;

/** A new endpoint token: 32 random bytes, base64url. */
export function newEndpointToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Where `serve` and `sandbox` write. */
export interface ServeIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stdout is a terminal (then the snippets with the token go there). */
  outIsTty: boolean;
}

/** Starts the listener over a core. */
export function serveCore(options: {
  core: BridgeCore;
  port: number;
  token: string;
  apiToken: () => string | undefined;
  logger: Logger;
  gate?: ToolGate;
}): Promise<McpListener> {
  const host = options.core.mcpHost({
    name: "hackmd-bridge",
    version: VERSION,
    // Both secrets are scrubbed from every result as a last line of defence.
    secrets: () => [options.apiToken(), options.token],
    ...(options.gate === undefined ? {} : { gate: options.gate }),
  });
  return startMcpListener({
    port: options.port,
    token: options.token,
    logger: options.logger,
    createServer: (scope) => createMcpServer(host, scope),
  });
}

/**
 * How to connect common MCP clients, each snippet ready to paste as it is: with the real token,
 * so it is printed only where the token may go (stdout, never the log stream on stderr).
 */
export function connectionSnippets(url: string, token: string, tokenNote: string): string {
  return connectionHelpText(url, token).replace(`Bearer token: ${token}`, `Bearer token: ${token}\n${tokenNote}`);
}

/**
 * The instructions on stderr when the snippets cannot go to stdout: the token stays out of the
 * log stream, so the text says where to find it.
 */
export function connectionHelpWithoutToken(url: string): string {
  return connectionHelpText(url, "<token>").replace(
    "Bearer token: <token>",
    'Bearer token: the "token" field of the JSON line printed on stdout (put it in place of <token> below; set HACKMD_BRIDGE_MCP_TOKEN to keep one token across restarts)',
  );
}

/** Resolves when SIGINT or SIGTERM arrives. */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      process.off("SIGINT", done);
      process.off("SIGTERM", done);
      resolve();
    };
    process.on("SIGINT", done);
    process.on("SIGTERM", done);
  });
}

/** `mcp`: the tools over stdio until the client goes away or a signal arrives. */
export async function runStdio(settings: NodeSettings, logger: Logger, gate?: ToolGate): Promise<number> {
  const core = await createNodeCore(settings, logger);
  const host = core.mcpHost({
    name: "hackmd-bridge",
    version: VERSION,
    secrets: () => [settings.token],
    ...(gate === undefined ? {} : { gate }),
  });
  // Ours, not the SDK's: it bounds the nesting of each line before parsing it (node/stdio-transport.ts).
  const transport = new BoundedStdioServerTransport();
  // The SDK's v2 entry negotiates the revision from the opening message: 2026-07-28 (server/discover
  // or an enveloped request) or 2025-11-25 (initialize), one server pinned for the connection.
  const handle = serveStdio(() => createMcpServer(host, { clientName: () => transport.clientName }), {
    transport,
    onerror: (error) => logger.debug("mcp_stdio_error", { error: error.message }),
  });
  logger.info("mcp_stdio_ready", { version: VERSION });
  // The input's end waits for the answers still owed (a client that pipes its requests and closes).
  await Promise.race([transport.closed, untilSignal(), transport.inputDone]);
  await handle.close();
  return 0;
}

/** What `serve` prints about the token besides the JSON line, and what runs when it stops. */
export interface ServeOptions {
  settings: NodeSettings;
  /** The tool policy from the flags (docs/tool-contract-extensions.md); absent: every tool allowed. */
  gate?: ToolGate;
  port: number;
  token: string;
  logger: Logger;
  io: ServeIo;
  /** Added to the JSON line (the sandbox's `mode`). */
  extra?: Record<string, string>;
  /** Printed with the snippets: where the token comes from and how long it stays. */
  tokenNote: string;
  /** Always print the snippets with the token on stdout (the sandbox: its token is local and saved). */
  snippetsOnStdout?: boolean;
  /** Text after the snippets (the sandbox's command-line hints). */
  footer?: string;
  /** Called once listening, with the port actually bound. */
  onListening?: (listener: McpListener) => Promise<void>;
}

/** Serves the tools over loopback HTTP until a signal. */
export async function runServe(options: ServeOptions): Promise<number> {
  const { settings, logger, io } = options;
  const core = await createNodeCore(settings, logger);
  const listener = await serveCore({
    core,
    port: options.port,
    token: options.token,
    apiToken: () => settings.token,
    logger,
    ...(options.gate === undefined ? {} : { gate: options.gate }),
  });
  try {
    await options.onListening?.(listener);
    io.out(`${JSON.stringify({ url: listener.url, token: options.token, ...options.extra })}\n`);
    const footer = `${options.footer === undefined ? "" : `\n\n${options.footer}`}\n\nPress Ctrl+C to stop.\n`;
    if (options.snippetsOnStdout === true || io.outIsTty)
      io.out(`\n${connectionSnippets(listener.url, options.token, options.tokenNote)}${footer}`);
    else io.err(`${connectionHelpWithoutToken(listener.url)}${footer}`);
    await untilSignal();
  } finally {
    await listener.close();
  }
  return 0;
}
