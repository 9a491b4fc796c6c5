/**
 * The conflict modal's view model (STYLE.md rule 15): pure data built from base, mine and theirs
 * with the three-way merge of src/sync/merge.ts, plus the pure functions that render the result.
 * No Obsidian, no I/O. The modal only displays it; the flow (conflict-flow.ts) acts on the answer.
 *
 * Default choice: none. Every overlapping hunk starts unchosen and the merged text can only be
 * produced once each one has a choice, so neither side wins by default (STYLE.md rule 6); the
 * whole-file buttons stay available at any time.
 */
import { resolveHunks, threeWayMerge, type ConflictedMerge, type MergeChoice, type MergeResult } from "../sync/merge";

/** Context lines shown on each side of a conflict when a stable run is collapsed. */
export const STABLE_CONTEXT_LINES = 3;

/** What the view model is built from (bodies already line-ending-normalised). */
export interface ConflictInput {
  /** The baseline body: what both sides last agreed on. */
  base: string;
  /** The local file's body ("mine"). */
  local: string;
  /** The HackMD note's body ("theirs") as read when the view was built. */
  remote: string;
  /** `body_hash` of `remote`: the expected remote hash of the push that follows. */
  remoteHash: string;
  /** ROOT-relative path of the tracked file. */
  localPath: string;
  /** The HackMD note id. */
  noteId: string;
}

/** A run of settled lines, collapsed to its context around the conflicts. */
export interface StableSection {
  kind: "stable";
  /** Lines shown before the hidden part (context after the previous conflict). */
  head: string[];
  /** How many lines are hidden between `head` and `tail` (0: nothing hidden, `tail` is empty). */
  hidden: number;
  /** Lines shown after the hidden part (context before the next conflict). */
  tail: string[];
}

/** An overlapping change: what base, mine and theirs hold in that region. */
export interface ConflictSection {
  kind: "conflict";
  /** Position among the conflicts, from 0: the index into a choices array. */
  index: number;
  base: string[];
  mine: string[];
  theirs: string[];
}

/** One section of a conflicted view, in text order. */
export type ViewSection = StableSection | ConflictSection;

/** A per-hunk choice, or undefined while the user has not chosen. */
export type HunkChoice = MergeChoice | undefined;

/** The modal's answer: a merged text to write and push, a whole-file action, or cancel. */
export type ConflictChoice =
  | { action: "merged"; text: string }
  | { action: "keep-mine" }
  | { action: "take-theirs" }
  | { action: "keep-both" }
  | { action: "cancel" };

/** Everything the conflict modal shows, and the pure renderers of its result. */
export interface ConflictViewModel {
  localPath: string;
  noteId: string;
  remoteHash: string;
  base: string;
  mine: string;
  theirs: string;
  /** The clean merge when the edits do not overlap; undefined when there are conflicts. */
  clean: string | undefined;
  /** Stable and conflict sections in text order (empty for a clean merge). */
  sections: ViewSection[];
  /** How many conflict sections there are: the length of a choices array. */
  conflictCount: number;
  /** The starting choices: all undefined (nothing is chosen for the user). */
  initialChoices(): HunkChoice[];
  /** Whether every conflict has a choice (always true for a clean merge). */
  isComplete(choices: readonly HunkChoice[]): boolean;
  /** The merged text for complete choices (throws RangeError when a choice is missing). */
  result(choices: readonly HunkChoice[]): string;
  /** The result so far; unchosen conflicts appear as conflict markers (display only). */
  preview(choices: readonly HunkChoice[]): string;
}

/** Builds the view model of a conflict from its three bodies. */
export function buildConflictViewModel(input: ConflictInput): ConflictViewModel {
  const merge = threeWayMerge({ base: input.base, local: input.local, remote: input.remote });
  const sections = merge.clean ? [] : toSections(merge);
  const conflictCount = merge.clean ? 0 : merge.conflicts;
  const isComplete = (choices: readonly HunkChoice[]): boolean => choices.length === conflictCount && choices.every((choice) => choice !== undefined);
  return {
    localPath: input.localPath,
    noteId: input.noteId,
    remoteHash: input.remoteHash,
    base: input.base,
    mine: input.local,
    theirs: input.remote,
    clean: merge.clean ? merge.merged : undefined,
    sections,
    conflictCount,
    initialChoices: () => new Array<HunkChoice>(conflictCount).fill(undefined),
    isComplete,
    result: (choices) => {
      if (!isComplete(choices)) throw new RangeError(`Every one of the ${conflictCount} conflicts needs a choice before the merged text exists.`);
      return resolveHunks(merge, choices as readonly MergeChoice[]);
    },
    preview: (choices) => renderPreview(merge, choices),
  };
}

/** Hunks to sections: stable runs collapsed to their context, conflicts numbered. */
function toSections(merge: ConflictedMerge): ViewSection[] {
  const out: ViewSection[] = [];
  let index = 0;
  merge.hunks.forEach((hunk, at) => {
    if (hunk.kind === "conflict") {
      out.push({ kind: "conflict", index: index++, base: [...hunk.base], mine: [...hunk.local], theirs: [...hunk.remote] });
      return;
    }
    out.push(collapse(hunk.lines, at > 0, at < merge.hunks.length - 1));
  });
  return out;
}

/** Keeps the lines next to a conflict (after one when `afterConflict`, before one when `beforeConflict`). */
function collapse(lines: readonly string[], afterConflict: boolean, beforeConflict: boolean): StableSection {
  const headSize = afterConflict ? STABLE_CONTEXT_LINES : 0;
  const tailSize = beforeConflict ? STABLE_CONTEXT_LINES : 0;
  // Hiding a single line saves nothing; show the run whole then.
  if (lines.length <= headSize + tailSize + 1) return { kind: "stable", head: [...lines], hidden: 0, tail: [] };
  return {
    kind: "stable",
    head: lines.slice(0, headSize),
    hidden: lines.length - headSize - tailSize,
    tail: tailSize === 0 ? [] : lines.slice(lines.length - tailSize),
  };
}

/** The result text with chosen hunks resolved and unchosen ones as git-style markers. */
function renderPreview(merge: MergeResult, choices: readonly HunkChoice[]): string {
  if (merge.clean) return merge.merged;
  if (choices.length === merge.conflicts && choices.every((choice) => choice !== undefined)) return resolveHunks(merge, choices);
  const lines: string[] = [];
  // Loops, not push(...spread): a long stable run would exceed the argument-count limit.
  const append = (source: readonly string[]): void => {
    for (const line of source) lines.push(line);
  };
  let next = 0;
  for (const hunk of merge.hunks) {
    if (hunk.kind === "stable") {
      append(hunk.lines);
      continue;
    }
    const choice = choices[next++];
    if (choice === undefined) {
      lines.push("<<<<<<< mine");
      append(hunk.local);
      lines.push("=======");
      append(hunk.remote);
      lines.push(">>>>>>> theirs");
      continue;
    }
    if (choice === "local" || choice === "both") append(hunk.local);
    if (choice === "remote" || choice === "both") append(hunk.remote);
  }
  return lines.join(merge.lineEnding) + merge.lineEnding;
}
