/** The specs of the subcommands that serve or inspect rather than sync: mcp, serve, doctor, emulator, sandbox, help. */
import { POLICY_OPTIONS } from "../tool-policy-flags";
import type { CommandSpec } from "./args";

const PORT = {
  type: "string",
  value: "<N>",
  help: "the port on 127.0.0.1 (0 lets the system pick a free one)",
} as const;

/** `hackmd-bridge mcp`. */
export const mcpSpec: CommandSpec = {
  name: "mcp",
  summary: "serve the MCP tools over stdio (for clients that start the server themselves)",
  synopsis: "--root <dir> [options]",
  description: [
    "stdout carries only MCP JSON-RPC messages; logs are JSON lines on stderr. Every tool, those",
    "that write included, is allowed unless --read-only, --deny or --ask says otherwise (--deny,",
    "--allow and --ask take comma-separated tool names and may be repeated); a refused tool",
    "answers with the error kind tool_denied.",
  ].join("\n"),
  positionals: { required: [] },
  options: { ...POLICY_OPTIONS },
  shared: ["root"],
  exitCodes: {
    0: "the client closed the connection, or Ctrl+C",
    2: "usage error, or it could not start (no root folder, an unusable HACKMD_API_URL)",
  },
  examples: ["HACKMD_API_TOKEN=… hackmd-bridge mcp --root ~/notes"],
};

/** `hackmd-bridge serve`. */
export const serveSpec: CommandSpec = {
  name: "serve",
  summary: "serve the MCP tools over Streamable HTTP on 127.0.0.1",
  synopsis: "--root <dir> [--port N] [options]",
  description: [
    'Prints one JSON line {"url", "token"} on stdout, then how to connect clients. The bearer',
    "token is HACKMD_BRIDGE_MCP_TOKEN when set (set it to keep clients connected across",
    "restarts), else a new random one. Every tool, those that write included, is allowed unless",
    "--read-only, --deny or --ask says otherwise (--deny, --allow and --ask take comma-separated",
    "tool names and may be repeated); a refused tool answers with the error kind tool_denied.",
  ].join("\n"),
  positionals: { required: [] },
  options: {
    port: { ...PORT, help: "the port on 127.0.0.1 (default 27183; 0 lets the system pick a free one)" },
    ...POLICY_OPTIONS,
  },
  shared: ["root"],
  exitCodes: {
    0: "stopped with Ctrl+C or SIGTERM",
    2: "usage error, or it could not start (no root folder, port in use, an unusable HACKMD_API_URL)",
  },
  examples: [
    "HACKMD_API_TOKEN=… hackmd-bridge serve --root ~/notes --port 27183",
    "hackmd-bridge serve --root ~/notes --read-only",
    "hackmd-bridge serve --root ~/notes --deny hackmd_delete_note,hackmd_delete_folder",
  ],
};

/** `hackmd-bridge doctor`. */
export const doctorSpec: CommandSpec = {
  name: "doctor",
  summary: "check the setup and print one JSON health report",
  synopsis: "[--root <dir>] [--probe-api] [options]",
  description: [
    "Checks the token, HACKMD_API_URL, the root folder and the sync state location; with",
    "--probe-api also makes one read-only request (GET /me) to find an unreachable or wrong host",
    "or a rejected token. Each problem names its fix.",
  ].join("\n"),
  positionals: { required: [] },
  options: { "probe-api": { type: "boolean", help: "also make one read-only request to the API (GET /me)" } },
  shared: ["root"],
  exitCodes: {
    0: "every check passed (ok: true)",
    1: "a problem would stop the tools from working (ok: false; problems says what to fix)",
    2: "usage error",
  },
  examples: ["hackmd-bridge doctor --root ~/notes --probe-api"],
};

/** `hackmd-bridge emulator`. */
export const emulatorSpec: CommandSpec = {
  name: "emulator",
  summary: "run a local HackMD API (the emulator) until stopped",
  synopsis: "[--port N] [--seed empty|demo] [--control] [--state <file>]",
  description: 'Prints one JSON line {"url", "token"} on stdout when ready.',
  positionals: { required: [] },
  options: {
    port: PORT,
    seed: { type: "string", value: "<empty|demo>", help: "the data it starts with (default empty)" },
    control: { type: "boolean", help: "serve the control routes under /__emulator/" },
    state: { type: "string", value: "<file>", help: "keep the data in this file across restarts" },
  },
  shared: [],
  exitCodes: {
    0: "stopped with Ctrl+C or SIGTERM",
    2: "usage error, or it could not start (port in use, an unusable state file)",
  },
};

/** `hackmd-bridge sandbox` (what `npm start` runs). */
export const sandboxSpec: CommandSpec = {
  name: "sandbox",
  summary: "what npm start runs: the emulator with demo notes plus serve, kept across restarts",
  synopsis: "[--port N] [--reset] [options]",
  description: [
    "Without HACKMD_API_TOKEN: the built-in HackMD emulator with demo notes, nothing leaves this",
    "machine. With it: serve against real HackMD. Either way the root is sandbox-vault/ unless",
    "--root says otherwise, and its .hackmd-bridge/sandbox/ keeps the notes, the port and both",
    "tokens, so a restart keeps connected clients and tracked files working. The subcommands find",
    "the sandbox by themselves when run on its folder (--root sandbox-vault).",
  ].join("\n"),
  positionals: { required: [] },
  options: {
    port: { ...PORT, help: "the MCP endpoint's port (default: the last one used, else 27183)" },
    reset: {
      type: "boolean",
      help: "start over: new tokens, fresh demo notes, no tracked files (the Markdown files are kept)",
    },
  },
  shared: ["root"],
  exitCodes: {
    0: "stopped with Ctrl+C or SIGTERM",
    2: "usage error, or it could not start (port in use, a sandbox file it cannot use)",
  },
  examples: ["npm start", "npm start -- --reset", "hackmd-bridge sandbox --port 0"],
};

/** `hackmd-bridge help`. */
export const helpSpec: CommandSpec = {
  name: "help",
  summary: "describe the commands, or one command",
  synopsis: "[<command>]",
  positionals: { required: [], optional: ["command"] },
  options: {},
  shared: [],
  exitCodes: { 0: "help printed", 2: "no such command" },
};
