/** Id generation from the injected random source (§2.2), and the default seeded PRNG. */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { EmulatorRandom } from "./types";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** A deterministic PRNG (mulberry32) so tests get the same ids on every run. */
export function seededRandom(seed = 0x5eed_1234): EmulatorRandom {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Produces ids of every kind; `taken` lets the store keep them unique. */
export class IdSource {
  constructor(private readonly random: EmulatorRandom) {}

  /** `n` random bytes. */
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(this.random() * 256) & 0xff;
    return out;
  }

  /** 22 characters of base64url from 16 bytes, as HackMD note ids. */
  noteId(taken: (id: string) => boolean = () => false): string {
    return this.unique(() => this.bytes(16).toString("base64url"), taken);
  }

  /** 9 characters of the note-id alphabet, as CodiMD short ids. */
  shortId(taken: (id: string) => boolean = () => false): string {
    return this.unique(() => {
      let out = "";
      for (let i = 0; i < 9; i++) out += ALPHABET[Math.floor(this.random() * 64) & 63] ?? "A";
      return out;
    }, taken);
  }

  /** A UUID v4 string, for folders and teams. */
  uuid(taken: (id: string) => boolean = () => false): string {
    return this.unique(() => {
      const b = this.bytes(16);
      b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
      b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
      const hex = b.toString("hex");
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }, taken);
  }

  /** A random integer as a decimal string (folder `clientId`). */
  clientId(): string {
    return String(Math.floor(this.random() * 2 ** 31));
  }

  /** 32 random bytes in base64url, the shape of the process token. */
  token(): string {
    return this.bytes(32).toString("base64url");
  }

  private unique(make: () => string, taken: (id: string) => boolean): string {
    for (;;) {
      const id = make();
      if (!taken(id)) return id;
    }
  }
}

/**
 * A UUID-shaped id derived from a text (versions and comments): deterministic, and it leaves the
 * random source alone, so adding versions does not shift the ids of notes and folders made later.
 */
export function derivedUuid(text: string): string {
  const hex = createHash("sha256").update(text).digest("hex");
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
