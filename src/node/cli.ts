/**
 * The `hackmd-bridge` standalone command (docs/tools.md §2.5): `mcp` (stdio), `serve` (HTTP),
 * `doctor`, `emulator`, `sandbox` (what `npm start` runs), and the human subcommands (list, pull,
 * status, diff, push, sync, publish, untrack; their bodies live in ./commands). Every subcommand
 * is a CommandSpec: one parser checks it, `--help` and `help <command>` describe it, and usage
 * errors exit 2 with a message naming the fix. The protocol commands keep stdout for protocol
 * messages or the one machine-readable line they promise; the human subcommands print readable
 * text there, or exactly one JSON object with `--json`.
 */
// Node's modules for the code the plugin shares (node-apis.ts), installed before anything runs.
import "./node-apis-install";
import * as nodePath from "node:path";
import process from "node:process";
import { runEmulatorProcess } from "../emulator/process";
import { VERSION } from "../core/version";
import {
  closest,
  commandHelp,
  commandList,
  parseCommandLine,
  usageLine,
  type CommandSpec,
  type ParsedLine,
} from "./commands/args";
import { HUMAN_COMMAND_LIST, HUMAN_COMMANDS, runHumanCommand } from "./commands";
import { describeError, scrubbingIo, UsageError, type CommandIo } from "./commands/output";
import { doctorSpec, emulatorSpec, helpSpec, mcpSpec, sandboxSpec, serveSpec } from "./commands/protocol";
import { runDoctor } from "./doctor";
import { createJsonLogger, parseLogLevel } from "./logger";
import { DEFAULT_CONFIG_DIR } from "./local-files";
import { readSettings, type Environment, type NodeSettings } from "./runtime";
import { runSandbox, SANDBOX_FOLDER } from "./sandbox";
import { withSandbox } from "./sandbox-state";
import { DEFAULT_MCP_PORT, newEndpointToken, runServe, runStdio } from "./serve";
import { commandGate, parsePolicyFlags, type PolicyFlags } from "./tool-policy-flags";

/** The protocol and setup subcommands, in the order help lists them. */
const PROTOCOL_SPECS: readonly CommandSpec[] = [mcpSpec, serveSpec, sandboxSpec, doctorSpec, emulatorSpec];

/** Every subcommand, `help` included: what README's exit-code table lists, row by row. */
export const ALL_SPECS: readonly CommandSpec[] = [...HUMAN_COMMAND_LIST, ...PROTOCOL_SPECS, helpSpec];

const SPECS = new Map(ALL_SPECS.map((spec) => [spec.name, spec]));

/** How `--root` defaults, per kind of subcommand. */
function rootDefault(spec: CommandSpec): string {
  if (spec.name === "sandbox") return `HACKMD_BRIDGE_ROOT, else ./${SANDBOX_FOLDER}`;
  if (HUMAN_COMMANDS.has(spec.name) || spec.name === "doctor") return "HACKMD_BRIDGE_ROOT, else the current folder";
  return "HACKMD_BRIDGE_ROOT; required";
}

/** The top-level help. */
export function mainHelp(): string {
  return `hackmd-bridge ${VERSION} — HackMD tools for local AI agents, and sync for folders of Markdown files

Usage: hackmd-bridge <command> [options]
       hackmd-bridge <command> --help      options and exit codes of one command
       hackmd-bridge help <command>
       hackmd-bridge --version

${commandList([
  {
    title: "Sync a folder of Markdown files with HackMD (readable text; --json prints one JSON object):",
    commands: HUMAN_COMMAND_LIST,
  },
  { title: "Serve the MCP tools to agents, and check the setup:", commands: PROTOCOL_SPECS },
])}

Shared options:
  --root <dir>                    the folder every local file operation is confined to
                                  (default HACKMD_BRIDGE_ROOT; the sync commands and doctor
                                  fall back to the current folder)
  --config-dir <name>             the vault configuration folder (default ${DEFAULT_CONFIG_DIR} when present)
  --protect-agent-files=<bool>    refuse writing agent instruction files (default true)

Environment:
  HACKMD_API_TOKEN         HackMD API token: HackMD → Settings → API (never printed or logged)
  HACKMD_API_URL           API URL (default https://api.hackmd.io/v1; http only to loopback)
  HACKMD_BRIDGE_ROOT       root folder when --root is not given
  HACKMD_BRIDGE_MCP_TOKEN  bearer token for serve and sandbox (kept the same across restarts)
  HACKMD_BRIDGE_LOG_LEVEL  debug | info | warn | error (default info); logs are JSON lines on stderr

In the sandbox folder (npm start) the sync commands need no token: --root sandbox-vault.
Note ids may begin with -: such a word is read as an argument, and -- ends the options
(hackmd-bridge pull -- -PxV… plan.md).
Tool policy of mcp and serve: every tool is allowed unless --read-only, --deny or --ask says
otherwise; --deny, --allow and --ask may be repeated.
Exit codes: 0 done, 1 needs you (a conflict, a refusal naming the flag to add), 2 usage error or
failure; each command's --help lists its own.
`;
}

