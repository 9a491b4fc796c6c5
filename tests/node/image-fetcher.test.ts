/**
 * The SSRF-safe image fetcher against a real HTTPS server on 127.0.0.1. Test host names resolve
 * (through an injected lookup) to public-looking addresses; the fetcher pins those, and the
 * test-only `connectAddress` hook sends every pinned socket to loopback, so no traffic ever
 * leaves the machine while the whole resolve → check → pin → connect path runs.
 */
import type { LookupAddress } from "node:dns";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { BridgeError, type ErrorKind } from "../../src/core/errors";
import { NOT_AN_IMAGE_MESSAGE, sniffImageType, type ImageFetchOptions } from "../../src/core/image";
import {
  AddressPins,
  NodeImageFetcher,
  type HostLookup,
  type NodeImageFetcherOptions,
} from "../../src/node/image-fetcher";

const MiB = 1024 * 1024;
const TLS_DIR = join(__dirname, "..", "fixtures", "tls");
const KEY = readFileSync(join(TLS_DIR, "test-key.pem"));
const CERT = readFileSync(join(TLS_DIR, "test-cert.pem"));
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
const UNCONFIRMED: ImageFetchOptions = { maxBytes: 5 * MiB, confirmLargeFile: false };
const CONFIRMED: ImageFetchOptions = { maxBytes: 10 * MiB, confirmLargeFile: true };

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

/** What the injected resolver answers; anything else does not exist. */
const DNS: Record<string, LookupAddress[]> = {
  "img.bridge.test": [v4("93.184.216.34")],
  "other.bridge.test": [v4("93.184.216.35")],
  "v6.bridge.test": [v6("2606:4700::1111")],
  "img.elsewhere.test": [v4("93.184.216.36")],
  "private.bridge.test": [v4("10.0.0.1")],
  "loopback.bridge.test": [v4("127.0.0.1")],
  "mapped.bridge.test": [v6("::ffff:127.0.0.1")],
  "mixed.bridge.test": [v4("93.184.216.34"), v4("10.0.0.1")],
  "ula.bridge.test": [v4("93.184.216.34"), v6("fd00::1")],
  "empty.bridge.test": [],
};
const PUBLIC_TEST_ADDRESSES = new Set(["93.184.216.34", "93.184.216.35", "93.184.216.36", "2606:4700::1111"]);

interface SeenRequest {
  host: string | undefined;
  path: string;
  headers: IncomingMessage["headers"];
}

let server: https.Server;
let port = 0;
let seen: SeenRequest[] = [];
let lookups: string[] = [];
let connects: LookupAddress[] = [];

const lookup: HostLookup = (hostname) => {
  lookups.push(hostname);
  const answer = DNS[hostname];
  if (answer === undefined) {
    return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }));
  }
  return Promise.resolve(answer.map((entry) => ({ ...entry })));
};

/** Sends a pinned socket to the loopback test server; refuses anything that was not a test address. */
const connectAddress = (pinned: LookupAddress): LookupAddress => {
  connects.push(pinned);
  if (!PUBLIC_TEST_ADDRESSES.has(pinned.address)) throw new Error(`unexpected connect to ${pinned.address}`);
  return v4("127.0.0.1");
};

function fetcher(overrides: Partial<NodeImageFetcherOptions> = {}): NodeImageFetcher {
  return new NodeImageFetcher({
    version: "9.9.9-test",
    lookup,
    ca: CERT,
    connectPort: port,
    connectAddress,
    ...overrides,
  });
}

