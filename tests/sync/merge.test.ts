import fc from "fast-check";
import {
  MERGE_LEAF_LIMIT,
  resolveHunks,
  threeWayMerge,
  type ConflictedMerge,
  type MergeChoice,
  type MergeResult,
} from "../../src/sync/merge";

const text = (...lines: string[]): string => lines.map((line) => `${line}\n`).join("");

function conflicted(result: MergeResult): ConflictedMerge {
  if (result.clean)
    throw new Error(`expected a conflict, got a clean merge: ${JSON.stringify(result.merged.slice(0, 200))}`);
  return result;
}

const all = (result: ConflictedMerge, choice: MergeChoice): MergeChoice[] =>
  Array.from({ length: result.conflicts }, () => choice);

describe("threeWayMerge: worked examples", () => {
  const base = text("# Title", "", "one", "two", "three", "four", "five");

  it("merges edits to disjoint regions", () => {
    const local = text("# Title", "", "ONE", "two", "three", "four", "five");
    const remote = text("# Title", "", "one", "two", "three", "four", "FIVE");
    expect(threeWayMerge({ base, local, remote })).toEqual({
      clean: true,
      merged: text("# Title", "", "ONE", "two", "three", "four", "FIVE"),
    });
  });

  it("does not treat identical edits on both sides as a conflict", () => {
    const edited = text("# Title", "", "one", "TWO", "three", "four", "five");
    expect(threeWayMerge({ base, local: edited, remote: edited })).toEqual({ clean: true, merged: edited });
    // The same change inside a larger merge: both sides changed "two" alike, remote also "five".
    const remote = text("# Title", "", "one", "TWO", "three", "four", "FIVE");
    expect(threeWayMerge({ base, local: edited, remote })).toEqual({ clean: true, merged: remote });
  });

  it("yields the edited side when the other is unchanged", () => {
    const edited = text("# Title", "", "one", "three", "four", "4½", "five");
    expect(threeWayMerge({ base, local: edited, remote: base })).toEqual({ clean: true, merged: edited });
    expect(threeWayMerge({ base, local: base, remote: edited })).toEqual({ clean: true, merged: edited });
  });

  it("returns three identical texts byte for byte, whatever their line endings", () => {
    for (const same of ["a\r\nb\rc\n", "x", "", "\n\n", "\u{feff}é\r\n  trailing  \n", "a\r"]) {
      expect(threeWayMerge({ base: same, local: same, remote: same })).toEqual({ clean: true, merged: same });
    }
  });

  it("gives overlapping edits a conflict hunk with base, local and remote", () => {
    const local = text("# Title", "", "one", "two (mine)", "three", "four", "five");
    const remote = text("# Title", "", "one", "two (theirs)", "three", "four", "five");
    const result = conflicted(threeWayMerge({ base, local, remote }));
    expect(result.hunks).toEqual([
      { kind: "stable", lines: ["# Title", "", "one"] },
      { kind: "conflict", base: ["two"], local: ["two (mine)"], remote: ["two (theirs)"] },
      { kind: "stable", lines: ["three", "four", "five"] },
    ]);
    expect(result.conflicts).toBe(1);
    expect(resolveHunks(result, ["local"])).toBe(local);
    expect(resolveHunks(result, ["remote"])).toBe(remote);
    expect(resolveHunks(result, ["both"])).toBe(
      text("# Title", "", "one", "two (mine)", "two (theirs)", "three", "four", "five"),
    );
  });

  it("treats edits of adjacent lines as overlapping", () => {
    const local = text("# Title", "", "one", "TWO", "three", "four", "five");
    const remote = text("# Title", "", "one", "two", "THREE", "four", "five");
    const result = conflicted(threeWayMerge({ base, local, remote }));
    expect(result.hunks[1]).toEqual({
      kind: "conflict",
      base: ["two", "three"],
      local: ["TWO", "three"],
      remote: ["two", "THREE"],
    });
  });

  it("conflicts a deletion with an edit of the same lines", () => {
    const local = text("# Title", "", "one", "four", "five"); // deleted two and three
    const remote = text("# Title", "", "one", "two", "3", "four", "five");
    const result = conflicted(threeWayMerge({ base, local, remote }));
    expect(result.hunks).toContainEqual({ kind: "conflict", base: ["two", "three"], local: [], remote: ["two", "3"] });
    expect(resolveHunks(result, ["local"])).toBe(local);
    expect(resolveHunks(result, ["remote"])).toBe(remote);
  });

  it("conflicts different additions at the end on both sides, and merges identical ones", () => {
    const local = `${base}mine\n`;
    const remote = `${base}theirs 1\ntheirs 2\n`;
    const result = conflicted(threeWayMerge({ base, local, remote }));
    expect(result.hunks.at(-1)).toEqual({
      kind: "conflict",
      base: [],
      local: ["mine"],
      remote: ["theirs 1", "theirs 2"],
    });
    expect(resolveHunks(result, ["both"])).toBe(`${base}mine\ntheirs 1\ntheirs 2\n`);
    expect(threeWayMerge({ base, local, remote: local })).toEqual({ clean: true, merged: local });
  });

  it("merges an addition at the end with an edit at the start", () => {
    const local = `${base}appended\n`;
    const remote = base.replace("# Title", "# New title");
    expect(threeWayMerge({ base, local, remote })).toEqual({ clean: true, merged: `${remote}appended\n` });
  });

  describe("final newline", () => {
    it("keeps it when both sides agree, with or without one", () => {
      expect(threeWayMerge({ base: "a\nb\nc\n", local: "A\nb\nc\n", remote: "a\nb\nC\n" })).toEqual({
        clean: true,
        merged: "A\nb\nC\n",
      });
      expect(threeWayMerge({ base: "a\nb\nc", local: "A\nb\nc", remote: "a\nb\nC" })).toEqual({
        clean: true,
        merged: "A\nb\nC",
      });
      expect(threeWayMerge({ base: "a\nb\nc", local: "A\nb\nc\n", remote: "a\nb\nC\n" })).toEqual({
        clean: true,
        merged: "A\nb\nC\n",
      });
    });

    it("takes the one side's change when only one side changed it", () => {
      expect(threeWayMerge({ base: "a\nb\nc\n", local: "A\nb\nc\n", remote: "a\nb\nc" })).toEqual({
        clean: true,
        merged: "A\nb\nc",
      });
      expect(threeWayMerge({ base: "a\nb\nc", local: "A\nb\nc", remote: "a\nb\nc\n" })).toEqual({
        clean: true,
        merged: "A\nb\nc\n",
      });
    });

    it("lets a line appended after an unterminated last line merge with an edit above it", () => {
      expect(threeWayMerge({ base: "a\nb\nc", local: "a\nb\nc\nd", remote: "a\nB\nc" })).toEqual({
        clean: true,
        merged: "a\nB\nc\nd",
      });
    });

    it("follows the choice for a conflict at the end of the text", () => {
      const result = conflicted(threeWayMerge({ base: "a\nb\n", local: "a\nmine", remote: "a\ntheirs\n" }));
      expect(resolveHunks(result, ["local"])).toBe("a\nmine");
      expect(resolveHunks(result, ["remote"])).toBe("a\ntheirs\n");
      expect(resolveHunks(result, ["both"])).toBe("a\nmine\ntheirs\n");
    });
  });

  describe("empty texts", () => {
    it("merges from an empty base", () => {
      expect(threeWayMerge({ base: "", local: "new\n", remote: "" })).toEqual({ clean: true, merged: "new\n" });
      expect(threeWayMerge({ base: "", local: "same\n", remote: "same\n" })).toEqual({ clean: true, merged: "same\n" });
      const result = conflicted(threeWayMerge({ base: "", local: "mine\n", remote: "theirs\n" }));
      expect(result.hunks).toEqual([{ kind: "conflict", base: [], local: ["mine"], remote: ["theirs"] }]);
      expect(resolveHunks(result, ["local"])).toBe("mine\n");
      expect(resolveHunks(result, ["remote"])).toBe("theirs\n");
    });

    it("conflicts emptying a note with an edit of it", () => {
      const result = conflicted(threeWayMerge({ base: "a\n", local: "", remote: "b\n" }));
      expect(resolveHunks(result, ["local"])).toBe("");
      expect(resolveHunks(result, ["remote"])).toBe("b\n");
    });
  });

  it("keeps CRLF bodies CRLF", () => {
    const base = "a\r\nb\r\nc\r\nd\r\n";
    expect(threeWayMerge({ base, local: "A\r\nb\r\nc\r\nd\r\n", remote: "a\r\nb\r\nc\r\nD\r\n" })).toEqual({
      clean: true,
      merged: "A\r\nb\r\nc\r\nD\r\n",
    });
    const result = conflicted(
      threeWayMerge({ base, local: "a\r\nmine\r\nc\r\nd\r\n", remote: "a\r\ntheirs\r\nc\r\nd\r\n" }),
    );
    expect(result.lineEnding).toBe("\r\n");
    expect(result.hunks[1]).toEqual({ kind: "conflict", base: ["b"], local: ["mine"], remote: ["theirs"] });
    expect(resolveHunks(result, ["local"])).toBe("a\r\nmine\r\nc\r\nd\r\n");
  });

  it("includes remote's clean changes when every conflict is resolved as local", () => {
    const local = text("# Title", "", "one", "two (mine)", "three", "four", "five");
    const remote = text("# Title", "", "one", "two (theirs)", "three", "four", "FIVE");
    const result = conflicted(threeWayMerge({ base, local, remote }));
    expect(resolveHunks(result, ["local"])).toBe(text("# Title", "", "one", "two (mine)", "three", "four", "FIVE"));
  });

  it("refuses a choice list of the wrong length", () => {
    const result = conflicted(threeWayMerge({ base: "a\n", local: "b\n", remote: "c\n" }));
    expect(() => resolveHunks(result, [])).toThrow(RangeError);
    expect(() => resolveHunks({ clean: true, merged: "x" }, ["local"])).toThrow(RangeError);
    expect(resolveHunks({ clean: true, merged: "x" }, [])).toBe("x");
  });

  it("turns a large range both sides changed, with no common anchor, into one conflict hunk", () => {
    const size = MERGE_LEAF_LIMIT; // every line repeated, so no line can anchor
    const base = Array.from({ length: size }, (_, i) => (i % 2 === 0 ? "" : "| a | b |")).join("\n");
    const lines = base.split("\n");
    // Two edits per side, interleaved, so that no side changed just one stretch.
    const edit = (at: readonly number[], tag: string): string =>
      lines.map((line, i) => (at.includes(i) ? `${tag} ${i}` : line)).join("\n");
    const local = edit([0, size / 2], "local");
    const remote = edit([10, size - 1], "remote");
    const result = conflicted(threeWayMerge({ base, local, remote }));
    expect(result.conflicts).toBe(1);
    expect(resolveHunks(result, ["local"])).toBe(local);
    expect(resolveHunks(result, ["remote"])).toBe(remote);
  });

  it("merges interleaved edits of a 1 MB note, two on each side", () => {
    const lines = Array.from({ length: 20_000 }, (_, i) =>
      i % 3 === 0 ? "" : `line ${i}: ${"lorem ipsum ".repeat(4)}`,
    );
    const base = `${lines.join("\n")}\n`;
    const local = base.replace("line 100:", "LINE 100:").replace("line 10000:", "LINE 10000:");
    const remote = base.replace("line 5000:", "LINE 5000:").replace("line 19900:", "LINE 19900:");
    const merged = threeWayMerge({ base, local, remote });
    expect(merged).toEqual({
      clean: true,
      merged: local.replace("line 5000:", "LINE 5000:").replace("line 19900:", "LINE 19900:"),
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

const SEED = 20261201;
const RUNS = 200;

/** Short lines from a small alphabet, so texts share and repeat lines. */
const line = fc.string({ unit: fc.constantFrom("a", "b", "c", " ", "#", "é"), maxLength: 4 });
const ending = fc.constantFrom("\n", "\r\n");

/** A body of lines joined with one line break, with or without a final one. */
const body = fc
  .record({ lines: fc.array(line, { maxLength: 12 }), ending, finalNewline: fc.boolean() })
  .map(({ lines, ending, finalNewline }) => join(lines, ending, finalNewline));

function join(lines: readonly string[], ending: string, finalNewline: boolean): string {
  // Without a final newline a trailing empty line would vanish; keep the line count honest.
  const final = lines.length > 0 && (finalNewline || lines[lines.length - 1] === "") ? ending : "";
  return lines.join(ending) + final;
}

/** N distinct base lines, so that edits are unambiguous. */
const distinctBase = fc.integer({ min: 3, max: 40 }).map((n) => Array.from({ length: n }, (_, i) => `base ${i}`));

/** Replacement lines that cannot occur in the base (possibly none: a deletion). */
const replacement = (tag: string) =>
  fc.array(fc.nat({ max: 5 }), { maxLength: 4 }).map((ids) => ids.map((id) => `${tag} ${id}`));

describe("threeWayMerge: properties", () => {
  it("merging a side with an unchanged side yields that side", () => {
    fc.assert(
      fc.property(body, body, (base, edited) => {
        expect(threeWayMerge({ base, local: edited, remote: base })).toEqual({ clean: true, merged: edited });
        expect(threeWayMerge({ base, local: base, remote: edited })).toEqual({ clean: true, merged: edited });
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("identical edits are not conflicts", () => {
    fc.assert(
      fc.property(body, body, (base, edited) => {
        expect(threeWayMerge({ base, local: edited, remote: edited })).toEqual({ clean: true, merged: edited });
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("edits of two regions separated by an untouched line both land in the merge", () => {
    fc.assert(
      fc.property(
        distinctBase,
        fc.nat(),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        replacement("mine"),
        replacement("theirs"),
        ending,
        fc.boolean(),
        fc.boolean(),
        (lines, p, q, r, s, mine, theirs, eol, finalNewline, localFirst) => {
          // Four cut points 0 ≤ i ≤ j < k ≤ l ≤ n, with j < k so base line j stays untouched.
          const n = lines.length;
          const cuts = [p % (n + 1), q % (n + 1), r % (n + 1), s % (n + 1)].sort((x, y) => x - y) as [
            number,
            number,
            number,
            number,
          ];
          let [i, j, k, l] = cuts;
          if (j === k) {
            if (k < n) k += 1;
            else if (j > 0) j -= 1;
            else return; // n = 0 cannot happen (min 3), kept for the type checker
          }
          if (i > j) i = j;
          if (l < k) l = k;
          const first = localFirst ? mine : theirs;
          const second = localFirst ? theirs : mine;
          const firstEdit = [...lines.slice(0, i), ...first, ...lines.slice(j)];
          const secondEdit = [...lines.slice(0, k), ...second, ...lines.slice(l)];
          const both = [...lines.slice(0, i), ...first, ...lines.slice(j, k), ...second, ...lines.slice(l)];
          const local = join(localFirst ? firstEdit : secondEdit, eol, finalNewline);
          const remote = join(localFirst ? secondEdit : firstEdit, eol, finalNewline);
          const base = join(lines, eol, finalNewline);
          expect(threeWayMerge({ base, local, remote })).toEqual({
            clean: true,
            merged: join(both, eol, finalNewline),
          });
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("several edits on each side, in regions separated by untouched lines, all land in the merge", () => {
    const region = fc.record({
      gap: fc.nat({ max: 3 }),
      length: fc.nat({ max: 3 }),
      local: fc.boolean(),
      lines: replacement("new"),
    });
    fc.assert(
      fc.property(
        distinctBase,
        fc.array(region, { minLength: 2, maxLength: 6 }),
        ending,
        fc.boolean(),
        (lines, regions, eol, finalNewline) => {
          // Lay the regions out left to right, each at least one untouched line after the last.
          const placed: Array<{ start: number; end: number; local: boolean; lines: string[] }> = [];
          let position = 0;
          for (const [index, { gap, length, local, lines: added }] of regions.entries()) {
            const start = position + gap + (index === 0 ? 0 : 1);
            if (start > lines.length) break;
            const end = Math.min(start + length, lines.length);
            // Tag the new lines with the region, so that no two regions insert equal lines.
            placed.push({ start, end, local, lines: added.map((line) => `${line} r${index}`) });
            position = end;
          }
          const apply = (which: (local: boolean) => boolean): string[] => {
            const out: string[] = [];
            let at = 0;
            for (const edit of placed) {
              out.push(...lines.slice(at, edit.start));
              out.push(...(which(edit.local) ? edit.lines : lines.slice(edit.start, edit.end)));
              at = edit.end;
            }
            return [...out, ...lines.slice(at)];
          };
          const base = join(lines, eol, finalNewline);
          const local = join(
            apply((isLocal) => isLocal),
            eol,
            finalNewline,
          );
          const remote = join(
            apply((isLocal) => !isLocal),
            eol,
            finalNewline,
          );
          expect(threeWayMerge({ base, local, remote })).toEqual({
            clean: true,
            merged: join(
              apply(() => true),
              eol,
              finalNewline,
            ),
          });
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  // Precisely: all "local" gives local when remote has no change of its own that merged
  // cleanly, i.e. every remote change lies in a conflict hunk. That is the case when both sides
  // replaced the same range differently and changed nothing else (final newline included).
  it("resolving every hunk as local gives local, and as remote gives remote, when both sides edited the same range", () => {
    fc.assert(
      fc.property(
        distinctBase,
        fc.nat(),
        fc.nat(),
        fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 4 }),
        ending,
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (lines, p, q, mineIds, theirsIds, eol, baseFinal, sidesFinal, remoteFinalDiffers) => {
          const n = lines.length;
          const [i, j] = [p % (n + 1), q % (n + 1)].sort((x, y) => x - y) as [number, number];
          const mine = mineIds.map((id) => `mine ${id}`);
          const theirs = theirsIds.map((id) => `theirs ${id}`);
          const base = join(lines, eol, baseFinal);
          // A final-newline difference between the sides is a change of its own unless the
          // range reaches the end of the text, where it belongs to the conflict.
          const touchesEnd = j === n;
          const localFinal = sidesFinal;
          const remoteFinal = touchesEnd && remoteFinalDiffers ? !sidesFinal : sidesFinal;
          const local = join([...lines.slice(0, i), ...mine, ...lines.slice(j)], eol, localFinal);
          const remote = join([...lines.slice(0, i), ...theirs, ...lines.slice(j)], eol, remoteFinal);
          const result = threeWayMerge({ base, local, remote });
          if (result.clean) {
            // Only possible when the sides came out equal.
            expect(local).toBe(remote);
            return;
          }
          expect(result.hunks.some((hunk) => hunk.kind === "conflict")).toBe(true);
          expect(resolveHunks(result, all(result, "local"))).toBe(local);
          expect(resolveHunks(result, all(result, "remote"))).toBe(remote);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("conflict hunks hold differing sides, no two stable hunks touch, and every choice resolves", () => {
    fc.assert(
      fc.property(body, body, body, (base, local, remote) => {
        const result = threeWayMerge({ base, local, remote });
        if (result.clean) return;
        expect(result.conflicts).toBe(result.hunks.filter((hunk) => hunk.kind === "conflict").length);
        result.hunks.forEach((hunk, index) => {
          if (hunk.kind === "stable") expect(result.hunks[index + 1]?.kind).not.toBe("stable");
          else expect(hunk.local).not.toEqual(hunk.remote);
        });
        for (const choice of ["local", "remote", "both"] as const)
          expect(typeof resolveHunks(result, all(result, choice))).toBe("string");
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