const processIo: CommandIo & { outIsTty: boolean } = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  errIsTty: process.stderr.isTTY === true,
  errColumns: process.stderr.columns,
  outIsTty: process.stdout.isTTY === true,
};

/** A usage error: the message, the usage line and where to read more, on stderr; exit 2. */
function usageFailure(io: CommandIo, spec: CommandSpec | undefined, message: string): number {
  if (spec === undefined) io.err(`hackmd-bridge: ${message}\nRun hackmd-bridge --help for the commands.\n`);
  else
    io.err(
      `hackmd-bridge ${spec.name}: ${message}\nUsage: ${usageLine(spec)}\nRun hackmd-bridge ${spec.name} --help for its options.\n`,
    );
  return 2;
}

/** The message for a command name that is not one. */
function unknownCommand(name: string): string {
  const guess = closest(name, [...SPECS.keys()]);
  return `unknown command "${name}"${guess === undefined ? "" : `; did you mean "${guess}"?`}`;
}

/** Runs the command line; resolves with the exit code. */
export async function main(
  argv: string[],
  env: Environment = process.env,
  io: CommandIo & { outIsTty: boolean } = processIo,
): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    io.err(`${mainHelp()}\nNo command given.\n`);
    return 2;
  }
  if (command === "--help" || command === "-h") {
    io.out(mainHelp());
    return 0;
  }
  if (command === "--version" || command === "-V" || command === "-v") {
    io.out(`hackmd-bridge ${VERSION}\n`);
    return 0;
  }
  if (command.startsWith("-")) {
    const bare = command.replace(/^-+/, "").split("=")[0] ?? "";
    const guess = bare.length >= 3 ? closest(bare, ["help", "version"]) : undefined;
    if (guess !== undefined) return usageFailure(io, undefined, `unknown option ${command}; did you mean --${guess}?`);
    return usageFailure(
      io,
      undefined,
      `${command} is not a command; options go after the command, e.g. hackmd-bridge status ${command}`,
    );
  }
  const spec = SPECS.get(command);
  if (spec === undefined) return usageFailure(io, undefined, unknownCommand(command));
  let line: ParsedLine;
  try {
    line = parseCommandLine(spec, rest, ALL_SPECS);
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(io, spec, error.message);
    throw error;
  }
  if (line.help) {
    io.out(commandHelp(spec, { rootDefault: rootDefault(spec) }));
    return 0;
  }
  if (spec === helpSpec) {
    const [topic] = line.positionals;
    if (topic === undefined) {
      io.out(mainHelp());
      return 0;
    }
    const about = SPECS.get(topic);
    if (about === undefined) return usageFailure(io, helpSpec, unknownCommand(topic));
    io.out(commandHelp(about, { rootDefault: rootDefault(about) }));
    return 0;
  }
  if (spec === emulatorSpec) return runEmulatorProcess(rest);
  return runChecked(spec, line, env, io);
}

/** The shared options, checked. */
function sharedFlags(line: ParsedLine): {
  root?: string;
  configDir?: string;
  protectAgentFiles?: boolean;
  port?: number;
} {
  const { values } = line;
  const protect = values["protect-agent-files"];
  if (protect !== undefined && protect !== "true" && protect !== "false")
    throw new UsageError("--protect-agent-files takes true or false: --protect-agent-files=false");
  let port: number | undefined;
  if (typeof values.port === "string") {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError("--port takes a whole number from 0 to 65535");
  }
  const root = values.root;
  const configDir = values["config-dir"];
  return {
    ...(typeof root === "string" ? { root: nodePath.resolve(root) } : {}),
    ...(typeof configDir === "string" ? { configDir } : {}),
    ...(protect === undefined ? {} : { protectAgentFiles: protect === "true" }),
    ...(port === undefined ? {} : { port }),
  };
}

