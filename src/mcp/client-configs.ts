/**
 * Copy-ready MCP client configurations for the loopback endpoint.
 * Pure text builders shared by `hackmd-bridge serve` (printed on stderr) and the
 * plugin's settings tab (copy buttons); host-neutral, so both hosts word them identically.
 */

/** Server name every configuration registers the endpoint under. */
export const MCP_CLIENT_SERVER_NAME = "hackmd";

/**
 * mcp-remote, pinned: a version checked to pass `--header` to a Streamable HTTP server on
 * loopback on Node 20 (scripts/check-clients.mjs runs it).
 */
export const MCP_REMOTE_PACKAGE = "mcp-remote@0.15.1";

/**
 * The MCP Inspector, pinned: on Node 20 a bare `npx @modelcontextprotocol/inspector` resolves to
 * 0.15.0 (the last release without an engines field), which has no `--header` for URL servers.
 * This version has it and runs on Node 20 (it warns about its engines field; the CLI works).
 */
export const INSPECTOR_PACKAGE = "@modelcontextprotocol/inspector@0.17.5";

/** One client's configuration: what it is for, where it goes, and the text to paste or run. */
export interface ClientConfig {
  /** Stable id (`claude-code`, `codex`, `claude-desktop`, `generic`). */
  id: "claude-code" | "codex" | "claude-desktop" | "generic";
  /** Client name as people know it. */
  label: string;
  /** Where the text goes (a command to run, or the file to add it to). */
  where: string;
  /** The exact text to paste or run; it contains the bearer token. */
  text: string;
  /**
   * The MCP revision the client speaks to the endpoint, as far as it was tried here
   * (scripts/check-clients.mjs; docs/adr/0006-mcp-v2-both-revisions.md). The endpoint answers
   * 2026-07-28 statelessly and 2025-11-25 with a session on the same URL, so the text is the same either way.
   */
  revision: string;
}

/** The configurations for Claude Code, Codex, Claude Desktop (through mcp-remote) and any other client. */
export function clientConfigs(url: string, token: string): ClientConfig[] {
  const name = MCP_CLIENT_SERVER_NAME;
  return [
    {
      id: "claude-code",
      label: "Claude Code",
      where: "run in a terminal",
      text: `claude mcp add --transport http ${name} ${url} --header "Authorization: Bearer ${token}"`,
      revision: "whichever the installed version speaks (not installable here to try)",
    },
    {
      id: "codex",
      label: "Codex",
      where: "add to ~/.codex/config.toml",
      text: [`[mcp_servers.${name}]`, `url = "${url}"`, `http_headers = { Authorization = "Bearer ${token}" }`].join(
        "\n",
      ),
      revision: "whichever the installed version speaks (not installable here to try)",
    },
    {
      id: "claude-desktop",
      label: "Claude Desktop",
      where: "add to claude_desktop_config.json, through mcp-remote",
      text: JSON.stringify(
        {
          mcpServers: {
            [name]: {
              command: "npx",
              args: ["-y", MCP_REMOTE_PACKAGE, url, "--header", `Authorization: Bearer ${token}`],
            },
          },
        },
        null,
        2,
      ),
      // mcp-remote 0.15.1 bundles the v1 SDK, whose latest revision is 2025-11-25.
      revision: "2025-11-25, with a session (mcp-remote 0.15.1)",
    },
    {
      id: "generic",
      label: "MCP Inspector (or any client: Streamable HTTP, this URL and header)",
      where: "run in a terminal; without --cli --method tools/list it opens the Inspector's web UI",
      text: [
        `npx -y ${INSPECTOR_PACKAGE} --cli ${url} --transport http --header "Authorization: Bearer ${token}" --method tools/list`,
        `URL: ${url}`,
        `Header: Authorization: Bearer ${token}`,
      ].join("\n"),
      // The Inspector 0.17.5 runs on the v1 SDK (2025-11-25); its 2.x releases (v2 SDK, 2026-07-28) need Node 22.19+.
      revision: "2025-11-25, with a session (Inspector 0.17.5); SDK v2 clients: 2026-07-28",
    },
  ];
}

/** Human instructions for connecting common MCP clients, as `hackmd-bridge serve` prints them. */
export function connectionHelpText(url: string, token: string): string {
  const lines = [`MCP endpoint: ${url}`, `Bearer token: ${token}`, ""];
  for (const config of clientConfigs(url, token)) {
    lines.push(`${config.label} (${config.where}):`);
    lines.push(...config.text.split("\n").map((line) => `  ${line}`));
  }
  return lines.join("\n");
}

/** A stdio server as MCP clients start it: the program, its arguments and the environment it adds. */
export interface StdioServer {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** A word quoted for a POSIX shell only when it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The stdio configurations for Claude Code, Codex and Cursor: the client starts `server` itself
 * (`hackmd-bridge mcp --root …`), so no endpoint has to run. Printed by the sandbox, whose folder
 * the command finds by itself (no token in `env`); README.md shows them with HACKMD_API_TOKEN.
 */
export function stdioClientConfigs(
  server: StdioServer,
): Array<{ id: "claude-code-stdio" | "codex-stdio" | "cursor-stdio"; label: string; where: string; text: string }> {
  const name = MCP_CLIENT_SERVER_NAME;
  const envFlags = Object.entries(server.env).map(([key, value]) => `--env ${shellWord(`${key}=${value}`)} `);
  const tomlEnv = Object.entries(server.env).map(([key, value]) => `${key} = ${JSON.stringify(value)}`);
  return [
    {
      id: "claude-code-stdio",
      label: "Claude Code over stdio",
      where: "run in a terminal",
      text: `claude mcp add --transport stdio ${envFlags.join("")}${name} -- ${[server.command, ...server.args].map(shellWord).join(" ")}`,
    },
    {
      id: "codex-stdio",
      label: "Codex over stdio",
      where: "add to ~/.codex/config.toml instead of the entry above",
      text: [
        `[mcp_servers.${name}]`,
        `command = ${JSON.stringify(server.command)}`,
        `args = ${JSON.stringify(server.args).replace(/","/g, '", "')}`,
        ...(tomlEnv.length === 0 ? [] : [`env = { ${tomlEnv.join(", ")} }`]),
      ].join("\n"),
    },
    {
      id: "cursor-stdio",
      label: "Cursor over stdio",
      where: "add to ~/.cursor/mcp.json",
      text: JSON.stringify(
        {
          mcpServers: {
            [name]: {
              command: server.command,
              args: server.args,
              ...(tomlEnv.length === 0 ? {} : { env: server.env }),
            },
          },
        },
        null,
        2,
      ),
    },
  ];
}

/** The stdio configurations as text to print, each under its label. */
export function stdioHelpText(server: StdioServer): string {
  const lines: string[] = [];
  for (const config of stdioClientConfigs(server)) {
    lines.push(`${config.label} (${config.where}):`);
    lines.push(...config.text.split("\n").map((line) => `  ${line}`));
  }
  return lines.join("\n");
}
