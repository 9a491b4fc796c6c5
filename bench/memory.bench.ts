/**
 * Memory of `hackmd-bridge serve` across MCP session open/close cycles (flat memory;
 * run with `npm run bench -- memory`; see bench/README.md).
 *
 * The real `serve` runs as a child process of dist/cli.js (so its RSS is measured alone) against
 * the HackMD emulator on loopback. Each cycle opens an MCP session with the SDK's Streamable HTTP
 * client, lists the tools, makes a few tool calls and closes the session (DELETE through
 * `terminateSession`, then `close`). At the checkpoints the bench reads the child's VmRSS from
 * /proc/<pid>/status and, through a bench-only preload (`-r probe.cjs`, with `--expose-gc`, over
 * the IPC channel), its heap used after a full GC. Nothing in the product knows about the probe.
 *
 * `--no-delete` drops the session without DELETE (a client that disappears), which only the
 * listener's idle expiry can reclaim; `--snapshot DIR` writes a heap snapshot of the child at
 * every checkpoint (compare them in Chrome DevTools, or with `--heap-diff A,B`: node counts by
 * constructor name, read from the snapshots' JSON).
 *
 * Nothing here asserts a number: the figures are printed for a human to read.
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DEMO_NOTE_IDS, startEmulator } from "../src/emulator";
import { heapDiff } from "./lib/heap-diff";
import { loadNow, machineInfo, ratio, table } from "./lib/report";

const USAGE = `usage: npm run bench -- memory [--cycles N] [--calls N] [--checkpoints 50,200,500,1000] [--parallel N] [--no-delete] [--snapshot DIR] [--cli PATH]
       npm run bench -- memory --heap-diff A.heapsnapshot,B.heapsnapshot [--top N]
  --cycles N          session open/close cycles (default 1000)
  --calls N           tool calls per session (default 3: get_me, list_notes, get_note)
  --checkpoints LIST  cycles after which memory is read (default 50,200,500,1000, capped at --cycles)
  --parallel N        sessions open at once: N clients cycling side by side (default 1)
  --no-delete         close the client without DELETE (a client that goes away; the server
                      only learns by idle expiry or eviction at its 32-session cap)
  --snapshot DIR      write a heap snapshot of the child at each checkpoint into DIR
  --cli PATH          the command to run (default dist/cli.js, built by npm run bench)
  --heap-diff A,B     only compare two snapshots: what grew from A to B (--top N rows, default 25)`;

interface Options {
  cycles: number;
  calls: number;
  checkpoints: number[];
  deleteSessions: boolean;
  parallel: number;
  snapshotDir: string | undefined;
  cli: string;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      cycles: { type: "string", default: "1000" },
      calls: { type: "string", default: "3" },
      checkpoints: { type: "string", default: "50,200,500,1000" },
      "no-delete": { type: "boolean", default: false },
      parallel: { type: "string", default: "1" },
      snapshot: { type: "string" },
      cli: { type: "string", default: "dist/cli.js" },
      "heap-diff": { type: "string" },
      top: { type: "string", default: "25" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const count = (name: string, text: string, min: number): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) {
      process.stderr.write(`--${name} must be an integer ≥ ${min}\n${USAGE}\n`);
      process.exit(2);
    }
    return value;
  };
  if (values["heap-diff"] !== undefined) {
    const [before, after, extra] = values["heap-diff"].split(",");
    if (before === undefined || after === undefined || extra !== undefined) {
      process.stderr.write(`--heap-diff takes two snapshot paths separated by a comma\n${USAGE}\n`);
      process.exit(2);
    }
    process.stdout.write(`${heapDiff(resolve(before), resolve(after), count("top", values.top, 1))}\n`);
    process.exit(0);
  }
  const cycles = count("cycles", values.cycles, 1);
  const checkpoints = [
    ...new Set(values.checkpoints.split(",").map((part) => Math.min(count("checkpoints", part.trim(), 1), cycles))),
  ].sort((a, b) => a - b);
  return {
    cycles,
    calls: count("calls", values.calls, 0),
    checkpoints,
    deleteSessions: !values["no-delete"],
    parallel: count("parallel", values.parallel, 1),
    snapshotDir: values.snapshot === undefined ? undefined : resolve(values.snapshot),
    cli: resolve(values.cli),
  };
}

/** The bench-only preload: answers memory and snapshot requests over the IPC channel. */
const PROBE = `"use strict";
const v8 = require("node:v8");
process.on("message", (message) => {
  if (!message || typeof message !== "object") return;
  if (message.type === "memory") {
    if (typeof global.gc === "function") { global.gc(); global.gc(); }
    const usage = process.memoryUsage();
    process.send({ type: "memory", rss: usage.rss, heapUsed: usage.heapUsed, heapTotal: usage.heapTotal, external: usage.external, arrayBuffers: usage.arrayBuffers });
  } else if (message.type === "snapshot") {
    if (typeof global.gc === "function") global.gc();
    process.send({ type: "snapshot", path: v8.writeHeapSnapshot(message.path) });
  }
});
// The channel must not keep serve alive once it is told to stop.
if (process.channel) process.channel.unref();
`;

