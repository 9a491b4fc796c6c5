// Node's crypto comes from node/node-apis.ts: the desktop plugin bundles this file and fills it
// only on desktop (obsidian/desktop-node.ts).
import { nodeApis } from "../../node/node-apis";

/** Host names a loopback request may carry in its Host header. */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Origins allowed besides loopback ones: Obsidian's own app origin. */
const APP_ORIGINS = new Set(["app://obsidian.md"]);

/** Whether a Host header names a loopback host with our port (DNS-rebinding defence). */
export function isAllowedHost(hostHeader: string | undefined, port: number): boolean {
  if (!hostHeader) return false;
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(hostHeader.trim().toLowerCase());
  if (!match) return false;
  return LOOPBACK_HOSTS.has(match[1] ?? "") && Number(match[2]) === port;
}

/** Whether an Origin header, when present, is a loopback origin or Obsidian's app origin. */
export function isAllowedOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  const value = origin.trim().toLowerCase();
  if (APP_ORIGINS.has(value)) return true;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (url.origin !== value) return false;
  return LOOPBACK_HOSTS.has(url.hostname);
}

/** Constant-time bearer check: digests make the comparison independent of length and content. */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  if (!authorization || token.length === 0) return false;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  const { createHash, timingSafeEqual } = nodeApis().crypto;
  const given = createHash("sha256")
    .update(match?.[1] ?? "")
    .digest();
  const expected = createHash("sha256").update(token).digest();
  return timingSafeEqual(given, expected) && match !== null;
}
