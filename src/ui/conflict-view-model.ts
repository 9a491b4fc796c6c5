/**
 * The conflict modal's view model (docs/style.md rule 15): pure data built from base, mine and theirs
 * with the three-way merge of src/sync/merge.ts, plus the pure functions that render the result.
 * No Obsidian, no I/O. The modal only displays it; the flow (conflict-flow.ts) acts on the answer.
 *
 * Default choice: none. Every overlapping hunk starts unchosen and the merged text can only be
 * produced once each one has a choice, so neither side wins by default (docs/style.md rule 6); the
 * whole-file buttons stay available at any time.
 *
 * The merge editor works on `document`: the result's starting text (every settled line, and the
 * base's lines where a conflict is, as VS Code's merge editor starts), the conflict regions in it
 * with what each choice puts there, where each conflict sits in mine and in theirs, and which
 * settled lines came from which side. Line positions come from bounded line diffs; past the bound
 * they are left out (the editor then only loses the origin marks and the pane scrolling).
 */
import { diffArrays } from "diff";
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

/** Lines `[from, to)` (0-based) of one text. */
export interface LineRange {
  from: number;
  to: number;
}

/** One conflict in the merge editor's result document. */
export interface MergeRegion {
  /** Position among the conflicts, from 0 (the index into a choices array). */
  index: number;
  /** Lines `[from, to)` of the starting result text that hold the base's lines of the conflict. */
  lines: LineRange;
  /** Where the conflict's lines are in mine, when the line diff found them. */
  mineLines: LineRange | undefined;
  /** Where the conflict's lines are in theirs, when the line diff found them. */
  theirsLines: LineRange | undefined;
}

/** Which side a settled line of the result came from (lines equal to the base have none). */
export type LineSide = "mine" | "theirs" | "both";

/** The merge editor's starting point (see the module comment). */
export interface MergeDocument {
  /** The starting result text: one `\n` after every line. */
  text: string;
  /** The conflicts, in text order. */
  regions: MergeRegion[];
  /** Settled result lines (0-based) that differ from the base, with the side they came from. */
  origins: Array<{ line: number; side: LineSide }>;
}

/** Lines added and removed by one side against the base. */
export interface SideChanges {
  added: number;
  removed: number;
}

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
  /** The merge editor's starting result (see MergeDocument). */
  document: MergeDocument;
  /** The text a choice puts into conflict `index` (`"base"`: the base's lines), one `\n` per line. */
  regionText(index: number, choice: MergeChoice | "base"): string;
  /** What each side changed against the base, in lines: what a whole-file choice drops. */
  changes: { mine: SideChanges; theirs: SideChanges };
}

/** Line diffs stop after this many differing lines (jsdiff's `maxEditLength`); past it, no positions. */
export const MAX_LINE_EDITS = 5_000;

/** Builds the view model of a conflict from its three bodies. */
export function buildConflictViewModel(input: ConflictInput): ConflictViewModel {
  const merge = threeWayMerge({ base: input.base, local: input.local, remote: input.remote });
  const sections = merge.clean ? [] : toSections(merge);
  const conflictCount = merge.clean ? 0 : merge.conflicts;
  const isComplete = (choices: readonly HunkChoice[]): boolean =>
    choices.length === conflictCount && choices.every((choice) => choice !== undefined);
  const conflicts = merge.clean ? [] : merge.hunks.filter((hunk) => hunk.kind === "conflict");
  const baseLines = splitLines(input.base);
  const mineLines = splitLines(input.local);
  const theirsLines = splitLines(input.remote);
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
      if (!isComplete(choices))
        throw new RangeError(
          `Every one of the ${conflictCount} conflicts needs a choice before the merged text exists.`,
        );
      return resolveHunks(merge, choices as readonly MergeChoice[]);
    },
    preview: (choices) => renderPreview(merge, choices),
    document: buildDocument(merge, baseLines, mineLines, theirsLines),
    regionText: (index, choice) => {
      const hunk = conflicts[index];
      if (hunk === undefined) throw new RangeError(`There is no conflict ${index}; there are ${conflictCount}.`);
      const lines =
        choice === "base"
          ? hunk.base
          : choice === "local"
            ? hunk.local
            : choice === "remote"
              ? hunk.remote
              : [...hunk.local, ...hunk.remote];
      return lines.map((line) => `${line}\n`).join("");
    },
    changes: { mine: sideChanges(baseLines, mineLines), theirs: sideChanges(baseLines, theirsLines) },
  };
}

