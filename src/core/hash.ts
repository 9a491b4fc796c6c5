/** Body hashes of TOOLS.md §11.1: `sha256:` + 64 lowercase hex digits over the UTF-8 bytes. */

const HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;
const encoder = new TextEncoder();

/** Lowercase hex SHA-256 of bytes, through WebCrypto (present in Obsidian and Node 20). */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  // TextEncoder output and our buffers are never shared, so the narrower view type is accurate.
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return toHex(new Uint8Array(digest));
}

/** The `body_hash` of a body. */
export async function bodyHash(body: string): Promise<string> {
  return `sha256:${await sha256Hex(body)}`;
}

/** Whether a caller-supplied hash has exactly the body-hash format. */
export function isBodyHash(value: string): boolean {
  return HASH_PATTERN.test(value);
}

/** UTF-8 byte length of a string. */
export function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
}

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}
