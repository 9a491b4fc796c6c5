/**
 * Deterministic large notes and patches for the patch bench: many-hunk and one-hunk patches
 * built from a note's own lines, so every hunk applies exactly once.
 */

/** The patch envelope around hunk lines, for `patchPath`. */
export function envelope(patchPath: string, hunkLines: readonly string[]): string {
  return ["*** Begin Patch", `*** Update File: ${patchPath}`, ...hunkLines, "*** End Patch"].join("\n");
}

/**
 * A note of short lines (LF, final newline) of at least `bytes` bytes: a unique base-36 counter
 * followed by `blanks` empty lines, over and over. Short, heavily repeated lines are the worst
 * case for an applier that scans every offset.
 */
export function shortLineNote(bytes: number, blanks = 2): string {
  const lines: string[] = [];
  let size = 0;
  for (let counter = 0; size < bytes; counter++) {
    const text = `c${counter.toString(36)}`;
    lines.push(text);
    for (let blank = 0; blank < blanks; blank++) lines.push("");
    size += text.length + 1 + blanks;
  }
  return `${lines.join("\n")}\n`;
}

/** A generated patch and what it contains. */
export interface GeneratedPatch {
  patch: string;
  hunks: number;
  contextLines: number;
  changedLines: number;
}

/**
 * A patch of `hunks` hunks spread evenly over `lines`: each keeps `context` lines of context
 * (half above, half below) around `changed` consecutive lines that it replaces with edited
 * copies. Empty context lines are written bare (an empty line inside a hunk is empty context).
 */
export function manyHunkPatch(
  lines: readonly string[],
  patchPath: string,
  { hunks, context, changed }: { hunks: number; context: number; changed: number },
): GeneratedPatch {
  const span = context + changed;
  const stride = Math.floor(lines.length / hunks);
  if (stride < span)
    throw new Error(`bench setup: ${hunks} hunks of ${span} lines do not fit in ${lines.length} lines`);
  const above = Math.floor(context / 2);
  const out: string[] = [];
  const keep = (text: string): string => (text === "" ? "" : ` ${text}`);
  for (let hunk = 0; hunk < hunks; hunk++) {
    const first = hunk * stride;
    out.push("@@");
    for (let at = first; at < first + above; at++) out.push(keep(lines[at]!));
    const removed = lines.slice(first + above, first + above + changed);
    for (const text of removed) out.push(`-${text}`);
    for (const text of removed) out.push(`+${text}~`);
    for (let at = first + above + changed; at < first + span; at++) out.push(keep(lines[at]!));
  }
  return { patch: envelope(patchPath, out), hunks, contextLines: hunks * context, changedLines: hunks * changed };
}

/** One hunk over the whole note: every line is context except every `every`-th, which is replaced. */
export function oneHunkPatch(lines: readonly string[], patchPath: string, every: number): GeneratedPatch {
  const out = ["@@"];
  let changedLines = 0;
  lines.forEach((text, index) => {
    if (index % every === every - 1) {
      out.push(`-${text}`, `+${text}~`);
      changedLines++;
    } else {
      out.push(text === "" ? "" : ` ${text}`);
    }
  });
  return { patch: envelope(patchPath, out), hunks: 1, contextLines: lines.length - changedLines, changedLines };
}

/**
 * A patch of anchored hunks: for every `every`-th line that starts with `prefix` (each such line
 * must be unique, e.g. a numbered heading), `@@ <that line>` followed by `added` new lines.
 */
export function anchoredPatch(
  lines: readonly string[],
  patchPath: string,
  prefix: string,
  every: number,
  added: number,
): GeneratedPatch {
  const out: string[] = [];
  let hunks = 0;
  lines.forEach((text) => {
    if (!text.startsWith(prefix)) return;
    if (hunks++ % every !== 0) return;
    out.push(`@@ ${text.trim()}`);
    for (let line = 0; line < added; line++) out.push(`+added below ${text.trim()} (${line})`);
  });
  const written = Math.ceil(hunks / every);
  return { patch: envelope(patchPath, out), hunks: written, contextLines: 0, changedLines: written * added };
}
