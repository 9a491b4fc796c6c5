#!/usr/bin/env node
// Checks that the connection snippets the sandbox prints work pasted as they are, with the real
// MCP clients that install from npm: the MCP Inspector's CLI (run through a shell, exactly as
// printed) and mcp-remote (Claude Desktop's bridge, started with the printed command and args,
// spoken to over stdio). Then restarts the sandbox and checks that the same URL and token still
// answer and that the subcommands find the sandbox by themselves.
//
// Needs the network to install the two clients through npx (so it is not part of npm test).
// Usage: npm run build && node scripts/check-clients.mjs
import process from "node:process";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";

const cli = new URL("../dist/cli.js", import.meta.url).pathname;
const work = await mkdtemp(join(tmpdir(), "hb-clients-"));
const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? work, npm_config_yes: "true" };
let failures = 0;

function check(ok, what) {
  process.stdout.write(`${ok ? "ok  " : "FAIL"} ${what}\n`);
  if (!ok) failures += 1;
}

/** Starts the sandbox in the work folder; resolves once its snippets are printed. */
function startSandbox(args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "sandbox", ...args], { cwd: work, env });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("Press Ctrl+C")) resolve({ child, stdout, line: JSON.parse(stdout.split("\n")[0]) });
    });
    child.once("exit", (code) => reject(new Error(`sandbox exited (${code}): ${stderr}`)));
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners("exit");
    child.once("exit", resolve);
    child.kill("SIGINT");
  });
}

function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, cwd: work, ...options });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** How many tools the endpoint lists to the SDK's own client: what each real client must see too. */
async function endpointToolCount(line) {
  const client = new Client({ name: "check-clients-direct", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(line.url), {
      requestInit: { headers: { Authorization: `Bearer ${line.token}` } },
    }),
  );
  try {
    return (await client.listTools()).tools.length;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The same URL and header to the SDK's v2 client pinned to 2026-07-28: the revision newer clients speak. */
async function modernToolCount(line) {
  const client = new ModernClient(
    { name: "check-clients-2026", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new ModernHttp(new URL(line.url), { requestInit: { headers: { Authorization: `Bearer ${line.token}` } } }),
  );
  try {
    return { version: client.getNegotiatedProtocolVersion(), tools: (await client.listTools()).tools.length };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The printed Inspector command, run through a shell exactly as printed. */
async function inspector(stdout, expected) {
  const line = stdout.split("\n").find((text) => text.trim().startsWith("npx -y @modelcontextprotocol/inspector@"));
  check(line !== undefined, "the sandbox prints an Inspector command");
  if (line === undefined) return;
  check(!line.includes("<token>"), "the Inspector command carries the real token");
  const result = await run("sh", ["-c", line.trim()]);
  let tools = [];
  try {
    tools = JSON.parse(result.stdout).tools ?? [];
  } catch {
    process.stdout.write(
      `${result.stderr
        .split("\n")
        .filter((text) => !text.includes("EBADENGINE"))
        .join("\n")}\n`,
    );
  }
  check(
    result.status === 0 && tools.length === expected,
    `Inspector CLI on Node ${process.version}: tools/list answers ${tools.length} of the endpoint's ${expected} tools (exit ${result.status})`,
  );
}

/** The printed Claude Desktop configuration: mcp-remote started with its command and args. */
async function mcpRemote(stdout, expected) {
  const start = stdout.indexOf("{\n", stdout.indexOf("Claude Desktop"));
  const end = stdout.indexOf("\nMCP Inspector");
  const text = stdout
    .slice(start, end)
    .split("\n")
    .map((line) => line.replace(/^ {2}/, ""))
    .join("\n");
  const config = JSON.parse(text).mcpServers.hackmd;
  check(
    config.args.some((arg) => /^mcp-remote@\d/.test(arg)),
    `Claude Desktop's mcp-remote is pinned (${config.args.find((arg) => arg.startsWith("mcp-remote"))})`,
  );
  const transport = new StdioClientTransport({ command: config.command, args: config.args, env, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr += chunk));
  const client = new Client({ name: "check-clients", version: "1" });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const me = await client.callTool({ name: "hackmd_get_me", arguments: {} });
    check(
      tools.length === expected && me.structuredContent?.user_path === "sandbox",
      `mcp-remote (Claude Desktop's configuration): tools/list (${tools.length} of ${expected} tools) and hackmd_get_me answer`,
    );
  } catch (error) {
    process.stdout.write(`${stderr}\n`);
    check(false, `mcp-remote: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

try {
  const first = await startSandbox(["--port", "0"]);
  check(first.line.mode === "sandbox", `sandbox started at ${first.line.url}`);
  const expected = await endpointToolCount(first.line);
  // The 14 tools that match hackmd-mcp and the five for versions and comments (README).
  check(expected === 19, `the endpoint lists ${expected} tools to the SDK's client (19 expected)`);
  const modern = await modernToolCount(first.line);
  check(
    modern.version === "2026-07-28" && modern.tools === expected,
    `a 2026-07-28 client (SDK v2) on the same URL and header: ${modern.tools} tools, revision ${modern.version}`,
  );
  await inspector(first.stdout, expected);
  await mcpRemote(first.stdout, expected);
  const listed = await run(process.execPath, [cli, "list", "--root", "sandbox-vault", "--json"]);
  const notes = listed.status === 0 ? JSON.parse(listed.stdout).notes : [];
  check(notes.length > 0, `list on the sandbox folder finds the sandbox by itself (${notes.length} notes)`);
  const pulled = await run(process.execPath, [
    cli,
    "pull",
    notes[0]?.short_id ?? "",
    "first.md",
    "--root",
    "sandbox-vault",
  ]);
  check(
    pulled.status === 0,
    `pull by short id on the sandbox folder (${pulled.stdout.trim() || pulled.stderr.trim()})`,
  );
  await stop(first.child);

  const second = await startSandbox();
  check(
    second.line.url === first.line.url && second.line.token === first.line.token,
    "after a restart: the same URL and the same token",
  );
  await inspector(second.stdout, expected);
  const status = await run(process.execPath, [cli, "status", "first.md", "--root", "sandbox-vault"]);
  check(
    status.status === 0 && status.stdout.startsWith("in_sync"),
    `after a restart the tracked file is in sync (${status.stdout.trim() || status.stderr.trim()})`,
  );
  await stop(second.child);
} finally {
  await rm(work, { recursive: true, force: true });
}
process.stdout.write(failures === 0 ? "All client checks passed.\n" : `${failures} check(s) failed.\n`);
process.exitCode = failures === 0 ? 0 : 1;
