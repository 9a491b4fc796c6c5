/**
 * Benchmark of hostile tool arguments (run with `npm run bench -- hostile`; see bench/README.md).
 *
 * 1. In memory: every tool in the registry, each hostile shape (nesting 50,000 levels deep, a
 *    2 MiB identifier, an array of 200,000 entries, a 100,000-character property name, a wrong
 *    type), N calls each through the SDK's in-memory client; per-call time min/median/max.
 * 2. The built command (dist/cli.js, built by npm run bench): a tools/call whose arguments nest
 *    50,000 levels deep over stdio (`hackmd-bridge mcp`) and over HTTP (`hackmd-bridge serve`),
 *    as raw JSON-RPC text (the SDK's client cannot serialise such a value: JSON.stringify
 *    recurses), each followed by a ping: the refusal's time and the next answer's.
 *
 * Nothing here asserts a timing: the numbers are printed for a human to read. The assertions
 * (every shape is refused with invalid_input, nothing is sent or written, the server answers the
 * next call) are in tests/mcp/hostile-arguments.test.ts.
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { describeTool } from "../src/mcp/define-tool";
import { TOOLS } from "../src/mcp/tools";
import { errorKindOf, startBenchBridge, type BenchBridge } from "./lib/bridge";
import { httpPoster } from "./lib/http-post";
import { loadNow, machineInfo, ms, summarize, table } from "./lib/report";
import { VALID_ARGUMENTS } from "../tests/helpers/tool-arguments";

const USAGE = `usage: npm run bench -- hostile [--calls N] [--depth N] [--cli PATH]
  --calls N    timed calls per tool and shape, and per command path (default 5)
  --depth N    nesting of the deep shape (default 50000)
  --cli PATH   the command to run (default dist/cli.js, built by npm run bench)`;

function options(): { calls: number; depth: number; cli: string } {
  const { values } = parseArgs({
    options: {
      calls: { type: "string", default: "5" },
      depth: { type: "string", default: "50000" },
      cli: { type: "string", default: "dist/cli.js" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const count = (name: string, text: string): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) {
      process.stderr.write(`--${name} must be a positive integer\n${USAGE}\n`);
      process.exit(2);
    }
    return value;
  };
  return { calls: count("calls", values.calls), depth: count("depth", values.depth), cli: values.cli };
}

const BASE = VALID_ARGUMENTS;
const IDENTIFIERS = ["note_ref", "team_path", "note_id", "folder_id", "version_id", "comment_id", "parent_folder_id"];

function deepArray(levels: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < levels; level += 1) value = [value];
  return value;
}

/** The hostile shapes, each as arguments for a tool given its parameter names. */
function shapes(
  depth: number,
  params: string[],
  base: Record<string, unknown>,
): Array<{ shape: string; args: () => Record<string, unknown> }> {
  const first = params[0] ?? "extra";
  const identifier = params.find((param) => IDENTIFIERS.includes(param));
  const out: Array<{ shape: string; args: () => Record<string, unknown> }> = [
    { shape: `nested ${depth} deep`, args: () => ({ ...base, [first]: deepArray(depth) }) },
    { shape: "array of 200,000", args: () => ({ ...base, [first]: new Array<number>(200_000).fill(0) }) },
    { shape: "100,000-char key", args: () => ({ ...base, ["k".repeat(100_000)]: 1 }) },
    { shape: "wrong type", args: () => ({ ...base, [first]: { not: "this" } }) },
  ];
  if (identifier !== undefined)
    out.splice(1, 0, {
      shape: `2 MiB ${identifier}`,
      args: () => ({ ...base, [identifier]: "a".repeat(2 * 1024 * 1024) }),
    });
  return out;
}

async function inMemory(calls: number, depth: number): Promise<void> {
  process.stdout.write(`\n## 1. In memory: every tool, each shape, ${calls} calls (per-call ms)\n\n`);
  const bridge: BenchBridge = await startBenchBridge();
  const rows: string[][] = [];
  try {
    for (const tool of TOOLS) {
      const listed = describeTool(tool);
      const params = Object.keys((listed.inputSchema as { properties?: Record<string, unknown> }).properties ?? {});
      for (const { shape, args } of shapes(depth, params, BASE[listed.name] ?? {})) {
        const samples: number[] = [];
        let kind: string | undefined;
        for (let call = 0; call < calls; call += 1) {
          const value = args(); // built outside the timed span
          bridge.mark();
          const started = performance.now();
          const result = await bridge.call(listed.name, value);
          samples.push(performance.now() - started);
          kind = errorKindOf(result);
          if (bridge.requestsSinceMark().length > 0) kind = `${kind ?? "ok"} (sent requests!)`;
        }
        const summary = summarize(samples);
        rows.push([listed.name, shape, kind ?? "ok", ms(summary.min), ms(summary.p50), ms(summary.max)]);
      }
    }
  } finally {
    await bridge.close();
  }
  process.stdout.write(`${table(["tool", "shape", "answer", "min", "median", "max"], rows, [3, 4, 5])}\n`);
}

/** Raw newline-delimited JSON-RPC with a child `hackmd-bridge mcp`: answers by id. */
class RawStdio {
  private pending = "";
  private waiting = new Map<string | number, (answer: Record<string, unknown>) => void>();

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on("data", (chunk: Buffer) => {
      this.pending += chunk.toString("utf8");
      for (let newline = this.pending.indexOf("\n"); newline >= 0; newline = this.pending.indexOf("\n")) {
        const answer = JSON.parse(this.pending.slice(0, newline)) as Record<string, unknown>;
        this.pending = this.pending.slice(newline + 1);
        this.waiting.get(answer.id as string | number)?.(answer);
      }
    });
  }

  request(id: string | number, text: string): Promise<Record<string, unknown>> {
    const answered = new Promise<Record<string, unknown>>((resolve) => this.waiting.set(id, resolve));
    this.child.stdin.write(`${text}\n`);
    return answered;
  }

  notify(text: string): void {
    this.child.stdin.write(`${text}\n`);
  }
}

