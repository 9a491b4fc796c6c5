/**
 * Benchmark harness (mirrors tests/helpers/bridge.ts, which benches must not import): the HackMD
 * emulator on loopback, one core (with the sync engine) over the real Node transport and a
 * temporary ROOT, an MCP
 * client over the SDK's in-memory transport pair, and on request the real loopback HTTP
 * endpoint with a Streamable HTTP client.
 */
import "../../src/node/node-apis-install";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { unavailableImageFetcher } from "../../src/core/image";
import { silentLogger, systemClock, systemSleep } from "../../src/core/ports";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../src/emulator";
import { createClientConfig, STANDALONE_TOKEN_HINT } from "../../src/hackmd/config";
import { createBridgeCore, type BridgeCore } from "../../src/mcp/core";
import { SyncStateStore } from "../../src/sync/store";
import { startMcpListener, type McpListener } from "../../src/mcp/http/listener";
import { createMcpServer } from "../../src/mcp/server";
import { NodeHttpTransport } from "../../src/node/http-transport";
import { NodeLocalFiles } from "../../src/node/local-files";

/** The shape of a tools/call result. */
export interface CallResult {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** The loopback HTTP endpoint with one connected Streamable HTTP client session. */
export interface HttpEndpoint {
  listener: McpListener;
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

/** A running bench bridge. */
export interface BenchBridge {
  emu: Emulator;
  core: BridgeCore;
  /** The core's sync state store. */
  store: SyncStateStore;
  /** The temporary ROOT of local files (removed on close). */
  root: string;
  /** MCP client connected through the in-memory transport pair. */
  client: Client;
  /** Calls a tool through the in-memory client. */
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  /** Starts the loopback endpoint over the same core and connects a Streamable HTTP client. */
  startHttp(): Promise<HttpEndpoint>;
  mark(): void;
  /** Emulator requests after the last `mark()`, as `METHOD route` strings. */
  requestsSinceMark(): string[];
  close(): Promise<void>;
}

function hostFor(core: BridgeCore, emu: Emulator) {
  return core.mcpHost({ name: "hackmd-bridge", version: "bench", secrets: () => [emu.token] });
}

/** Starts emulator + core + in-memory MCP client (tools listed once, as an agent would). */
export async function startBenchBridge(options: { emulator?: EmulatorOptions } = {}): Promise<BenchBridge> {
  const emu = await startEmulator({ port: 0, seed: "demo", ...options.emulator });
  const root = await mkdtemp(join(tmpdir(), "hb-bench-root-"));
  const files = await NodeLocalFiles.open({ root });
  // The core's store, built here so benches can read its counters (record reads, index builds).
  const store = new SyncStateStore({ files: files.state, logger: silentLogger, stateFolder: files.root.stateFolder });
  const core = createBridgeCore({
    store,
    transport: new NodeHttpTransport(),
    config: createClientConfig({ apiUrl: emu.url, tokenHint: STANDALONE_TOKEN_HINT }),
    secrets: { getToken: () => emu.token },
    files,
    images: unavailableImageFetcher,
    clock: systemClock,
    sleep: systemSleep,
    random: Math.random,
    logger: silentLogger,
  });
  const server = createMcpServer(hostFor(core, emu));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(clientSide);
  await client.listTools();
  const endpoints: HttpEndpoint[] = [];
  let since = emu.requests().at(-1)?.seq ?? 0;

  return {
    emu,
    core,
    store,
    root,
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallResult,
    startHttp: async () => {
      const token = randomBytes(24).toString("base64url");
      const listener = await startMcpListener({
        port: 0,
        token,
        createServer: () => createMcpServer(hostFor(core, emu)),
        logger: silentLogger,
      });
      const httpClient = new Client({ name: "bench-http", version: "1" });
      await httpClient.connect(
        new StreamableHTTPClientTransport(new URL(listener.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      await httpClient.listTools();
      const endpoint: HttpEndpoint = {
        listener,
        client: httpClient,
        call: async (name, args = {}) => (await httpClient.callTool({ name, arguments: args })) as CallResult,
        close: async () => {
          await httpClient.close();
          await listener.close();
        },
      };
      endpoints.push(endpoint);
      return endpoint;
    },
    mark: () => {
      since = emu.requests().at(-1)?.seq ?? 0;
    },
    requestsSinceMark: () =>
      emu
        .requests({ since })
        .filter((entry) => entry.seq > since)
        .map((entry) => entry.route ?? `${entry.method} ${entry.path}`),
    close: async () => {
      for (const endpoint of endpoints) await endpoint.close();
      await client.close();
      await server.close();
      await emu.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The error kind of a result, or undefined for a success. */
export function errorKindOf(result: CallResult): string | undefined {
  if (!result.isError) return undefined;
  const kind = result._meta?.error_kind;
  return typeof kind === "string" ? kind : "unknown";
}

/** The output of a successful result; throws on an error result. */
export function okOutput(result: CallResult): Record<string, unknown> {
  if (result.isError) throw new Error(`expected success, got ${result.content[0]?.text ?? "?"}`);
  return result.structuredContent ?? {};
}
