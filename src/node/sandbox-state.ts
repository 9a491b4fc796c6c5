/**
 * The sandbox's memory, kept in its folder so a restart changes nothing a client or a command
 * relies on: `<root>/.hackmd-bridge/sandbox/connection.json` (the emulator's URL and API token,
 * the MCP endpoint's port and bearer token; mode 0600) and `emulator.json` (the emulator's notes;
 * mode 0600), in a folder of mode 0700. `.hackmd-bridge/` is a protected folder for every tool
 * write (docs/tools.md §12.3), and `sandbox-vault/` is git-ignored.
 *
 * The human subcommands, `doctor`, `mcp` and `serve` read the connection when their root is a
 * sandbox folder and no HACKMD_API_TOKEN or HACKMD_API_URL is set, so they reach the running
 * sandbox's emulator without anyone copying a token.
 */
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import process from "node:process";
import { makeSettings, type Environment, type NodeSettings } from "./runtime";

/** The sandbox's folder inside its root. */
export const SANDBOX_STATE_DIR = ".hackmd-bridge/sandbox";

/** The format of connection.json this code reads and writes. */
const CONNECTION_FORMAT = 1;

/** What connection.json holds. */
export interface SandboxConnection {
  format: number;
  /** The emulator's API URL (`http://127.0.0.1:<port>/v1`) while it runs in sandbox mode. */
  api_url?: string;
  /** The emulator's API token (the sandbox user's). */
  api_token?: string;
  /** The MCP endpoint's port. */
  mcp_port?: number;
  /** The MCP endpoint's bearer token. */
  mcp_token?: string;
}

/** A sandbox folder whose files cannot be used; the message names the file and the fix. */
export class SandboxStateError extends Error {
  override readonly name = "SandboxStateError";
}

/** The files of a sandbox rooted at `root`. */
export function sandboxFiles(root: string): { dir: string; connection: string; emulator: string } {
  const dir = nodePath.join(root, ...SANDBOX_STATE_DIR.split("/"));
  return { dir, connection: nodePath.join(dir, "connection.json"), emulator: nodePath.join(dir, "emulator.json") };
}

/** The saved connection, or undefined when `root` is no sandbox folder. */
export async function readConnection(root: string): Promise<SandboxConnection | undefined> {
  const file = sandboxFiles(root).connection;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new SandboxStateError(
      `${file} cannot be read (${code ?? "error"}); fix its permissions, or start over with npm start -- --reset.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SandboxStateError(`${file} is not valid JSON; start over with npm start -- --reset.`);
  }
  if (!isConnection(value))
    throw new SandboxStateError(
      `${file} is not a sandbox connection file this version reads; start over with npm start -- --reset.`,
    );
  return value;
}

/** Saves the connection (mode 0600, folder 0700), replacing the file atomically. */
export async function writeConnection(root: string, connection: Omit<SandboxConnection, "format">): Promise<void> {
  const files = sandboxFiles(root);
  await mkdir(files.dir, { recursive: true, mode: 0o700 });
  await chmod(files.dir, 0o700);
  const temporary = `${files.connection}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ format: CONNECTION_FORMAT, ...connection }, null, 2)}\n`, {
    mode: 0o600,
  });
  await chmod(temporary, 0o600);
  await rename(temporary, files.connection);
}

/** Creates the sandbox folder (mode 0700) so the emulator can write its state there. */
export async function ensureSandboxDir(root: string): Promise<void> {
  const { dir } = sandboxFiles(root);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

/**
 * Forgets the sandbox: its connection, its emulator's notes and the sync records of the folder
 * (they name notes that will no longer exist). The Markdown files are kept.
 */
export async function resetSandbox(root: string, stateFolder: string): Promise<void> {
  await rm(sandboxFiles(root).dir, { recursive: true, force: true });
  await rm(nodePath.join(root, ...stateFolder.split("/")), { recursive: true, force: true });
}

/** The sandbox a command found for its root, and the settings that reach it. */
export interface FoundSandbox {
  root: string;
  apiUrl: string;
  apiToken: string;
}

/**
 * When the root is a sandbox folder that ran in sandbox mode and neither HACKMD_API_TOKEN nor
 * HACKMD_API_URL is set: settings pointing at its emulator, with its token. Otherwise the
 * settings as they are.
 */
export async function withSandbox(
  settings: NodeSettings,
  env: Environment,
): Promise<{ settings: NodeSettings; sandbox?: FoundSandbox }> {
  if (settings.root === undefined || settings.token !== undefined || (env.HACKMD_API_URL ?? "").trim() !== "")
    return { settings };
  const connection = await readConnection(settings.root);
  if (connection?.api_url === undefined || connection.api_token === undefined) return { settings };
  return {
    settings: makeSettings(
      {
        apiUrl: connection.api_url,
        root: settings.root,
        configDir: settings.configDir,
        protectAgentFiles: settings.protectAgentFiles,
        requireVersion: settings.requireVersion,
        // Every message of a failed connection, from any command or tool, says what it means here.
        unreachableHint: sandboxNotRunning(settings.root, connection.api_url),
      },
      connection.api_token,
    ),
    sandbox: { root: settings.root, apiUrl: connection.api_url, apiToken: connection.api_token },
  };
}

/** What a failed connection to a sandbox's emulator means, and the fix. */
export function sandboxNotRunning(root: string, apiUrl: string): string {
  return `the sandbox in ${root} is not running (nothing answers at ${apiUrl}); start it with \`npm start\` in the HackMD Bridge folder, or \`hackmd-bridge sandbox --root ${root}\`, then run this again.`;
}

function isConnection(value: unknown): value is SandboxConnection {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  if (record.format !== CONNECTION_FORMAT) return false;
  const optionalString = (key: string): boolean =>
    record[key] === undefined || (typeof record[key] === "string" && record[key] !== "");
  const port = record.mcp_port;
  const portOk =
    port === undefined || (typeof port === "number" && Number.isInteger(port) && port > 0 && port <= 65535);
  return optionalString("api_url") && optionalString("api_token") && optionalString("mcp_token") && portOk;
}
