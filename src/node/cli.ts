/**
 * The `hackmd-bridge` standalone command (TOOLS.md §2.5): `mcp` (stdio), `serve` (HTTP),
 * `doctor`, `emulator`, and `sandbox` (what `npm start` runs). stdout carries only protocol
 * messages or the one machine-readable line a command promises; everything else goes to stderr.
 */
import { mkdir } from "node:fs/promises";
import * as nodePath from "node:path";
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { isBridgeError } from "../core/errors";
import { startEmulator } from "../emulator";
import { runEmulatorProcess } from "../emulator/process";
import { PortInUseError } from "../mcp/http/listener";
import { createMcpServer } from "../mcp/server";
import { runDoctor } from "./doctor";
import { createJsonLogger, parseLogLevel } from "./logger";
import { createNodeCore, readSettings, type NodeSettings } from "./runtime";
import { connectionHelp, DEFAULT_MCP_PORT, newEndpointToken, serveCore, untilSignal } from "./serve";
import { VERSION } from "./version";

const HELP = `hackmd-bridge ${VERSION} — HackMD tools for local AI agents, and sync for Markdown folders

Usage:
  hackmd-bridge mcp     --root <dir> [options]        MCP over stdio
  hackmd-bridge serve   --root <dir> [--port N] [options]   MCP over Streamable HTTP on 127.0.0.1
  hackmd-bridge doctor  [--root <dir>] [--probe-api] [options]   print one JSON health report
  hackmd-bridge emulator [--port N] [--seed empty|demo] [--control]   a local HackMD API
  hackmd-bridge sandbox [--port N]                    what npm start runs: emulator + serve
  hackmd-bridge --help | --version

Options:
  --root <dir>                    the folder every local file operation is confined to
                                  (default: HACKMD_BRIDGE_ROOT)
  --config-dir <name>             the vault configuration folder (default .obsidian when present)
  --protect-agent-files=<bool>    refuse writing agent instruction files (default true)
  --port <N>                      serve/sandbox port (default ${DEFAULT_MCP_PORT}; 0 picks a free one)

Environment:
  HACKMD_API_TOKEN         HackMD API token (never printed or logged)
  HACKMD_API_URL           API URL (default https://api.hackmd.io/v1; http only to loopback)
  HACKMD_BRIDGE_ROOT       root folder when --root is not given
  HACKMD_BRIDGE_MCP_TOKEN  bearer token for serve (generated when unset)
  HACKMD_BRIDGE_LOG_LEVEL  debug | info | warn | error (default info); logs are JSON lines on stderr
`;

type Io = { out: (text: string) => void; err: (text: string) => void };

