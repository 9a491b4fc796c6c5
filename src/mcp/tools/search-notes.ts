import { z } from "zod/v4";
import { DEFAULT_SEARCH_LIMIT, MAX_QUERY_LENGTH, MAX_SEARCH_LIMIT } from "../../app/search";
import { tool } from "./tool";

const hit = z.object({
  note_id: z.string(),
  team_path: z.string().nullable(),
  note_url: z.string().optional(),
  title: z.string(),
  local_path: z.string(),
  score: z.number(),
  state: z.enum(["in_sync", "local_changed", "missing_local"]),
  last_synced_remote_timestamp: z.string(),
  matches: z.array(z.object({ line: z.number().int(), text: z.string() })),
});

/** `hackmd_search_notes` (docs/tool-contract-extensions.md): full-text search of tracked notes' bodies, no HackMD request. */
export const searchNotesTool = tool({
  name: "hackmd_search_notes",
  title: "Search HackMD Notes",
  description:
    'Searches the text of every tracked and mirrored note in the local files, without asking HackMD: words (all must appear), "quoted phrases", tag:<tag> and folder:<vault folder>. Results are ranked (title matches first), at most limit, each with note_id, title, local_path, the matching lines with their line numbers, and state: in_sync (the file holds the last synced text), local_changed (edited since; hackmd_push_note sends it) or missing_local. HackMD may have changed since last_synced_remote_timestamp; read the note with hackmd_get_note for its current text.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      query: z
        .string()
        .max(MAX_QUERY_LENGTH)
        .describe('Words, "quoted phrases", tag:<tag>, folder:<vault folder>; every term must match.'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_SEARCH_LIMIT)
        .default(DEFAULT_SEARCH_LIMIT)
        .describe(`Most results (1–${MAX_SEARCH_LIMIT}).`),
    })
    .strict(),
  output: z.object({
    query: z.string(),
    total: z.number().int(),
    indexed: z.number().int(),
    results: z.array(hit),
  }),
  create: (deps) => async (args) => {
    const result = await deps.search.search({ query: args.query, limit: args.limit });
    return {
      summary: `Found ${result.total} of ${result.indexed} tracked notes${result.total > result.results.length ? `, showing ${result.results.length}` : ""}.`,
      output: { ...result },
    };
  },
});
