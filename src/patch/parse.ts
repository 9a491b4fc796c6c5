/**
 * Parser of the patch envelope and hunks (docs/tools.md §10.2, §10.3). Hand-written: the format is
 * a small dialect of the apply_patch envelope with anchors and `*** End of File`, and no library
 * parses exactly this subset with these refusals.
 */

import { splitLinesSteps } from "./lines";
import { patchRejected, quote } from "./reject";
import { runSteps, WorkMeter, type Steps } from "./steps";

/** One line of a hunk: kept (`context`), taken out (`remove`) or put in (`add`). */
export interface HunkLine {
  kind: "context" | "remove" | "add";
  /** The line's text without its one-character prefix. */
  text: string;
}

/** One `@@` section of a patch. */
export interface Hunk {
  /** Trimmed text after `@@`, unless it was empty or a unified-diff line range. */
  anchor: string | undefined;
  /** Whether `*** End of File` closed the hunk: it has to match at the end of the body. */
  atEnd: boolean;
  /** The hunk's lines in order; never empty. */
  lines: HunkLine[];
}

/** A patch that passed every envelope and hunk check. */
export interface ParsedPatch {
  /** The `*** Update File:` target; always equal to the note's `patch_path`. */
  target: string;
  /** The hunks in order; at least one. */
  hunks: Hunk[];
}

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const UPDATE_PREFIX = "*** Update File:";
const END_OF_FILE = "*** End of File";
const UNSUPPORTED_PREFIXES = ["*** Add File:", "*** Delete File:", "*** Move to:"];
const RANGE_OLD = /^-\d+(?:,\d+)?$/;
const RANGE_NEW = /^\+\d+(?:,\d+)?$/;

const UPDATE_RULE = `exactly one "${UPDATE_PREFIX} <patch_path>" line with a target must come right after "${BEGIN}"`;

/** Parses a patch for the note at `patchPath`, refusing with `patch_rejected` per §10.2–§10.3. */
export function parsePatch({ patch, patchPath }: { patch: string; patchPath: string }): ParsedPatch {
  return runSteps(parsePatchSteps({ patch, patchPath }, new WorkMeter()));
}

/** `parsePatch` as cooperative steps (see steps.ts). */
export function* parsePatchSteps(
  { patch, patchPath }: { patch: string; patchPath: string },
  meter: WorkMeter,
): Steps<ParsedPatch> {
  const { lines } = yield* splitLinesSteps(patch, meter);
  if (lines[0] !== BEGIN) {
    throw patchRejected(`the patch has to open with the line "${BEGIN}"`);
  }
  if (lines[lines.length - 1] !== END) {
    throw patchRejected(`the patch has to close with the line "${END}"`);
  }
  const inner = lines.slice(1, -1);
  for (const line of inner) {
    if (UNSUPPORTED_PREFIXES.some((prefix) => line.startsWith(prefix))) {
      throw patchRejected(
        `${quote(line)} is an operation that is not supported here; a patch can only update this one note`,
      );
    }
    if (meter.spend()) yield;
  }
  const target = yield* readTarget(inner, meter);
  if (target !== patchPath) {
    throw patchRejected(`the patch targets ${quote(target)}, but the note's path is ${quote(patchPath)}`);
  }
  return { target, hunks: yield* parseHunks(inner, 1, meter) };
}

/** The target of the Update File line that must open the envelope's inside (check 4). */
function* readTarget(inner: readonly string[], meter: WorkMeter): Steps<string> {
  const first = inner[0];
  if (first === undefined) {
    throw patchRejected(`${UPDATE_RULE}, but the patch has no such line`);
  }
  const target = first.startsWith(`${UPDATE_PREFIX} `) ? first.slice(UPDATE_PREFIX.length + 1) : "";
  if (target === "") {
    throw patchRejected(`${UPDATE_RULE}, but the second line is ${quote(first)}`);
  }
  for (let at = 1; at < inner.length; at++) {
    const line = inner[at]!;
    if (line.startsWith(UPDATE_PREFIX)) {
      throw patchRejected(`${UPDATE_RULE}, and only one; found a second one, ${quote(line)}`);
    }
    if (meter.spend()) yield;
  }
  return target;
}