const io: Io = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/** Runs the command line; resolves with the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    io.out(HELP);
    return command === undefined ? 2 : 0;
  }
  if (command === "--version" || command === "-v") {
    io.out(`hackmd-bridge ${VERSION}\n`);
    return 0;
  }
  if (command === "emulator") return runEmulatorProcess(rest);
  let parsed: ReturnType<typeof parseCommon>;
  try {
    parsed = parseCommon(command, rest);
  } catch (error) {
    io.err(`hackmd-bridge: ${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
  const settings = readSettings(env, parsed);
  const secrets = (): string[] => [settings.token, env.HACKMD_BRIDGE_MCP_TOKEN].filter((value): value is string => Boolean(value?.trim()));
  const logger = createJsonLogger({ level: parseLogLevel(env.HACKMD_BRIDGE_LOG_LEVEL), write: io.err, secrets });
  try {
    switch (command) {
      case "doctor": {
        const report = await runDoctor(settings, parsed.probeApi);
        io.out(`${JSON.stringify(report, null, 2)}\n`);
        return report.ok ? 0 : 1;
      }
      case "mcp":
        return await runStdio(settings, logger);
      case "serve":
        return await runServe(settings, parsed.port ?? DEFAULT_MCP_PORT, env, logger);
      case "sandbox":
        return await runSandbox(settings, parsed.port ?? DEFAULT_MCP_PORT, env, logger);
      default:
        io.err(`hackmd-bridge: unknown command "${command}"\n\n${HELP}`);
        return 2;
    }
  } catch (error) {
    io.err(`hackmd-bridge: ${describe(error, secrets())}\n`);
    return 1;
  }
}

function parseCommon(command: string, args: string[]) {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      root: { type: "string" },
      "config-dir": { type: "string" },
      "protect-agent-files": { type: "string" },
      port: { type: "string" },
      "probe-api": { type: "boolean" },
    },
  });
  if (values["probe-api"] && command !== "doctor") throw new Error("--probe-api goes with doctor only");
  if (values.port !== undefined && command !== "serve" && command !== "sandbox") throw new Error("--port goes with serve or sandbox");
  const protect = values["protect-agent-files"];
  if (protect !== undefined && protect !== "true" && protect !== "false") throw new Error("--protect-agent-files takes true or false");
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error("--port takes a whole number from 0 to 65535");
  }
  return {
    root: values.root === undefined ? undefined : nodePath.resolve(values.root),
    configDir: values["config-dir"],
    protectAgentFiles: protect === undefined ? undefined : protect === "true",
    port,
    probeApi: values["probe-api"] === true,
  };
}

async function runStdio(settings: NodeSettings, logger: ReturnType<typeof createJsonLogger>): Promise<number> {
  const core = await createNodeCore(settings, logger);
  const server = createMcpServer(core.mcpHost({ name: "hackmd-bridge", version: VERSION, currentToken: () => settings.token }));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  logger.info("mcp_stdio_ready", { version: VERSION });
  await Promise.race([closed, untilSignal(), new Promise<void>((resolve) => process.stdin.once("end", () => resolve()))]);
  await server.close();
  return 0;
}

async function runServe(settings: NodeSettings, port: number, env: NodeJS.ProcessEnv, logger: ReturnType<typeof createJsonLogger>): Promise<number> {
  const core = await createNodeCore(settings, logger);
  const token = env.HACKMD_BRIDGE_MCP_TOKEN?.trim() || newEndpointToken();
  const listener = await serveCore({ core, port, token, apiToken: () => settings.token, logger });
  io.out(`${JSON.stringify({ url: listener.url, token })}\n`);
  io.err(`${connectionHelp(listener.url, token)}\n`);
  await untilSignal();
  await listener.close();
  return 0;
}

async function runSandbox(settings: NodeSettings, port: number, env: NodeJS.ProcessEnv, logger: ReturnType<typeof createJsonLogger>): Promise<number> {
  const root = settings.root ?? nodePath.resolve("sandbox-vault");
  await mkdir(root, { recursive: true });
  let sandbox: NodeSettings = { ...settings, root };
  let emulator: Awaited<ReturnType<typeof startEmulator>> | undefined;
  if (settings.token === undefined) {
    emulator = await startEmulator({ port: 0, seed: "demo" });
    sandbox = { ...sandbox, token: emulator.token, apiUrl: emulator.url };
    io.err(`Mode: SANDBOX — no HACKMD_API_TOKEN is set, so the tools run against the built-in HackMD emulator\n`);
    io.err(`(${emulator.url}, demo notes, nothing leaves this machine). Set HACKMD_API_TOKEN to use real HackMD.\n`);
  } else {
    io.err(`Mode: HackMD — HACKMD_API_TOKEN is set; the tools act on your real HackMD account.\n`);
  }
  io.err(`Root folder: ${root}\n\n`);
  const core = await createNodeCore(sandbox, logger);
  const token = env.HACKMD_BRIDGE_MCP_TOKEN?.trim() || newEndpointToken();
  let listener;
  try {
    listener = await serveCore({ core, port, token, apiToken: () => sandbox.token, logger });
  } catch (error) {
    await emulator?.close();
    throw error;
  }
  io.out(`${JSON.stringify({ url: listener.url, token, mode: emulator ? "sandbox" : "hackmd" })}\n`);
  io.err(`${connectionHelp(listener.url, token)}\n`);
  await untilSignal();
  await listener.close();
  await emulator?.close();
  return 0;
}

function describe(error: unknown, secrets: string[]): string {
  let message: string;
  if (error instanceof PortInUseError) message = `${error.message} Use --port to pick another (0 lets the system choose).`;
  else if (isBridgeError(error)) message = error.message;
  else message = error instanceof Error ? error.message : String(error);
  for (const secret of secrets) message = message.split(secret).join("[REDACTED]");
  return message;
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
