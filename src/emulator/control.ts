/**
 * The HTTP control interface under `/__emulator/` (§2.12): mirrors the in-process methods for
 * the emulator process. Requires a loopback Host and the printed token.
 */
import type { Buffer } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { EmulatorCore } from "./core";
import { isObject, type Reply } from "./http";
import { sendReply } from "./server";
import type { FaultSpec, SeedThread } from "./types";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

function loopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : (host.split(":")[0] ?? "");
  return LOOPBACK_HOSTS.has(name.toLowerCase());
}

function ok(json: unknown): Reply {
  return { status: 200, json };
}

function bad(message: string): Reply {
  return { status: 400, json: { error: message } };
}

/** A fault spec from JSON: `{"regex": "…"}` becomes a RegExp and `null`/"Infinity" times unlimited. */
function faultFromJson(value: unknown): FaultSpec | null {
  if (!isObject(value) || !isObject(value.match) || !isObject(value.action)) return null;
  const match = { ...value.match } as Record<string, unknown>;
  if (isObject(match.path) && typeof match.path.regex === "string") match.path = new RegExp(match.path.regex);
  const times = value.times === null || value.times === "Infinity" ? Infinity : value.times;
  return { ...value, match, times } as unknown as FaultSpec;
}

function route(core: EmulatorCore, method: string, path: string, query: URLSearchParams, body: unknown): Reply {
  const noteAction = /^notes\/([^/]+)\/(collaborator-edit|collaborator-delete)$/.exec(path);
  if (noteAction && method === "POST") {
    const noteId = decodeURIComponent(noteAction[1] ?? "");
    if (!core.store.notes.has(noteId)) return { status: 404, json: { error: "Note not found" } };
    if (noteAction[2] === "collaborator-delete") core.collaboratorDelete(noteId);
    else {
      const { as, ...change } = isObject(body) ? body : {};
      core.collaboratorEdit(noteId, change, typeof as === "string" ? { as } : {});
    }
    return { status: 204 };
  }
  const comments = /^notes\/([^/]+)\/comments$/.exec(path);
  if (comments && method === "PUT") {
    const noteId = decodeURIComponent(comments[1] ?? "");
    if (!core.store.notes.has(noteId)) return { status: 404, json: { error: "Note not found" } };
    if (!isObject(body) || !Array.isArray(body.threads)) return bad('the body must be {"threads": [...]}');
    core.setComments(noteId, body.threads as SeedThread[]);
    return { status: 204 };
  }
  const faultId = /^faults\/([^/]+)$/.exec(path);
  if (faultId && method === "DELETE") {
    return core.faults.remove(decodeURIComponent(faultId[1] ?? ""))
      ? { status: 204 }
      : { status: 404, json: { error: "Fault not found" } };
  }
  switch (`${method} ${path}`) {
    case "POST reset": {
      const seed = isObject(body) ? body.seed : undefined;
      if (seed !== undefined && seed !== "empty" && seed !== "demo") return bad("seed must be empty or demo");
      core.reset(seed);
      return { status: 204 };
    }
    case "POST seed":
      return isObject(body) ? ok(core.seed(body)) : bad("seed data must be an object");
    case "GET quirks":
      return ok(core.quirks);
    case "PATCH quirks":
      return isObject(body) ? ok(core.setQuirks(body)) : bad("quirks must be an object");
    case "GET faults":
      return ok(
        core.faults.list().map((f) => ({
          ...f,
          match: { ...f.match, path: f.match.path instanceof RegExp ? { regex: f.match.path.source } : f.match.path },
          times: Number.isFinite(f.times) ? f.times : null,
          remaining: Number.isFinite(f.times) ? Math.max(0, f.times - f.hits) : null,
        })),
      );
    case "POST faults": {
      const spec = faultFromJson(body);
      if (!spec) return bad("a fault needs match and action objects");
      return { status: 201, json: { id: core.faults.add(spec).id } };
    }
    case "DELETE faults":
      core.faults.clear();
      return { status: 204 };
    case "GET requests": {
      const since = Number(query.get("since") ?? "0");
      return ok(
        core.log.list({
          since: Number.isFinite(since) ? since : 0,
          ...(query.get("method") !== null ? { method: query.get("method") ?? "" } : {}),
          ...(query.get("route") !== null ? { route: query.get("route") ?? "" } : {}),
        }),
      );
    }
    case "DELETE requests":
      core.log.clear();
      return { status: 204 };
    case "POST flush":
      core.store.flushAll();
      return { status: 204 };
    case "GET state":
      return ok(core.store.snapshot());
    default:
      return { status: 404, json: { error: "Not found" } };
  }
}

/** Answers one control request. */
export function handleHttpControl(core: EmulatorCore, req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
  if (!loopbackHost(req.headers.host)) return sendReply(res, { status: 403, json: { error: "Forbidden" } });
  const auth = req.headers.authorization ?? "";
  if (auth !== `Bearer ${core.token}`) {
    return sendReply(res, { status: 401, json: { error: "Unauthorized" }, headers: { "WWW-Authenticate": "Bearer" } });
  }
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  let body: unknown;
  if (raw.byteLength > 0) {
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return sendReply(res, bad("Invalid JSON"));
    }
  }
  const path = url.pathname.replace(/^\/__emulator\/?/, "").replace(/\/+$/, "");
  let reply: Reply;
  try {
    reply = route(core, (req.method ?? "GET").toUpperCase(), path, url.searchParams, body);
  } catch (error) {
    reply = bad(error instanceof Error ? error.message : String(error));
  }
  sendReply(res, reply);
}
