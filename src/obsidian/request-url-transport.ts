/**
 * The Obsidian host's HttpTransport on `requestUrl` (desktop and mobile). `requestUrl` cannot
 * refuse redirects, report when a connection opened, time out per phase or cap a body while it
 * streams (docs/tools.md §6.1), so this transport applies what it can: an overall timeout raced
 * against the request and the size cap checked on the received body. The gaps are recorded in
 * the repository's architecture notes.
 */
import { requestUrl, type RequestUrlParam } from "obsidian";
import { TransportError, type HttpRequest, type HttpResponse, type HttpTransport } from "../core/ports";

/** Timer functions; injected so tests and popout windows need no global `window`. */
export interface TransportTimers {
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(id: number): void;
}

/** Options of the requestUrl transport. */
export interface RequestUrlTransportOptions {
  /** Timers for the overall timeout; the plugin passes `window`. */
  timers: TransportTimers;
}

// Chromium/Electron and Node error codes that mean no connection was made, so nothing was sent.
const NOT_CONNECTED =
  /ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED|ERR_CONNECTION_REFUSED|ERR_ADDRESS_UNREACHABLE|ERR_INTERNET_DISCONNECTED|ERR_CERT_|ERR_SSL_|ERR_PROXY_CONNECTION_FAILED|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/;

/** HttpTransport over Obsidian's `requestUrl` with `throw: false`. */
export class RequestUrlTransport implements HttpTransport {
  private readonly timers: TransportTimers;

  constructor(options: RequestUrlTransportOptions) {
    this.timers = options.timers;
  }

  /** Sends one request; resolves with any HTTP status, rejects only with TransportError. */
  async request(request: HttpRequest): Promise<HttpResponse> {
    const headers: Record<string, string> = {};
    let contentType: string | undefined;
    for (const [name, value] of Object.entries(request.headers)) {
      if (name.toLowerCase() === "content-type") contentType = value;
      else headers[name] = value;
    }
    const param: RequestUrlParam = {
      url: request.url,
      method: request.method,
      headers,
      // Without this requestUrl throws for statuses >= 400 and hides the response.
      throw: false,
    };
    if (contentType !== undefined) param.contentType = contentType;
    if (request.body !== undefined) {
      param.body = typeof request.body === "string" ? request.body : toArrayBuffer(request.body);
    }

    // requestUrl follows redirects itself and offers no way to refuse them; the client never
    // sees the 3xx. Only an overall timeout can be enforced, raced against the request.
    let timer: number | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = this.timers.setTimeout(
        () => {
          // We cannot tell whether the request left the machine: assume it may have.
          reject(new TransportError("timeout", true, "the request ran past its time limit"));
        },
        Math.max(0, request.timeouts.totalMs),
      );
    });
    try {
      const response = await Promise.race([
        Promise.resolve(requestUrl(param)).catch((error: unknown) => {
          throw classify(error);
        }),
        timeout,
      ]);
      const body = new Uint8Array(response.arrayBuffer);
      if (body.byteLength > request.maxResponseBytes) {
        throw new TransportError("too_large", true, "the response body exceeds the cap");
      }
      return { status: response.status, headers: lowerCaseHeaders(response.headers), body };
    } finally {
      if (timer !== undefined) this.timers.clearTimeout(timer);
    }
  }
}

function classify(error: unknown): TransportError {
  if (error instanceof TransportError) return error;
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return NOT_CONNECTED.test(text)
    ? new TransportError("connect", false, "could not connect", { cause: error })
    : new TransportError("reset", true, "the request failed after it may have been sent", { cause: error });
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy.buffer;
}

function lowerCaseHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = String(value);
  return out;
}
