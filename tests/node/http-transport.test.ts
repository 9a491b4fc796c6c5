/** The Node transport over real loopback HTTP (docs/tools.md §6.1). */
import { TransportError, type HttpRequest, type HttpTimeouts } from "../../src/core/ports";
import { NodeHttpTransport } from "../../src/node/http-transport";
import { startScriptedServer, type ScriptedServer } from "../fakes/scripted-server";
import { freePort } from "../helpers/ports";

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer("");
});
afterEach(async () => {
  await server.close();
});

const roomy: HttpTimeouts = { connectMs: 2_000, headersMs: 2_000, idleMs: 2_000, totalMs: 5_000 };
const transport = new NodeHttpTransport();

function request(partial: Partial<HttpRequest> = {}): HttpRequest {
  return {
    method: "GET",
    url: `${server.url}/path`,
    headers: {},
    timeouts: roomy,
    maxResponseBytes: 1_000_000,
    ...partial,
  };
}

async function rejection(promise: Promise<unknown>): Promise<TransportError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TransportError) return error;
    throw error;
  }
  throw new Error("expected a TransportError");
}

describe("NodeHttpTransport", () => {
  it("returns any status with lower-cased headers and the raw body bytes", async () => {
    server.script({ status: 404, headers: { "X-Custom-Header": "Yes", "Content-Type": "text/plain" }, body: "nope" });
    const response = await transport.request(request());
    expect(response.status).toBe(404);
    expect(response.headers["x-custom-header"]).toBe("Yes");
    expect(response.headers["content-type"]).toBe("text/plain");
    expect(Buffer.from(response.body).toString()).toBe("nope");
  });

  it("sends method, headers and body with a Content-Length", async () => {
    server.script({ status: 202 });
    const body = new TextEncoder().encode('{"a":"é"}');
    await transport.request(
      request({ method: "PATCH", headers: { "content-type": "application/json", authorization: "Bearer t" }, body }),
    );
    const [seen] = server.requests;
    expect(seen?.method).toBe("PATCH");
    expect(seen?.headers["content-length"]).toBe(String(body.byteLength));
    expect(seen?.headers.authorization).toBe("Bearer t");
    expect(seen?.body.toString()).toBe('{"a":"é"}');
  });

  it("sends Content-Length 0 for a bodiless PUT", async () => {
    server.script({ status: 204 });
    await transport.request(request({ method: "PUT" }));
    expect(server.requests[0]?.headers["content-length"]).toBe("0");
    expect(server.requests[0]?.headers["transfer-encoding"]).toBeUndefined();
  });

  it("does not follow redirects", async () => {
    server.script({ status: 307, headers: { location: `${server.url}/elsewhere` } }, { status: 200, body: "followed" });
    const response = await transport.request(request({ method: "POST", body: "x" }));
    expect(response.status).toBe(307);
    expect(server.requests).toHaveLength(1);
  });

  it("fails with connect and sent false when nothing listens", async () => {
    const port = await freePort();
    const error = await rejection(
      transport.request(request({ url: `http://127.0.0.1:${port}/x`, method: "POST", body: "x" })),
    );
    expect(error.failure).toBe("connect");
    expect(error.sent).toBe(false);
  });

  it("times out waiting for headers after connecting (sent true)", async () => {
    server.script({ hang: true });
    const started = Date.now();
    const error = await rejection(transport.request(request({ timeouts: { ...roomy, headersMs: 150 } })));
    expect(error.failure).toBe("timeout");
    expect(error.sent).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("times out when the body stalls between chunks", async () => {
    server.script({ status: 200, chunks: ["a", "b"], stall: true });
    const error = await rejection(transport.request(request({ timeouts: { ...roomy, idleMs: 150 } })));
    expect(error.failure).toBe("timeout");
    expect(error.sent).toBe(true);
  });

  it("keeps going while chunks arrive within the idle time, but enforces the total ceiling", async () => {
    server.script(
      { status: 200, chunks: ["a", "b", "c", "d"], chunkDelayMs: 60 },
      { status: 200, chunks: ["a", "b", "c", "d", "e", "f", "g", "h"], chunkDelayMs: 60 },
    );
    const ok = await transport.request(request({ timeouts: { ...roomy, idleMs: 200 } }));
    expect(Buffer.from(ok.body).toString()).toBe("abcd");
    const error = await rejection(transport.request(request({ timeouts: { ...roomy, idleMs: 200, totalMs: 250 } })));
    expect(error.failure).toBe("timeout");
  });

  it("stops the headers timer once headers arrive (a slow body is judged by the idle timer)", async () => {
    server.script({ status: 200, chunks: ["a", "b", "c", "d", "e"], chunkDelayMs: 60 });
    const response = await transport.request(request({ timeouts: { ...roomy, headersMs: 100, idleMs: 200 } }));
    expect(Buffer.from(response.body).toString()).toBe("abcde");
  });

  it("times out a connection that never completes (sent false)", async () => {
    // A resolver that never answers keeps the request in its connect phase.
    const stuck = new NodeHttpTransport({ lookup: () => undefined });
    const started = Date.now();
    const error = await rejection(
      stuck.request(
        request({
          url: "http://never.invalid:81/x",
          method: "POST",
          body: "x",
          timeouts: { ...roomy, connectMs: 120 },
        }),
      ),
    );
    expect(error).toMatchObject({ failure: "timeout", sent: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it("refuses a declared Content-Length over the cap before reading the body", async () => {
    server.script({ status: 200, headers: { "content-length": "2000" }, chunks: ["x"], stall: true });
    const error = await rejection(transport.request(request({ maxResponseBytes: 1000 })));
    expect(error.failure).toBe("too_large");
    expect(error.sent).toBe(true);
  });

  it("refuses an undeclared body as soon as it passes the cap", async () => {
    server.script({ status: 200, chunks: ["x".repeat(600), "y".repeat(600)], stall: true });
    const error = await rejection(transport.request(request({ maxResponseBytes: 1000 })));
    expect(error.failure).toBe("too_large");
  });

  it("accepts a body exactly at the cap", async () => {
    server.script({ status: 200, body: "z".repeat(1000) });
    const response = await transport.request(request({ maxResponseBytes: 1000 }));
    expect(response.body.byteLength).toBe(1000);
  });

  it("reports a connection cut after the headers as reset (sent true)", async () => {
    server.script({ status: 200, headers: { "content-length": "100" }, chunks: ["partial"], cut: true });
    const error = await rejection(transport.request(request()));
    expect(error.failure).toBe("reset");
    expect(error.sent).toBe(true);
  });

  it("reports a connection dropped before any response as reset (sent true)", async () => {
    server.script({ drop: true });
    const error = await rejection(transport.request(request({ method: "POST", body: "x" })));
    expect(error.failure).toBe("reset");
    expect(error.sent).toBe(true);
  });

  it("refuses an unsupported scheme without sending", async () => {
    const error = await rejection(transport.request(request({ url: "ftp://127.0.0.1/x" })));
    expect(error).toMatchObject({ failure: "connect", sent: false });
  });
});
