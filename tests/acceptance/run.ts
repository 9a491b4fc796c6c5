/**
 * Running command lines as a user types them: through bash, in a given folder and environment;
 * long-running ones are started, watched until they print what a user waits for, then stopped
 * with a signal. Also the MCP clients the tests connect with (the SDK's own, over stdio and HTTP)
 * and the built emulator (`dist/cli.js emulator --port 0`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one command line through bash and waits for it to end. */
export function sh(line: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", line], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** A long-running command: its process and what it printed so far. */
export interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Sends SIGINT (Ctrl+C; or the signal given) to its process group and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/**
 * Starts a command line through bash in a process group of its own and resolves once `ready`
 * holds for its stdout; rejects if it ends before. `stop` signals the whole group, as Ctrl+C in a
 * terminal signals the foreground job.
 */
export function start(
  line: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; ready: (stdout: string) => boolean },
): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", line], { cwd: options.cwd, env: options.env, detached: true });
    let stdout = "";
    let stderr = "";
    let ended: number | null | undefined;
    const exited = new Promise<number | null>((resolveExit) =>
      child.once("exit", (code, signal) => {
        ended = code ?? (signal === null ? null : 128);
        resolveExit(ended);
      }),
    );
    const running: Running = {
      child,
      stdout: () => stdout,
      stderr: () => stderr,
      stop: async (signal = "SIGINT") => {
        if (ended === undefined && child.pid !== undefined) process.kill(-child.pid, signal);
        return exited;
      },
    };
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (options.ready(stdout)) resolve(running);
    });
    void exited.then((code) =>
      reject(new Error(`\`${line}\` ended (${String(code)}) before it was ready:\n${stdout}\n${stderr}`)),
    );
  });
}

/** Splits a command line into words exactly as bash does (quotes, escapes, `~` as `home`), without running it. */
export async function words(line: string, home: string): Promise<string[]> {
  const ran = await sh(`eval "set -- $HB_LINE"; printf '%s\\0' "$@"`, {
    cwd: "/",
    env: { PATH: process.env.PATH ?? "", HOME: home, HB_LINE: line },
  });
  if (ran.status !== 0) throw new Error(`cannot split ${line}: ${ran.stderr}`);
  return ran.stdout.split("\0").slice(0, -1);
}

/** The SDK's client over Streamable HTTP, with the headers a snippet names. */
export async function httpClient(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "acceptance", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** The SDK's client over stdio, starting the command as an MCP client app would. */
export async function stdioClient(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command, args, cwd: options.cwd, env: options.env, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "acceptance", version: "1" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** A `Name: value` header as a snippet writes it. */
export function header(text: string): Record<string, string> {
  const colon = text.indexOf(":");
  return { [text.slice(0, colon).trim()]: text.slice(colon + 1).trim() };
}

/** The emulator the command ships (`dist/cli.js emulator --port 0 --seed demo --control`), as HackMD. */
export async function startEmulator(
  checkout: string,
): Promise<{ url: string; token: string; stop: () => Promise<number | null> }> {
  const running = await start(`node ${join(checkout, "dist", "cli.js")} emulator --port 0 --seed demo --control`, {
    cwd: checkout,
    env: { PATH: process.env.PATH ?? "" },
    ready: (stdout) => stdout.includes("\n"),
  });
  const line = JSON.parse(running.stdout().split("\n")[0] ?? "") as { url: string; token: string };
  return { ...line, stop: () => running.stop() };
}

/** A tool call's outcome: its text and whether it failed. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; text: string; structured: unknown }> {
  const result = await client.callTool({ name, arguments: args });
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return {
    isError: result.isError === true,
    text: content.map((part) => part.text ?? "").join("\n"),
    structured: result.structuredContent,
  };
}