/** Runs a parsed command line (every subcommand but help and emulator). */
async function runChecked(
  spec: CommandSpec,
  line: ParsedLine,
  env: Environment,
  io: CommandIo & { outIsTty: boolean },
): Promise<number> {
  const human = HUMAN_COMMANDS.get(spec.name);
  let flags: ReturnType<typeof sharedFlags>;
  let run: ReturnType<NonNullable<typeof human>["parse"]> | undefined;
  let policy: PolicyFlags = { readOnly: false, policies: {} };
  try {
    flags = sharedFlags(line);
    if (spec === mcpSpec || spec === serveSpec) policy = parsePolicyFlags(line.values);
    run = human?.parse({ values: line.values, positionals: line.positionals });
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(io, spec, error.message);
    throw error;
  }
  let settings: NodeSettings = readSettings(env, flags);
  // The sync commands and doctor work on the current folder when no root is named (and find a
  // sandbox there, as with --root).
  if ((human !== undefined || spec === doctorSpec) && settings.root === undefined)
    settings = readSettings(env, { ...flags, root: process.cwd() });
  // Secrets known now, plus those made later (a generated endpoint token, the sandbox's tokens).
  const made: string[] = [];
  const secrets = (): string[] =>
    [settings.token, env.HACKMD_BRIDGE_MCP_TOKEN, ...made].filter((value): value is string => Boolean(value?.trim()));
  const remember = (secret: string): void => void made.push(secret);
  // The human subcommands print for people: only warnings and errors are logged unless asked.
  const level = parseLogLevel(env.HACKMD_BRIDGE_LOG_LEVEL ?? (human ? "warn" : undefined));
  const logger = createJsonLogger({ level, write: io.err, secrets });
  const scrubbed = { ...scrubbingIo({ io, secrets }), outIsTty: io.outIsTty };
  try {
    if (spec === sandboxSpec) {
      // The sandbox prints its own token on stdout (that is the point); the log stream is scrubbed.
      const sandboxIo = { out: io.out, err: scrubbed.err, outIsTty: io.outIsTty };
      return await runSandbox({
        settings,
        env,
        port: flags.port,
        reset: line.values.reset === true,
        logger,
        io: sandboxIo,
        remember,
      });
    }
    // A root that is a sandbox folder reaches that sandbox's emulator, with its token.
    const found = await withSandbox(settings, env);
    settings = found.settings;
    if (found.sandbox !== undefined) remember(found.sandbox.apiToken);
    if (human !== undefined && run !== undefined) {
      return await runHumanCommand({ command: human, run, settings, env, io: scrubbed, logger });
    }
    switch (spec.name) {
      case "doctor": {
        const report = await runDoctor(settings, line.values["probe-api"] === true, { sandbox: found.sandbox });
        scrubbed.out(`${JSON.stringify(report, null, 2)}\n`);
        return report.ok ? 0 : 1;
      }
      case "mcp":
        return await runStdio(settings, logger, commandGate(policy));
      case "serve": {
        const envToken = env.HACKMD_BRIDGE_MCP_TOKEN?.trim() || undefined;
        const token = envToken ?? newEndpointToken();
        remember(token);
        // The token goes to stdout only (the JSON line, and the snippets on a terminal).
        return await runServe({
          settings,
          gate: commandGate(policy),
          port: flags.port ?? DEFAULT_MCP_PORT,
          token,
          logger,
          io: { out: io.out, err: scrubbed.err, outIsTty: io.outIsTty },
          tokenNote:
            envToken === undefined
              ? "(new at every start; set HACKMD_BRIDGE_MCP_TOKEN to keep one token across restarts)"
              : "(from HACKMD_BRIDGE_MCP_TOKEN)",
        });
      }
      default:
        return usageFailure(io, undefined, unknownCommand(spec.name));
    }
  } catch (error) {
    io.err(`hackmd-bridge ${spec.name}: ${describeError(error, secrets())}\n`);
    return 2;
  }
}
