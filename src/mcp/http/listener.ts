/**
 * The loopback MCP endpoint (docs/architecture.md §4): Streamable HTTP on 127.0.0.1 only, with the
 * path, Host, Origin, bearer token, body size and nesting checked before any MCP code runs. Both
 * protocol revisions on one URL (docs/adr/0006-mcp-v2-both-revisions.md): a 2026-07-28 request
 * (it carries the `_meta` envelope) is answered on its own by the SDK's per-request handler, a fresh
 * MCP server per request and no session; a 2025-11-25 client gets stateful sessions (one MCP
 * server per session) with idle eviction and a cap. Session lifecycle (issue
 * 13): a session lives in `sessions` from its initialize until DELETE, idle expiry, eviction at
 * the cap or `close()`, and every way out goes through `closeSession`, which removes it and
 * closes its transport and MCP server, so nothing of a closed session stays reachable. Used by
 * `hackmd-bridge serve` and, through a guarded dynamic import, by the desktop plugin.
 */
// Node's modules come from node/node-apis.ts (the desktop plugin fills it on desktop only,
// obsidian/desktop-node.ts), Node's own timers included: in Obsidian's renderer the global
// setInterval is the DOM one, whose id has no unref().
import { nodeApis, type NodeBuffer, type NodeSystemError } from "../../node/node-apis";
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { newSessionId, type McpProtocolServer, type ServerScope } from "../server";
import { SessionWrites } from "../gate";
import type { Logger } from "../../core/ports";
import { bearerMatches, isAllowedHost, isAllowedOrigin } from "./guards";
import { answerWithTransport, toFetchRequest, withoutToken, writeFetchResponse } from "./node-bridge";
import { messageTooDeepError, parseJsonBounded } from "../json-depth";

type IncomingMessage = import("node:http").IncomingMessage;
type ServerResponse = import("node:http").ServerResponse;
type HttpServer = import("node:http").Server;
type Socket = import("node:net").Socket;

/** Options of the loopback listener. */
export interface McpListenerOptions {
  /** TCP port on 127.0.0.1; 0 lets the system choose. */
  port: number;
  /** Bearer token clients must send; never logged. */
  token: string;
  /**
   * Builds one MCP server per 2025-11-25 session, and one per 2026-07-28 request; the scope says
   * who the client is and where "allow for this session" is kept (mcp/server.ts).
   */
  createServer: (scope: ServerScope) => McpProtocolServer;
  logger: Logger;
  /** Largest accepted request body (bytes). */
  maxBodyBytes?: number;
  /**
   * Most sessions at once. A new session past it first closes the least recently used session
   * with no request in flight (a client that went away without DELETE); 503 only when every
   * session is busy.
   */
  maxSessions?: number;
  /** A session unused this long is closed. */
  idleMs?: number;
}

/** A running listener. */
export interface McpListener {
  url: string;
  port: number;
  /** Number of open MCP sessions (2025-11-25 clients; a 2026-07-28 client opens none). */
  sessionCount(): number;
  /** Closes the listener, every session and every connection. */
  close(): Promise<void>;
}

/** Raised when the port is taken; the message says how to choose another. */
export class PortInUseError extends Error {
  override readonly name = "PortInUseError";
  constructor(readonly port: number) {
    super(`Port ${port} on 127.0.0.1 is already in use; stop the other program or choose another port.`);
  }
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpProtocolServer;
  /** When its last request arrived or finished. */
  lastSeen: number;
  /**
   * POST and DELETE requests of the session being answered. A GET (the standalone SSE stream a
   * client may hold open for server notifications, which we never send) does not count: it stays
   * open as long as the client's process does, and says nothing about whether it still uses the session.
   */
  inFlight: number;
}

/** Why a session ended, as logged. */
type CloseReason = "deleted" | "idle" | "cap" | "shutdown";

const DEFAULT_MAX_BODY = 16 * 1024 * 1024;
/** Client names whose "allow for this session" answers a 2026-07-28 endpoint keeps (least recently used go first). */
const MAX_MODERN_CLIENTS = 32;
const MCP_PATH = "/mcp";

