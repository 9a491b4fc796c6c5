/** Lines with their own endings, so every conversion keeps `\n`, `\r\n` and `\r` byte for byte. */

/** One line: its text, the ending that followed it (`""` only for a last line without one), its number in the top text. */
export interface Line {
  readonly text: string;
  readonly eol: string;
  readonly no: number;
}

/**
 * Splits a text into lines; `joinLines` gives the text back exactly. Without a CR (almost every
 * text: the engine normalises line endings) the lines are found with `indexOf`, which V8 runs
 * far faster than a loop over every character; the loop below is the general case.
 */
export function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  if (!text.includes("\r")) {
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      lines.push({ text: text.slice(start, end), eol: "\n", no: lines.length + 1 });
      start = end + 1;
    }
    if (start < text.length) lines.push({ text: text.slice(start), eol: "", no: lines.length + 1 });
    return lines;
  }
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 10 && code !== 13) continue;
    const eol = code === 13 && text.charCodeAt(i + 1) === 10 ? "\r\n" : text.charAt(i);
    lines.push({ text: text.slice(start, i), eol, no: lines.length + 1 });
    i += eol.length - 1;
    start = i + 1;
  }
  if (start < text.length) lines.push({ text: text.slice(start), eol: "", no: lines.length + 1 });
  return lines;
}

/** The text of lines, endings included. */
export function joinLines(lines: readonly Line[]): string {
  let out = "";
  for (const line of lines) out += line.text + line.eol;
  return out;
}

/** A line with another text (same ending and number). */
export function withText(line: Line, text: string): Line {
  return { text, eol: line.eol, no: line.no };
}
