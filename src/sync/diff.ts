/**
 * Bounded unified diffs (docs/tools.md §14.6): inputs above 16 KiB are reduced to their first and
 * last 8 KiB, hunks carry 2 lines of context, and each diff stops at 1,900 bytes.
 */
import { structuredPatch } from "diff";
import { utf8Length } from "../core/hash";

/** Inputs longer than this many bytes are reduced before diffing. */
export const DIFF_INPUT_LIMIT = 16_384;
/** Bytes kept from each end of a reduced input. */
export const DIFF_INPUT_KEEP = 8_192;
/** Longest diff text, in bytes, before the `…` mark. */
export const DIFF_OUTPUT_LIMIT = 1_900;
/** Lines of context around each change. */
export const DIFF_CONTEXT = 2;

const encoder = new TextEncoder();

/** The longest prefix of `text` whose UTF-8 encoding fits in `bytes`, never splitting a character. */
export function utf8Prefix(text: string, bytes: number): string {
  let used = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8Length(char);
    if (used + size > bytes) break;
    used += size;
    end += char.length;
  }
  return text.slice(0, end);
}

/** The longest suffix of `text` whose UTF-8 encoding fits in `bytes`, never splitting a character. */
export function utf8Suffix(text: string, bytes: number): string {
  const chars = Array.from(text);
  let used = 0;
  let start = chars.length;
  while (start > 0) {
    const size = utf8Length(chars[start - 1] ?? "");
    if (used + size > bytes) break;
    used += size;
    start -= 1;
  }
  return chars.slice(start).join("");
}

/** Reduces a diff input above 16 KiB to its first and last 8 KiB joined by the omission line. */
export function reduceDiffInput(text: string): string {
  const total = encoder.encode(text).byteLength;
  if (total <= DIFF_INPUT_LIMIT) return text;
  const head = utf8Prefix(text, DIFF_INPUT_KEEP);
  const tail = utf8Suffix(text, DIFF_INPUT_KEEP);
  const omitted = total - utf8Length(head) - utf8Length(tail);
  const before = head.endsWith("\n") ? head : `${head}\n`;
  const after = tail.startsWith("\n") ? tail.slice(1) : tail;
  return `${before}[… ${omitted} bytes omitted from diff input …]\n${after}`;
}

/** Cuts a text at `limit` bytes on a character boundary and then marks the cut with `…`. */
export function boundText(text: string, limit: number = DIFF_OUTPUT_LIMIT): string {
  return utf8Length(text) <= limit ? text : `${utf8Prefix(text, limit)}…`;
}

/** A bounded unified diff from `before` to `after` with the given header names. */
export function boundedDiff(options: { before: string; after: string; from: string; to: string }): string {
  const patch = structuredPatch(
    options.from,
    options.to,
    reduceDiffInput(options.before),
    reduceDiffInput(options.after),
    undefined,
    undefined,
    {
      context: DIFF_CONTEXT,
    },
  );
  const lines = [`--- ${options.from}`, `+++ ${options.to}`];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`, ...hunk.lines);
  }
  return boundText(`${lines.join("\n")}\n`);
}

/** A unified diff range: `start,count`, or `start` alone for a count of one. */
function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${start},${count}`;
}

/** Pull's `changes`: the replaced file → the pulled body, headers `--- local` / `+++ remote`. */
export function pullChanges(local: string, remote: string): string {
  return boundedDiff({ before: local, after: remote, from: "local", to: "remote" });
}

/** A push conflict's `diff_summary`: LOCAL CHANGES (baseline → local), REMOTE CHANGES (baseline → remote). */
export function diffSummary(options: { baseline: string; local: string; remote: string }): string {
  const local = boundedDiff({ before: options.baseline, after: options.local, from: "baseline", to: "local" });
  const remote = boundedDiff({ before: options.baseline, after: options.remote, from: "baseline", to: "remote" });
  return `LOCAL CHANGES\n${local}\nREMOTE CHANGES\n${remote}`;
}
