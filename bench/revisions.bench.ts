/**
 * `npm run bench -- revisions`: per-call overhead of the two protocol revisions side by side
 * (docs/adr/0006-mcp-v2-both-revisions.md). One core over the emulator, one loopback endpoint,
 * two clients on the same URL: a 2025-11-25 client (the v1 SDK's client, one session) and a
 * 2026-07-28 client (the SDK's v2 client, pinned; every request on its own, a fresh MCP server
 * per request). Each makes `--calls` (200) timed `hackmd_get_note` calls after 20 warm-up calls,
 * in alternating blocks of 20 (`--block N`) so that neither gets the quieter moments of the
 * machine. Besides the wall-clock latency it reports the process's CPU time (user + system) per
 * call, summed over each revision's blocks: on a loaded machine the latency is mostly waiting, the
 * CPU time is the work (client, endpoint, core and emulator all run in this process). Prints
 * p50, p95, mean, min and max per revision. Nothing is asserted.
 */
import process from "node:process";
import "../src/node/node-apis-install";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DEMO_NOTE_IDS } from "../src/emulator";
import { silentLogger } from "../src/core/ports";
import { startMcpListener } from "../src/mcp/http/listener";
import { createMcpServer } from "../src/mcp/server";
import { startBenchBridge } from "./lib/bridge";
import { httpPoster } from "./lib/http-post";
import { machineInfo, ms, summarize, table } from "./lib/report";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? Number(argv[at + 1]) : fallback;
};
const CALLS = option("calls", 200);
const WARMUP = 20;
const BLOCK = option("block", 20);

interface Caller {
  callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

async function main(): Promise<void> {
  const bridge = await startBenchBridge();
  const token = randomBytes(24).toString("base64url");
  const host = bridge.core.mcpHost({ name: "hackmd-bridge", version: "bench", secrets: () => [bridge.emu.token] });
  const listener = await startMcpListener({
    port: 0,
    token,
    createServer: (scope) => createMcpServer(host, scope),
    logger: silentLogger,
  });
  const headers = { authorization: `Bearer ${token}` };
  const legacy = new LegacyClient({ name: "bench-2025", version: "1" });
  await legacy.connect(new LegacyHttp(new URL(listener.url), { requestInit: { headers } }));
  const modern = new ModernClient(
    { name: "bench-2026", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await modern.connect(new ModernHttp(new URL(listener.url), { requestInit: { headers } }));
  // The same calls as bare HTTP requests (node:http, bodies built once): the endpoint's own cost,
  // without the two SDK clients' (which differ: the v1 client for 2025-11-25, the v2 one for 2026-07-28).
  const plain = { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers };
  const http = httpPoster();
  const opened = await http.post(
    listener.url,
    plain,
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench-raw-2025", version: "1" } },
    }),
  );
  const openedSession = opened.headers["mcp-session-id"];
  const session = {
    ...plain,
    "mcp-session-id": typeof openedSession === "string" ? openedSession : "",
    "mcp-protocol-version": "2025-11-25",
  };
  await http.post(listener.url, session, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  const call = { name: "hackmd_get_note", arguments: { note_ref: DEMO_NOTE_IDS.readingList } };
  const rawLegacyBody = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: call });
  const rawModernBody = JSON.stringify({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: {
      ...call,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "bench-raw-2026", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  const modernHeaders = {
    ...plain,
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "hackmd_get_note",
  };
  const raw = (requestHeaders: Record<string, string>, body: string): Caller => ({
    callTool: async () => {
      const { text } = await http.post(listener.url, requestHeaders, body);
      return { isError: !text.includes('"isError":false') };
    },
  });
  const clients: Array<[string, Caller]> = [
    ["2025-11-25 (session)", legacy],
    ["2026-07-28 (stateless)", modern],
    ["2025-11-25, bare HTTP", raw(session, rawLegacyBody)],
    ["2026-07-28, bare HTTP", raw(modernHeaders, rawModernBody)],
  ];
  const args = { note_ref: DEMO_NOTE_IDS.readingList };
  const once = async (client: Caller): Promise<number> => {
    const started = performance.now();
    const result = (await client.callTool({ name: "hackmd_get_note", arguments: args })) as { isError?: boolean };
    const elapsed = performance.now() - started;
    if (result.isError === true) throw new Error("hackmd_get_note failed");
    return elapsed;
  };
  for (const [, client] of clients) for (let i = 0; i < WARMUP; i += 1) await once(client);
  const samples = new Map<string, number[]>(clients.map(([name]) => [name, []]));
  const cpu = new Map<string, number>(clients.map(([name]) => [name, 0]));
  for (let done = 0; done < CALLS; done += BLOCK) {
    for (const [name, client] of clients) {
      const before = process.cpuUsage();
      for (let i = 0; i < Math.min(BLOCK, CALLS - done); i += 1) samples.get(name)!.push(await once(client));
      const used = process.cpuUsage(before);
      cpu.set(name, cpu.get(name)! + used.user + used.system);
    }
  }
  const rows = clients.map(([name]) => {
    const s = summarize(samples.get(name)!);
    return [name, String(s.n), ms(s.p50), ms(s.p95), ms(s.mean), ms(s.min), ms(s.max), ms(cpu.get(name)! / 1000 / s.n)];
  });
  process.stdout.write(`${machineInfo()}\n\n`);
  process.stdout.write(
    `hackmd_get_note over loopback HTTP, ${CALLS} timed calls per revision (${WARMUP} warm-up), same endpoint and core\n\n`,
  );
  process.stdout.write(
    `${table(["revision", "calls", "p50 ms", "p95 ms", "mean ms", "min ms", "max ms", "CPU ms/call"], rows, [1, 2, 3, 4, 5, 6, 7])}\n`,
  );
  await legacy.close();
  await modern.close();
  http.close();
  await listener.close();
  await bridge.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
