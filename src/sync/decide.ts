/**
 * The sync decision tables (docs/tools.md §14.4, §14.5; docs/sync-decision-table.md) as pure
 * functions over hashes. Each returns a closed union with a stable branch id; the service
 * computes the decision before any write and executes it separately (docs/style.md rule 4).
 */

/** What a push does after its one GET. */
export type PushEffect =
  /** Nothing is written anywhere. */
  | "none"
  /** The record's baseline moves to the local body; nothing is sent to HackMD. */
  | "advance_baseline"
  /** `PATCH {content}`, read-back, then the baseline moves to the local body. */
  | "patch"
  /** Nothing is sent; a `.remote.md` snapshot is written beside the file. */
  | "snapshot"
  /**
   * Three-way merge of baseline, local and remote: clean → the merged body is written to the file
   * and PATCHed, then the baseline moves to it; overlapping → as `snapshot` (status `conflict`).
   */
  | "merge";

/** One decision of the push table, with its stable branch id. */
export type PushDecision =
  | { branch: "S1"; status: "nothing_to_push"; effect: "none"; write: false }
  | { branch: "S2"; status: "remote_changed"; effect: "none"; write: false }
  | { branch: "S3"; status: "pushed"; effect: "patch"; write: true }
  | { branch: "S4"; status: "conflict"; effect: "snapshot"; write: false }
  | { branch: "S5"; status: "nothing_to_push"; effect: "advance_baseline"; write: false }
  | { branch: "S6"; status: "pushed"; effect: "patch"; write: true }
  | { branch: "S7"; status: "conflict"; effect: "snapshot"; write: false }
  | { branch: "O1"; status: "nothing_to_push"; effect: "none"; write: false }
  | { branch: "O2"; status: "nothing_to_push"; effect: "advance_baseline"; write: false }
  | { branch: "O3"; status: "pushed"; effect: "patch"; write: true }
  | { branch: "G1"; status: "nothing_to_push"; effect: "none"; write: false }
  | { branch: "G2"; status: "remote_changed"; effect: "none"; write: false }
  | { branch: "G3"; status: "pushed"; effect: "patch"; write: true }
  | { branch: "G4"; status: "conflict"; effect: "snapshot"; write: false }
  | { branch: "G5"; status: "nothing_to_push"; effect: "advance_baseline"; write: false }
  | { branch: "G6"; status: "pushed"; effect: "patch"; write: true }
  | { branch: "G7"; status: "pushed"; effect: "merge"; write: true }
  | { branch: "G8"; status: "conflict"; effect: "snapshot"; write: false };

/** Stable ids of the push table. */
export type PushBranch = PushDecision["branch"];

/** The hashes a push decides on: B baseline, L local, R remote, E `expected_remote_hash`. */
export interface PushFacts {
  strategy: "safe" | "overwrite" | "merge";
  baseline: string;
  local: string;
  remote: string;
  expected?: string | undefined;
}

/** The push decision table of docs/tools.md §14.4. */
export function decidePush(facts: PushFacts): PushDecision {
  if (facts.strategy === "merge") return decideMergePush(facts);
  const { baseline: b, local: l, remote: r, expected: e } = facts;
  if (facts.strategy === "overwrite") {
    if (l !== r) return { branch: "O3", status: "pushed", effect: "patch", write: true };
    return l === b
      ? { branch: "O1", status: "nothing_to_push", effect: "none", write: false }
      : { branch: "O2", status: "nothing_to_push", effect: "advance_baseline", write: false };
  }
  if (l === b) {
    return r === b
      ? { branch: "S1", status: "nothing_to_push", effect: "none", write: false }
      : { branch: "S2", status: "remote_changed", effect: "none", write: false };
  }
  if (r === b) {
    return e === undefined || e === r
      ? { branch: "S3", status: "pushed", effect: "patch", write: true }
      : // The remote the merge was built on has moved, even if back to the baseline.
        { branch: "S4", status: "conflict", effect: "snapshot", write: false };
  }
  if (l === r) return { branch: "S5", status: "nothing_to_push", effect: "advance_baseline", write: false };
  return e === r
    ? { branch: "S6", status: "pushed", effect: "patch", write: true }
    : { branch: "S7", status: "conflict", effect: "snapshot", write: false };
}

/**
 * Strategy `merge` (docs/sync-decision-table.md, G1–G8): `safe`, except that both sides having
 * changed differently with no `expected_remote_hash` is merged instead of refused. An
 * `expected_remote_hash` that does not match still refuses (G8): the caller's guard wins.
 */
function decideMergePush(facts: PushFacts): PushDecision {
  const safe = decidePush({ ...facts, strategy: "safe" });
  switch (safe.branch) {
    case "S1":
      return { ...safe, branch: "G1" };
    case "S2":
      return { ...safe, branch: "G2" };
    case "S3":
      return { ...safe, branch: "G3" };
    case "S4":
      return { ...safe, branch: "G4" };
    case "S5":
      return { ...safe, branch: "G5" };
    case "S6":
      return { ...safe, branch: "G6" };
    default:
      return facts.expected === undefined
        ? { branch: "G7", status: "pushed", effect: "merge", write: true }
        : { branch: "G8", status: "conflict", effect: "snapshot", write: false };
  }
}

/** One decision of the sync check table, with its stable branch id. */
export type CheckDecision =
  | { branch: "C1"; status: "in_sync" }
  | { branch: "C2"; status: "local_changed" }
  | { branch: "C3"; status: "remote_changed" }
  | { branch: "C4"; status: "in_sync" }
  | { branch: "C5"; status: "conflict" };

/** Stable ids of the check table. */
export type CheckBranch = CheckDecision["branch"];

/** The sync check table of docs/tools.md §14.5: only hashes decide, never timestamps. */
export function decideCheck(facts: { baseline: string; local: string; remote: string }): CheckDecision {
  const { baseline: b, local: l, remote: r } = facts;
  if (l === b) return r === b ? { branch: "C1", status: "in_sync" } : { branch: "C3", status: "remote_changed" };
  if (r === b) return { branch: "C2", status: "local_changed" };
  // Both sides made the same change: not a conflict.
  return l === r ? { branch: "C4", status: "in_sync" } : { branch: "C5", status: "conflict" };
}