/** Starts the endpoint; resolves once it listens. */
export async function startMcpListener(options: McpListenerOptions): Promise<McpListener> {
  const node = nodeApis();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const maxSessions = options.maxSessions ?? 32;
  const idleMs = options.idleMs ?? 30 * 60 * 1000;
  const sessions = new Map<string, Session>();
  const sockets = new Set<Socket>();
  let port = options.port;

  // 2026-07-28: no session, so "allow this tool for this session", the bulk guard's count and the
  // journal's session name last while the endpoint runs, per client name (the name every request
  // carries in its envelope), for a bounded set of names.
  const modernClients = new Map<string, { allowed: Set<string>; id: string; writes: SessionWrites }>();
  const clientScope = (client: string): { allowed: Set<string>; id: string; writes: SessionWrites } => {
    let scope = modernClients.get(client);
    if (scope !== undefined) modernClients.delete(client);
    else scope = { allowed: new Set<string>(), id: newSessionId(), writes: new SessionWrites() };
    modernClients.set(client, scope);
    if (modernClients.size > MAX_MODERN_CLIENTS) modernClients.delete(modernClients.keys().next().value as string);
    return scope;
  };
  // The SDK's 2026-07-28 entry, strict: 2025-era traffic never reaches it (it goes to the
  // sessions below). It checks the envelope and the MCP-Protocol-Version, Mcp-Method and
  // Mcp-Name headers against the body and answers a mismatch with that revision's codes.
  const modern = createMcpHandler(
    () => options.createServer({ allowed: (client) => clientScope(client).allowed, session: clientScope }),
    {
      legacy: "reject",
      maxRequestBodySize: maxBodyBytes,
      maxSubscriptions: maxSessions,
      // The SDK's message may quote what the client sent (a header, a name): never the token.
      onerror: (error) =>
        options.logger.debug("mcp_modern_rejected", { error: error.message.split(options.token).join("<token>") }),
    },
  );

  // The one way out of `sessions`. Session ids are never logged (with the token they open the session).
  const closeSession = async (id: string, reason: CloseReason): Promise<void> => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    if (reason === "idle" || reason === "cap")
      options.logger.info("mcp_session_evicted", { reason, open_sessions: sessions.size });
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch(() => undefined);
  };
  const evictIdle = async (): Promise<void> => {
    const cutoff = Date.now() - idleMs;
    const stale = [...sessions]
      .filter(([, session]) => session.inFlight === 0 && session.lastSeen < cutoff)
      .map(([id]) => id);
    await Promise.all(stale.map((id) => closeSession(id, "idle")));
  };
  // At the cap: the least recently used session with nothing in flight makes room.
  const evictLeastRecent = async (): Promise<void> => {
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) {
      if (entry[1].inFlight === 0 && (oldest === undefined || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
    }
    if (oldest !== undefined) await closeSession(oldest[0], "cap");
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const origin = header(req, "origin");
    const path = (req.url ?? "").split("?")[0];
    if (path !== MCP_PATH) return reply(res, 404, "Not found; the MCP endpoint is /mcp.");
    if (!isAllowedHost(header(req, "host"), port))
      return reply(res, 403, "Forbidden host; connect to 127.0.0.1 or localhost.");
    if (!isAllowedOrigin(origin)) return reply(res, 403, "Forbidden origin; only local clients may use this endpoint.");
    if (origin) setCors(res, origin);
    if (req.method === "OPTIONS") {
      res.writeHead(204).end();
      return;
    }
    if (!bearerMatches(header(req, "authorization"), options.token)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="hackmd-bridge"');
      return reply(res, 401, "Unauthorized; send Authorization: Bearer <endpoint token>.");
    }
    let body: unknown;
    if (req.method === "POST") {
      const read = await readJsonBody(req, maxBodyBytes);
      if (read.status !== 200) return reply(res, read.status, read.message);
      body = read.value;
      // A message nested too deep was cut before parsing; only a tools/call with too-deep
      // arguments goes on (its handler answers invalid_input), anything else is answered here.
      const tooDeep = read.cut ? messageTooDeepError(body) : undefined;
      if (tooDeep !== undefined) {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify(tooDeep));
        return;
      }
    }
    const request = toFetchRequest(req, res);
    if (!(await isLegacyRequest(request, body, { maxRequestBodySize: maxBodyBytes }))) {
      const response = await modern.fetch(request, body === undefined ? {} : { parsedBody: body });
      await writeFetchResponse(res, await withoutToken(response, options.token));
      return;
    }
    // 2025-11-25 has no Mcp-Method or Mcp-Name header; one that is sent must still match the body.
    const mismatch = legacyHeaderMismatch(req, body);
    if (mismatch !== undefined) {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify(mismatch));
      return;
    }
    const sessionId = header(req, "mcp-session-id");
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return replyJsonRpc(res, 404, "Session not found; initialize a new session.");
      session.lastSeen = Date.now();
      if (req.method === "GET") return answerWithTransport(session.transport, request, res, body, options.token);
      session.inFlight += 1;
      try {
        await answerWithTransport(session.transport, request, res, body, options.token);
      } finally {
        session.inFlight -= 1;
        session.lastSeen = Date.now();
      }
      return;
    }
    if (req.method !== "POST" || !isInitializeRequest(body)) {
      return replyJsonRpc(res, 400, "Bad request; send initialize first, then the Mcp-Session-Id header it returns.");
    }
    await evictIdle();
    if (sessions.size >= maxSessions) await evictLeastRecent();
    if (sessions.size >= maxSessions)
      return replyJsonRpc(res, 503, "Too many sessions busy at once; close one and retry.");
    const clientInfo = (body as { params?: { clientInfo?: { name?: unknown } } }).params?.clientInfo;
    const clientName = typeof clientInfo?.name === "string" && clientInfo.name !== "" ? clientInfo.name : undefined;
    const server = options.createServer({ clientName: () => clientName });
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => node.crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, lastSeen: Date.now(), inFlight: 0 });
      },
    });
    // DELETE closes the transport itself; the server is closed with it (closeSession is a no-op
    // for a session already removed, so the close that closeSession starts does not recurse).
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && sessions.get(id)?.transport === transport) void closeSession(id, "deleted");
    };
    await server.connect(transport);
    await answerWithTransport(transport, request, res, body, options.token);
  };

  const http: HttpServer = node.http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger.error("mcp_http_error", { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) reply(res, 500, "Internal error.");
      else res.end();
    });
  });
  http.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeSystemError): void => {
      reject(error.code === "EADDRINUSE" ? new PortInUseError(options.port) : error);
    };
    http.once("error", onError);
    http.listen(options.port, "127.0.0.1", () => {
      http.off("error", onError);
      resolve();
    });
  });
  const address = http.address();
  port = typeof address === "object" && address ? address.port : options.port;
  const sweeper = node.timers.setInterval(() => void evictIdle(), Math.min(idleMs, 60_000));
  sweeper.unref();

  return {
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    port,
    sessionCount: () => sessions.size,
    close: async () => {
      node.timers.clearInterval(sweeper);
      await modern.close().catch(() => undefined);
      await Promise.all([...sessions.keys()].map((id) => closeSession(id, "shutdown")));
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function setCors(res: ServerResponse, origin: string): void {
  res.setHeader("Access-Control-Allow-Origin", origin);
  res.setHeader("Vary", "Origin");
  res.setHeader("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
  res.setHeader(
    "Access-Control-Allow-Headers",
    "authorization, content-type, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id",
  );
  res.setHeader("Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version");
}

/**
 * The JSON-RPC error for a 2025-11-25 request whose `Mcp-Method` or `Mcp-Name` header (headers of
 * the 2026-07-28 revision, which a client may send to either) names another method or tool than
 * its body: -32600, that revision's code for a request it cannot take. Undefined when they match
 * or are absent.
 */
function legacyHeaderMismatch(req: IncomingMessage, body: unknown): object | undefined {
  const method = header(req, "mcp-method");
  const name = header(req, "mcp-name");
  if ((method === undefined && name === undefined) || body === null || typeof body !== "object" || Array.isArray(body))
    return undefined;
  const message = body as { id?: unknown; method?: unknown; params?: { name?: unknown } };
  const id = typeof message.id === "string" || typeof message.id === "number" ? message.id : null;
  const refuse = (what: string): object => ({
    jsonrpc: "2.0",
    id,
    error: { code: -32600, message: `Invalid Request: the ${what} header does not match the request body.` },
  });
  if (method !== undefined && method !== message.method) return refuse("Mcp-Method");
  if (name !== undefined && message.method === "tools/call" && name !== message.params?.name) return refuse("Mcp-Name");
  return undefined;
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(`${message}\n`);
}

function replyJsonRpc(res: ServerResponse, status: number, message: string): void {
  res
    .writeHead(status, { "content-type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

async function readJsonBody(
  req: IncomingMessage,
  maxBytes: number,
): Promise<{ status: 200; value: unknown; cut: boolean } | { status: 400 | 413; message: string }> {
  const tooLarge = { status: 413 as const, message: `Request body too large; the limit is ${maxBytes} bytes.` };
  const declared = Number(header(req, "content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return tooLarge;
  }
  const chunks: NodeBuffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as NodeBuffer;
    size += buffer.byteLength;
    if (size > maxBytes) {
      req.resume();
      return tooLarge;
    }
    chunks.push(buffer);
  }
  try {
    // Bounded: the nesting is checked in one pass over the text before JSON.parse (mcp/json-depth.ts).
    const { value, cut } = parseJsonBounded(nodeApis().buffer.Buffer.concat(chunks).toString("utf8"));
    return { status: 200, value, cut };
  } catch {
    return { status: 400, message: "Request body is not valid JSON." };
  }
}
