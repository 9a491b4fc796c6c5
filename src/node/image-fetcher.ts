/**
 * The Node host's SSRF-safe `image_url` downloader (docs/tools.md §16.5–16.7): resolves the host
 * itself, refuses non-public addresses, pins the connection to the checked addresses, follows
 * redirects by hand with every rule re-applied, and streams the body under the size limits.
 */
import { BridgeError, invalidInput } from "../core/errors";
import {
  IMAGE_SNIFF_BYTES,
  NOT_AN_IMAGE_MESSAGE,
  checkImageUrlSyntax,
  describeUrlTarget,
  imageCutOffError,
  imageDownloadLimit,
  imageSizeRule,
  imageUrlSyntaxProblem,
  sniffImageType,
  type FetchedImage,
  type ImageFetchOptions,
  type ImageFetcher,
} from "../core/image";
import { isPublicAddress } from "./address-policy";
import { nodeApis, type NodeBuffer, type NodeSystemError } from "./node-apis";

// Node's modules come from node-apis.ts: the desktop plugin bundles this file and fills it on
// desktop only (obsidian/desktop-node.ts); the types below load nothing.
type LookupAddress = import("node:dns").LookupAddress;
type ClientRequest = import("node:http").ClientRequest;
type IncomingMessage = import("node:http").IncomingMessage;
type Timer = ReturnType<typeof import("node:timers").setTimeout>;

/** Node's timers: what they guard (lookups, sockets, streams) is Node's too. */
const setTimer = (callback: () => void, ms: number): Timer => nodeApis().timers.setTimeout(callback, ms);
const clearTimer = (timer: Timer | undefined): void => nodeApis().timers.clearTimeout(timer);

/** Resolves a host name to every address it has (like `dns.lookup` with `all: true`). */
export type HostLookup = (hostname: string) => Promise<LookupAddress[]>;

/** The system resolver, as docs/tools.md §16.6 asks: `dns.lookup` with `all: true`. */
export const systemHostLookup: HostLookup = (hostname) =>
  nodeApis().dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Timeouts of one image download, in milliseconds. */
export interface ImageFetchTimeouts {
  /** Slot wait, DNS lookup, TCP connect and TLS handshake together, per request (10 s). */
  connectMs: number;
  /** From sending a request until its response headers arrive (30 s). */
  headersMs: number;
  /** Longest pause between body chunks (30 s). */
  idleMs: number;
  /** Bytes per second the whole-request ceiling allows on top of `headersMs` (256 KiB/s). */
  transferBytesPerSecond: number;
}

/** The defaults of docs/tools.md §6.1 and §16.6–16.7. */
export const DEFAULT_IMAGE_FETCH_TIMEOUTS: ImageFetchTimeouts = {
  connectMs: 10_000,
  headersMs: 30_000,
  idleMs: 30_000,
  transferBytesPerSecond: 256 * 1024,
};

/** Lookups allowed in flight at once (docs/tools.md §16.6). */
export const MAX_LOOKUPS_IN_FLIGHT = 4;
/** Most redirects followed, i.e. at most six requests per download (docs/tools.md §16.7). */
export const MAX_IMAGE_REDIRECTS = 5;
/** Most hosts pinned at once; the table is cleared when a new host would exceed it. */
export const MAX_ADDRESS_PINS = 64;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const PRIVATE_ADDRESS_REASON =
  "it points at a private, loopback or reserved address, and only public hosts are fetched";

/**
 * TLS error codes that mean the peer's certificate was refused (as opposed to a network failure).
 * OpenSSL's verification codes plus Node's host-name mismatch.
 */
const CERTIFICATE_ERROR_CODES: ReadonlySet<string> = new Set([
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_REJECTED",
  "CERT_REVOKED",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "HOSTNAME_MISMATCH",
  "INVALID_CA",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_SSL_UNSUPPORTED_CERTIFICATE",
]);

