/**
 * Applies a parsed patch to a note body (docs/tools.md §10.4). Hand-written: exact-line matching
 * with anchors, uniqueness refusals and `*** End of File` is not what diff libraries offer.
 *
 * Near-linear in the sizes of the body and the patch: the body becomes a linked list of lines
 * indexed by text (line-list.ts), a hunk is looked for only where its rarest line occurs, and
 * hunks edit the list in place. The work runs in slices (steps.ts), so `applyPatchAsync` can give
 * the host's event loop back between them.
 */

import { LineList, type LineNode } from "./line-list";
import { splitLinesSteps } from "./lines";
import { parsePatchSteps, type Hunk } from "./parse";
import { patchRejected, quote } from "./reject";
import { runSteps, runStepsCooperatively, WorkMeter, type Steps } from "./steps";

/** What `applyPatch` needs: the current body, the patch text and the note's `patch_path`. */
export interface ApplyPatchInput {
  body: string;
  patch: string;
  patchPath: string;
}

/** `applyPatchAsync`'s input: `applyPatch`'s plus how to give the event loop a turn. */
export interface ApplyPatchAsyncInput extends ApplyPatchInput {
  /** Awaited between slices of work (a few milliseconds each); e.g. `() => sleep(0)`. */
  pause: () => Promise<void>;
}

/** The patched body and whether it differs from the body given. */
export interface ApplyPatchResult {
  body: string;
  changed: boolean;
}

/** Applies `patch` to `body`, or throws `BridgeError("patch_rejected")` naming the problem. */
export function applyPatch(input: ApplyPatchInput): ApplyPatchResult {
  return runSteps(applyPatchSteps(input, new WorkMeter()));
}

/**
 * `applyPatch` that awaits `pause` between slices of work, so one large patch never holds the
 * event loop for long. Same results and the same refusals (as a rejected promise).
 */
export function applyPatchAsync({ pause, ...input }: ApplyPatchAsyncInput): Promise<ApplyPatchResult> {
  return runStepsCooperatively(applyPatchSteps(input, new WorkMeter()), pause);
}

/** Lines per native `join` when the result is built. */
const JOIN_LINES = 4096;

/** `applyPatch` as cooperative steps, metered by `meter`. */
export function* applyPatchSteps(
  { body, patch, patchPath }: ApplyPatchInput,
  meter: WorkMeter,
): Steps<ApplyPatchResult> {
  const { hunks } = yield* parsePatchSteps({ patch, patchPath }, meter);
  const { lines: original, ending } = yield* splitLinesSteps(body, meter);
  const list = yield* LineList.of(original, meter);
  let edited = false;
  for (const [index, hunk] of hunks.entries()) {
    if (yield* applyHunk(list, hunk, index + 1, meter)) edited = true;
  }
  // Same lines → same body: a context-only patch never rewrites a mixed or lone-`\r` ending.
  if (!edited) return { body, changed: false };

  const finalEnding = body.endsWith("\n") && list.size > 0 ? ending : "";
  let sameLines = list.size === original.length;
  let result = "";
  // Whether `result` so far is a prefix of `body`, compared piece by piece as it is built.
  let sameText = true;
  let batch: string[] = [];
  let index = 0;
  const flush = (): void => {
    const piece = (index === batch.length ? "" : ending) + batch.join(ending);
    sameText &&= body.startsWith(piece, result.length);
    result += piece;
    batch = [];
  };
  for (let node = list.first; node !== list.tail; node = node.next) {
    if (sameLines && node.text !== original[index]) sameLines = false;
    batch.push(node.text);
    index++;
    if (batch.length === JOIN_LINES) flush();
    if (meter.spend()) yield;
  }
  if (batch.length > 0) flush();
  if (sameLines) return { body, changed: false };
  sameText &&= body.startsWith(finalEnding, result.length);
  result += finalEnding;
  return { body: result, changed: !(sameText && result.length === body.length) };
}

/** Applies one hunk to the list in place; true when it added or removed a line. */
function* applyHunk(list: LineList, hunk: Hunk, number: number, meter: WorkMeter): Steps<boolean> {
  const anchor = hunk.anchor === undefined ? undefined : yield* findAnchor(list, hunk.anchor, number, meter);
  const oldSide: string[] = [];
  for (const line of hunk.lines) if (line.kind !== "add") oldSide.push(line.text);

  if (oldSide.length > 0) {
    let cursor = yield* locateOldSide(list, oldSide, hunk, anchor, number, meter);
    let edited = false;
    for (const line of hunk.lines) {
      if (line.kind === "context") {
        cursor = cursor.next;
      } else if (line.kind === "remove") {
        const removed = cursor;
        cursor = cursor.next;
        list.remove(removed);
        edited = true;
      } else {
        list.insertBefore(cursor, line.text);
        edited = true;
      }
      if (meter.spend()) yield;
    }
    return edited;
  }
  let cursor: LineNode;
  if (hunk.atEnd) cursor = list.tail;
  else if (anchor !== undefined) cursor = anchor.next;
  else if (list.size === 0) cursor = list.tail;
  else {
    throw patchRejected(
      `malformed hunk: hunk ${number} has only added lines, and added lines alone can only fill an empty note; give an @@ anchor, context or removed lines to place them`,
    );
  }
  for (const line of hunk.lines) {
    list.insertBefore(cursor, line.text);
    if (meter.spend()) yield;
  }
  return true;
}

