/**
 * Helpers only the tool handlers use: workspace names in summaries, the unresolved result, paging
 * and case folding. What the doors share (resolution, workspaces, argument checks) is the
 * application layer's (app/notes.ts, app/inputs.ts).
 */
import { unresolvedOutput, type Unresolved } from "../../app/notes";
import type { ToolSuccess } from "../define-tool";

/** How a workspace reads in messages. */
export function workspaceName(teamPath: string | null): string {
  return teamPath === null ? "the personal workspace" : `team ${teamPath}`;
}

/** The success result for a reference that did not resolve to exactly one note (§3.3). */
export function unresolved(resolution: Unresolved): ToolSuccess {
  const output = unresolvedOutput(resolution);
  const detail = resolution.status === "ambiguous" ? `${resolution.candidates.length} notes match` : "no note matches";
  return { summary: `The reference ${resolution.query} did not resolve to exactly one note (${detail}).`, output };
}

/** Paging of docs/tools.md §9.2. */
export function page<T>(
  items: readonly T[],
  offset: number,
  limit: number,
): {
  slice: T[];
  paging: { total: number; count: number; offset: number; has_more: boolean; next_offset: number | null };
} {
  const slice = items.slice(offset, offset + limit);
  const hasMore = offset + slice.length < items.length;
  return {
    slice,
    paging: {
      total: items.length,
      count: slice.length,
      offset,
      has_more: hasMore,
      next_offset: hasMore ? offset + slice.length : null,
    },
  };
}

/** Locale-independent case folding of docs/tools.md §9.2. */
export function fold(text: string): string {
  return text.toUpperCase().toLowerCase();
}
