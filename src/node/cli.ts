/**
 * The `hackmd-bridge` standalone command (TOOLS.md §2.5): `mcp` (stdio), `serve` (HTTP),
 * `doctor`, `emulator`, `sandbox` (what `npm start` runs), and the human subcommands `pull`,
 * `push`, `status` and `sync` (their bodies live in ./commands). The protocol commands keep stdout
 * for protocol messages or the one machine-readable line they promise; the human subcommands
 * print readable text there, or exactly one JSON object with `--json`.
 */
import { mkdir } from "node:fs/promises";
import * as nodePath from "node:path";
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { startEmulator } from "../emulator";
import { runEmulatorProcess } from "../emulator/process";
import { createMcpServer } from "../mcp/server";
import type { CommandRun, OptionSpec, ParsedValues } from "./commands/command";
import { HUMAN_COMMANDS, runHumanCommand } from "./commands";
import { describeError, scrubbingIo, type CommandIo } from "./commands/output";
import { runDoctor } from "./doctor";
import { createJsonLogger, parseLogLevel } from "./logger";
import { createNodeCore, makeSettings, readSettings, type NodeSettings } from "./runtime";
import { connectionHelp, DEFAULT_MCP_PORT, newEndpointToken, serveCore, untilSignal } from "./serve";
import { VERSION } from "../core/version";