/** Lines without their breaks (a final `\n` ends the last line). */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/** Counts of added and removed lines from `base` to `side` (0 and 0 past the diff bound). */
function sideChanges(base: readonly string[], side: readonly string[]): SideChanges {
  const parts = diffArrays(base as string[], side as string[], { maxEditLength: MAX_LINE_EDITS });
  const out: SideChanges = { added: 0, removed: 0 };
  for (const part of parts ?? []) {
    if (part.added) out.added += part.count;
    else if (part.removed) out.removed += part.count;
  }
  return out;
}

/**
 * For each line of `to`, whether `from` has it at the aligned place, and the position in `from`
 * just after the last common line before it (undefined past the diff bound).
 */
function align(
  from: readonly string[],
  to: readonly string[],
): { common: boolean[]; before: number[]; after: number[] } | undefined {
  const parts = diffArrays(from as string[], to as string[], { maxEditLength: MAX_LINE_EDITS });
  if (parts === undefined) return undefined;
  const common: boolean[] = [];
  // before[r]: index in `from` after the last common line preceding `to` line r; after[r]: index
  // in `from` of the first common line at or after r (both follow the diff's own order).
  const before: number[] = [];
  const commonAt: Array<number | undefined> = [];
  let fi = 0;
  let lastCommonEnd = 0;
  for (const part of parts) {
    if (part.removed) {
      fi += part.count;
      continue;
    }
    for (let k = 0; k < part.count; k++) {
      before.push(lastCommonEnd);
      if (part.added) {
        common.push(false);
        commonAt.push(undefined);
      } else {
        common.push(true);
        commonAt.push(fi);
        fi += 1;
        lastCommonEnd = fi;
      }
    }
  }
  const after: number[] = new Array<number>(to.length);
  let next = from.length;
  for (let r = to.length - 1; r >= 0; r--) {
    const at = commonAt[r];
    if (at !== undefined) next = at;
    after[r] = next;
  }
  return { common, before, after };
}

/** The merge editor's starting document (see MergeDocument). */
function buildDocument(
  merge: MergeResult,
  base: readonly string[],
  mine: readonly string[],
  theirs: readonly string[],
): MergeDocument {
  const lines: string[] = [];
  const spans: LineRange[] = [];
  if (merge.clean) {
    for (const line of splitLines(merge.merged)) lines.push(line);
  } else {
    for (const hunk of merge.hunks) {
      const source = hunk.kind === "stable" ? hunk.lines : hunk.base;
      const from = lines.length;
      for (const line of source) lines.push(line);
      if (hunk.kind === "conflict") spans.push({ from, to: lines.length });
    }
  }
  const inRegion = new Array<boolean>(lines.length).fill(false);
  for (const span of spans) for (let line = span.from; line < span.to; line++) inRegion[line] = true;
  const vsBase = align(base, lines);
  const vsMine = align(mine, lines);
  const vsTheirs = align(theirs, lines);
  const origins: MergeDocument["origins"] = [];
  if (vsBase && vsMine && vsTheirs) {
    lines.forEach((_line, at) => {
      if (inRegion[at] || vsBase.common[at]) return;
      const fromMine = vsMine.common[at] === true;
      const fromTheirs = vsTheirs.common[at] === true;
      if (fromMine || fromTheirs)
        origins.push({ line: at, side: fromMine && fromTheirs ? "both" : fromMine ? "mine" : "theirs" });
    });
  }
  const locate = (aligned: ReturnType<typeof align>, size: number, span: LineRange): LineRange | undefined => {
    if (!aligned) return undefined;
    const from = span.from < aligned.before.length ? aligned.before[span.from]! : size;
    const to = span.to < aligned.after.length ? aligned.after[span.to]! : size;
    return { from, to: Math.max(from, to) };
  };
  return {
    text: lines.map((line) => `${line}\n`).join(""),
    regions: spans.map((span, index) => ({
      index,
      lines: span,
      mineLines: locate(vsMine, mine.length, span),
      theirsLines: locate(vsTheirs, theirs.length, span),
    })),
    origins,
  };
}