/** Construction parameters of a NodeImageFetcher. */
export interface NodeImageFetcherOptions {
  /** The bridge's version, sent as `user-agent: hackmd-bridge/<version>`. */
  version: string;
  /** Resolver; defaults to the system resolver. Tests inject a fake. */
  lookup?: HostLookup;
  /** Overrides of the default timeouts (tests shorten them). */
  timeouts?: Partial<ImageFetchTimeouts>;
  /** Lookups allowed to wait for a slot before new ones are refused with `network` (default 16). */
  maxPendingLookups?: number;
  /** Tests only: trusted CA certificates instead of the system's (a self-signed test certificate). */
  ca?: string | NodeBuffer | Array<string | NodeBuffer>;
  /**
   * Tests only: the TCP port to connect to instead of 443, which the URL rules demand but a test
   * server cannot listen on.
   */
  connectPort?: number;
  /**
   * Tests only: where a socket for a pinned address really goes, so a loopback test server can
   * stand in for a public-looking address while the pinning path still runs.
   */
  connectAddress?: (pinned: LookupAddress) => LookupAddress;
}

/**
 * The pin table of docs/tools.md §16.6: host names (lower-cased) to exactly the addresses that were
 * checked for them. Holds at most `capacity` hosts and is cleared entirely when full.
 */
export class AddressPins {
  private readonly pins = new Map<string, readonly LookupAddress[]>();

  constructor(private readonly capacity: number = MAX_ADDRESS_PINS) {}

  /** Pins `hostname` to `addresses`, replacing any earlier pin for it. */
  pin(hostname: string, addresses: readonly LookupAddress[]): void {
    const key = hostname.toLowerCase();
    if (!this.pins.has(key) && this.pins.size >= this.capacity) this.pins.clear();
    this.pins.set(
      key,
      addresses.map(({ address, family }) => ({ address, family })),
    );
  }

  /** The checked addresses of `hostname`, or undefined when it was never checked (or was cleared). */
  get(hostname: string): readonly LookupAddress[] | undefined {
    return this.pins.get(hostname.toLowerCase());
  }

  /** How many hosts are pinned. */
  get size(): number {
    return this.pins.size;
  }
}

/**
 * At most `max` tasks run at once and at most `maxWaiting` wait; a full queue refuses at once.
 * A task's slot is held until its work really ends (a DNS lookup cannot be cancelled).
 */
class Slots {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly max: number,
    private readonly maxWaiting: number,
  ) {}

  /** Starts `start` now or when a slot frees; returns a function that withdraws a waiting entry. */
  enter(start: () => void): () => void {
    if (this.active < this.max) {
      this.active += 1;
      start();
      return () => undefined;
    }
    if (this.waiting.length >= this.maxWaiting) {
      throw new BridgeError("network", "too many image host lookups are pending; retry shortly");
    }
    this.waiting.push(start);
    return () => {
      const index = this.waiting.indexOf(start);
      if (index !== -1) this.waiting.splice(index, 1);
    };
  }

  /** Frees a slot, handing it to the longest waiter. */
  leave(): void {
    const next = this.waiting.shift();
    if (next === undefined) {
      this.active -= 1;
      return;
    }
    next();
  }
}

type PinnedLookup = NonNullable<import("node:https").RequestOptions["lookup"]>;

/** Downloads `image_url`s for the Node host (desktop plugin and standalone command). */
export class NodeImageFetcher implements ImageFetcher {
  /** Node has direct DNS and sockets. */
  readonly available = true;
  private readonly userAgent: string;
  private readonly lookupHost: HostLookup;
  private readonly timeouts: ImageFetchTimeouts;
  private readonly slots: Slots;
  private readonly pins = new AddressPins();
  private readonly ca: NodeImageFetcherOptions["ca"];
  private readonly connectPort: number;
  private readonly connectAddress: ((pinned: LookupAddress) => LookupAddress) | undefined;

  constructor(options: NodeImageFetcherOptions) {
    this.userAgent = `hackmd-bridge/${options.version}`;
    this.lookupHost = options.lookup ?? systemHostLookup;
    this.timeouts = { ...DEFAULT_IMAGE_FETCH_TIMEOUTS, ...options.timeouts };
    this.slots = new Slots(MAX_LOOKUPS_IN_FLIGHT, options.maxPendingLookups ?? 16);
    this.ca = options.ca;
    this.connectPort = options.connectPort ?? 443;
    this.connectAddress = options.connectAddress;
  }

