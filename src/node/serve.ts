/** `hackmd-bridge serve` and the `npm start` sandbox: the tools over loopback Streamable HTTP. */
import { randomBytes } from "node:crypto";
import type { Logger } from "../core/ports";
import { connectionHelpText } from "../mcp/client-configs";
import type { BridgeCore } from "../mcp/core";
import { startMcpListener, type McpListener } from "../mcp/http/listener";
import { createMcpServer } from "../mcp/server";
import { VERSION } from "../core/version";

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
          secrets: () => [options.apiToken(), options.token],
        }),
      ),
  });
}

/**
 * Human instructions for connecting common MCP clients, on stderr. The token itself is printed
 * only once, in the JSON line on stdout: stderr is also the log stream, where it never appears.
 */
export function connectionHelp(url: string): string {
  const text = connectionHelpText(url, "<token>").replace(
    "Bearer token: <token>",
    'Bearer token: the "token" field of the JSON line printed on stdout (replace <token> below with it)',
  );
  return `${text}\n\nPress Ctrl+C to stop.`;
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
