/**
 * SHA-256 computed synchronously. Conversions are synchronous (WebCrypto's digest is not), and a
 * comment placeholder's id must not let a collaborator guess a short comment, so a plain checksum
 * will not do (docs/conversion-rules.md, "Comments").
 */

// Int32Array: values above 2^31 read from a Uint32Array are doubles and slow every round down.
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const encoder = new TextEncoder();

const HEX = "0123456789abcdef";

/** Lowercase hex SHA-256 of a string's UTF-8 bytes. */
export function sha256HexSync(text: string): string {
  return sha256Hasher()(text);
}

/**
 * A SHA-256 function that keeps its buffers between calls (allocating them costs more than hashing
 * a short comment). The caller owns it; a context builds one.
 */
export function sha256Hasher(): (text: string) => string {
  let buffer = new Uint8Array(256);
  const w = new Int32Array(64);
  return (text) => {
    // The UTF-8 bytes (at most 3 per UTF-16 unit), the 0x80 pad and the 64-bit length.
    const room = text.length * 3 + 72;
    if (buffer.length < room) buffer = new Uint8Array(room + 64 - (room % 64));
    const length = encoder.encodeInto(text, buffer).written;
    const blocks = Math.ceil((length + 9) / 64);
    const end = blocks * 64;
    buffer.fill(0, length, end);
    buffer[length] = 0x80;
    const bits = length * 8;
    const high = Math.floor(bits / 0x100000000);
    for (let i = 0; i < 4; i++) {
      buffer[end - 8 + i] = (high >>> (24 - 8 * i)) & 0xff;
      buffer[end - 4 + i] = (bits >>> (24 - 8 * i)) & 0xff;
    }
    let h0 = 0x6a09e667 | 0,
      h1 = 0xbb67ae85 | 0,
      h2 = 0x3c6ef372 | 0,
      h3 = 0xa54ff53a | 0,
      h4 = 0x510e527f | 0,
      h5 = 0x9b05688c | 0,
      h6 = 0x1f83d9ab | 0,
      h7 = 0x5be0cd19 | 0;
    for (let offset = 0; offset < end; offset += 64) {
      for (let t = 0; t < 16; t++) {
        const at = offset + t * 4;
        w[t] =
          ((buffer[at] as number) << 24) |
          ((buffer[at + 1] as number) << 16) |
          ((buffer[at + 2] as number) << 8) |
          (buffer[at + 3] as number);
      }
      for (let t = 16; t < 64; t++) {
        const a = w[t - 15] as number;
        const b = w[t - 2] as number;
        const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
        const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
        w[t] = ((w[t - 16] as number) + s0 + (w[t - 7] as number) + s1) | 0;
      }
      let a = h0,
        b = h1,
        c = h2,
        d = h3,
        e = h4,
        f = h5,
        g = h6,
        h = h7;
      for (let t = 0; t < 64; t++) {
        const t1 =
          (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + (K[t] as number) + (w[t] as number)) |
          0;
        const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g;
        g = f;
        f = e;
        e = (d + t1) | 0;
        d = c;
        c = b;
        b = a;
        a = (t1 + t2) | 0;
      }
      h0 = (h0 + a) | 0;
      h1 = (h1 + b) | 0;
      h2 = (h2 + c) | 0;
      h3 = (h3 + d) | 0;
      h4 = (h4 + e) | 0;
      h5 = (h5 + f) | 0;
      h6 = (h6 + g) | 0;
      h7 = (h7 + h) | 0;
    }
    // By nibbles: Number#toString(16) of a word above 2^31 takes a slow floating-point path.
    let out = "";
    for (const word of [h0, h1, h2, h3, h4, h5, h6, h7])
      for (let shift = 28; shift >= 0; shift -= 4) out += HEX.charAt((word >>> shift) & 15);
    return out;
  };
}

function rotr(value: number, bits: number): number {
  return (value >>> bits) | (value << (32 - bits));
}
