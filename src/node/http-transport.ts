/**
 * The Node host's HttpTransport on `node:http` / `node:https` (docs/tools.md §6.1): connect, headers,
 * idle and total timeouts; the response cap enforced on the declared length and while streaming;
 * no redirects followed; `TransportError.sent` false only when no connection was ever opened.
 */
import { Buffer } from "node:buffer";
import * as http from "node:http";
import * as https from "node:https";
import type { Socket } from "node:net";
import { clearTimeout, setTimeout } from "node:timers";
import { TransportError, type HttpRequest, type HttpResponse, type HttpTransport } from "../core/ports";

/** Options of the Node transport. */
export interface NodeHttpTransportOptions {
  /** Extra TLS options (tests pass a CA); never used to weaken certificate checks by default. */
  tls?: Pick<https.RequestOptions, "ca" | "rejectUnauthorized">;
  /** A DNS lookup replacing the system resolver (tests use one that never answers). */
  lookup?: https.RequestOptions["lookup"];
}

/** HttpTransport over Node's http and https modules, one fresh connection per request. */
export class NodeHttpTransport implements HttpTransport {
  private readonly tls: NodeHttpTransportOptions["tls"];
  private readonly lookup: NodeHttpTransportOptions["lookup"];

  constructor(options: NodeHttpTransportOptions = {}) {
    this.tls = options.tls;
    this.lookup = options.lookup;
  }

  /** Sends one request; resolves with any HTTP status, rejects only with TransportError. */
  request(request: HttpRequest): Promise<HttpResponse> {
    return new Promise<HttpResponse>((resolve, reject) => {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch (error) {
        reject(new TransportError("connect", false, "the request URL is invalid", { cause: error }));
        return;
      }
      const isHttps = url.protocol === "https:";
      if (!isHttps && url.protocol !== "http:") {
        reject(new TransportError("connect", false, `unsupported scheme ${url.protocol}`));
        return;
      }
      const body =
        request.body === undefined
          ? undefined
          : typeof request.body === "string"
            ? Buffer.from(request.body, "utf8")
            : Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
      const headers: Record<string, string> = { ...request.headers };
      if (body !== undefined || request.method === "POST" || request.method === "PUT" || request.method === "PATCH") {
        headers["content-length"] = String(body?.byteLength ?? 0);
      }
      const { timeouts, maxResponseBytes } = request;

      let connected = false;
      let settled = false;
      const timers = new Set<ReturnType<typeof setTimeout>>();
      let idleTimer: ReturnType<typeof setTimeout> | undefined;
      const options: https.RequestOptions = {
        method: request.method,
        headers,
        // A fresh connection per request: a stale keep-alive socket would turn a write into
        // "may have landed" for no reason.
        agent: false,
        ...(isHttps ? (this.tls ?? {}) : {}),
        ...(this.lookup === undefined ? {} : { lookup: this.lookup }),
      };
      const req = (isHttps ? https : http).request(url, options);

      const finish = (outcome: { response: HttpResponse } | { error: TransportError }): void => {
        if (settled) return;
        settled = true;
        for (const timer of timers) clearTimeout(timer);
        if (idleTimer !== undefined) clearTimeout(idleTimer);
        if ("response" in outcome) {
          resolve(outcome.response);
        } else {
          req.destroy();
          reject(outcome.error);
        }
      };
      const fail = (failure: TransportError["failure"], message: string, cause?: unknown): void => {
        const sent = failure === "connect" ? false : connected;
        finish({ error: new TransportError(failure, sent, message, cause === undefined ? undefined : { cause }) });
      };
      const after = (ms: number, onTimeout: () => void): void => {
        const timer = setTimeout(onTimeout, Math.max(0, ms));
        timers.add(timer);
      };

      after(timeouts.totalMs, () => fail("timeout", "the request ran past its total time limit"));
      const headersTimer = setTimeout(
        () => fail("timeout", "no response headers in time"),
        Math.max(0, timeouts.headersMs),
      );
      timers.add(headersTimer);
      const connectTimer = setTimeout(
        () => {
          if (!connected) fail("timeout", "could not connect in time");
        },
        Math.max(0, timeouts.connectMs),
      );
      timers.add(connectTimer);

      const markConnected = (): void => {
        connected = true;
        clearTimeout(connectTimer);
      };
      req.on("socket", (socket: Socket) => {
        const event = isHttps ? "secureConnect" : "connect";
        if (!socket.connecting && (!isHttps || (socket as { encrypted?: boolean }).encrypted === true)) {
          markConnected();
        } else {
          socket.once(event, markConnected);
        }
      });
      req.on("error", (error) => {
        fail(connected ? "reset" : "connect", connected ? "the connection broke" : "could not connect", error);
      });
      req.on("response", (res) => {
        clearTimeout(headersTimer);
        const declared = res.headers["content-length"];
        if (declared !== undefined && Number(declared) > maxResponseBytes) {
          fail("too_large", "the declared response length exceeds the cap");
          res.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        const armIdle = (): void => {
          if (idleTimer !== undefined) clearTimeout(idleTimer);
          idleTimer = setTimeout(() => fail("timeout", "the response body stalled"), Math.max(0, timeouts.idleMs));
        };
        armIdle();
        res.on("data", (chunk: Buffer) => {
          received += chunk.byteLength;
          if (received > maxResponseBytes) {
            fail("too_large", "the response body exceeds the cap");
            res.destroy();
            return;
          }
          chunks.push(chunk);
          armIdle();
        });
        res.on("end", () => {
          const merged = Buffer.concat(chunks, received);
          finish({
            response: {
              status: res.statusCode ?? 0,
              headers: lowerCaseHeaders(res.headers),
              body: new Uint8Array(merged.buffer, merged.byteOffset, merged.byteLength),
            },
          });
        });
        res.on("error", (error) => fail("reset", "the response was cut off", error));
        res.on("close", () => {
          if (!res.complete) fail("reset", "the response was cut off");
        });
      });

      if (body !== undefined) req.end(body);
      else req.end();
    });
  }
}

function lowerCaseHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
