/**
 * `hackmd-bridge sandbox`, what `npm start` runs: without HACKMD_API_TOKEN, the emulator with
 * demo notes, served from `sandbox-vault/`; with it, `serve` against real HackMD. The sandbox
 * keeps its notes, ports and tokens in its folder (./sandbox-state.ts), so a restart keeps every
 * configured client and tracked file working; `--reset` starts over.
 */
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import * as nodePath from "node:path";
import process from "node:process";
import type { Logger } from "../core/ports";
import { startEmulator, EmulatorStateError, type Emulator } from "../emulator";
import { stdioHelpText } from "../mcp/client-configs";
import { PortInUseError } from "../mcp/http/listener";
import { NodeLocalFiles } from "./local-files";
import { makeSettings, type Environment, type NodeSettings } from "./runtime";
import {
  ensureSandboxDir,
  readConnection,
  resetSandbox,
  sandboxFiles,
  SANDBOX_STATE_DIR,
  writeConnection,
  type SandboxConnection,
} from "./sandbox-state";
import { DEFAULT_MCP_PORT, newEndpointToken, runServe, type ServeIo } from "./serve";

/** The sandbox folder when no `--root` is given, relative to the working directory. */
export const SANDBOX_FOLDER = "sandbox-vault";

/** A sandbox that cannot start; the message names the fix. */
export class SandboxStartError extends Error {
  override readonly name = "SandboxStartError";
}

/** What the sandbox needs. */
export interface SandboxOptions {
  settings: NodeSettings;
  env: Environment;
  /** `--port`, when given. */
  port: number | undefined;
  reset: boolean;
  logger: Logger;
  io: ServeIo;
  /** Adds a secret made at run time (tokens) to what every output is scrubbed of. */
  remember: (secret: string) => void;
}

function cryptoRandom(): number {
  return randomBytes(4).readUInt32LE() / 2 ** 32;
}