const INITIALIZE = (id: number): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  });
const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });

function deepCall(id: number, depth: number): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"hackmd_list_notes","arguments":{"query":"x","tags":${"[".repeat(depth)}${"]".repeat(depth)}}}}`;
}

function kindOf(answer: Record<string, unknown>): string {
  const result = answer.result as { isError?: boolean; _meta?: { error_kind?: string } } | undefined;
  if (result === undefined) return `JSON-RPC error ${String((answer.error as { code?: number } | undefined)?.code)}`;
  return result.isError ? (result._meta?.error_kind ?? "error") : "ok";
}

async function command(cli: string, calls: number, depth: number): Promise<void> {
  process.stdout.write(
    `\n## 2. The built command (${cli}): a tools/call nested ${depth} deep, then a ping, ${calls} times (ms)\n\n`,
  );
  const { startEmulator } = await import("../src/emulator");
  const emu = await startEmulator({ port: 0, seed: "demo" });
  const root = await mkdtemp(join(tmpdir(), "hb-bench-hostile-"));
  const env = { PATH: process.env.PATH ?? "", HOME: root, HACKMD_API_URL: emu.url, HACKMD_API_TOKEN: emu.token };
  const rows: string[][] = [];
  const children: ChildProcessWithoutNullStreams[] = [];
  const http = httpPoster();
  try {
    // stdio
    const mcp = spawn(process.execPath, [cli, "mcp", "--root", root], { env });
    children.push(mcp);
    const stdio = new RawStdio(mcp);
    await stdio.request(0, INITIALIZE(0));
    stdio.notify(INITIALIZED);
    const stdioDeep: number[] = [];
    const stdioNext: number[] = [];
    let stdioKind = "";
    for (let call = 1; call <= calls; call += 1) {
      const text = deepCall(call * 2, depth);
      let started = performance.now();
      stdioKind = kindOf(await stdio.request(call * 2, text));
      stdioDeep.push(performance.now() - started);
      started = performance.now();
      await stdio.request(call * 2 + 1, JSON.stringify({ jsonrpc: "2.0", id: call * 2 + 1, method: "ping" }));
      stdioNext.push(performance.now() - started);
    }
    rows.push(
      ["stdio (mcp)", `nested ${depth} deep`, stdioKind, ...stats(stdioDeep)],
      ["stdio (mcp)", "next call (ping)", "ok", ...stats(stdioNext)],
    );

    // HTTP
    const serve = spawn(process.execPath, [cli, "serve", "--root", root, "--port", "0"], { env });
    children.push(serve);
    const line = await new Promise<string>((resolve, reject) => {
      let stdout = "";
      serve.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
        if (stdout.includes("\n")) resolve(stdout.split("\n")[0] ?? "");
      });
      serve.once("exit", () => reject(new Error("serve exited early")));
    });
    const { url, token } = JSON.parse(line) as { url: string; token: string };
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const post = async (body: string): Promise<Record<string, unknown>> => {
      const { headers: answered, text } = await http.post(url, headers, body);
      const session = answered["mcp-session-id"];
      if (typeof session === "string") headers["mcp-session-id"] = session;
      // An SSE answer: the JSON is on the `data:` line.
      const data = text.split("\n").find((entry) => entry.startsWith("data: "));
      return JSON.parse(data === undefined ? text : data.slice(6)) as Record<string, unknown>;
    };
    await post(INITIALIZE(0));
    headers["mcp-protocol-version"] = "2025-06-18";
    await http.post(url, headers, INITIALIZED);
    const httpDeep: number[] = [];
    const httpNext: number[] = [];
    let httpKind = "";
    for (let call = 1; call <= calls; call += 1) {
      const text = deepCall(call * 2, depth);
      let started = performance.now();
      httpKind = kindOf(await post(text));
      httpDeep.push(performance.now() - started);
      started = performance.now();
      await post(JSON.stringify({ jsonrpc: "2.0", id: call * 2 + 1, method: "ping" }));
      httpNext.push(performance.now() - started);
    }
    rows.push(
      ["HTTP (serve)", `nested ${depth} deep`, httpKind, ...stats(httpDeep)],
      ["HTTP (serve)", "next call (ping)", "ok", ...stats(httpNext)],
    );
  } finally {
    http.close();
    for (const child of children) {
      const exited = new Promise<void>((resolve) =>
        child.exitCode === null ? child.once("exit", () => resolve()) : resolve(),
      );
      child.stdin.end();
      child.kill("SIGTERM");
      await exited;
    }
    await emu.close();
    await rm(root, { recursive: true, force: true });
  }
  process.stdout.write(`${table(["path", "call", "answer", "min", "median", "max"], rows, [3, 4, 5])}\n`);
}

function stats(samples: readonly number[]): string[] {
  const summary = summarize(samples);
  return [ms(summary.min), ms(summary.p50), ms(summary.max)];
}

async function main(): Promise<void> {
  const { calls, depth, cli } = options();
  process.stdout.write(`${machineInfo()}\n`);
  await inMemory(calls, depth);
  await command(cli, calls, depth);
  process.stdout.write(`\nload at end: ${loadNow()}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
