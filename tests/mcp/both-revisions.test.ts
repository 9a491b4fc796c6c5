/**
 * The loopback endpoint under both protocol revisions (docs/adr/0006-mcp-v2-both-revisions.md): a
 * 2026-07-28 client (the SDK's v2 client, pinned) is answered statelessly, a 2025-11-25 client (the
 * v1 SDK's client, as released clients speak it) with a session, on the same URL; and every guard
 * of docs/architecture.md §4 holds under each: token, Host, Origin, body size, nesting, batches,
 * header/body agreement and no token in any answer.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod/v4";
import { silentLogger } from "../../src/core/ports";
import { defineTool } from "../../src/mcp/define-tool";
import { startMcpListener, type McpListener } from "../../src/mcp/http/listener";
import { createMcpServer, type ServerScope } from "../../src/mcp/server";

const TOKEN = "endpoint-token-0123456789abcdef";
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

const echo = defineTool<{ prefix: string }, Record<string, never>, z.ZodObject<{ text: z.ZodString }>>({
  name: "echo",
  title: "Echo",
  description: "Echoes text.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.object({ text: z.string() }).strict(),
  output: z.object({ echoed: z.string() }),
  create: (deps) => (args) => Promise.resolve({ summary: "echoed", output: { echoed: `${deps.prefix}${args.text}` } }),
});

/** A tool whose failure message would carry the endpoint token: every error result is scrubbed. */
const leak = defineTool<{ prefix: string }, Record<string, never>, z.ZodObject<Record<string, never>>>({
  name: "leak",
  title: "Leak",
  description: "Fails naming the token.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.object({}).strict(),
  output: z.object({ text: z.string() }),
  create: () => () => Promise.reject(new Error(`upstream said Bearer ${TOKEN}`)),
});

const clients: string[] = [];
function newServer(scope: ServerScope) {
  let id = 0;
  return createMcpServer(
    {
      name: "test",
      version: "0.0.0",
      tools: [echo, leak],
      deps: { prefix: ">" },
      newCall: () => ({}),
      retryMeta: () => undefined,
      secrets: () => [TOKEN],
      logger: silentLogger,
      nextRequestId: () => `r${++id}`,
      onCallCompleted: (event) => clients.push(event.client ?? ""),
    },
    scope,
  );
}

/** The 2026-07-28 envelope a modern request carries in `params._meta`. */
const envelope = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "raw-modern", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const modernCall = (id: number, name = "echo", args: unknown = { text: "hi" }) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, _meta: envelope },
});
const modernHeaders = (method: string, name?: string): Record<string, string> => ({
  "mcp-protocol-version": MODERN,
  "mcp-method": method,
  ...(name === undefined ? {} : { "mcp-name": name }),
});
const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "raw-legacy", version: "1" } },
};