/** The BridgeError a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<BridgeError> {
  const outcome = await promise.then(
    () => new Error("expected a rejection"),
    (reason: unknown) => reason,
  );
  if (outcome instanceof BridgeError) return outcome;
  throw outcome;
}

async function expectKind(promise: Promise<unknown>, kind: ErrorKind, fragment?: string): Promise<BridgeError> {
  const error = await rejection(promise);
  expect([error.kind, error.message]).toEqual([kind, expect.stringContaining(fragment ?? "") as string]);
  return error;
}

/** Streams `total` bytes starting with a PNG signature, chunked (no Content-Length). */
function streamBody(res: ServerResponse, total: number): void {
  let sent = 0;
  const write = (): void => {
    while (sent < total) {
      const size = Math.min(64 * 1024, total - sent);
      const chunk = Buffer.alloc(size, 0x41);
      if (sent === 0) PNG.copy(chunk);
      sent += size;
      if (!res.write(chunk)) {
        res.once("drain", write);
        return;
      }
    }
    res.end();
  };
  write();
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "https://placeholder");
  seen.push({ host: req.headers.host, path: url.pathname + url.search, headers: req.headers });
  req.on("error", () => undefined);
  res.on("error", () => undefined);
  const parts = url.pathname.split("/").filter((part) => part !== "");
  const [route, arg] = parts;
  const n = Number(arg);
  switch (route) {
    case "png":
      res.writeHead(200, { "content-type": "image/png", "content-length": PNG.length });
      res.end(PNG);
      return;
    case "tiny-jpeg":
      res.writeHead(200, { "content-type": "image/jpeg" });
      res.end(Buffer.from([0xff, 0xd8, 0xff]));
      return;
    case "tiny-text":
      res.writeHead(200, { "content-type": "image/png" });
      res.end("hi");
      return;
    case "html":
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!DOCTYPE html><html><body>not an image</body></html>");
      return;
    case "status":
      if (n === 204 || n === 304) {
        res.writeHead(n);
        res.end();
      } else {
        res.writeHead(n, { "content-type": "image/png" });
        res.end(PNG);
      }
      return;
    case "redirect":
      if (n > 0) {
        res.writeHead(302, { location: `/redirect/${n - 1}` });
        res.end();
      } else {
        res.writeHead(200, { "content-type": "image/png" });
        res.end(PNG);
      }
      return;
    case "redirect-with":
      res.writeHead(n, { location: url.searchParams.get("to") ?? "" });
      res.end();
      return;
    case "redirect-to": {
      const to = url.searchParams.get("to");
      res.writeHead(302, to === null ? {} : { location: to });
      res.end();
      return;
    }
    case "declared":
      // Announces n bytes and sends only the head; the fetcher must refuse on the header alone.
      res.writeHead(200, { "content-type": "image/png", "content-length": n });
      res.write(PNG);
      return;
    case "undeclared":
      res.writeHead(200, { "content-type": "image/png" });
      streamBody(res, n);
      return;
    case "exact":
      res.writeHead(200, { "content-type": "image/png", "content-length": n });
      streamBody(res, n);
      return;
    case "stall":
      res.writeHead(200, { "content-type": "image/png" });
      res.write(PNG);
      return;
    case "hang":
      return;
    default:
      res.writeHead(404);
      res.end();
  }
}