interface ProbeMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

interface Child {
  process: ChildProcess;
  url: string;
  token: string;
  stderrBytes: () => number;
  /** The last 2,000 characters serve wrote to stderr, and whether it is still running. */
  state: () => string;
  ask<T>(message: { type: string; path?: string }): Promise<T>;
  stop(): Promise<void>;
}

async function startServe(opts: Options, env: Record<string, string>, work: string): Promise<Child> {
  const probe = join(work, "probe.cjs");
  await writeFile(probe, PROBE);
  const root = join(work, "root");
  await mkdir(root);
  const token = randomBytes(24).toString("base64url");
  const child = spawn(
    process.execPath,
    ["--expose-gc", "-r", probe, opts.cli, "serve", "--root", root, "--port", "0"],
    {
      env: { ...process.env, ...env, HACKMD_BRIDGE_MCP_TOKEN: token },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    },
  );
  // The log stream is read (and dropped), so the child never waits on a full pipe.
  let stderrBytes = 0;
  let stderrTail = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderrBytes += chunk.byteLength;
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2000);
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = "";
    const onData = (chunk: Buffer): void => {
      out += chunk.toString("utf8");
      const newline = out.indexOf("\n");
      if (newline === -1) return;
      child.stdout?.off("data", onData);
      child.stdout?.resume();
      try {
        resolveUrl((JSON.parse(out.slice(0, newline)) as { url: string }).url);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code, signal) =>
      reject(new Error(`serve exited before listening (${signal ?? String(code)}): ${stderrTail}`)),
    );
  });
  const waiting = new Map<string, (value: unknown) => void>();
  child.on("message", (message: { type: string }) => {
    waiting.get(message.type)?.(message);
    waiting.delete(message.type);
  });
  return {
    process: child,
    url,
    token,
    stderrBytes: () => stderrBytes,
    state: () =>
      `serve ${child.exitCode === null && child.signalCode === null ? "still running" : `exited (${child.signalCode ?? String(child.exitCode)})`}; its last log lines:\n${stderrTail}`,
    ask: <T>(message: { type: string; path?: string }) =>
      new Promise<T>((answer) => {
        waiting.set(message.type, answer as (value: unknown) => void);
        child.send(message);
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((done) => child.once("exit", () => done()));
      child.disconnect();
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The child's resident set (VmRSS) in bytes, read from /proc. */
function vmRss(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

const mib = (bytes: number): string => (bytes / 1024 ** 2).toFixed(1);

async function cycle(serve: Child, opts: Options): Promise<void> {
  const transport = new StreamableHTTPClientTransport(new URL(serve.url), {
    requestInit: { headers: { authorization: `Bearer ${serve.token}` } },
  });
  const client = new Client({ name: "bench-memory", version: "1" });
  await client.connect(transport);
  await client.listTools();
  const calls: Array<[string, Record<string, unknown>]> = [
    ["hackmd_get_me", {}],
    ["hackmd_list_notes", {}],
    ["hackmd_get_note", { note_ref: DEMO_NOTE_IDS.weeklySync }],
  ];
  for (let index = 0; index < opts.calls; index += 1) {
    const [name, args] = calls[index % calls.length] ?? ["hackmd_get_me", {}];
    const result = await client.callTool({ name, arguments: args });
    if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  }
  if (opts.deleteSessions) await transport.terminateSession();
  await client.close();
}

async function main(): Promise<void> {
  const opts = options();
  process.stdout.write(`${machineInfo()}\n`);
  process.stdout.write(
    `serve: ${opts.cli} as a child (--expose-gc, bench probe preloaded); ${opts.cycles} cycles (${opts.parallel} at once) of open, tools/list, ${opts.calls} tool calls, ${opts.deleteSessions ? "DELETE + close" : "close without DELETE"}\n\n`,
  );
  const emu = await startEmulator({ port: 0, seed: "demo" });
  const work = await mkdtemp(join(tmpdir(), "hb-bench-memory-"));
  const env: Record<string, string> = { HACKMD_API_URL: emu.url, HACKMD_API_TOKEN: emu.token };
  const serve = await startServe(opts, env, work);
  if (opts.snapshotDir !== undefined) await mkdir(opts.snapshotDir, { recursive: true });
  const rows: string[][] = [];
  const readings: Array<{ cycles: number; rss: number; gcRss: number; heapUsed: number }> = [];
  const started = Date.now();
  try {
    const pid = serve.process.pid ?? 0;
    const before = vmRss(pid);
    const initial = await serve.ask<ProbeMemory>({ type: "memory" });
    rows.push([
      "0",
      mib(before),
      mib(initial.rss),
      mib(initial.heapUsed),
      mib(initial.heapTotal),
      mib(initial.external),
      "",
      loadNow(),
    ]);
    let done = 0;
    for (const checkpoint of opts.checkpoints) {
      // `parallel` lanes take cycles until the checkpoint is reached, so that many sessions are open at once.
      const lane = async (): Promise<void> => {
        while (done < checkpoint) {
          done += 1;
          const at = done;
          await cycle(serve, opts).catch((error: unknown) => {
            throw new Error(`cycle ${at} failed; ${serve.state()}`, { cause: error });
          });
        }
      };
      await Promise.all(Array.from({ length: opts.parallel }, () => lane()));
      const rss = vmRss(pid);
      const memory = await serve.ask<ProbeMemory>({ type: "memory" });
      readings.push({ cycles: checkpoint, rss, gcRss: memory.rss, heapUsed: memory.heapUsed });
      const first = readings[0];
      rows.push([
        String(checkpoint),
        mib(rss),
        mib(memory.rss),
        mib(memory.heapUsed),
        mib(memory.heapTotal),
        mib(memory.external),
        first === undefined ? "" : ratio(rss / first.rss),
        loadNow(),
      ]);
      if (opts.snapshotDir !== undefined) {
        const written = await serve.ask<{ path: string }>({
          type: "snapshot",
          path: join(opts.snapshotDir, `serve-${checkpoint}.heapsnapshot`),
        });
        process.stdout.write(`snapshot after ${checkpoint} cycles: ${written.path}\n`);
      }
    }
  } finally {
    await serve.stop();
    await emu.close();
    await rm(work, { recursive: true, force: true });
  }
  process.stdout.write(
    `${table(["cycles", "VmRSS MiB", "RSS after GC MiB", "heap used after GC MiB", "heap total MiB", "external MiB", `VmRSS / at ${opts.checkpoints[0] ?? "?"}`, "load 1m"], rows, [0, 1, 2, 3, 4, 5, 6, 7])}\n\n`,
  );
  const first = readings[0];
  const last = readings.at(-1);
  if (first !== undefined && last !== undefined && last !== first) {
    process.stdout.write(
      `VmRSS after ${last.cycles} / after ${first.cycles} cycles: ${ratio(last.rss / first.rss)} (goal ≤ 1.20×); heap used after GC: ${ratio(last.heapUsed / first.heapUsed)}\n`,
    );
  }
  process.stdout.write(
    `${opts.cycles} cycles in ${((Date.now() - started) / 1000).toFixed(1)} s; serve wrote ${serve.stderrBytes()} bytes of log lines to stderr\n`,
  );
}

/** An error with its chain of causes (undici's "fetch failed" names the socket error only in its cause). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return JSON.stringify(error);
  const text = error.stack ?? error.message;
  return error.cause === undefined ? text : `${text}\ncaused by: ${describe(error.cause)}`;
}

void main().catch((error: unknown) => {
  process.stderr.write(`${describe(error)}\n`);
  process.exit(1);
});
