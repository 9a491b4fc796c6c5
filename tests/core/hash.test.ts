import { createHash } from "node:crypto";
import { bodyHash, sha256Hex, useHostText, useSyncSha256, utf8Length } from "../../src/core/hash";
import { installNodeSha256 } from "../../src/node/node-sha256";

const expected = (text: string): string => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;

describe("bodyHash", () => {
  it("is sha256: + the hex SHA-256 of the UTF-8 bytes, small and large", async () => {
    for (const text of ["", "a\n", "é ☃ 😀\n", "x".repeat(70_000), "y\n".repeat(600_000)]) {
      expect(await bodyHash(text)).toBe(expected(text));
      expect(`sha256:${await sha256Hex(text)}`).toBe(expected(text));
    }
  });

  it("never answers a large body with the hash of another one it has seen, even of the same length", async () => {
    const base = "line of a large note\n".repeat(5_000);
    const bodies = [`A${base}`, `B${base}`, `${base}C`, `A${base}`.slice(0, -1) + "!", `A${base}`];
    for (let round = 0; round < 3; round++) {
      for (const body of bodies) expect(await bodyHash(body)).toBe(expected(body));
    }
    // Equal text built separately is answered the same, and more bodies than the memo holds stay right.
    const many = Array.from({ length: 9 }, (_, index) => `${String(index)}${base}`);
    for (const body of [...many, ...many.reverse()]) expect(await bodyHash(body)).toBe(expected(body));
    expect(await bodyHash(["A", base].join(""))).toBe(expected(`A${base}`));
  });

  it("hashes bodies of the same length concurrently without mixing them up", async () => {
    const base = "z".repeat(80_000);
    const bodies = Array.from({ length: 6 }, (_, index) => `${String(index)}${base}`);
    const hashes = await Promise.all([...bodies, ...bodies].map((body) => bodyHash(body)));
    expect(hashes).toEqual([...bodies, ...bodies].map(expected));
  });
});

describe("sha256Hex with a host's synchronous SHA-256", () => {
  afterEach(() => {
    useSyncSha256(undefined);
    useHostText(undefined);
  });

  it("gives WebCrypto's answers with Node's crypto installed", async () => {
    // Lone surrogates: Node's text hash must encode them as U+FFFD, as TextEncoder does.
    const inputs = [
      "",
      "a\n",
      "é ☃ 😀\n",
      "\ud83d",
      "x\ude00\ud83d",
      "x".repeat(70_000),
      new Uint8Array([0, 255, 10, 13]),
    ];
    const webCrypto = await Promise.all(inputs.map((input) => sha256Hex(input)));
    installNodeSha256();
    expect(await Promise.all(inputs.map((input) => sha256Hex(input)))).toEqual(webCrypto);
    for (const text of ["", "y\n".repeat(600_000)]) expect(await bodyHash(text)).toBe(expected(text));
  });

  it("uses the installed digest, and WebCrypto again once it is removed", async () => {
    const calls: number[] = [];
    useSyncSha256((bytes) => {
      calls.push(bytes.byteLength);
      return "f".repeat(64);
    });
    expect(await sha256Hex("abc")).toBe("f".repeat(64));
    expect(calls).toEqual([3]);
    useSyncSha256(undefined);
    expect(await sha256Hex("abc")).toBe(createHash("sha256").update("abc").digest("hex"));
  });
});

describe.each([
  ["TextEncoder", (): void => useHostText(undefined)],
  ["Node's Buffer installed", installNodeSha256],
])("utf8Length (%s)", (_name, install) => {
  beforeEach(install);
  afterEach(() => {
    useSyncSha256(undefined);
    useHostText(undefined);
  });
  it("counts the bytes TextEncoder writes, lone surrogates as U+FFFD", () => {
    const encoder = new TextEncoder();
    const units = [0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xe9, 0x2603, 0xd83d, 0xde00, 0xdbff, 0xdc00, 0xffff, 0x0a];
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const cases = ["", "a", "é ☃ 😀\n", "\ud83d", "\ude00", "x\ud83d", "\ud83d\ud83d\ude00", "\ude00\ud83d"];
    for (let n = 0; n < 2000; n++)
      cases.push(
        String.fromCharCode(...Array.from({ length: random(12) }, () => units[random(units.length)] as number)),
      );
    for (const text of cases) expect([text, utf8Length(text)]).toEqual([text, encoder.encode(text).byteLength]);
  });
});
