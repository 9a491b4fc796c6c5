/** Lines with their own endings, so every conversion keeps `\n`, `\r\n` and `\r` byte for byte. */

/** One line: its text, the ending that followed it (`""` only for a last line without one), its number in the top text. */
export interface Line {
  readonly text: string;
  readonly eol: string;
  readonly no: number;
}

/**
 * Splits a text into lines; `joinFrom` gives the text back exactly. Without a CR (almost every
 * text: the engine normalises line endings) the lines are found with `indexOf`, which V8 runs
 * far faster than a loop over every character; the loop below is the general case.
 */
export function splitLines(text: string): Line[] {
  return splitLinesAt(text, []);
}

/** `splitLines`, also putting where each line starts in `text` into `starts` (see `joinFrom`). */
export function splitLinesAt(text: string, starts: number[]): Line[] {
  const lines: Line[] = [];
  let start = 0;
  if (!text.includes("\r")) {
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      starts.push(start);
      lines.push({ text: text.slice(start, end), eol: "\n", no: lines.length + 1 });
      start = end + 1;
    }
    if (start < text.length) {
      starts.push(start);
      lines.push({ text: text.slice(start), eol: "", no: lines.length + 1 });
    }
    return lines;
  }
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 10 && code !== 13) continue;
    const eol = code === 13 && text.charCodeAt(i + 1) === 10 ? "\r\n" : text.charAt(i);
    starts.push(start);
    lines.push({ text: text.slice(start, i), eol, no: lines.length + 1 });
    i += eol.length - 1;
    start = i + 1;
  }
  if (start < text.length) {
    starts.push(start);
    lines.push({ text: text.slice(start), eol: "", no: lines.length + 1 });
  }
  return lines;
}

/**
 * The text of `out` (each line's text and ending, in order) for lines converted from `source` (split by `splitLinesAt` into `lines` and
 * `starts`): a run of lines that are `lines`' own objects, in order, is what `source` holds from
 * the first one's start to the next one's, so it is taken as one slice (most of a note's lines
 * are left alone, and one slice builds far less than two pieces per line).
 */
export function joinFrom(
  out: readonly Line[],
  source: string,
  lines: readonly Line[],
  starts: readonly number[],
): string {
  let text = "";
  let i = 0;
  while (i < out.length) {
    const line = out[i] as Line;
    const first = line.no - 1;
    if (lines[first] !== line) {
      text += line.text + line.eol;
      i++;
      continue;
    }
    let next = first + 1;
    i++;
    while (i < out.length && out[i] === lines[next]) {
      i++;
      next++;
    }
    text += source.slice(starts[first], next < starts.length ? starts[next] : source.length);
  }
  return text;
}

/** A line with another text (same ending and number). */
export function withText(line: Line, text: string): Line {
  return { text, eol: line.eol, no: line.no };
}
