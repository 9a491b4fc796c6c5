/** Body hashes of docs/tools.md §11.1: `sha256:` + 64 lowercase hex digits over the UTF-8 bytes. */

const HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;
const encoder = new TextEncoder();

/** A synchronous SHA-256 (lowercase hex) a host may provide. */
export type SyncSha256 = (bytes: Uint8Array) => string;
let syncSha256: SyncSha256 | undefined;

/**
 * Hosts with a synchronous SHA-256 (Node's `crypto`: the standalone command, the plugin on
 * desktop) install it here: WebCrypto's digest is a thread-pool round trip per call, which costs
 * more than hashing a small file (a sync-all over 10,000 notes makes about 20,000). The result is
 * the same function of the bytes either way (tests/core/hash.test.ts checks both).
 */
export function useSyncSha256(digest: SyncSha256 | undefined): void {
  syncSha256 = digest;
}

/** The synchronous SHA-256 installed, if any. */
export function installedSyncSha256(): SyncSha256 | undefined {
  return syncSha256;
}

/**
 * A host's text primitives over a string's UTF-8 bytes without encoding a copy first (Node's
 * `Buffer.byteLength` and `Hash.update(text, "utf8")`): for a 1 MB body about a third and a half of
 * TextEncoder's time. Both must encode lone surrogates as U+FFFD, as TextEncoder does
 * (tests/core/hash.test.ts checks it).
 */
export interface HostText {
  byteLength(text: string): number;
  sha256(text: string): string;
}
let hostText: HostText | undefined;

/** Installs (or, with undefined, removes) the host's text primitives. */
export function useHostText(host: HostText | undefined): void {
  hostText = host;
}

/** The host's text primitives installed, if any. */
export function installedHostText(): HostText | undefined {
  return hostText;
}

/** Lowercase hex SHA-256 of bytes: the host's synchronous one, else WebCrypto (present in Obsidian and Node 20). */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  if (typeof data === "string" && hostText !== undefined) return hostText.sha256(data);
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  if (syncSha256 !== undefined) return syncSha256(bytes);
  // TextEncoder output and our buffers are never shared, so the narrower view type is accurate.
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return toHex(new Uint8Array(digest));
}

// A push hashes the same large body several times (the note as read, the file's text, the gate's
// before and after, the read-back, the saved baseline): the last few large bodies keep their hash.
// Only bodies of at least MEMO_MIN_CHARS, at most MEMO_MAX_CHARS in all, so little is kept alive.
const MEMO_MIN_CHARS = 65_536;
const MEMO_MAX_CHARS = 8_388_608;
const MEMO_ENTRIES = 4;
const memo: { text: string; hash: string }[] = [];

/** The `body_hash` of a body. */
export async function bodyHash(body: string): Promise<string> {
  if (body.length < MEMO_MIN_CHARS || body.length > MEMO_MAX_CHARS) return `sha256:${await sha256Hex(body)}`;
  // `===` compares lengths first and stops at the first differing character.
  const hit = memo.find((entry) => entry.text === body);
  if (hit !== undefined) return hit.hash;
  const hash = `sha256:${await sha256Hex(body)}`;
  if (!memo.some((entry) => entry.text === body)) memo.unshift({ text: body, hash });
  let kept = 0;
  for (let index = 0; index < memo.length; index++) {
    kept += memo[index]!.text.length;
    if (index >= MEMO_ENTRIES || kept > MEMO_MAX_CHARS) {
      memo.length = index;
      break;
    }
  }
  return hash;
}

/** Whether a caller-supplied hash has exactly the body-hash format. */
export function isBodyHash(value: string): boolean {
  return HASH_PATTERN.test(value);
}

/**
 * UTF-8 byte length of a string: the host's count (`useHostText`), else TextEncoder's. Its native
 * encoding is faster than counting in a JavaScript loop (measured: ~2 ms against ~3–5 ms for 1 MB),
 * even with the copy it allocates.
 */
export function utf8Length(text: string): number {
  if (hostText !== undefined) return hostText.byteLength(text);
  return encoder.encode(text).byteLength;
}

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}
