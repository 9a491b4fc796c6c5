/**
 * Session lifecycle of the loopback endpoint (docs/architecture.md §5, flat memory): every way a session ends
 * (DELETE, a client that goes away, idle expiry, shutdown) removes it from the listener and
 * disconnects its MCP server, so nothing of a closed session stays reachable. The memory figures
 * themselves are measured in bench/memory.bench.ts, never asserted here.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod/v4";
import { silentLogger, type LogFields, type Logger } from "../../src/core/ports";
import { defineTool } from "../../src/mcp/define-tool";
import { startMcpListener, type McpListener } from "../../src/mcp/http/listener";
import { createMcpServer, type McpProtocolServer } from "../../src/mcp/server";

const TOKEN = "endpoint-token-0123456789abcdef";

/** Calls to `wait` block until the test releases them. */
let release: (() => void) | undefined;

const echo = defineTool<Record<string, never>, Record<string, never>, z.ZodObject<{ text: z.ZodString }>>({
  name: "echo",
  title: "Echo",
  description: "Echoes text.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.object({ text: z.string() }).strict(),
  output: z.object({ echoed: z.string() }),
  create: () => (args) => Promise.resolve({ summary: "echoed", output: { echoed: args.text } }),
});

const wait = defineTool<Record<string, never>, Record<string, never>, z.ZodObject<Record<string, never>>>({
  name: "wait",
  title: "Wait",
  description: "Answers once released.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.object({}).strict(),
  output: z.object({}),
  create: () => () =>
    new Promise((resolve) => {
      release = () => resolve({ summary: "released", output: {} });
    }),
});

/** A listener whose MCP servers are all kept, to check each one is disconnected once its session ends. */
async function start(
  options: { maxSessions?: number; idleMs?: number; logger?: Logger } = {},
): Promise<{ listener: McpListener; servers: McpProtocolServer[] }> {
  const servers: McpProtocolServer[] = [];
  let id = 0;
  const listener = await startMcpListener({
    port: 0,
    token: TOKEN,
    logger: options.logger ?? silentLogger,
    ...(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions }),
    ...(options.idleMs === undefined ? {} : { idleMs: options.idleMs }),
    createServer: () => {
      const server = createMcpServer({
        name: "test",
        version: "0.0.0",
        tools: [echo, wait],
        deps: {},
        newCall: () => ({}),
        retryMeta: () => undefined,
        secrets: () => [],
        logger: silentLogger,
        nextRequestId: () => `r${++id}`,
      });
      servers.push(server);
      return server;
    },
  });
  return { listener, servers };
}

async function open(listener: McpListener): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(listener.url), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  });
  const client = new Client({ name: "lifecycle", version: "1" });
  await client.connect(transport);
  return { client, transport };
}

async function echoOnce(client: Client, text: string): Promise<void> {
  const result = await client.callTool({ name: "echo", arguments: { text } });
  expect(result.structuredContent).toEqual({ echoed: text });
}

const connected = (servers: readonly McpProtocolServer[]): number =>
  servers.filter((server) => server.server.transport !== undefined).length;

async function until(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 600 && !condition(); attempt += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("MCP session lifecycle over loopback HTTP", () => {
  let listener: McpListener | undefined;
  afterEach(async () => {
    release?.();
    release = undefined;
    await listener?.close();
    listener = undefined;
  });

  it("keeps nothing of a session after DELETE: the map is empty and every MCP server is disconnected", async () => {
    const started = await start();
    listener = started.listener;
    for (let cycle = 0; cycle < 40; cycle += 1) {
      const { client, transport } = await open(listener);
      await client.listTools();
      await echoOnce(client, `cycle ${cycle}`);
      expect(listener.sessionCount()).toBe(1);
      await transport.terminateSession();
      await client.close();
      expect(listener.sessionCount()).toBe(0);
    }
    expect(started.servers).toHaveLength(40);
    expect(connected(started.servers)).toBe(0);
  });

  it("serves every new client when old ones went away without DELETE: the least recently used session makes room at the cap", async () => {
    const events: Array<{ event: string; fields: LogFields | undefined }> = [];
    const logger: Logger = { ...silentLogger, info: (event, fields) => events.push({ event, fields }) };
    const started = await start({ maxSessions: 4, logger });
    listener = started.listener;
    const sessionIds: string[] = [];
    for (let cycle = 0; cycle < 20; cycle += 1) {
      const { client, transport } = await open(listener);
      await echoOnce(client, `cycle ${cycle}`);
      sessionIds.push(transport.sessionId ?? "");
      await client.close();
      expect(listener.sessionCount()).toBeLessThanOrEqual(4);
    }
    expect(listener.sessionCount()).toBe(4);
    expect(connected(started.servers)).toBe(4);
    // The survivors are the four most recent sessions; an evicted one is gone for good (404: start a new one).
    expect(started.servers.slice(-4).every((server) => server.server.transport !== undefined)).toBe(true);
    const evicted = await fetch(listener.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${TOKEN}`,
        "mcp-session-id": sessionIds[0] ?? "",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(evicted.status).toBe(404);
    const evictions = events.filter((entry) => entry.event === "mcp_session_evicted");
    expect(evictions).toHaveLength(16);
    expect(evictions.every((entry) => entry.fields?.reason === "cap")).toBe(true);
    // Session ids never reach the log.
    expect(JSON.stringify(events)).not.toContain(sessionIds[0]);
  });

  it("never evicts a session with a request in flight: past the cap with every session busy, a new one gets 503", async () => {
    const started = await start({ maxSessions: 1 });
    listener = started.listener;
    const busy = await open(listener);
    const pending = busy.client.callTool({ name: "wait", arguments: {} });
    await until(() => release !== undefined);
    await expect(open(listener)).rejects.toThrow(/503|busy/);
    expect(started.servers[0]?.server.transport !== undefined).toBe(true);
    release?.();
    await expect(pending).resolves.toMatchObject({ structuredContent: {} });
    await busy.client.close();
    // Idle now: the next session takes its place.
    const next = await open(listener);
    await echoOnce(next.client, "after");
    expect(listener.sessionCount()).toBe(1);
    expect(started.servers[0]?.server.transport !== undefined).toBe(false);
    await next.client.close();
  });

  it("closes a session left idle past idleMs and disconnects its MCP server", async () => {
    // Long enough that a loaded machine's pause between connect's two POSTs is not idleness.
    const started = await start({ idleMs: 1500 });
    listener = started.listener;
    const { client } = await open(listener);
    await echoOnce(client, "once");
    await client.close();
    await until(() => listener?.sessionCount() === 0);
    expect(listener.sessionCount()).toBe(0);
    expect(connected(started.servers)).toBe(0);
  });

  it("disconnects every open session's MCP server on close", async () => {
    const started = await start();
    listener = started.listener;
    const clients = [await open(listener), await open(listener), await open(listener)];
    expect(listener.sessionCount()).toBe(3);
    await listener.close();
    expect(listener.sessionCount()).toBe(0);
    expect(connected(started.servers)).toBe(0);
    for (const { client } of clients) await client.close();
    listener = undefined;
  });
});
