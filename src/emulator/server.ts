/** The HTTP listener and the request pipeline of §2.3, in that order. */
import { Buffer } from "node:buffer";
import process from "node:process";
import { setTimeout } from "node:timers";
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { EmulatorCore } from "./core";
import type { FaultRecord, FaultRequest } from "./faults";
import { isObject, type Reply, type RouteContext } from "./http";
import { loggableHeaders } from "./log";
import type { RateTarget } from "./rate-limit";
import { matchRoute } from "./router";
import type { RequestLogEntry, UserRecord } from "./types";

/** Settings of the pipeline that do not change at run time. */
export interface PipelineOptions {
  basePath: string;
  origin: () => string;
  /** Handles `/__emulator/…` when the control interface is enabled. */
  control: ((req: IncomingMessage, res: ServerResponse, body: Buffer) => void) | null;
  /** Called after every request that may have changed data (any method but GET and HEAD). */
  afterWrite?: () => void;
}

// Unref'd so a delayed reply never keeps a test run alive after close().
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

class BodyTooLarge extends Error {}

/** Reads a request body, refusing more than `max` bytes. */
export async function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > max) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.byteLength;
    if (size > max) throw new BodyTooLarge();
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** Writes a reply; an empty reply gets neither a body nor a Content-Type. */
export function sendReply(res: ServerResponse, reply: Reply, extra: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  const headers: Record<string, string> = { ...extra, ...reply.headers };
  let payload: string | undefined;
  if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    headers["Content-Type"] = "application/json; charset=utf-8";
  } else if (reply.text !== undefined) {
    payload = reply.text;
    headers["Content-Type"] = "text/plain; charset=utf-8";
  }
  if (reply.status === 204 || reply.status === 304) payload = undefined;
  // Encoded once: counting the bytes of a 1 MB reply and then writing it encoded it twice.
  const bytes = payload === undefined ? undefined : Buffer.from(payload, "utf8");
  if (bytes !== undefined) headers["Content-Length"] = String(bytes.byteLength);
  else if (reply.status !== 204 && reply.status !== 304) headers["Content-Length"] = "0";
  res.writeHead(reply.status, headers);
  res.end(bytes);
}

