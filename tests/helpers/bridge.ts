/**
 * Test harness: the HackMD emulator on loopback, a core instance over the real Node transport
 * and a temporary ROOT, and an MCP client connected through the SDK's in-memory transport pair.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { unavailableImageFetcher, type ImageFetcher } from "../../src/core/image";
import {
  silentLogger,
  systemClock,
  systemSleep,
  type Clock,
  type HttpTransport,
  type Sleep,
} from "../../src/core/ports";
import { createEmulatorFree } from "./emulator";
import { createClientConfig } from "../../src/hackmd/config";
import { createBridgeCore, type BridgeCore } from "../../src/mcp/core";
import { createMcpServer } from "../../src/mcp/server";
import { NodeHttpTransport } from "../../src/node/http-transport";
import { NodeLocalFiles } from "../../src/node/local-files";
import type { Emulator, EmulatorOptions } from "../../src/emulator";

/** A running test bridge. */
export interface TestBridge {
  emu: Emulator;
  core: BridgeCore;
  client: Client;
  root: string;
  /** Calls a tool and returns the raw result. */
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  /** Emulator requests after the last `mark()`, as `METHOD route` strings. */
  requestsSinceMark(): string[];
  mark(): void;
  close(): Promise<void>;
}

/** The shape of a tools/call result as tests read it. */
export interface CallResult {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** Every error text any test saw, and every token in use, for the token-leak scan. */
export const seenErrorTexts: string[] = [];
export const seenTokens = new Set<string>();

/** Starts emulator + core + MCP client. */
export async function startBridge(
  options: {
    emulator?: EmulatorOptions;
    token?: string | null;
    images?: ImageFetcher;
    cacheTtlMs?: number;
    root?: string;
    clock?: Clock;
    sleep?: Sleep;
    /** Wraps the real transport (e.g. to act between two requests of one call). */
    transport?: (inner: HttpTransport) => HttpTransport;
    requireVersion?: () => boolean;
    convertByDefault?: () => boolean;
  } = {},
): Promise<TestBridge> {
  const emu = await createEmulatorFree({ seed: "demo", ...options.emulator });
  // A given ROOT is shared with another bridge and left for its owner to remove.
  const root = options.root ?? (await mkdtemp(join(tmpdir(), "hb-root-")));
  const token = options.token === null ? undefined : (options.token ?? emu.token);
  seenTokens.add(emu.token);
  const files = await NodeLocalFiles.open({ root });
  const core = createBridgeCore({
    transport: options.transport ? options.transport(new NodeHttpTransport()) : new NodeHttpTransport(),
    config: createClientConfig({
      apiUrl: emu.url,
      tokenHint: "set the HACKMD_API_TOKEN environment variable and restart hackmd-bridge",
    }),
    secrets: { getToken: () => token },
    files,
    images: options.images ?? unavailableImageFetcher,
    clock: options.clock ?? systemClock,
    sleep: options.sleep ?? systemSleep,
    random: () => 0,
    logger: silentLogger,
    ...(options.cacheTtlMs === undefined ? {} : { cacheTtlMs: options.cacheTtlMs }),
    ...(options.convertByDefault === undefined ? {} : { convertByDefault: options.convertByDefault }),
    ...(options.requireVersion === undefined ? {} : { requireVersion: options.requireVersion }),
  });
  // In memory, the client's name is not read from its initialize (the transports of
  // src/node/serve.ts and src/mcp/http/listener.ts do that): the scope gives the name it sends.
  const server = createMcpServer(core.mcpHost({ name: "hackmd-bridge", version: "test", secrets: () => [token] }), {
    clientName: () => "test",
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  await client.listTools();
  let since = emu.requests().at(-1)?.seq ?? 0;
  return {
    emu,
    core,
    client,
    root,
    call: async (name, args = {}) => {
      const result = (await client.callTool({ name, arguments: args })) as CallResult;
      if (result.isError) seenErrorTexts.push(...result.content.map((block) => block.text));
      return result;
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
      await client.close();
      await server.close();
      await emu.close();
      if (options.root === undefined) await rm(root, { recursive: true, force: true });
    },
  };
}

/** The output object of a successful result (fails the test on an error result). */
export function ok(result: CallResult): Record<string, unknown> {
  if (result.isError) throw new Error(`expected success, got ${result.content[0]?.text ?? "?"}`);
  return result.structuredContent ?? {};
}

/** The error kind of an error result (fails the test on a success). */
export function errorKind(result: CallResult): unknown {
  if (!result.isError) throw new Error(`expected an error, got ${JSON.stringify(result.structuredContent)}`);
  return result._meta?.error_kind;
}
