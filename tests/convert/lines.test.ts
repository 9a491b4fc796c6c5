/**
 * The line splitter and the joiner the conversion ends with: `joinFrom` takes runs of untouched
 * lines as slices of the input, and must give exactly what concatenating every line gives. And
 * the line classes written as loops give what the expressions they stand for give.
 */
import { joinFrom, type Line, splitLinesAt, withText } from "../../src/convert/lines";
import { colonRun, indentWidth } from "../../src/convert/syntax";

const concatenated = (lines: readonly Line[]): string => lines.map((line) => line.text + line.eol).join("");

describe("joinFrom", () => {
  it("gives the text of the lines, whichever of the input's own lines they keep, drop, change or add", () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pieces = ["a", "bc", " ", "\n", "\n", "\r\n", "\r", "x"];
    for (let n = 0; n < 3000; n++) {
      const source = Array.from({ length: random(20) }, () => pieces[random(pieces.length)] as string).join("");
      const starts: number[] = [];
      const lines = splitLinesAt(source, starts);
      expect(joinFrom(lines, source, lines, starts)).toBe(source);
      const out: Line[] = [];
      for (const line of lines) {
        const what = random(6);
        if (what === 0) continue;
        if (what === 1) out.push(withText(line, `${line.text}!`));
        else if (what === 2) out.push({ text: "new", eol: "\n", no: line.no });
        else if (what === 3) out.push(withText(line, line.text));
        else out.push(line);
      }
      expect([source, joinFrom(out, source, lines, starts)]).toEqual([source, concatenated(out)]);
    }
  });
});

describe("line classes without expressions", () => {
  it("colonRun and indentWidth give what the expressions give", () => {
    let seed = 5;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pieces = [" ", ":", "a", "\t", ">", "  "];
    for (let n = 0; n < 5000; n++) {
      const text = Array.from({ length: random(10) }, () => pieces[random(pieces.length)] as string).join("");
      expect([text, colonRun(text)]).toEqual([text, /^ {0,3}(:+)/.exec(text)?.[1]?.length ?? 0]);
      let width = 0;
      for (const char of /^[ \t]*/.exec(text)?.[0] ?? "") width = char === " " ? width + 1 : width + 4 - (width % 4);
      expect([text, indentWidth(text)]).toEqual([text, width]);
    }
  });
});
