/**
 * Line handling shared by the patch parser and applier (TOOLS.md §10.1, §10.4). Hand-written:
 * no diff library splits, matches and rejoins lines by exactly these rules.
 */

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
