import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decideCheck, decidePush, type PushFacts } from "../../src/sync/decide";

/** One parsed row of a Markdown table: its cells by header name. */
type Row = Record<string, string>;

/** The rows of the table under `## <heading>` in docs/sync-decision-table.md. */
function tableUnder(heading: string): Row[] {
  const text = readFileSync(join(__dirname, "../../docs/sync-decision-table.md"), "utf8");
  const section = text.split(/^## /m).find((part) => part.startsWith(heading));
  if (section === undefined) throw new Error(`no section ${heading}`);
  const lines = section.split("\n").filter((line) => line.startsWith("|"));
  const cells = (line: string): string[] =>
    line
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim());
  const header = cells(lines[0] ?? "");
  return lines.slice(2).map((line) => Object.fromEntries(cells(line).map((cell, i) => [header[i] ?? `${i}`, cell])));
}

/** Evaluates an `=` / `≠` / `any` condition. */
function relation(condition: string | undefined, equal: boolean): boolean {
  if (condition === "any") return true;
  if (condition === "=") return equal;
  if (condition === "≠") return !equal;
  throw new Error(`unknown condition ${condition}`);
}

/** Evaluates the E column: atoms `any`, `absent`, `given`, `= R`, `≠ R` joined by `or` / `and`. */
function expectedCondition(condition: string | undefined, e: string | undefined, r: string): boolean {
  if (condition === undefined) throw new Error("no E condition");
  return condition.split(" or ").some((alternative) =>
    alternative.split(" and ").every((atom) => {
      switch (atom.trim()) {
        case "any":
          return true;
        case "absent":
          return e === undefined;
        case "given":
          return e !== undefined;
        case "= R":
          return e === r;
        case "≠ R":
          return e !== undefined && e !== r;
        default:
          throw new Error(`unknown E atom ${atom}`);
      }
    }),
  );
}

const HASHES = ["h0", "h1", "h2"];
const EXPECTED = [undefined, "h0", "h1", "h2", "h3"];

describe("the push decision table (docs/sync-decision-table.md)", () => {
  const rows = tableUnder("Push");

  it("documents the branches S1–S7, O1–O3 and G1–G8", () => {
    expect(rows.map((row) => row.Branch)).toEqual([
      "S1",
      "S2",
      "S3",
      "S4",
      "S5",
      "S6",
      "S7",
      "O1",
      "O2",
      "O3",
      "G1",
      "G2",
      "G3",
      "G4",
      "G5",
      "G6",
      "G7",
      "G8",
    ]);
  });

  it("matches exactly one documented row for every combination of hashes, and decidePush agrees", () => {
    const hit = new Map<string, number>();
    for (const strategy of ["safe", "overwrite", "merge"] as const) {
      for (const baseline of HASHES) {
        for (const local of HASHES) {
          for (const remote of HASHES) {
            for (const expected of EXPECTED) {
              const facts: PushFacts = { strategy, baseline, local, remote, expected };
              const matching = rows.filter(
                (row) =>
                  row.Strategy === strategy &&
                  relation(row["L vs B"], local === baseline) &&
                  relation(row["R vs B"], remote === baseline) &&
                  relation(row["L vs R"], local === remote) &&
                  expectedCondition(row.E, expected, remote),
              );
              expect(matching.map((row) => row.Branch)).toHaveLength(1);
              const row = matching[0] as Row;
              const decision = decidePush(facts);
              expect({ facts, branch: decision.branch, status: decision.status, effect: decision.effect }).toEqual({
                facts,
                branch: row.Branch,
                status: row.Status,
                effect: row.Effect,
              });
              expect(decision.write).toBe(decision.effect === "patch" || decision.effect === "merge");
              hit.set(decision.branch, (hit.get(decision.branch) ?? 0) + 1);
            }
          }
        }
      }
    }
    expect([...hit.keys()].sort()).toEqual(rows.map((row) => row.Branch).sort());
  });

  it("never turns a remote-only change into a write, whatever expected_remote_hash says", () => {
    for (const expected of EXPECTED) {
      expect(decidePush({ strategy: "safe", baseline: "h0", local: "h0", remote: "h1", expected }).branch).toBe("S2");
    }
  });

  it("refuses a merge whose remote moved back to the baseline (S4)", () => {
    expect(decidePush({ strategy: "safe", baseline: "h0", local: "h1", remote: "h0", expected: "h2" })).toEqual({
      branch: "S4",
      status: "conflict",
      effect: "snapshot",
      write: false,
    });
  });
});

describe("the sync check table (docs/sync-decision-table.md)", () => {
  const rows = tableUnder("Sync check");

  it("matches exactly one documented row for every combination, and decideCheck agrees", () => {
    expect(rows.map((row) => row.Branch)).toEqual(["C1", "C2", "C3", "C4", "C5"]);
    const hit = new Set<string>();
    for (const baseline of HASHES) {
      for (const local of HASHES) {
        for (const remote of HASHES) {
          const matching = rows.filter(
            (row) =>
              relation(row["L vs B"], local === baseline) &&
              relation(row["R vs B"], remote === baseline) &&
              relation(row["L vs R"], local === remote),
          );
          expect(matching).toHaveLength(1);
          const decision = decideCheck({ baseline, local, remote });
          expect({ branch: decision.branch, status: decision.status }).toEqual({
            branch: matching[0]?.Branch,
            status: matching[0]?.Status,
          });
          hit.add(decision.branch);
        }
      }
    }
    expect([...hit].sort()).toEqual(["C1", "C2", "C3", "C4", "C5"]);
  });
});