  /** Downloads `rawUrl` under docs/tools.md §16.5–16.7; every failure is a BridgeError. */
  async fetch(rawUrl: string, options: ImageFetchOptions): Promise<FetchedImage> {
    const standardLimit = imageDownloadLimit(options.confirmLargeFile);
    const limit = Math.min(options.maxBytes, standardLimit);
    const sizing: Sizing = { limit, standard: limit === standardLimit, confirmLargeFile: options.confirmLargeFile };
    let url = checkImageUrlSyntax(rawUrl);
    let redirected = false;
    for (let redirects = 0; ; redirects += 1) {
      const connectDeadline = Date.now() + this.timeouts.connectMs;
      await this.checkHost(url, connectDeadline, redirected);
      const response = await this.open(url, connectDeadline, sizing.limit);
      const status = response.res.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        response.abandon();
        if (redirects === MAX_IMAGE_REDIRECTS) {
          throw invalidInput(`the image URL redirected more than ${MAX_IMAGE_REDIRECTS} times`);
        }
        url = nextUrl(url, response.res.headers.location);
        redirected = true;
        continue;
      }
      if (status < 200 || status > 299 || status === 204 || status === 206) {
        response.abandon();
        throw statusError(status);
      }
      const contentType = response.res.headers["content-type"];
      const bytes = await response.readBody(sizing);
      return contentType === undefined ? { bytes, finalUrl: url.href } : { bytes, contentType, finalUrl: url.href };
    }
  }

  /**
   * Applies the address rules to `url`'s host and pins what was checked. For a redirect target
   * the URL rules run again too, and refusals name only scheme, host and port.
   */
  private async checkHost(url: URL, deadline: number, redirected: boolean): Promise<void> {
    const refuse = (reason: string): BridgeError =>
      redirected
        ? invalidInput(`the image host redirected to ${describeUrlTarget(url)}, which is refused: ${reason}`)
        : invalidInput(`the image host ${url.hostname} is refused: ${reason}`);
    if (redirected) {
      const problem = imageUrlSyntaxProblem(url);
      if (problem !== undefined) throw refuse(problem);
    }
    const literal = ipLiteral(url.hostname);
    if (literal !== undefined) {
      // An address literal is never looked up: Node connects to it directly.
      if (!isPublicAddress(literal)) throw refuse(PRIVATE_ADDRESS_REASON);
      return;
    }
    const addresses = await this.resolve(url.hostname, deadline);
    if (!addresses.every(({ address }) => isPublicAddress(address))) throw refuse(PRIVATE_ADDRESS_REASON);
    this.pins.pin(url.hostname, addresses);
  }

  /** Looks `hostname` up within the slot limit; the slot wait and the lookup share the deadline. */
  private resolve(hostname: string, deadline: number): Promise<LookupAddress[]> {
    return new Promise((resolve, reject) => {
      let settled = false;
      let withdraw: () => void = () => undefined;
      const settle = (finish: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimer(timer);
        finish();
      };
      const timer = setTimer(
        () => {
          withdraw();
          settle(() => reject(new BridgeError("network", `the image host ${hostname} did not resolve in time`)));
        },
        Math.max(0, deadline - Date.now()),
      );
      const noSuchHost = (cause?: unknown): BridgeError =>
        new BridgeError("network", `the image host ${hostname} did not resolve (no such host, or DNS unavailable)`, {
          cause,
        });
      try {
        withdraw = this.slots.enter(() => {
          Promise.resolve()
            .then(() => this.lookupHost(hostname))
            .then(
              (addresses) => {
                this.slots.leave();
                settle(() => (addresses.length === 0 ? reject(noSuchHost()) : resolve(addresses)));
              },
              (error: unknown) => {
                this.slots.leave();
                settle(() => reject(noSuchHost(error)));
              },
            );
        });
      } catch (error) {
        settle(() => reject(error instanceof Error ? error : new Error(String(error))));
      }
    });
  }

  /** The request's `lookup`: answers only for pinned hosts, with exactly the pinned addresses. */
  private readonly pinnedLookup: PinnedLookup = (hostname, options, callback) => {
    const wanted =
      options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : 0;
    const pinned = (this.pins.get(hostname) ?? []).filter(({ family }) => wanted === 0 || family === wanted);
    let targets: LookupAddress[] = [];
    try {
      targets = pinned.map((address) => (this.connectAddress ? this.connectAddress(address) : address));
    } catch {
      targets = [];
    }
    const first = targets[0];
    nodeApis().process.nextTick(() => {
      if (first === undefined) {
        const error: NodeSystemError = new Error(`${hostname} was not checked for this download`);
        error.code = "ENOTFOUND";
        callback(error, "", 0);
      } else if (options.all === true) {
        callback(null, targets);
      } else {
        callback(null, first.address, first.family);
      }
    });
  };

  /** Sends one GET and resolves once the response headers arrive. */
  private open(url: URL, connectDeadline: number, limit: number): Promise<OpenResponse> {
    const host = url.hostname;
    const literal = ipLiteral(host);
    const startedAt = Date.now();
    const totalMs = this.timeouts.headersMs + Math.ceil((limit / this.timeouts.transferBytesPerSecond) * 1000);
    return new Promise((resolve, reject) => {
      let connected = false;
      const timers: Timer[] = [];
      const clearTimers = (): void => timers.splice(0).forEach((timer) => clearTimer(timer));
      const request: ClientRequest = nodeApis().https.request({
        protocol: "https:",
        hostname: literal ?? host,
        port: this.connectPort,
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: {
          "user-agent": this.userAgent,
          accept: "image/png,image/jpeg,image/gif,image/webp,image/*;q=0.8",
          "accept-encoding": "identity",
        },
        agent: false,
        lookup: this.pinnedLookup,
        ...(literal === undefined ? { servername: host } : {}),
        ...(this.ca === undefined ? {} : { ca: this.ca }),
        rejectUnauthorized: true,
      });
      const fail = (error: BridgeError): void => {
        request.destroy(error);
      };
      timers.push(
        setTimer(
          () => {
            if (!connected) fail(new BridgeError("network", `could not connect to the image host ${host} in time`));
          },
          Math.max(0, connectDeadline - startedAt),
        ),
        setTimer(
          () => fail(new BridgeError("network", `the image host ${host} did not answer in time`)),
          this.timeouts.headersMs,
        ),
      );
      request.on("socket", (socket) => {
        socket.once("secureConnect", () => {
          connected = true;
        });
      });
      request.on("error", (error) => {
        clearTimers();
        reject(transportError(error, host, connected));
      });
      request.on("response", (res: IncomingMessage) => {
        clearTimers();
        resolve(
          new OpenResponse(request, res, host, this.timeouts.idleMs, Math.max(0, startedAt + totalMs - Date.now())),
        );
      });
      request.end();
    });
  }
}