/** The one line that, trimmed, equals the anchor. */
function* findAnchor(list: LineList, anchor: string, number: number, meter: WorkMeter): Steps<LineNode> {
  const { count, nodes } = yield* list.withTrimmedText(anchor, meter);
  if (count === 0) {
    throw patchRejected(`hunk ${number}: no line matches the anchor ${quote(anchor)}`);
  }
  if (count > 1) {
    throw patchRejected(
      `hunk ${number}: the anchor ${quote(anchor)} is not unique (${count} lines match it); use a line that occurs once`,
    );
  }
  const [hit] = nodes;
  return hit!;
}

/** Matches of a hunk's old side: how many, and the first line of one of them. */
interface Runs {
  count: number;
  start: LineNode | undefined;
}

/**
 * First line of the run of lines at or after `anchor` (the whole list without one) that equals
 * the old side: the only such run for an ordinary hunk, the run ending at the last line for an
 * at-end hunk.
 */
function* locateOldSide(
  list: LineList,
  oldSide: readonly string[],
  hunk: Hunk,
  anchor: LineNode | undefined,
  number: number,
  meter: WorkMeter,
): Steps<LineNode> {
  const below = hunk.anchor === undefined ? "" : " at or below the anchor line";
  // An at-end hunk only tries the run ending at the last line, so copies elsewhere never clash.
  const runs = hunk.atEnd
    ? yield* runAtEnd(list, oldSide, anchor, meter)
    : yield* runsByIndex(list, oldSide, anchor, meter);
  if (runs.start === undefined) {
    const where = hunk.atEnd
      ? `with "*** End of File" its context and removed lines have to be the last lines of the note${below}`
      : `its context and removed lines do not occur as consecutive lines of the note${below}`;
    throw patchRejected(`hunk ${number}: context not found; ${where}`);
  }
  if (runs.count > 1) {
    throw patchRejected(
      `hunk ${number}: context ambiguous; its context and removed lines occur in ${runs.count} places${below}; add context or an @@ anchor`,
    );
  }
  return runs.start;
}

/** The run that ends at the last line, if it starts at or after `anchor` and equals `run`. */
function* runAtEnd(
  list: LineList,
  run: readonly string[],
  anchor: LineNode | undefined,
  meter: WorkMeter,
): Steps<Runs> {
  let start = list.tail;
  for (let step = 0; step < run.length; step++) {
    start = start.prev;
    if (start === list.head) return { count: 0, start: undefined };
  }
  if (anchor !== undefined && start.label < anchor.label) return { count: 0, start: undefined };
  const matches = yield* matchesAt(list, run, start, meter);
  return matches ? { count: 1, start } : { count: 0, start: undefined };
}

/** Whether the lines from `start` on equal `run`. */
function* matchesAt(list: LineList, run: readonly string[], start: LineNode, meter: WorkMeter): Steps<boolean> {
  let node = start;
  for (const text of run) {
    if (node === list.tail || node.text !== text) return false;
    node = node.next;
    if (meter.spend()) yield;
  }
  return true;
}

/**
 * Every run at or after `anchor` that equals `run`, found from the lines holding its rarest
 * line. Each candidate costs up to the run's length; when the candidates together cost more
 * than a scan of the list would, the search switches to one KMP scan (`runsByScan`).
 */
function* runsByIndex(
  list: LineList,
  run: readonly string[],
  anchor: LineNode | undefined,
  meter: WorkMeter,
): Steps<Runs> {
  let pick = 0;
  let fewest = Number.POSITIVE_INFINITY;
  for (const [offset, text] of run.entries()) {
    const count = list.count(text);
    if (count < fewest) {
      fewest = count;
      pick = offset;
      if (count === 0) return { count: 0, start: undefined };
    }
    if (meter.spend()) yield;
  }
  const allowance = 2 * (list.size + run.length);
  let work = 0;
  let count = 0;
  let first: LineNode | undefined;
  for (const hit of list.withText(run[pick]!)) {
    let start = hit;
    let step = 0;
    while (step < pick && start !== list.head) {
      start = start.prev;
      step++;
    }
    let matched = 0;
    if (start !== list.head && (anchor === undefined || start.label >= anchor.label)) {
      for (let node = start; matched < run.length && node !== list.tail && node.text === run[matched]; node = node.next)
        matched++;
      if (matched === run.length) {
        count++;
        first ??= start;
      }
    }
    work += step + matched + 1;
    if (work > allowance) return yield* runsByScan(list, run, anchor, meter);
    if (meter.spend(step + matched + 1)) yield;
  }
  return { count, start: first };
}

/** Every run at or after `anchor` that equals `run`, by one Knuth–Morris–Pratt scan of the list. */
function* runsByScan(
  list: LineList,
  run: readonly string[],
  anchor: LineNode | undefined,
  meter: WorkMeter,
): Steps<Runs> {
  // border[i]: length of the longest proper prefix of run[0..i] that is also its suffix.
  const border = new Int32Array(run.length);
  for (let at = 1, length = 0; at < run.length; at++) {
    while (length > 0 && run[at] !== run[length]) length = border[length - 1]!;
    if (run[at] === run[length]) length++;
    border[at] = length;
    if (meter.spend()) yield;
  }
  let count = 0;
  let firstEnd: LineNode | undefined;
  let matched = 0;
  for (let node = anchor ?? list.first; node !== list.tail; node = node.next) {
    while (matched > 0 && node.text !== run[matched]) matched = border[matched - 1]!;
    if (node.text === run[matched]) matched++;
    if (matched === run.length) {
      count++;
      firstEnd ??= node;
      matched = border[matched - 1]!;
    }
    if (meter.spend()) yield;
  }
  if (firstEnd === undefined) return { count: 0, start: undefined };
  let start = firstEnd;
  for (let step = 1; step < run.length; step++) start = start.prev;
  return { count, start };
}
