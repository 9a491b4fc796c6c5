/**
 * The sync decision tables (TOOLS.md §14.4, §14.5; docs/sync-decision-table.md) as pure
 * functions over hashes. Each returns a closed union with a stable branch id; the service
 * computes the decision before any write and executes it separately (STYLE.md rule 4).
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
  | "snapshot";

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
  | { branch: "O3"; status: "pushed"; effect: "patch"; write: true };

/** Stable ids of the push table. */
export type PushBranch = PushDecision["branch"];

/** The hashes a push decides on: B baseline, L local, R remote, E `expected_remote_hash`. */
export interface PushFacts {
  strategy: "safe" | "overwrite";
  baseline: string;
  local: string;
  remote: string;
  expected?: string | undefined;
}

/** The push decision table of TOOLS.md §14.4. */
export function decidePush(facts: PushFacts): PushDecision {
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

/** One decision of the sync check table, with its stable branch id. */
export type CheckDecision =
  | { branch: "C1"; status: "in_sync" }
  | { branch: "C2"; status: "local_changed" }
  | { branch: "C3"; status: "remote_changed" }
  | { branch: "C4"; status: "in_sync" }
  | { branch: "C5"; status: "conflict" };

/** Stable ids of the check table. */
export type CheckBranch = CheckDecision["branch"];

/** The sync check table of TOOLS.md §14.5: only hashes decide, never timestamps. */
export function decideCheck(facts: { baseline: string; local: string; remote: string }): CheckDecision {
  const { baseline: b, local: l, remote: r } = facts;
  if (l === b) return r === b ? { branch: "C1", status: "in_sync" } : { branch: "C3", status: "remote_changed" };
  if (r === b) return { branch: "C2", status: "local_changed" };
  // Both sides made the same change: not a conflict.
  return l === r ? { branch: "C4", status: "in_sync" } : { branch: "C5", status: "conflict" };
}