/** The size limit of one download and how to word its refusal. */
interface Sizing {
  limit: number;
  /** Whether `limit` is the standard one for `confirmLargeFile` (else the caller tightened it). */
  standard: boolean;
  confirmLargeFile: boolean;
}

/** A response whose headers have arrived: read its body or abandon it. */
class OpenResponse {
  constructor(
    private readonly request: ClientRequest,
    readonly res: IncomingMessage,
    private readonly host: string,
    private readonly idleMs: number,
    private readonly remainingMs: number,
  ) {}

  /** Drops the response and its connection. */
  abandon(): void {
    this.res.destroy();
    this.request.destroy();
  }

  /** Streams the body under the size limit, the idle timeout and the transfer ceiling; sniffs its head. */
  readBody(sizing: Sizing): Promise<Uint8Array> {
    const declared = declaredLength(this.res.headers["content-length"]);
    try {
      if (declared !== undefined) checkDeclaredSize(declared, sizing);
    } catch (error) {
      this.abandon();
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const res = this.res;
    return new Promise((resolve, reject) => {
      const chunks: NodeBuffer[] = [];
      let received = 0;
      let sniffed = false;
      let done = false;
      const finish = (error: BridgeError | undefined): void => {
        if (done) return;
        done = true;
        clearTimer(idle);
        clearTimer(ceiling);
        if (error !== undefined) {
          this.abandon();
          reject(error);
          return;
        }
        resolve(new Uint8Array(nodeApis().buffer.Buffer.concat(chunks, received)));
      };
      const stalled = (): void =>
        finish(new BridgeError("network", `the image host ${this.host} stalled while sending the image`));
      let idle = setTimer(stalled, this.idleMs);
      const ceiling = setTimer(
        () => finish(new BridgeError("network", `the image download from ${this.host} took too long`)),
        this.remainingMs,
      );
      res.on("data", (chunk: NodeBuffer) => {
        if (done) return;
        clearTimer(idle);
        idle = setTimer(stalled, this.idleMs);
        received += chunk.length;
        if (received > sizing.limit) {
          finish(cutOffError(sizing));
          return;
        }
        chunks.push(chunk);
        if (!sniffed && received >= IMAGE_SNIFF_BYTES) {
          sniffed = true;
          // Refuse a web page or any other non-image as soon as its head arrives.
          if (sniffImageType(nodeApis().buffer.Buffer.concat(chunks, received)) === undefined)
            finish(invalidInput(NOT_AN_IMAGE_MESSAGE));
        }
      });
      res.on("end", () => {
        if (!res.complete) {
          finish(lostConnection(this.host));
          return;
        }
        if (!sniffed && sniffImageType(nodeApis().buffer.Buffer.concat(chunks, received)) === undefined) {
          finish(invalidInput(NOT_AN_IMAGE_MESSAGE));
          return;
        }
        finish(undefined);
      });
      res.on("error", () => finish(lostConnection(this.host)));
      res.on("close", () => finish(lostConnection(this.host)));
    });
  }
}

/** The declared Content-Length, when it is a plain non-negative integer. */
function declaredLength(header: string | undefined): number | undefined {
  if (header === undefined || !/^\s*\d+\s*$/.test(header)) return undefined;
  return Number(header.trim());
}

function checkDeclaredSize(size: number, sizing: Sizing): void {
  imageSizeRule({ size, confirmLargeFile: sizing.confirmLargeFile });
  if (size > sizing.limit) {
    throw new BridgeError(
      "too_large",
      `the image is ${size} bytes, above this download's limit of ${sizing.limit} bytes`,
      {
        details: { size },
      },
    );
  }
}

function cutOffError(sizing: Sizing): BridgeError {
  if (sizing.standard) return imageCutOffError(sizing.confirmLargeFile);
  return new BridgeError("too_large", `the image is larger than ${sizing.limit} bytes, this download's limit`, {
    details: { larger_than: sizing.limit },
  });
}

function lostConnection(host: string): BridgeError {
  return new BridgeError("network", `the connection to the image host ${host} was lost`);
}

/** The redirect target, resolved against the current URL; a missing or unparsable one is `upstream`. */
function nextUrl(current: URL, location: string | undefined): URL {
  const noLocation = (): BridgeError =>
    new BridgeError("upstream", "the image host answered with a redirect but no usable Location");
  if (location === undefined || location.trim() === "") throw noLocation();
  try {
    return new URL(location, current);
  } catch {
    throw noLocation();
  }
}

/** The error for a final status that is not an accepted 2xx (docs/tools.md §16.7). */
function statusError(status: number): BridgeError {
  if (status === 429) {
    return new BridgeError("rate_limited", "the image host answered 429 (too many requests); wait before retrying");
  }
  if (status >= 500 && status <= 599) {
    return new BridgeError("upstream", `the image host returned status ${status}; try again later`);
  }
  return invalidInput(`the image host returned status ${status}`);
}

/** Maps a request failure: our own errors pass through, refused certificates are `invalid_input`. */
function transportError(error: unknown, host: string, connected: boolean): BridgeError {
  if (error instanceof BridgeError) return error;
  const code = (error as NodeSystemError).code;
  if (code !== undefined && CERTIFICATE_ERROR_CODES.has(code)) {
    return invalidInput(`the image host ${host} presented a certificate that was refused`);
  }
  if (connected)
    return new BridgeError("network", `the connection to the image host ${host} was lost`, { cause: error });
  return new BridgeError("network", `could not connect to the image host ${host}`, { cause: error });
}

/** The address when `hostname` (as URL gives it, IPv6 in brackets) is an IP literal. */
function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return nodeApis().net.isIP(bare) === 0 ? undefined : bare;
}