describe("the endpoint under 2026-07-28 and 2025-11-25", () => {
  let listener: McpListener;
  beforeEach(async () => {
    clients.length = 0;
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

  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(listener.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${TOKEN}`,
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  it("a 2026-07-28 client lists and calls without a session; a 2025-11-25 client with one, on the same URL", async () => {
    const modern = new ModernClient(
      { name: "modern-client", version: "1" },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await modern.connect(
      new ModernHttp(new URL(listener.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect((await modern.listTools()).tools.map((tool) => tool.name)).toEqual(["echo", "leak"]);
    const result = await modern.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.structuredContent).toEqual({ echoed: ">hi" });
    expect(listener.sessionCount()).toBe(0);

    const legacy = new LegacyClient({ name: "legacy-client", version: "1" });
    await legacy.connect(
      new LegacyHttp(new URL(listener.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    expect(legacy.getServerVersion()?.name).toBe("test");
    const legacyResult = await legacy.callTool({ name: "echo", arguments: { text: "yo" } });
    expect(legacyResult.structuredContent).toEqual({ echoed: ">yo" });
    expect(listener.sessionCount()).toBe(1);
    // Each call names its client: the modern one from its envelope, the legacy one from initialize.
    expect(clients).toEqual(["modern-client", "legacy-client"]);
    await modern.close();
    await legacy.close();
  });

  it("answers server/discover with 2026-07-28 and the tools capability", async () => {
    const response = await post(modernHeaders("server/discover"), {
      jsonrpc: "2.0",
      id: 7,
      method: "server/discover",
      params: { _meta: envelope },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { supportedVersions: string[]; capabilities: object } };
    expect(body.result.supportedVersions).toContain(MODERN);
    expect(body.result.capabilities).toMatchObject({ tools: {} });
    expect(response.headers.get("mcp-session-id")).toBeNull();
  });

  it("a 2026-07-28 tools/list says how long it may be cached (private, a minute); the tools are the same as 2025-11-25's", async () => {
    const response = await post(modernHeaders("tools/list"), {
      jsonrpc: "2.0",
      id: 8,
      method: "tools/list",
      params: { _meta: envelope },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { tools: unknown[]; ttlMs?: number; cacheScope?: string } };
    expect(body.result).toMatchObject({ ttlMs: 60_000, cacheScope: "private" });
    const legacy = new LegacyClient({ name: "legacy-client", version: "1" });
    await legacy.connect(
      new LegacyHttp(new URL(listener.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    const listed = await legacy.listTools();
    expect(body.result.tools).toEqual(listed.tools);
    expect(listed as object).not.toHaveProperty("ttlMs");
    await legacy.close();
  });

  it("a single 2026-07-28 request stands on its own: no initialize, no session id", async () => {
    const response = await post(modernHeaders("tools/call", "echo"), modernCall(3));
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"echoed":">hi"');
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(listener.sessionCount()).toBe(0);
  });

  it("a refusal never carries the token, in its answer or the log, even when the client sent it as a header (both revisions)", async () => {
    const lines: string[] = [];
    const logger = {
      debug: (event: string, fields?: object) => lines.push(`${event} ${JSON.stringify(fields)}`),
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    };
    const logged = await startMcpListener({
      port: 0,
      token: TOKEN,
      createServer: newServer,
      logger,
      maxBodyBytes: 4096,
    });
    try {
      const response = await fetch(logged.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${TOKEN}`,
          ...modernHeaders("tools/call", TOKEN),
        },
        body: JSON.stringify(modernCall(12)),
      });
      expect(response.status).toBe(400);
      expect(await response.text()).not.toContain(TOKEN);
      expect(lines.join("\n")).toContain("mcp_modern_rejected");
      expect(lines.join("\n")).not.toContain(TOKEN);

      // 2025-11-25: the SDK's session transport quotes an unsupported MCP-Protocol-Version header.
      const opened = await fetch(logged.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${TOKEN}`,
        },
        body: JSON.stringify(initialize),
      });
      const session = opened.headers.get("mcp-session-id") ?? "";
      await opened.text();
      const quoted = await fetch(logged.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${TOKEN}`,
          "mcp-session-id": session,
          "mcp-protocol-version": TOKEN,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 13, method: "tools/list" }),
      });
      expect(quoted.status).toBe(400);
      const text = await quoted.text();
      expect(text).toContain("<token>");
      expect(text).not.toContain(TOKEN);
    } finally {
      await logged.close();
    }
  });

  it("refuses an Mcp-Method or Mcp-Name that disagrees with the body: -32020 under 2026-07-28, -32600 under 2025-11-25", async () => {
    const wrongMethod = await post(modernHeaders("tools/list", "echo"), modernCall(4));
    expect(wrongMethod.status).toBe(400);
    expect(((await wrongMethod.json()) as { error: { code: number } }).error.code).toBe(-32020);
    const wrongName = await post(modernHeaders("tools/call", "other"), modernCall(5));
    expect(wrongName.status).toBe(400);
    expect(((await wrongName.json()) as { error: { code: number } }).error.code).toBe(-32020);

    const legacyWrong = await post({ "mcp-method": "tools/list" }, initialize);
    expect(legacyWrong.status).toBe(400);
    expect((await legacyWrong.json()) as object).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(listener.sessionCount()).toBe(0);
  });

  describe.each([
    ["2026-07-28", modernHeaders("tools/call", "echo"), modernCall(1)],
    ["2025-11-25", {}, initialize],
  ] as const)("guards under %s", (_revision, headers, message) => {
    it("401 without the token or with a wrong one, and the token never in an answer", async () => {
      const none = await fetch(listener.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(message),
      });
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await none.text()).not.toContain(TOKEN);
      const wrong = await post({ ...headers, authorization: `Bearer ${TOKEN}x` }, message);
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).not.toContain(TOKEN);
      expect(clients).toEqual([]);
    });

    it("403 for a foreign Host or Origin, before the token is looked at", async () => {
      const foreignOrigin = await post({ ...headers, origin: "https://evil.example.com" }, message);
      expect(foreignOrigin.status).toBe(403);
      const foreignHost = await rawPost(listener.port, { ...headers, host: "evil.example.com" }, message);
      expect(foreignHost.status).toBe(403);
      expect(clients).toEqual([]);
    });

    it("413 for a body over the cap, and 400 for a message nested too deep outside the arguments", async () => {
      const big = await post(headers, { ...message, pad: "x".repeat(5000) });
      expect(big.status).toBe(413);
      const deep = `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"x":${"[".repeat(200)}${"]".repeat(200)}}}`;
      const tooDeep = await post(headers, deep);
      expect(tooDeep.status).toBe(400);
      expect((await tooDeep.json()) as object).toMatchObject({ id: 9, error: { code: -32600 } });
    });

    it("refuses a JSON-RPC batch and runs none of it", async () => {
      const batch = await post(headers, [message, message]);
      expect(batch.status).toBeGreaterThanOrEqual(400);
      expect(await batch.text()).not.toContain(TOKEN);
      expect(clients).toEqual([]);
      expect(listener.sessionCount()).toBe(0);
    });

    it("an error result never carries the endpoint token", async () => {
      if (_revision === "2026-07-28") {
        const call = await post(modernHeaders("tools/call", "leak"), modernCall(11, "leak", {}));
        expect(call.status).toBe(200);
        const text = await call.text();
        expect(text).toContain('"isError":true');
        expect(text).not.toContain(TOKEN);
        return;
      }
      const legacy = new LegacyClient({ name: "legacy-client", version: "1" });
      await legacy.connect(
        new LegacyHttp(new URL(listener.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
      );
      try {
        const result = await legacy.callTool({ name: "leak", arguments: {} });
        expect(result.isError).toBe(true);
        expect(JSON.stringify(result)).not.toContain(TOKEN);
      } finally {
        await legacy.close();
      }
    });
  });
});

/** A POST with a Host header fetch would not let us set. */
async function rawPost(port: number, headers: Record<string, string>, body: unknown): Promise<{ status: number }> {
  const http = await import("node:http");
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${TOKEN}`,
          ...headers,
        },
      },
      (response) => {
        response.resume();
        resolve({ status: response.statusCode ?? 0 });
      },
    );
    request.on("error", reject);
    request.end(JSON.stringify(body));
  });
}