beforeAll(async () => {
  server = https.createServer({ key: KEY, cert: CERT }, handle);
  server.on("tlsClientError", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
  lookups = [];
  connects = [];
});

describe("a plain download", () => {
  it("resolves, pins and fetches an image, with our user agent and no credentials", async () => {
    const result = await fetcher().fetch("https://img.bridge.test/png?x=1", UNCONFIRMED);
    expect(Buffer.from(result.bytes).equals(PNG)).toBe(true);
    expect(result.contentType).toBe("image/png");
    expect(result.finalUrl).toBe("https://img.bridge.test/png?x=1");
    expect(lookups).toEqual(["img.bridge.test"]);
    // The socket went to exactly the pinned, checked address.
    expect(connects.map(({ address }) => address)).toEqual(["93.184.216.34"]);
    expect(seen).toHaveLength(1);
    const headers = seen[0]?.headers ?? {};
    expect(headers["user-agent"]).toBe("hackmd-bridge/9.9.9-test");
    expect(headers.authorization).toBeUndefined();
    expect(headers.cookie).toBeUndefined();
    expect(seen[0]?.path).toBe("/png?x=1");
  });

  it("accepts :443 written out, and upper-case host names (pins are lower-cased)", async () => {
    const result = await fetcher().fetch("https://IMG.Bridge.TEST:443/png", UNCONFIRMED);
    expect(result.finalUrl).toBe("https://img.bridge.test/png");
    expect(connects.map(({ address }) => address)).toEqual(["93.184.216.34"]);
  });

  it("pins IPv6 addresses too", async () => {
    await fetcher().fetch("https://v6.bridge.test/png", UNCONFIRMED);
    expect(connects).toEqual([v6("2606:4700::1111")]);
  });

  it("accepts a body shorter than the sniff window when it is still an image", async () => {
    const result = await fetcher().fetch("https://img.bridge.test/tiny-jpeg", UNCONFIRMED);
    expect(sniffImageType(result.bytes)).toBe("image/jpeg");
    await expectKind(
      fetcher().fetch("https://img.bridge.test/tiny-text", UNCONFIRMED),
      "invalid_input",
      NOT_AN_IMAGE_MESSAGE,
    );
  });

  it("refuses an HTML page", async () => {
    await expectKind(
      fetcher().fetch("https://img.bridge.test/html", UNCONFIRMED),
      "invalid_input",
      NOT_AN_IMAGE_MESSAGE,
    );
  });
});

describe("URL and address rules before any connection", () => {
  it.each([
    "http://img.bridge.test/png",
    "https://img.bridge.test:8443/png",
    "https://u:p@img.bridge.test/png",
    "nope",
  ])("refuses %s without a lookup", async (url) => {
    await expectKind(fetcher().fetch(url, UNCONFIRMED), "invalid_input");
    expect(lookups).toEqual([]);
    expect(seen).toEqual([]);
  });

  it.each([
    "private.bridge.test",
    "loopback.bridge.test",
    "mapped.bridge.test",
    "mixed.bridge.test",
    "ula.bridge.test",
  ])("refuses %s (a non-public address among its answers) with no connection made", async (host) => {
    const error = await expectKind(
      fetcher().fetch(`https://${host}/png`, UNCONFIRMED),
      "invalid_input",
      "private, loopback or reserved",
    );
    expect(error.message).toContain(host);
    expect(lookups).toEqual([host]);
    expect(connects).toEqual([]);
    expect(seen).toEqual([]);
  });

  it.each([
    "https://127.0.0.1/png",
    "https://10.0.0.1/png",
    "https://[::1]/png",
    "https://[::ffff:7f00:1]/png",
    "https://169.254.169.254/latest",
  ])("refuses the address literal %s without a lookup or connection", async (url) => {
    await expectKind(fetcher().fetch(url, UNCONFIRMED), "invalid_input", "private, loopback or reserved");
    expect(lookups).toEqual([]);
    expect(connects).toEqual([]);
    expect(seen).toEqual([]);
  });

  it("reports a host that does not resolve, or resolves to nothing, as network", async () => {
    await expectKind(
      fetcher().fetch("https://nxdomain.bridge.test/png", UNCONFIRMED),
      "network",
      "no such host, or DNS unavailable",
    );
    await expectKind(
      fetcher().fetch("https://empty.bridge.test/png", UNCONFIRMED),
      "network",
      "no such host, or DNS unavailable",
    );
    expect(seen).toEqual([]);
  });

  it("gives the lookup the connect deadline", async () => {
    const never: HostLookup = () => new Promise(() => undefined);
    const started = Date.now();
    await expectKind(
      fetcher({ lookup: never, timeouts: { connectMs: 150 } }).fetch("https://img.bridge.test/png", UNCONFIRMED),
      "network",
      "did not resolve in time",
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("runs at most 4 lookups at once and refuses when too many are pending", async () => {
    const pending: Array<(answer: LookupAddress[]) => void> = [];
    let started = 0;
    const held: HostLookup = () => {
      started += 1;
      return new Promise((resolve) => pending.push(resolve));
    };
    const f = fetcher({ lookup: held, maxPendingLookups: 2, timeouts: { connectMs: 400 } });
    const inFlight = Array.from({ length: 6 }, () => rejection(f.fetch("https://img.bridge.test/png", UNCONFIRMED)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(4);
    await expectKind(f.fetch("https://img.bridge.test/png", UNCONFIRMED), "network", "retry shortly");
    // The four running lookups and the two waiters all run out of the shared deadline.
    const errors = await Promise.all(inFlight);
    expect(errors.map((error) => [error.kind, error.message])).toEqual(
      Array.from({ length: 6 }, () => ["network", "the image host img.bridge.test did not resolve in time"]),
    );
    // Slots are held until a lookup really ends; a waiter that timed out never starts one.
    expect(started).toBe(4);
    for (const resolve of pending.splice(0)) resolve([v4("10.0.0.1")]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(4);
    expect(seen).toEqual([]);
  });
});

describe("redirects", () => {
  it("follows 5 redirects (6 requests)", async () => {
    const result = await fetcher().fetch("https://img.bridge.test/redirect/5", UNCONFIRMED);
    expect(result.finalUrl).toBe("https://img.bridge.test/redirect/0");
    expect(seen).toHaveLength(6);
    // Every hop is checked and pinned again.
    expect(lookups).toHaveLength(6);
  });

  it("refuses a sixth redirect after 6 requests", async () => {
    await expectKind(
      fetcher().fetch("https://img.bridge.test/redirect/6", UNCONFIRMED),
      "invalid_input",
      "redirected more than 5 times",
    );
    expect(seen).toHaveLength(6);
  });

  it.each([301, 302, 303, 307, 308])("follows %i to another public host", async (status) => {
    const to = encodeURIComponent("https://other.bridge.test/png");
    const result = await fetcher().fetch(`https://img.bridge.test/redirect-with/${status}?to=${to}`, UNCONFIRMED);
    expect(result.finalUrl).toBe("https://other.bridge.test/png");
    expect(lookups).toEqual(["img.bridge.test", "other.bridge.test"]);
    expect(connects.map(({ address }) => address)).toEqual(["93.184.216.34", "93.184.216.35"]);
    expect(seen.map(({ host }) => host?.split(":")[0])).toEqual(["img.bridge.test", "other.bridge.test"]);
  });

  it("resolves a relative Location against the current URL", async () => {
    const result = await fetcher().fetch(
      `https://img.bridge.test/redirect-to?to=${encodeURIComponent("../png?y=2")}`,
      UNCONFIRMED,
    );
    expect(result.finalUrl).toBe("https://img.bridge.test/png?y=2");
  });

  it("refuses a redirect to a private host without connecting to it", async () => {
    const to = encodeURIComponent("https://private.bridge.test/secret/path?token=abc");
    const error = await expectKind(
      fetcher().fetch(`https://img.bridge.test/redirect-to?to=${to}`, UNCONFIRMED),
      "invalid_input",
    );
    expect(error.message).toBe(
      "the image host redirected to https://private.bridge.test, which is refused: it points at a private, loopback or reserved address, and only public hosts are fetched",
    );
    expect(seen).toHaveLength(1);
    expect(connects.map(({ address }) => address)).toEqual(["93.184.216.34"]);
  });

  it("refuses a redirect to a loopback address literal", async () => {
    const to = encodeURIComponent("https://127.0.0.1/admin");
    await expectKind(
      fetcher().fetch(`https://img.bridge.test/redirect-to?to=${to}`, UNCONFIRMED),
      "invalid_input",
      "https://127.0.0.1,",
    );
    expect(seen).toHaveLength(1);
  });

  it.each<[string, string]>([
    ["https://user:secret@img.bridge.test/png?token=abc", "https://img.bridge.test"],
    ["http://img.bridge.test:8080/png?token=abc", "http://img.bridge.test:8080"],
    ["https://img.bridge.test:8443/png?token=abc", "https://img.bridge.test:8443"],
    ["file:///etc/passwd", "file:"],
  ])("refuses a redirect to %s naming only %s", async (target, named) => {
    const error = await expectKind(
      fetcher().fetch(`https://img.bridge.test/redirect-to?to=${encodeURIComponent(target)}`, UNCONFIRMED),
      "invalid_input",
      `redirected to ${named}, which is refused: image_url must use https on its default port, with no credentials`,
    );
    for (const hidden of ["secret", "user", "token", "/png", "passwd"]) expect(error.message).not.toContain(hidden);
    expect(seen).toHaveLength(1);
  });

  it("treats a redirect without a usable Location as upstream", async () => {
    await expectKind(
      fetcher().fetch("https://img.bridge.test/redirect-to", UNCONFIRMED),
      "upstream",
      "no usable Location",
    );
    await expectKind(
      fetcher().fetch(`https://img.bridge.test/redirect-to?to=${encodeURIComponent("https://[oops/")}`, UNCONFIRMED),
      "upstream",
      "no usable Location",
    );
  });
});

describe("final statuses", () => {
  it("accepts 203", async () => {
    const result = await fetcher().fetch("https://img.bridge.test/status/203", UNCONFIRMED);
    expect(Buffer.from(result.bytes).equals(PNG)).toBe(true);
  });

  it.each([204, 206, 404, 300, 304, 400, 410])("refuses %i as invalid_input", async (status) => {
    await expectKind(
      fetcher().fetch(`https://img.bridge.test/status/${status}`, UNCONFIRMED),
      "invalid_input",
      `the image host returned status ${status}`,
    );
  });

  it("maps 429 to rate_limited", async () => {
    await expectKind(fetcher().fetch("https://img.bridge.test/status/429", UNCONFIRMED), "rate_limited", "429");
  });

  it.each([500, 502, 503])("maps %i to upstream", async (status) => {
    await expectKind(
      fetcher().fetch(`https://img.bridge.test/status/${status}`, UNCONFIRMED),
      "upstream",
      `status ${status}`,
    );
  });
});

describe("sizes", () => {
  it("judges a declared length before downloading", async () => {
    const over5 = 5 * MiB + 1;
    await expectKind(
      fetcher().fetch(`https://img.bridge.test/declared/${over5}`, UNCONFIRMED),
      "confirmation_required",
      `the image is ${over5} bytes`,
    );
    const over10 = 10 * MiB + 1;
    await expectKind(
      fetcher().fetch(`https://img.bridge.test/declared/${over10}`, CONFIRMED),
      "too_large",
      `the image is ${over10} bytes`,
    );
    await expectKind(
      fetcher().fetch(`https://img.bridge.test/declared/${over10}`, UNCONFIRMED),
      "too_large",
      `the image is ${over10} bytes`,
    );
  });

  it("accepts a declared image of exactly 5 MiB without confirmation", async () => {
    const result = await fetcher().fetch(`https://img.bridge.test/exact/${5 * MiB}`, UNCONFIRMED);
    expect(result.bytes.length).toBe(5 * MiB);
  });

  it("cuts an undeclared body at 5 MiB unless confirmed", async () => {
    await expectKind(
      fetcher().fetch(`https://img.bridge.test/undeclared/${6 * MiB}`, UNCONFIRMED),
      "confirmation_required",
      `the image is larger than ${5 * MiB} bytes`,
    );
    const result = await fetcher().fetch(`https://img.bridge.test/undeclared/${6 * MiB}`, CONFIRMED);
    expect(result.bytes.length).toBe(6 * MiB);
    expect(sniffImageType(result.bytes)).toBe("image/png");
  });

  it("cuts an undeclared body at 10 MiB even when confirmed", async () => {
    await expectKind(
      fetcher().fetch(`https://img.bridge.test/undeclared/${11 * MiB}`, CONFIRMED),
      "too_large",
      `the image is larger than ${10 * MiB} bytes`,
    );
  });

  it("honours a tighter maxBytes", async () => {
    await expectKind(
      fetcher().fetch(`https://img.bridge.test/undeclared/${100 * 1024}`, { maxBytes: 1000, confirmLargeFile: false }),
      "too_large",
      "larger than 1000 bytes",
    );
  });
});

describe("transport failures", () => {
  it("refuses an untrusted certificate as invalid_input", async () => {
    await expectKind(
      fetcher({ ca: undefined }).fetch("https://img.bridge.test/png", UNCONFIRMED),
      "invalid_input",
      "presented a certificate that was refused",
    );
    expect(seen).toEqual([]);
  });

  it("refuses a certificate for another host name as invalid_input", async () => {
    await expectKind(
      fetcher().fetch("https://img.elsewhere.test/png", UNCONFIRMED),
      "invalid_input",
      "presented a certificate that was refused",
    );
    expect(seen).toEqual([]);
  });

  it("reports a refused connection as network", async () => {
    const closed = https.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expectKind(
      fetcher({ connectPort: closedPort }).fetch("https://img.bridge.test/png", UNCONFIRMED),
      "network",
      "could not connect",
    );
  });

  it("reports a stalled body as network", async () => {
    await expectKind(
      fetcher({ timeouts: { idleMs: 200 } }).fetch("https://img.bridge.test/stall", UNCONFIRMED),
      "network",
      "stalled",
    );
  });

  it("reports missing response headers as network", async () => {
    await expectKind(
      fetcher({ timeouts: { headersMs: 200 } }).fetch("https://img.bridge.test/hang", UNCONFIRMED),
      "network",
      "did not answer in time",
    );
  });
});

describe("AddressPins", () => {
  it("answers only for pinned hosts, lower-cased, with exactly the pinned addresses", () => {
    const pins = new AddressPins();
    pins.pin("Img.Bridge.Test", [v4("93.184.216.34"), v6("2606:4700::1111")]);
    expect(pins.get("img.bridge.test")).toEqual([v4("93.184.216.34"), v6("2606:4700::1111")]);
    expect(pins.get("IMG.BRIDGE.TEST")).toEqual([v4("93.184.216.34"), v6("2606:4700::1111")]);
    expect(pins.get("other.bridge.test")).toBeUndefined();
    pins.pin("img.bridge.test", [v4("93.184.216.35")]);
    expect(pins.get("img.bridge.test")).toEqual([v4("93.184.216.35")]);
    expect(pins.size).toBe(1);
  });

  it("holds at most 64 hosts and clears them all when full", () => {
    const pins = new AddressPins();
    for (let i = 0; i < 64; i += 1) pins.pin(`h${i}.test`, [v4("93.184.216.34")]);
    expect(pins.size).toBe(64);
    pins.pin("h0.test", [v4("93.184.216.35")]);
    expect(pins.size).toBe(64);
    pins.pin("h64.test", [v4("93.184.216.34")]);
    expect(pins.size).toBe(1);
    expect(pins.get("h0.test")).toBeUndefined();
    expect(pins.get("h64.test")).toEqual([v4("93.184.216.34")]);
  });
});
