/** Names and exclude patterns of mirrors (src/app/mirror-names.ts). */
import { checkExcludePatterns, excludeMatcher, safeName, uniqueName } from "../../src/app/mirror-names";

test.each([
  ["Plain title", "Plain title"],
  ['a/b\\c:d*e?f"g<h>i|j#k^l[m]n', "a b c d e f g h i j k l m n"],
  ["  ..hidden. ", "hidden"],
  ["CON", "CON (note)"],
  ["nul.txt", "nul.txt (note)"],
  ["", "Untitled"],
  ["///", "Untitled"],
  ["tab\there\nnewline", "tab here newline"],
  ["x".repeat(150), "x".repeat(100)],
])("safeName(%j) is %j", (title, expected) => {
  expect(safeName(title)).toBe(expected);
});

test("uniqueName adds a number without regard to case and remembers what it chose", () => {
  const taken = new Set(["note"]);
  expect(uniqueName("Note", taken)).toBe("Note 2");
  expect(uniqueName("NOTE", taken)).toBe("NOTE 3");
  expect(uniqueName("Other", taken)).toBe("Other");
});

test("exclude patterns: folders, names anywhere, ** and ?", () => {
  const excluded = excludeMatcher(["drafts/", "*.private.md", "archive/**/old?.md"]);
  expect(excluded("drafts/a.md")).toBe(true);
  expect(excluded("x/drafts/a.md")).toBe(true);
  expect(excluded("drafts.md")).toBe(false);
  expect(excluded("deep/secret.private.md")).toBe(true);
  expect(excluded("archive/2020/q1/old1.md")).toBe(true);
  expect(excluded("archive/old2.md")).toBe(true);
  expect(excluded("archive/old10.md")).toBe(false);
  expect(excluded("notes/plan.md")).toBe(false);
});

test("bad patterns are refused, and a hostile pattern stays fast", () => {
  expect(() => checkExcludePatterns([" "])).toThrow(/1 to 200 characters/);
  expect(() => checkExcludePatterns(["a\u0001"])).toThrow(/control characters/);
  expect(() => checkExcludePatterns(Array.from({ length: 101 }, () => "a"))).toThrow(/at most 100/);
  const hostile = excludeMatcher(["*".repeat(100) + "b"]);
  // Dynamic programming, not backtracking: a long near-miss is still answered (no timing asserted).
  expect(hostile("a".repeat(5000))).toBe(false);
});
