/**
 * Line handling shared by the patch parser and applier (docs/tools.md §10.1, §10.4). Hand-written:
 * no diff library splits, matches and rejoins lines by exactly these rules.
 */

import { runSteps, WorkMeter, type Steps } from "./steps";

/** A line break the applier can rejoin a body with. */
export type LineEnding = "\n" | "\r\n";

/** A text split per §10.1, with the ending §10.4 would rejoin it with. */
export interface SplitText {
  lines: string[];
  ending: LineEnding;
}

/** Characters handed to one native `split`; a chunk ends at the first `\n` after this many. */
const CHUNK_CHARS = 1 << 16;

/**
 * Splits text into lines per §10.1 (on `\n`, one trailing `\r` dropped, no empty last line) and
 * counts its endings for §10.4 (CRLF only when `\r\n` outnumbers bare `\n`; a tie gives LF).
 * Splits chunk by chunk, yielding between chunks.
 */
export function* splitLinesSteps(text: string, meter: WorkMeter): Steps<SplitText> {
  const lines: string[] = [];
  let crlf = 0;
  let lf = 0;
  for (let from = 0; from < text.length;) {
    const newline = text.indexOf("\n", Math.min(from + CHUNK_CHARS, text.length));
    const to = newline === -1 ? text.length : newline + 1;
    const parts = text.slice(from, to).split("\n");
    // Every part but the last was ended by a `\n`; the last is "" when the chunk ends with one.
    const open = parts.pop() ?? "";
    for (const part of parts) {
      if (part.endsWith("\r")) {
        crlf++;
        lines.push(part.slice(0, -1));
      } else {
        lf++;
        lines.push(part);
      }
    }
    if (open !== "") lines.push(open.endsWith("\r") ? open.slice(0, -1) : open);
    const units = parts.length + (to - from) / 64;
    from = to;
    if (meter.spend(units)) yield;
  }
  return { lines, ending: crlf > lf ? "\r\n" : "\n" };
}

/** Splits text into lines per §10.1: on `\n`, one trailing `\r` dropped, no empty last line. */
export function splitLines(text: string): string[] {
  return runSteps(splitLinesSteps(text, new WorkMeter())).lines;
}

/** The ending a body is rejoined with: CRLF only when `\r\n` outnumbers bare `\n` (tie → LF). */
export function majorityLineEnding(text: string): LineEnding {
  return runSteps(splitLinesSteps(text, new WorkMeter())).ending;
}