/** The anchor of a hunk header, or undefined for a bare `@@` or a unified-diff line range. */
export function hunkAnchor(header: string): string | undefined {
  const rest = header.slice(2).trim();
  if (rest === "" || isLineRange(rest)) return undefined;
  return rest;
}

/** Whether text after `@@` is a line range such as `-1,2 +1,2 @@`, which locates nothing here. */
function isLineRange(text: string): boolean {
  const [oldRange, newRange, after] = text.split(/\s+/);
  return (
    oldRange !== undefined &&
    newRange !== undefined &&
    RANGE_OLD.test(oldRange) &&
    RANGE_NEW.test(newRange) &&
    (after === undefined || after.startsWith("@@"))
  );
}

function isHunkHeader(line: string): boolean {
  return line === "@@" || line.startsWith("@@ ");
}

/** Parses `lines` from index `from` (the line after the Update File line) into hunks (§10.3). */
function* parseHunks(lines: readonly string[], from: number, meter: WorkMeter): Steps<Hunk[]> {
  const hunks: Hunk[] = [];
  let current: Hunk | undefined;
  // True right after `*** End of File`: only a new `@@` (or blank padding) may follow.
  let closedAtEnd = false;
  // Blank lines become empty context only once another line of the same hunk arrives.
  let heldBlanks = 0;

  const finish = (hunk: Hunk): void => {
    if (hunk.lines.length === 0) {
      throw patchRejected(`malformed hunk: hunk ${hunks.length + 1} is empty; give it at least one line`);
    }
    hunks.push(hunk);
  };

  for (let at = from; at < lines.length; at++) {
    const line = lines[at]!;
    if (meter.spend()) yield;
    if (isHunkHeader(line)) {
      if (current) finish(current);
      current = { anchor: hunkAnchor(line), atEnd: false, lines: [] };
      closedAtEnd = false;
      heldBlanks = 0;
      continue;
    }
    if (line === "") {
      heldBlanks++;
      continue;
    }
    if (line === END_OF_FILE) {
      if (!current || current.lines.length === 0) throw misplacedEndOfFile(hunks.length, current);
      current.atEnd = true;
      finish(current);
      current = undefined;
      closedAtEnd = true;
      heldBlanks = 0;
      continue;
    }
    if (!current) {
      if (closedAtEnd) {
        throw patchRejected(
          `malformed hunk: after "${END_OF_FILE}" the next line has to open a new @@ hunk or be "${END}", not ${quote(line)}`,
        );
      }
      throw patchRejected(
        `no @@ hunk follows the "${UPDATE_PREFIX}" line (found ${quote(line)}); every change goes in a hunk that opens with a line "@@" or "@@ <anchor line>"`,
      );
    }
    const kind = lineKind(line);
    if (kind === undefined) {
      throw patchRejected(`malformed hunk: every hunk line starts with a space, "+" or "-", but found ${quote(line)}`);
    }
    if (current.lines.length > 0) {
      for (; heldBlanks > 0; heldBlanks--) current.lines.push({ kind: "context", text: "" });
    }
    heldBlanks = 0;
    current.lines.push({ kind, text: line.slice(1) });
  }

  if (current) finish(current);
  if (hunks.length === 0) {
    throw patchRejected(
      `no @@ hunk follows the "${UPDATE_PREFIX}" line; every change goes in a hunk that opens with a line "@@" or "@@ <anchor line>"`,
    );
  }
  return hunks;
}

function lineKind(line: string): HunkLine["kind"] | undefined {
  switch (line[0]) {
    case " ":
      return "context";
    case "-":
      return "remove";
    case "+":
      return "add";
    default:
      return undefined;
  }
}

/** The refusal for an `*** End of File` that does not directly close a hunk with lines. */
function misplacedEndOfFile(finished: number, open: Hunk | undefined) {
  if (open) {
    return patchRejected(
      `malformed hunk: "${END_OF_FILE}" closes hunk ${finished + 1}, which is empty; it has to follow at least one hunk line`,
    );
  }
  if (finished === 0) {
    return patchRejected(
      `no @@ hunk follows the "${UPDATE_PREFIX}" line ("${END_OF_FILE}" came before any hunk); "${END_OF_FILE}" has to follow a hunk's lines`,
    );
  }
  return patchRejected(
    `malformed hunk: "${END_OF_FILE}" has to follow a hunk's lines, but the previous hunk was already closed`,
  );
}
