/** The patch engine of docs/tools.md §10: parse and apply context-anchored hunks to one note body. */

export {
  applyPatch,
  applyPatchAsync,
  type ApplyPatchAsyncInput,
  type ApplyPatchInput,
  type ApplyPatchResult,
} from "./apply";
export { parsePatch, hunkAnchor, type Hunk, type HunkLine, type ParsedPatch } from "./parse";
export { splitLines, majorityLineEnding, type LineEnding } from "./lines";
export { PATCH_RETRY_ADVICE } from "./reject";