function bearer(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

function notFound(): Reply {
  return { status: 404, json: { error: "Not found" } };
}

/** The default body of an injected status, in the route's dialect. */
function faultReply(fault: FaultRecord, route: string | null, family: string | null): Reply {
  const action = fault.action as { status: number; body?: unknown; headers?: Record<string, string> };
  const reply: Reply = { status: action.status, headers: { ...action.headers } };
  if (action.body !== undefined) {
    if (typeof action.body === "string") reply.text = action.body;
    else reply.json = action.body;
    return reply;
  }
  const text = STATUS_CODES[action.status] ?? "Error";
  if (family === "images") reply.json = { message: text };
  else if (action.status === 500 && route !== null && /^PATCH .*notes\/:noteId$/.test(route)) {
    reply.json = { error: "Failed to update note" };
  } else reply.json = { error: text };
  return reply;
}

/** Handles one request through the pipeline. */
export async function handleRequest(
  core: EmulatorCore,
  options: PipelineOptions,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const rawPath = req.url ?? "/";
  const url = new URL(rawPath, "http://127.0.0.1");
  const pathname = url.pathname;
  const method = (req.method ?? "GET").toUpperCase();

  // 1. Control interface and uploaded images: neither logged nor limited.
  if (options.control && (pathname === "/__emulator" || pathname.startsWith("/__emulator/"))) {
    let body: Buffer;
    try {
      body = await readBody(req, 64 * 1024 * 1024);
    } catch {
      sendReply(res, { status: 413, json: { error: "Payload too large" } });
      return;
    }
    options.control(req, res, body);
    if (method !== "GET" && method !== "HEAD") options.afterWrite?.();
    return;
  }
  // Images are public like HackMD's CDN; HEAD answers as GET does, without the body.
  if ((method === "GET" || method === "HEAD") && pathname.startsWith("/_uploads/")) {
    const image = core.store.images.get(decodeURIComponent(pathname.slice("/_uploads/".length)));
    if (!image) return sendReply(res, notFound());
    res.writeHead(200, { "Content-Type": image.contentType, "Content-Length": String(image.bytes.byteLength) });
    res.end(method === "HEAD" ? undefined : image.bytes);
    return;
  }

  // 2. Open the log entry; it closes when the reply ends or the socket goes away.
  const at = core.now();
  const entry: RequestLogEntry = core.log.open({
    at,
    durationMs: null,
    method,
    path: rawPath,
    route: null,
    user: null,
    headers: loggableHeaders(req.headers),
    bodyBytes: 0,
    bodyKeys: null,
    status: null,
    fault: null,
    committed: false,
    rateLimited: false,
  });
  res.on("close", () => {
    entry.status = res.writableFinished ? res.statusCode : null;
    entry.durationMs = core.now() - at;
  });
  const noteFault = (fault: FaultRecord): void => {
    if (entry.fault === null || "status" in fault.action || "drop" in fault.action) entry.fault = fault.id;
  };

  // 3. Base path, route table, hidden families.
  const base = options.basePath;
  const inside = pathname === base || pathname.startsWith(`${base}/`);
  const match = inside ? matchRoute(method, pathname.slice(base.length)) : null;
  if (!match || core.quirks.hiddenRouteFamilies.includes(match.def.family)) return sendReply(res, notFound());
  entry.route = match.template;
  const token = bearer(req);
  const user: UserRecord | undefined = token === null ? undefined : core.store.userByToken(token);
  const faultReq: FaultRequest = { method, route: match.template, rawPath, pathname, user: user?.userPath ?? null };

  // 4. Added latency.
  const latencyFaults = core.faults.latencies(faultReq, "before-commit");
  latencyFaults.forEach(noteFault);
  const delay =
    core.quirks.latencyMs +
    latencyFaults.reduce((sum, f) => sum + ("latencyMs" in f.action ? f.action.latencyMs : 0), 0);
  if (delay > 0) await sleep(delay);
  if (res.destroyed) return;

  // 5. Authentication.
  if (!user) {
    const body: Reply =
      core.quirks.unauthorizedBody === "json"
        ? { status: 401, json: { error: "Unauthorized" } }
        : { status: 401, text: "Unauthorized" };
    return sendReply(res, body);
  }
  entry.user = user.userPath;

  // 6. Rate limiting.
  let rateHeaders: Record<string, string> = {};
  if (core.quirks.rateLimit.enabled) {
    const verdict = core.limiter.check(
      core.now(),
      rateTarget(core, user, match.params.teamPath),
      core.quirks.rateLimit,
    );
    rateHeaders = verdict.headers;
    if (verdict.limited !== null) {
      entry.rateLimited = true;
      return sendReply(res, { status: 429, json: { error: "Too Many Requests" } }, rateHeaders);
    }
  }

  // 7. Body.
  let rawBody: Buffer;
  try {
    rawBody = await readBody(req, core.quirks.maxRequestBytes);
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      return sendReply(
        res,
        { status: 413, json: { error: "Payload too large" } },
        { ...rateHeaders, Connection: "close" },
      );
    }
    return;
  }
  entry.bodyBytes = rawBody.byteLength;
  const contentType = req.headers["content-type"] ?? "";
  let body: unknown;
  if (rawBody.byteLength > 0 && !contentType.toLowerCase().startsWith("multipart/")) {
    try {
      body = JSON.parse(rawBody.toString("utf8"));
    } catch {
      return sendReply(res, { status: 400, json: { error: "Invalid JSON" } }, rateHeaders);
    }
    entry.bodyKeys = isObject(body) ? Object.keys(body) : null;
  }

  // 8. Faults before the commit.
  const before = core.faults.terminal(faultReq, "before-commit");
  if (before) {
    noteFault(before);
    if ("drop" in before.action) {
      req.socket.destroy();
      return;
    }
    return sendReply(res, faultReply(before, match.template, match.def.family), rateHeaders);
  }

  // 9. The handler.
  const ctx: RouteContext = {
    store: core.store,
    quirks: core.quirks,
    now: core.now(),
    user,
    params: match.params,
    query: url.searchParams,
    body,
    rawBody,
    contentType,
    headers: req.headers,
    ids: core.ids,
    origin: options.origin(),
    takeFault: (kind) => {
      const fault = core.faults.inline(faultReq, kind);
      if (fault) noteFault(fault);
      return fault !== undefined;
    },
  };
  let reply: Reply;
  try {
    reply = match.def.handler(ctx);
  } catch (error) {
    process.stderr.write(`emulator: handler failed: ${String(error)}\n`);
    reply = { status: 500, json: { error: "Internal server error" } };
  }
  entry.committed = reply.committed === true;

  // 10. Faults after the commit.
  const afterLatency = core.faults.latencies(faultReq, "after-commit");
  afterLatency.forEach(noteFault);
  const afterDelay = afterLatency.reduce((sum, f) => sum + ("latencyMs" in f.action ? f.action.latencyMs : 0), 0);
  if (afterDelay > 0) await sleep(afterDelay);
  if (res.destroyed) return;
  const after = core.faults.terminal(faultReq, "after-commit");
  if (after) {
    noteFault(after);
    if ("drop" in after.action) {
      req.socket.destroy();
      return;
    }
    reply = faultReply(after, match.template, match.def.family);
  }

  // 11. Reply.
  sendReply(res, reply, rateHeaders);
  if (method !== "GET" && method !== "HEAD") options.afterWrite?.();
}

function rateTarget(core: EmulatorCore, user: UserRecord, teamPath: string | undefined): RateTarget {
  const team = teamPath === undefined ? undefined : core.store.teamByPath(teamPath, core.quirks.teamPathCaseSensitive);
  if (team && core.store.roleIn(team, user.id) !== undefined) {
    return { userId: user.id, scope: "team", id: team.id, upgraded: team.upgraded };
  }
  return { userId: user.id, scope: "user", id: user.id, upgraded: user.upgraded };
}
