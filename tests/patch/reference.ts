/**
 * The reference for the patch property tests: the straightforward engine of commit af649c4,
 * before the near-linear rewrite (it splits, scans every offset and copies the lines per hunk).
 * Slow on large inputs, but simple enough to trust; the shipped engine must agree with it on
 * every result and every refusal.
 */

import { patchRejected, quote } from "../../src/patch/reject";

/** A line break the applier can rejoin a body with. */
export type LineEnding = "\n" | "\r\n";

/** Splits text into lines per §10.1: on `\n`, one trailing `\r` dropped, no empty last line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  // A final newline terminates the last line rather than opening an empty one.
  if (text.endsWith("\n")) parts.pop();
  return parts.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

/** The ending a body is rejoined with: CRLF only when `\r\n` outnumbers bare `\n` (tie → LF). */
export function majorityLineEnding(text: string): LineEnding {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text[i - 1] === "\r") crlf++;
    else lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}
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
  const lines = splitLines(patch);
  if (lines[0] !== BEGIN) {
    throw patchRejected(`the patch has to open with the line "${BEGIN}"`);
  }
  if (lines[lines.length - 1] !== END) {
    throw patchRejected(`the patch has to close with the line "${END}"`);
  }
  const inner = lines.slice(1, -1);
  const unsupported = inner.find((line) => UNSUPPORTED_PREFIXES.some((prefix) => line.startsWith(prefix)));
  if (unsupported !== undefined) {
    throw patchRejected(
      `${quote(unsupported)} is an operation that is not supported here; a patch can only update this one note`,
    );
  }
  const target = readTarget(inner);
  if (target !== patchPath) {
    throw patchRejected(`the patch targets ${quote(target)}, but the note's path is ${quote(patchPath)}`);
  }
  return { target, hunks: parseHunks(inner.slice(1)) };
}

/** The target of the Update File line that must open the envelope's inside (check 4). */
function readTarget(inner: readonly string[]): string {
  const first = inner[0];
  if (first === undefined) {
    throw patchRejected(`${UPDATE_RULE}, but the patch has no such line`);
  }
  const target = first.startsWith(`${UPDATE_PREFIX} `) ? first.slice(UPDATE_PREFIX.length + 1) : "";
  if (target === "") {
    throw patchRejected(`${UPDATE_RULE}, but the second line is ${quote(first)}`);
  }
  const second = inner.slice(1).find((line) => line.startsWith(UPDATE_PREFIX));
  if (second !== undefined) {
    throw patchRejected(`${UPDATE_RULE}, and only one; found a second one, ${quote(second)}`);
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

/** Parses the lines after the Update File line into hunks (§10.3). */
function parseHunks(lines: readonly string[]): Hunk[] {
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

  for (const line of lines) {
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
