import { boundedDetail, NO_DETAIL, REDACTED, redactToken } from "../../src/hackmd/redact";

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
const TOKEN = "tok_ABCDEFGHIJKLMNOP";

describe("bounded, redacted detail (docs/tools.md §6.4)", () => {
  it("quotes a short body as is and reads an empty one as 'no response detail'", () => {
    expect(boundedDetail(enc('{"error":"Note not found"}'), TOKEN)).toBe('{"error":"Note not found"}');
    expect(boundedDetail(enc(""), TOKEN)).toBe(NO_DETAIL);
    expect(boundedDetail(enc("  \n\t "), TOKEN)).toBe(NO_DETAIL);
    expect(boundedDetail(enc("x"), undefined)).toBe("x");
  });

  it("replaces every complete token occurrence", () => {
    const detail = boundedDetail(enc(`bad token ${TOKEN} and again ${TOKEN}.`), TOKEN);
    expect(detail).toBe(`bad token ${REDACTED} and again ${REDACTED}.`);
  });

  it("limits the text to 300 characters and appends …", () => {
    const detail = boundedDetail(enc("a".repeat(1000)), TOKEN);
    expect(detail).toBe(`${"a".repeat(300)}…`);
    expect(detail.length).toBeLessThan(400);
    expect(boundedDetail(enc("b".repeat(300)), TOKEN)).toBe("b".repeat(300));
  });

  it("reads at most 300×4 + token-length bytes and drops a token prefix the cut went through", () => {
    const window = 300 * 4 + TOKEN.length;
    for (let keep = 1; keep < TOKEN.length; keep += 1) {
      // Padding of spaces collapses, so the partial token would be the visible tail.
      const body = " ".repeat(window - keep) + TOKEN + " tail";
      const detail = boundedDetail(enc(body), TOKEN);
      expect(detail).not.toContain(TOKEN.slice(0, Math.max(keep, 2)));
      expect(detail.endsWith("…")).toBe(true);
    }
  });

  it("never shows part of a token split by the window even after the 300-character limit", () => {
    const window = 300 * 4 + TOKEN.length;
    const body = "\n".repeat(window - 6) + TOKEN;
    const detail = boundedDetail(enc(body), TOKEN);
    expect(detail).toBe("…");
  });

  it("keeps a body that merely ends with a token prefix when nothing was cut", () => {
    expect(boundedDetail(enc("code tok"), TOKEN)).toBe("code tok");
  });

  it("collapses whitespace and control characters to single spaces", () => {
    expect(boundedDetail(enc("line one\r\n\u0000line\ttwo  "), TOKEN)).toBe("line one line two");
  });

  it("does not split a multi-byte character at the byte window", () => {
    const body = enc("é".repeat(2000));
    const detail = boundedDetail(body, "");
    expect(detail).toBe(`${"é".repeat(300)}…`);
  });

  it("works on a copy: the body bytes are unchanged", () => {
    const body = enc(`x ${TOKEN}`);
    const before = Array.from(body);
    boundedDetail(body, TOKEN);
    expect(Array.from(body)).toEqual(before);
  });

  it("redactToken scrubs any text and ignores an empty token", () => {
    expect(redactToken(`a ${TOKEN} b`, TOKEN)).toBe(`a ${REDACTED} b`);
    expect(redactToken("abc", "")).toBe("abc");
    expect(redactToken("abc", undefined)).toBe("abc");
  });
});
