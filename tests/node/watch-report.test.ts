/**
 * The lines `sync` and `sync --watch` print about a round (src/node/commands/sync.ts countWords,
 * src/node/commands/watch.ts reportLine): counts read as English, and a round with errors says
 * what went wrong instead of only how many.
 */
import { emptyCounts, type SyncAllCounts, type SyncAllItem } from "../../src/sync/sync-all";
import type { StepReport } from "../../src/sync/auto/runner";
import { countWords } from "../../src/node/commands/sync";
import { reportLine } from "../../src/node/commands/watch";

const zero: SyncAllCounts = emptyCounts();

function errorItem(path: string, message: string): SyncAllItem {
  return {
    note_id: "n1",
    team_path: null,
    local_path: path,
    plan: "push",
    branch: "S2",
    outcome: "error",
    error_kind: "network",
    message,
  } as unknown as SyncAllItem;
}

describe("round lines", () => {
  it("sync counts one error and one conflict in the singular", () => {
    expect(countWords({ ...zero, in_sync: 3, errors: 1, conflicts: 1 }, false)).toBe("3 in sync, 1 conflict, 1 error");
    expect(countWords({ ...zero, errors: 2, conflicts: 2 }, false)).toBe("2 conflicts, 2 errors");
  });

  it("a watch round with errors names the first one and its message", () => {
    const message =
      "GET /v1/notes: could not reach HackMD (the connection failed); check your connection and the API URL, then retry.";
    const report: StepReport = {
      at: Date.UTC(2027, 3, 1, 8),
      round: {
        counts: { ...zero, errors: 2 },
        requests: 2,
        conflicts: [],
        items: [errorItem("a.md", message), errorItem("b.md", message)],
      },
      pushes: [],
      requests: 2,
      used: 2,
      monthly: "unlimited",
      queued: 0,
      next: { ms: 60_000, reason: "minimum" },
    };
    const line = reportLine(report) ?? "";
    expect(line).toContain(`round: 2 errors; a.md: ${message};`);
    expect(
      reportLine({
        ...report,
        round: { ...report.round!, counts: { ...zero, errors: 1 }, items: [errorItem("a.md", message)] },
      }),
    ).toContain("round: 1 error; a.md: ");
  });
});
