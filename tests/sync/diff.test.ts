import { utf8Length } from "../../src/core/hash";
import { boundText, diffSummary, pullChanges, reduceDiffInput, utf8Prefix } from "../../src/sync/diff";

describe("bounded diffs (docs/tools.md §14.6)", () => {
  it("writes a unified diff with --- local / +++ remote and two lines of context", () => {
    const before = "a\nb\nc\nd\ne\nf\ng\n";
    const after = "a\nb\nc\nD\ne\nf\ng\n";
    expect(pullChanges(before, after)).toBe(
      ["--- local", "+++ remote", "@@ -2,5 +2,5 @@", " b", " c", "-d", "+D", " e", " f", ""].join("\n"),
    );
  });

  it("reduces an input above 16 KiB to its first and last 8 KiB with the omission line", () => {
    const text = `${"x".repeat(10_000)}\n${"y".repeat(10_000)}\n`;
    const reduced = reduceDiffInput(text);
    const omitted = utf8Length(text) - 2 * 8192;
    expect(reduced).toContain(`\n[… ${omitted} bytes omitted from diff input …]\n`);
    expect(reduced.startsWith("x".repeat(8192))).toBe(true);
    expect(reduced.endsWith(`${"y".repeat(8191)}\n`)).toBe(true);
    expect(reduceDiffInput("short\n")).toBe("short\n");
    expect(reduceDiffInput("é".repeat(8192))).toBe("é".repeat(8192)); // exactly 16 KiB stays
  });

  it("cuts on character boundaries when reducing", () => {
    const text = "é".repeat(9000); // 18,000 bytes, two bytes per character
    const reduced = reduceDiffInput(text);
    expect(reduced).toBe(
      `${"é".repeat(4096)}\n[… ${18_000 - 16_384} bytes omitted from diff input …]\n${"é".repeat(4096)}`,
    );
  });

  it("stops each diff at 1,900 bytes, never inside a UTF-8 character, then marks it with …", () => {
    const before = Array.from({ length: 400 }, (_, i) => `line ${i}`).join("\n");
    const after = Array.from({ length: 400 }, (_, i) => `ligne ${i} — é`).join("\n");
    const diff = pullChanges(before, after);
    expect(diff.endsWith("…")).toBe(true);
    expect(utf8Length(diff.slice(0, -1))).toBeLessThanOrEqual(1900);
    expect(boundText("€€€", 4)).toBe("€…");
    expect(utf8Prefix("a€b", 3)).toBe("a");
  });

  it("builds diff_summary with LOCAL CHANGES and REMOTE CHANGES against the baseline, near 4,000 characters at most", () => {
    const summary = diffSummary({ baseline: "one\ntwo\n", local: "one\nTWO\n", remote: "ONE\ntwo\n" });
    expect(summary).toBe(
      [
        "LOCAL CHANGES",
        "--- baseline",
        "+++ local",
        "@@ -1,2 +1,2 @@",
        " one",
        "-two",
        "+TWO",
        "",
        "REMOTE CHANGES",
        "--- baseline",
        "+++ remote",
        "@@ -1,2 +1,2 @@",
        "-one",
        "+ONE",
        " two",
        "",
      ].join("\n"),
    );
    const big = (c: string): string => Array.from({ length: 3000 }, (_, i) => `${c}${i}`).join("\n");
    expect(diffSummary({ baseline: big("a"), local: big("b"), remote: big("c") }).length).toBeLessThanOrEqual(4000);
  });
});
