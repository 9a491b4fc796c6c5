import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod/v4";
import { silentLogger } from "../../src/core/ports";
import { defineTool } from "../../src/mcp/define-tool";
import { PortInUseError, startMcpListener, type McpListener } from "../../src/mcp/http/listener";
import { createMcpServer } from "../../src/mcp/server";
import { portIsFree } from "../helpers/ports";

const TOKEN = "endpoint-token-0123456789abcdef";

const echo = defineTool<{ prefix: string }, Record<string, never>, z.ZodObject<{ text: z.ZodString }>>({
  name: "echo",
  title: "Echo",
  description: "Echoes text.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.object({ text: z.string() }).strict(),
  output: z.object({ echoed: z.string() }),
  create: (deps) => (args) => Promise.resolve({ summary: "echoed", output: { echoed: `${deps.prefix}${args.text}` } }),
});

function newServer() {
  let id = 0;
  return createMcpServer({
    name: "test",
    version: "0.0.0",
    tools: [echo],
    deps: { prefix: ">" },
    newCall: () => ({}),
    retryMeta: () => undefined,
    secrets: () => [],
    logger: silentLogger,
    nextRequestId: () => `r${++id}`,
  });
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("loopback MCP endpoint", () => {
  let listener: McpListener;
  beforeEach(async () => {
    listener = await startMcpListener({
      port: 0,
      token: TOKEN,
      createServer: newServer,
      logger: silentLogger,
      maxBodyBytes: 4096,
    });
  });
  afterEach(async () => {
    await listener.close();
  });

  const post = (headers: Record<string, string>, body: unknown = initialize) =>
    fetch(listener.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  it("binds to 127.0.0.1 and serves a full initialize → tools/list → tools/call round trip", async () => {
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: "test-client", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(listener.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual(["echo"]);
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.structuredContent).toEqual({ echoed: ">hi" });
    expect(listener.sessionCount()).toBe(1);
    await client.close();
  });

  it("answers 401 without a token or with a wrong one, with WWW-Authenticate", async () => {
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await post({ authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await post({ authorization: TOKEN })).status).toBe(401);
    const body = await none.text();
    expect(body).not.toContain(TOKEN);
  });

  it("answers 403 for a foreign Host or Origin before checking the token", async () => {
    const { port } = listener;
    const foreignHost = await rawRequest(port, { host: "evil.example.com", authorization: `Bearer ${TOKEN}` });
    expect(foreignHost.status).toBe(403);
    const wrongPort = await rawRequest(port, { host: `127.0.0.1:${port + 1}`, authorization: `Bearer ${TOKEN}` });
    expect(wrongPort.status).toBe(403);
    const foreignOrigin = await post({ origin: "https://evil.example.com", authorization: `Bearer ${TOKEN}` });
    expect(foreignOrigin.status).toBe(403);
  });

  it("accepts localhost and 127.0.0.1 hosts and loopback origins with the token", async () => {
    const { port } = listener;
    const viaLocalhost = await rawRequest(
      port,
      { host: `localhost:${port}`, authorization: `Bearer ${TOKEN}` },
      JSON.stringify(initialize),
    );
    expect(viaLocalhost.status).toBe(200);
    const withOrigin = await post({ origin: `http://localhost:${port}`, authorization: `Bearer ${TOKEN}` });
    expect(withOrigin.status).toBe(200);
    expect(withOrigin.headers.get("access-control-allow-origin")).toBe(`http://localhost:${port}`);
    expect(withOrigin.headers.get("access-control-expose-headers")).toMatch(/Mcp-Session-Id/i);
  });

  it("answers 413 for an oversized body and 404 outside /mcp", async () => {
    const big = await post(
      { authorization: `Bearer ${TOKEN}` },
      JSON.stringify({ ...initialize, pad: "x".repeat(5000) }),
    );
    expect(big.status).toBe(413);
    const elsewhere = await fetch(listener.url.replace("/mcp", "/other"), {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(elsewhere.status).toBe(404);
  });

  it("closes open sessions and frees the port on close", async () => {
    const client = new Client({ name: "c", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(listener.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    expect(listener.sessionCount()).toBe(1);
    const { port } = listener;
    await listener.close();
    expect(listener.sessionCount()).toBe(0);
    await expect(portIsFree(port)).resolves.toBe(true);
    listener = await startMcpListener({ port, token: TOKEN, createServer: newServer, logger: silentLogger });
  });

  it("a silent SSE stream (GET) gets its headers at once, and a client that drops it frees it for the next GET", async () => {
    const init = await post({ authorization: `Bearer ${TOKEN}` });
    const session = init.headers.get("mcp-session-id") ?? "";
    await init.text();
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      accept: "text/event-stream",
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-06-18",
    };
    await post(
      { authorization: `Bearer ${TOKEN}`, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    );
    // The server sends nothing on this stream, so fetch resolves only if the headers were flushed.
    const dropped = new AbortController();
    const first = await fetch(listener.url, { headers, signal: dropped.signal });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("text/event-stream");
    // One standalone stream per session: while it is open a second is refused (409).
    const second = await fetch(listener.url, { headers });
    expect(second.status).toBe(409);
    await second.text();
    dropped.abort();
    // Once the client has gone, the transport let go of the stream: a new GET is accepted.
    let again: Response | undefined;
    for (let attempt = 0; attempt < 100 && again?.status !== 200; attempt++) {
      await again?.text();
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await fetch(listener.url, { headers, signal: AbortSignal.timeout(2000) }).catch(() => undefined);
    }
    expect(again?.status).toBe(200);
    await again?.body?.cancel();
  });

  it("reports a port in use clearly", async () => {
    await expect(
      startMcpListener({ port: listener.port, token: TOKEN, createServer: newServer, logger: silentLogger }),
    ).rejects.toBeInstanceOf(PortInUseError);
  });
});

async function rawRequest(port: number, headers: Record<string, string>, body = "{}"): Promise<{ status: number }> {
  const http = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