const HELP = `hackmd-bridge ${VERSION} — HackMD tools for local AI agents, and sync for Markdown folders

Usage:
  hackmd-bridge mcp     --root <dir> [options]        MCP over stdio
  hackmd-bridge serve   --root <dir> [--port N] [options]   MCP over Streamable HTTP on 127.0.0.1
  hackmd-bridge doctor  [--root <dir>] [--probe-api] [options]   print one JSON health report
  hackmd-bridge emulator [--port N] [--seed empty|demo] [--control]   a local HackMD API
  hackmd-bridge sandbox [--port N]                    what npm start runs: emulator + serve
  hackmd-bridge --help | --version

Sync a folder of Markdown files with HackMD (readable output; --json prints one JSON object):
  hackmd-bridge pull <note_ref> <path> [--team <team_path>] [--overwrite]
                     [--discard-local-changes] [--create-parent-dirs] [--confirm-large-file]
                                  write a note into a .md file and track it
  hackmd-bridge push <path> [--expected-remote-hash <hash>] [--overwrite --confirm]
                     [--confirm-large-file]
                                  send a tracked file's edits; a conflict writes <name>.remote.md
  hackmd-bridge status [<path>]   in_sync, local_changed, remote_changed or conflict per tracked note
  hackmd-bridge sync [--dry-run]  pull remote changes and push local ones for every tracked note
  Each takes --root <dir> and --json. Exit codes: 0 done (all in sync), 1 conflict, refusal or
  notes needing attention (the message names the flag to add), 2 usage error or failure.

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

const io: CommandIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  errIsTty: process.stderr.isTTY === true,
  errColumns: process.stderr.columns,
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
  const human = HUMAN_COMMANDS.get(command);
  let parsed: ReturnType<typeof parseCommon>;
  let run: CommandRun | undefined;
  try {
    parsed = parseCommon(command, rest, human?.options);
    run = human?.parse({ values: parsed.values, positionals: parsed.positionals });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.err(human ? `hackmd-bridge ${command}: ${message}\nUsage: ${human.usage}\n` : `hackmd-bridge: ${message}\n\n${HELP}`);
    return 2;
  }
  const settings = readSettings(env, parsed);
  // Secrets known now, plus those made later (a generated endpoint token, the sandbox's token).
  const made: string[] = [];
  const secrets = (): string[] => [settings.token, env.HACKMD_BRIDGE_MCP_TOKEN, ...made].filter((value): value is string => Boolean(value?.trim()));
  const remember = (secret: string): void => void made.push(secret);
  // The human subcommands print for people: only warnings and errors are logged unless asked.
  const level = parseLogLevel(env.HACKMD_BRIDGE_LOG_LEVEL ?? (human ? "warn" : undefined));
  const logger = createJsonLogger({ level, write: io.err, secrets });
  if (human && run) return runHumanCommand({ command: human, run, settings, env, io: scrubbingIo({ io, secrets }), logger });
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
        return await runServe(settings, parsed.port ?? DEFAULT_MCP_PORT, env, logger, remember);
      case "sandbox":
        return await runSandbox(settings, parsed.port ?? DEFAULT_MCP_PORT, env, logger, remember);
      default:
        io.err(`hackmd-bridge: unknown command "${command}"\n\n${HELP}`);
        return 2;
    }
  } catch (error) {
    io.err(`hackmd-bridge: ${describeError(error, secrets())}\n`);
    return 1;
  }
}

/** Parses the shared options, plus a human subcommand's own options and positionals when given. */
function parseCommon(command: string, args: string[], extra?: OptionSpec) {
  const parsed = parseArgs({
    args,
    strict: true,
    allowPositionals: extra !== undefined,
    options: {
      root: { type: "string" },
      "config-dir": { type: "string" },
      "protect-agent-files": { type: "string" },
      ...(extra === undefined ? { port: { type: "string" }, "probe-api": { type: "boolean" } } : extra),
    },
  });
  const values: ParsedValues = parsed.values;
  if (values["probe-api"] === true && command !== "doctor") throw new Error("--probe-api goes with doctor only");
  if (values.port !== undefined && command !== "serve" && command !== "sandbox") throw new Error("--port goes with serve or sandbox");
  const protect = values["protect-agent-files"];
  if (protect !== undefined && protect !== "true" && protect !== "false") throw new Error("--protect-agent-files takes true or false");
  let port: number | undefined;
  if (typeof values.port === "string") {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error("--port takes a whole number from 0 to 65535");
  }
  const root = values.root;
  const configDir = values["config-dir"];
  return {
    root: typeof root === "string" ? nodePath.resolve(root) : undefined,
    configDir: typeof configDir === "string" ? configDir : undefined,
    protectAgentFiles: protect === undefined ? undefined : protect === "true",
    port,
    probeApi: values["probe-api"] === true,
    values,
    positionals: parsed.positionals,
  };
}

async function runStdio(settings: NodeSettings, logger: ReturnType<typeof createJsonLogger>): Promise<number> {
  const core = await createNodeCore(settings, logger);
  const server = createMcpServer(core.mcpHost({ name: "hackmd-bridge", version: VERSION, secrets: () => [settings.token] }));
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

/** Serves the tools over loopback HTTP until a signal; `sandbox` reuses it with its own mode. */
async function runServe(
  settings: NodeSettings,
  port: number,
  env: NodeJS.ProcessEnv,
  logger: ReturnType<typeof createJsonLogger>,
  remember: (secret: string) => void,
  sandbox?: { mode: "sandbox" | "hackmd"; close: () => Promise<void> },
): Promise<number> {
  try {
    const core = await createNodeCore(settings, logger);
    const token = env.HACKMD_BRIDGE_MCP_TOKEN?.trim() || newEndpointToken();
    remember(token);
    const listener = await serveCore({ core, port, token, apiToken: () => settings.token, logger });
    io.out(`${JSON.stringify({ url: listener.url, token, ...(sandbox ? { mode: sandbox.mode } : {}) })}\n`);
    io.err(`${connectionHelp(listener.url)}\n`);
    await untilSignal();
    await listener.close();
    return 0;
  } finally {
    await sandbox?.close();
  }
}

/** `npm start`: the emulator with demo notes when no token is set, served from `sandbox-vault/`. */
async function runSandbox(
  settings: NodeSettings,
  port: number,
  env: NodeJS.ProcessEnv,
  logger: ReturnType<typeof createJsonLogger>,
  remember: (secret: string) => void,
): Promise<number> {
  const root = settings.root ?? nodePath.resolve("sandbox-vault");
  await mkdir(root, { recursive: true });
  if (settings.token !== undefined) {
    io.err(`Mode: HackMD — HACKMD_API_TOKEN is set; the tools act on your real HackMD account.\nRoot folder: ${root}\n\n`);
    return runServe(makeSettings({ ...settings, root }, settings.token), port, env, logger, remember, { mode: "hackmd", close: () => Promise.resolve() });
  }
  const emulator = await startEmulator({ port: 0, seed: "demo" });
  remember(emulator.token);
  io.err(`Mode: SANDBOX — no HACKMD_API_TOKEN is set, so the tools run against the built-in HackMD emulator\n`);
  io.err(`(${emulator.url}, demo notes, nothing leaves this machine). Set HACKMD_API_TOKEN to use real HackMD.\n`);
  io.err(`Root folder: ${root}\n\n`);
  const sandbox = makeSettings({ ...settings, root, apiUrl: emulator.url }, emulator.token);
  return runServe(sandbox, port, env, logger, remember, { mode: "sandbox", close: () => emulator.close() });
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
