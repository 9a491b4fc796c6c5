/**
 * Inputs with a long run of spaces where a backtracking expression was quadratic (callout titles,
 * table delimiter rows, same-note heading links): the linear scanners give the results the
 * expressions gave. Correctness only; their speed is measured in bench/convert.bench.ts
 * (adversarial inputs), never asserted here.
 */
import { toLocal, toRemote } from "../../src/convert";
import { isDelimiterRow, linesContaining, trimEndBlanks } from "../../src/convert/syntax";
import { context } from "./fixtures";

const SPACES = " ".repeat(20_000);

describe("trimEndBlanks", () => {
  it("cuts trailing spaces and tabs only", () => {
    expect(trimEndBlanks("a b \t ")).toBe("a b");
    expect(trimEndBlanks("a\u00a0 ")).toBe("a\u00a0");
    expect(trimEndBlanks(" \t")).toBe("");
    expect(trimEndBlanks("x")).toBe("x");
    expect(trimEndBlanks(`a${SPACES}b${SPACES}`)).toBe(`a${SPACES}b`);
  });
});

describe("a long run of spaces", () => {
  it("inside a callout title: the title keeps it, and the callout comes back byte for byte", () => {
    const local = `> [!note] *${SPACES}x\n> a`;
    const remote = toRemote(local, context()).text;
    expect(remote.startsWith(":::info note\n")).toBe(true);
    expect(remote).toContain(`${SPACES}x`);
    expect(toLocal(remote, context()).text).toBe(local);
  });

  it("after a callout title: it rides after the title", () => {
    const local = `> [!note] T${SPACES}\n> a`;
    const remote = toRemote(local, context()).text;
    expect(remote).toBe(`:::info note\n**T**${SPACES}\na\n:::`);
    expect(toLocal(remote, context()).text).toBe(local);
  });

  it("in a table delimiter row: a row only when the rest is blank", () => {
    expect(isDelimiterRow(`| --- |${SPACES}`)).toBe(true);
    expect(isDelimiterRow(`|-${SPACES}x`)).toBe(false);
    expect(isDelimiterRow(`|-${SPACES}|${SPACES}x`)).toBe(false);
    expect(isDelimiterRow(`--- | :-:${SPACES}`)).toBe(true);
  });

  it("in a heading line before a character no heading text may hold: not a heading a same-note link can name", () => {
    const local = `#${SPACES}!\n## Name${SPACES}\n[[#name]]`;
    const remote = toRemote(local, context()).text;
    expect(remote.endsWith('[name](#Name "#name")')).toBe(true);
    expect(toLocal(remote, context()).text).toBe(local);
    expect(toRemote(`#${SPACES}!\n[[#x]]`, context()).text.endsWith('[x](#x "#x")')).toBe(true);
  });
});

describe("linesContaining", () => {
  const naive = (text: string, a: string, b: string): string[] =>
    text.split(/\r\n|\n|\r/).filter((line) => line.includes(a) || line.includes(b));

  it("gives the lines split would give that hold either string, in order, each once", () => {
    for (const text of ["", "#", "a\n#", "#\r\n#\r#\n", "x\r\n\r\n# a\rb<!--c# d\n", "<!--c", "a#b#c\n\n#"])
      expect(linesContaining(text, "#", "<!--c")).toEqual(naive(text, "#", "<!--c"));
    let seed = 11;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pieces = ["a", " ", "#", "\n", "\r", "\r\n", "<!--c", "<!-", "x#"];
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: random(24) }, () => pieces[random(pieces.length)] as string).join("");
      expect([text, linesContaining(text, "#", "<!--c")]).toEqual([text, naive(text, "#", "<!--c")]);
    }
    // Without a CR the lines around each hit are found from the hit: the same lines.
    const lf = ["a", " ", "#", "\n", "\n\n", "<!--c", "<!-", "x#", "#\n"];
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: random(24) }, () => lf[random(lf.length)] as string).join("");
      expect([text, linesContaining(text, "#", "<!--c")]).toEqual([text, naive(text, "#", "<!--c")]);
    }
  });
});
