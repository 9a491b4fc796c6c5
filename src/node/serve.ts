/** `hackmd-bridge serve` and the `npm start` sandbox: the tools over loopback Streamable HTTP. */
import { randomBytes } from "node:crypto";
import type { Logger } from "../core/ports";
import type { BridgeCore } from "../mcp/core";
import { startMcpListener, type McpListener } from "../mcp/http/listener";
import { createMcpServer } from "../mcp/server";
import { VERSION } from "./version";

/** Default port of the MCP endpoint (ARCHITECTURE.md §5). */
export const DEFAULT_MCP_PORT = 27183;

/** A new endpoint token: 32 random bytes, base64url. */
export function newEndpointToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Starts the listener over a core. */
export function serveCore(options: { core: BridgeCore; port: number; token: string; apiToken: () => string | undefined; logger: Logger }): Promise<McpListener> {
  return startMcpListener({
    port: options.port,
    token: options.token,
    logger: options.logger,
    createServer: () =>
      createMcpServer(
        options.core.mcpHost({
          name: "hackmd-bridge",
          version: VERSION,
          // Both secrets are scrubbed from every result as a last line of defence.
          currentToken: () => options.apiToken(),
        }),
      ),
  });
}

/** Human instructions for connecting common MCP clients (stderr only; stdout stays machine-readable). */
export function connectionHelp(url: string, token: string): string {
  return [
    `MCP endpoint: ${url}`,
    `Bearer token: ${token}`,
    "",
    "Claude Code:",
    `  claude mcp add --transport http hackmd ${url} --header "Authorization: Bearer ${token}"`,
    "Codex (~/.codex/config.toml):",
    `  [mcp_servers.hackmd]`,
    `  url = "${url}"`,
    `  http_headers = { Authorization = "Bearer ${token}" }`,
    "Claude Desktop (claude_desktop_config.json, through mcp-remote):",
    `  { "mcpServers": { "hackmd": { "command": "npx", "args": ["-y", "mcp-remote", "${url}", "--header", "Authorization: Bearer ${token}"] } } }`,
    "MCP Inspector:",
    `  npx @modelcontextprotocol/inspector  (transport: Streamable HTTP, URL ${url}, header Authorization: Bearer ${token})`,
    "",
    "Press Ctrl+C to stop.",
  ].join("\n");
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
