/**
 * Applies a parsed patch to a note body (TOOLS.md §10.4). Hand-written: exact-line matching
 * with anchors, uniqueness refusals and `*** End of File` is not what diff libraries offer.
 */

import { majorityLineEnding, splitLines } from "./lines";
import { parsePatch, type Hunk } from "./parse";
import { patchRejected, quote } from "./reject";

/** What `applyPatch` needs: the current body, the patch text and the note's `patch_path`. */
export interface ApplyPatchInput {
  body: string;
  patch: string;
  patchPath: string;
}

/** The patched body and whether it differs from the body given. */
export interface ApplyPatchResult {
  body: string;
  changed: boolean;
}

/** Applies `patch` to `body`, or throws `BridgeError("patch_rejected")` naming the problem. */
export function applyPatch({ body, patch, patchPath }: ApplyPatchInput): ApplyPatchResult {
  const { hunks } = parsePatch({ patch, patchPath });
  const original = splitLines(body);
  let lines = original;
  for (const [index, hunk] of hunks.entries()) lines = applyHunk(lines, hunk, index + 1);
  // Same lines → same body: a context-only patch never rewrites a mixed or lone-`\r` ending.
  if (sameLines(lines, original)) return { body, changed: false };
  const ending = majorityLineEnding(body);
  const finalEnding = body.endsWith("\n") && lines.length > 0 ? ending : "";
  const result = lines.join(ending) + finalEnding;
  return { body: result, changed: result !== body };
}

/** Applies one hunk to the current lines and returns the new lines. */
function applyHunk(lines: readonly string[], hunk: Hunk, number: number): string[] {
  const start = hunk.anchor === undefined ? 0 : findAnchor(lines, hunk.anchor, number);
  const oldSide = hunk.lines.filter((line) => line.kind !== "add").map((line) => line.text);
  const newSide = hunk.lines.filter((line) => line.kind !== "remove").map((line) => line.text);

  if (oldSide.length > 0) {
    const at = locateOldSide(lines, oldSide, hunk, start, number);
    return [...lines.slice(0, at), ...newSide, ...lines.slice(at + oldSide.length)];
  }
  if (hunk.atEnd) return [...lines, ...newSide];
  if (hunk.anchor !== undefined) return [...lines.slice(0, start + 1), ...newSide, ...lines.slice(start + 1)];
  if (lines.length === 0) return newSide;
  throw patchRejected(
    `malformed hunk: hunk ${number} has only added lines, and added lines alone can only fill an empty note; give an @@ anchor, context or removed lines to place them`,
  );
}

/** Index of the one line that, trimmed, equals the anchor. */
function findAnchor(lines: readonly string[], anchor: string, number: number): number {
  const hits: number[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === anchor) hits.push(index);
  });
  const [hit] = hits;
  if (hit === undefined) {
    throw patchRejected(`hunk ${number}: no line matches the anchor ${quote(anchor)}`);
  }
  if (hits.length > 1) {
    throw patchRejected(
      `hunk ${number}: the anchor ${quote(anchor)} is not unique (${hits.length} lines match it); use a line that occurs once`,
    );
  }
  return hit;
}

/**
 * Start of the run of lines at or after `start` that equals the old side: the only such run for
 * an ordinary hunk, the run ending at the last line for an at-end hunk.
 */
function locateOldSide(
  lines: readonly string[],
  oldSide: readonly string[],
  hunk: Hunk,
  start: number,
  number: number,
): number {
  const below = hunk.anchor === undefined ? "" : " at or below the anchor line";
  const last = lines.length - oldSide.length;
  const hits: number[] = [];
  // An at-end hunk only tries the run ending at the last line, so copies elsewhere never clash.
  for (let at = hunk.atEnd ? Math.max(last, start) : start; at <= last; at++) {
    if (runMatches(lines, oldSide, at)) hits.push(at);
  }
  const [hit] = hits;
  if (hit === undefined) {
    const where = hunk.atEnd
      ? `with "*** End of File" its context and removed lines have to be the last lines of the note${below}`
      : `its context and removed lines do not occur as consecutive lines of the note${below}`;
    throw patchRejected(`hunk ${number}: context not found; ${where}`);
  }
  if (hits.length > 1) {
    throw patchRejected(
      `hunk ${number}: context ambiguous; its context and removed lines occur in ${hits.length} places${below}; add context or an @@ anchor`,
    );
  }
  return hit;
}

function runMatches(lines: readonly string[], run: readonly string[], at: number): boolean {
  return run.every((text, offset) => lines[at + offset] === text);
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, index) => line === b[index]);
}
