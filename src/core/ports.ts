/**
 * Ports: how the host-neutral core reaches the world (docs/architecture.md §1). Hosts pass one
 * dependencies object; the core never imports `obsidian` or `node:*`.
 */

/** Timeouts of one HTTP request, in milliseconds (docs/tools.md §6.1). */
export interface HttpTimeouts {
  /** Until the connection is established (where the transport can tell). */
  connectMs: number;
  /** Until the response headers arrive. */
  headersMs: number;
  /** Longest pause between response body chunks. */
  idleMs: number;
  /** Outer ceiling for the whole exchange. */
  totalMs: number;
}

/** One HTTP request as the core builds it. Header names are lower-case. */
export interface HttpRequest {
  method: "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  timeouts: HttpTimeouts;
  /** Responses larger than this are refused (declared length up front, streamed as they pass it). */
  maxResponseBytes: number;
}

/** One HTTP response. Header names are lower-case; `body` is the raw bytes. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** Why a transport gave no response. */
export type TransportFailure =
  /** The connection could not be made (DNS, refused, TLS): nothing was sent. */
  | "connect"
  /** A timeout ran out (connect, headers, idle body or total). */
  | "timeout"
  /** The connection broke after it was made. */
  | "reset"
  /** The response exceeded `maxResponseBytes`. */
  | "too_large";

/** A request that got no usable response. `sent` says whether it may have reached the server. */
export class TransportError extends Error {
  override readonly name = "TransportError";
  constructor(
    readonly failure: TransportFailure,
    /** False only when the transport knows nothing left the machine (a connect failure). */
    readonly sent: boolean,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Sends HTTP requests. Never throws for an HTTP status (4xx and 5xx are responses); throws
 * TransportError when there is no response. Never follows redirects where it can avoid it.
 */
export interface HttpTransport {
  request(request: HttpRequest): Promise<HttpResponse>;
}

/** Wall-clock time in epoch milliseconds, and a monotonic-enough timer for elapsed time. */
export interface Clock {
  now(): number;
}

/** Waits; tests pass a fake that advances a fake clock. */
export type Sleep = (ms: number) => Promise<void>;

/** Uniform random number in [0, 1); injected so back-off is testable. */
export type Random = () => number;

/** Structured log fields; never a token, never a note body. */
export type LogFields = Record<string, unknown>;

/** Structured logger (JSON lines on stderr in the standalone command; debug console in Obsidian). */
export interface Logger {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

/** Where the HackMD token comes from; read at call time so a settings change applies at once. */
export interface SecretSource {
  /** The token, or undefined/blank when none is configured. */
  getToken(): string | undefined | Promise<string | undefined>;
}

/** A logger that drops everything. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** Calls `callback` once after `ms` milliseconds, on the host's timers. */
export type SetTimer = (callback: () => void, ms: number) => void;

let hostTimer: SetTimer | undefined;

/**
 * Installs the host's timer for `systemSleep` (and the record lock's real timing): the plugin
 * installs window's (obsidian/plugin-services.ts), so a wait never runs on a popout window's
 * timers; the Node hosts install Node's (node/node-apis-install.ts). The last call wins.
 */
export function useHostTimer(timer: SetTimer): void {
  hostTimer = timer;
}

/** The real clock, available in every host (no Node or Obsidian import needed). */
export const systemClock: Clock = { now: () => Date.now() };
/** Real waits on the host's timer (useHostTimer); rejects where no host installed one. */
export const systemSleep: Sleep = (ms) =>
  new Promise((resolve, reject) => {
    if (hostTimer === undefined) reject(new Error("no host timer is installed (useHostTimer)"));
    else hostTimer(resolve, Math.max(0, ms));
  });
export const systemRandom: Random = () => Math.random();
