/**
 * Answers a Node HTTP request with the SDK's web-standard handlers: the request becomes a fetch
 * `Request` (its body already parsed by the listener, so none is copied), and the `Response` —
 * of the 2025-11-25 session transport or of the 2026-07-28 per-request handler — is written back,
 * streaming an SSE body as it comes. This is all the SDK's Node adapter (`@modelcontextprotocol/node`)
 * would do for us, through `@hono/node-server` (~21 KB in main.js); docs/architecture.md, "The bundle",
 * and docs/adr/0006-mcp-v2-both-revisions.md.
 */
type IncomingMessage = import("node:http").IncomingMessage;
type ServerResponse = import("node:http").ServerResponse;
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";

/** The Node request as a fetch `Request` without a body (the listener has parsed it); aborted when the client goes away. */
export function toFetchRequest(req: IncomingMessage, res: ServerResponse): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  // The client going away before the response ended aborts the request and cancels the
  // response's stream. After a response that ended there is nothing to abort (aborting anyway
  // cost every call the SDK's abort listeners and their DOMException and SdkError).
  const aborted = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) aborted.abort();
  });
  return new Request(`http://127.0.0.1${req.url ?? "/"}`, {
    method: req.method ?? "GET",
    headers,
    signal: aborted.signal,
  });
}

/** Writes a fetch `Response` to the Node response; resolves when it has ended (an SSE stream included). */
export async function writeFetchResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) {
    res.end();
    return;
  }
  // An SSE stream may stay silent for a while: the client gets the headers now.
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = (): void => void reader.cancel().catch(() => undefined);
  res.once("close", cancel);
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      if (!res.write(chunk.value)) await new Promise((resolve) => res.once("drain", resolve));
    }
  } catch {
    // The stream was cancelled (the client left) or failed; the response ends either way.
  } finally {
    res.off("close", cancel);
    if (!res.writableEnded) res.end();
  }
}

/**
 * A refusal of the SDK's transports quotes what the client sent (an `Mcp-Name` or
 * `MCP-Protocol-Version` header, a name): an error answer (status ≥ 400, JSON) is read and the endpoint token replaced, so it never
 * appears in an answer. Other answers are streamed as they are (tool results are scrubbed by
 * `mcp/result.ts`).
 */
export async function withoutToken(response: Response, token: string): Promise<Response> {
  if (response.status < 400 || !(response.headers.get("content-type") ?? "").includes("application/json"))
    return response;
  const text = await response.text();
  if (!text.includes(token)) return new Response(text, { status: response.status, headers: response.headers });
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(text.split(token).join("<token>"), { status: response.status, headers });
}

/** Answers `req` through a 2025-11-25 session transport; resolves when the response has ended. */
export async function answerWithTransport(
  transport: WebStandardStreamableHTTPServerTransport,
  request: Request,
  res: ServerResponse,
  parsedBody: unknown,
  token: string,
): Promise<void> {
  const response = await transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody });
  await writeFetchResponse(res, await withoutToken(response, token));
}