/** Hunks to sections: stable runs collapsed to their context, conflicts numbered. */
function toSections(merge: ConflictedMerge): ViewSection[] {
  const out: ViewSection[] = [];
  let index = 0;
  merge.hunks.forEach((hunk, at) => {
    if (hunk.kind === "conflict") {
      out.push({
        kind: "conflict",
        index: index++,
        base: [...hunk.base],
        mine: [...hunk.local],
        theirs: [...hunk.remote],
      });
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
  if (choices.length === merge.conflicts && choices.every((choice) => choice !== undefined))
    return resolveHunks(merge, choices);
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

// ---- what a whole-file choice drops (the confirmations of the merge editor) ----

/** What the user did in the merge editor so far: a whole-file choice or a cancel would drop it. */
export interface MergeWork {
  /** Conflicts with a choice (or typed into). */
  chosen: number;
  /** Whether the user typed into the result. */
  edited: boolean;
}

/** A question to ask before a choice: plain text for the confirmation modal. */
export interface MergeQuestion {
  title: string;
  paragraphs: string[];
  confirmText: string;
  /** The confirm button drops something: Obsidian's warning style. */
  warning: boolean;
}

/** Whether there is any work a whole-file choice would drop. */
export function hasWork(work: MergeWork): boolean {
  return work.chosen > 0 || work.edited;
}

/**
 * The question before a whole-file action or a cancel, or undefined when nothing is lost and no
 * question is needed. "Keep mine" and "take theirs" always ask (they drop a side); "keep both"
 * and "cancel" ask only when they would drop the user's choices.
 */
export function wholeFileQuestion(
  vm: ConflictViewModel,
  action: "keep-mine" | "take-theirs" | "keep-both" | "cancel",
  work: MergeWork,
): MergeQuestion | undefined {
  const name = fileNameOf(vm.localPath);
  const dropped = hasWork(work) ? [workSentence(vm, work)] : [];
  switch (action) {
    case "keep-mine":
      return {
        title: "Overwrite HackMD's version with yours?",
        paragraphs: [
          `The note on HackMD is replaced by ${name}. HackMD's edits since the last sync (${linesWords(vm.changes.theirs)}) are dropped from the note.`,
          "A copy of HackMD's version is kept in the vault's .trash folder first, so you can get it back.",
          ...dropped,
        ],
        confirmText: "Overwrite HackMD's version",
        warning: true,
      };
    case "take-theirs":
      return {
        title: "Replace your file with HackMD's version?",
        paragraphs: [
          `${name} is replaced by the note on HackMD. Your edits since the last sync (${linesWords(vm.changes.mine)}) are dropped from the file.`,
          "A copy of your version is kept in the vault's .trash folder first, so you can get it back.",
          ...dropped,
        ],
        confirmText: "Replace my file",
        warning: true,
      };
    case "keep-both":
      if (!hasWork(work)) return undefined;
      return {
        title: "Keep both versions and drop your merge?",
        paragraphs: [
          `Nothing is pushed: ${name} stays as it is and HackMD's version is saved beside it as a .remote.md copy.`,
          ...dropped,
        ],
        confirmText: "Keep both",
        warning: true,
      };
    case "cancel":
      if (!hasWork(work)) return undefined;
      return {
        title: "Discard your merge?",
        paragraphs: [
          ...dropped,
          "To finish it later instead, close this tab: your choices come back when you resolve this file again.",
        ],
        confirmText: "Discard merge",
        warning: true,
      };
  }
}

/** "Your choices for 1 of 2 conflicts, and your edits of the result, are dropped." */
function workSentence(vm: ConflictViewModel, work: MergeWork): string {
  const parts: string[] = [];
  if (work.chosen > 0)
    parts.push(
      `your choices for ${work.chosen} of ${vm.conflictCount} ${vm.conflictCount === 1 ? "conflict" : "conflicts"}`,
    );
  if (work.edited) parts.push("your edits of the result");
  const what = parts.join(", and ");
  return `${what.charAt(0).toUpperCase()}${what.slice(1)} are dropped.`;
}

/** "3 lines added, 1 removed" (sentence fragment). */
export function linesWords(changes: SideChanges): string {
  const parts: string[] = [];
  if (changes.added > 0) parts.push(`${changes.added} ${changes.added === 1 ? "line" : "lines"} added`);
  if (changes.removed > 0)
    parts.push(
      parts.length > 0
        ? `${changes.removed} removed`
        : `${changes.removed} ${changes.removed === 1 ? "line" : "lines"} removed`,
    );
  return parts.length > 0 ? parts.join(", ") : "no whole lines";
}

/** The last component of a ROOT-relative path. */
function fileNameOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