/** The port of a saved emulator URL, if any. */
function savedPort(apiUrl: string | undefined): number | undefined {
  if (apiUrl === undefined) return undefined;
  try {
    const port = Number(new URL(apiUrl).port);
    return Number.isInteger(port) && port > 0 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** Runs the sandbox until a signal; resolves with the exit code. */
export async function runSandbox(options: SandboxOptions): Promise<number> {
  try {
    return await runSandboxOnce(options);
  } catch (error) {
    if (!(error instanceof PortInUseError)) throw error;
    // Most often another sandbox (a second npm start) holds it; say how to start this one anyway.
    const again =
      options.env.npm_lifecycle_event === "start" ? "npm start -- --port 0" : "hackmd-bridge sandbox --port 0";
    throw new SandboxStartError(
      `${error.message} Is another sandbox (npm start) running? Stop it, or start this one on a free port with ${again} (its URL then changes, so paste the new connection snippets into your agents).`,
    );
  }
}

async function runSandboxOnce(options: SandboxOptions): Promise<number> {
  const { settings, env, io, logger, remember } = options;
  const root = settings.root ?? nodePath.resolve(SANDBOX_FOLDER);
  const shown = nodePath.relative(process.cwd(), root) || ".";
  await mkdir(root, { recursive: true });
  if (options.reset) {
    const files = await NodeLocalFiles.open({
      root,
      ...(settings.configDir === undefined ? {} : { configDir: settings.configDir }),
    });
    await resetSandbox(root, files.root.stateFolder);
    io.err(
      `Started over: new tokens, fresh demo notes, no tracked files in ${shown}/ (its Markdown files are kept).\n`,
    );
  }
  let saved: SandboxConnection | undefined;
  try {
    saved = await readConnection(root);
  } catch (error) {
    throw new SandboxStartError(error instanceof Error ? error.message : String(error));
  }
  const envToken = env.HACKMD_BRIDGE_MCP_TOKEN?.trim() || undefined;
  const mcpToken = envToken ?? saved?.mcp_token ?? newEndpointToken();
  remember(mcpToken);
  const port = options.port ?? saved?.mcp_port ?? DEFAULT_MCP_PORT;
  const tokenNote =
    envToken !== undefined
      ? "(from HACKMD_BRIDGE_MCP_TOKEN)"
      : `(kept in ${shown}/${SANDBOX_STATE_DIR}/connection.json, so it stays the same when you restart; set HACKMD_BRIDGE_MCP_TOKEN to use your own)`;
  const commandHint = [
    `The subcommands work on this folder with no token to copy (they find the sandbox by themselves):`,
    `  node dist/cli.js list --root ${shown}          (or hackmd-bridge … after npm link)`,
    `  node dist/cli.js pull <short_id> notes/first.md --root ${shown} --create-parent-dirs`,
    `  node dist/cli.js status --root ${shown}`,
    `Restart with npm start to keep the notes, the port and the token; npm start -- --reset starts over.`,
  ].join("\n");
  // Over stdio the client starts the command itself; on this folder it finds the sandbox, so no token.
  const stdioHint = `Or let the client start the tools over stdio while the sandbox runs (no token needed):\n${stdioHelpText({ command: process.execPath, args: [nodePath.resolve(process.argv[1] ?? "dist/cli.js"), "mcp", "--root", root], env: {} })}`;

  if (settings.token !== undefined) {
    io.err(
      `Mode: HackMD — HACKMD_API_TOKEN is set; the tools act on your real HackMD account.\nRoot folder: ${root}\n\n`,
    );
    return runServe({
      settings: makeSettings({ ...settings, root }, settings.token),
      port,
      token: mcpToken,
      logger,
      io,
      extra: { mode: "hackmd" },
      tokenNote,
      snippetsOnStdout: true,
      onListening: (listener) =>
        writeConnection(root, {
          ...keptEmulator(saved),
          mcp_port: listener.port,
          ...(envToken === undefined
            ? { mcp_token: mcpToken }
            : saved?.mcp_token === undefined
              ? {}
              : { mcp_token: saved.mcp_token }),
        }),
    });
  }

  const apiToken = saved?.api_token ?? randomBytes(32).toString("base64url");
  remember(apiToken);
  await ensureSandboxDir(root);
  const emulator = await startSandboxEmulator({ root, shown, apiToken, port: savedPort(saved?.api_url) });
  try {
    io.err(`Mode: SANDBOX — no HACKMD_API_TOKEN is set, so the tools run against the built-in HackMD emulator\n`);
    io.err(
      `(${emulator.url}, demo notes, nothing leaves this machine; its notes are kept in ${shown}/${SANDBOX_STATE_DIR}/). Set HACKMD_API_TOKEN to use real HackMD.\n`,
    );
    io.err(`Root folder: ${root}\n\n`);
    // The emulator's own token (made here, kept in the sandbox folder; never a HackMD token), on
    // stdout with the snippets as the endpoint's token is: what the Obsidian plugin's settings
    // need to try the plugin against the sandbox (README, "Try the plugin against the sandbox").
    const pluginHint = `Obsidian plugin (Settings → HackMD Bridge): set API URL to ${emulator.url} and the API token to ${apiToken}`;
    return await runServe({
      settings: makeSettings({ ...settings, root, apiUrl: emulator.url }, apiToken),
      port,
      token: mcpToken,
      logger,
      io,
      extra: { mode: "sandbox" },
      tokenNote,
      snippetsOnStdout: true,
      footer: `${pluginHint}\n\n${stdioHint}\n\n${commandHint}`,
      onListening: (listener) =>
        writeConnection(root, {
          api_url: emulator.url,
          api_token: apiToken,
          mcp_port: listener.port,
          ...(envToken === undefined
            ? { mcp_token: mcpToken }
            : saved?.mcp_token === undefined
              ? {}
              : { mcp_token: saved.mcp_token }),
        }),
    });
  } finally {
    await emulator.close();
  }
}

/** The saved emulator fields, kept as they are while the sandbox runs against real HackMD. */
function keptEmulator(saved: SandboxConnection | undefined): Pick<SandboxConnection, "api_url" | "api_token"> {
  return {
    ...(saved?.api_url === undefined ? {} : { api_url: saved.api_url }),
    ...(saved?.api_token === undefined ? {} : { api_token: saved.api_token }),
  };
}

/** The emulator over the sandbox's state file: on its last port when free, else on a new one. */
async function startSandboxEmulator(options: {
  root: string;
  shown: string;
  apiToken: string;
  port: number | undefined;
}): Promise<Emulator> {
  const stateFile = sandboxFiles(options.root).emulator;
  const start = (port: number): Promise<Emulator> =>
    startEmulator({ port, seed: "demo", token: options.apiToken, random: cryptoRandom, stateFile });
  try {
    try {
      return await start(options.port ?? 0);
    } catch (error) {
      // The subcommands read the URL from connection.json each time, so a new port is harmless.
      if ((error as { code?: string }).code === "EADDRINUSE" && options.port !== undefined) return await start(0);
      throw error;
    }
  } catch (error) {
    if (error instanceof EmulatorStateError) {
      throw new SandboxStartError(
        `The sandbox's notes cannot be loaded: ${error.message}. Start over with npm start -- --reset (your Markdown files in ${options.shown}/ are kept).`,
      );
    }
    throw error;
  }
}
