/**
 * `hackmd-bridge search <query>`: full-text search of the tracked and mirrored notes' files
 * (src/app/search.ts); no request to HackMD. The same search as the `hackmd_search_notes` tool.
 */
import { MAX_SEARCH_LIMIT } from "../../app/search";
import { flag, text, type CommandContext, type HumanCommand } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { UsageError, writeJson } from "./output";

/** The checked arguments of `search`. */
export interface SearchArgs {
  query: string;
  limit: number;
  json: boolean;
}

/** Searches: exit 0 when something matched, 1 when nothing did. */
export async function runSearch(args: SearchArgs, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  const result = await core.deps.search.search({ query: args.query, limit: args.limit });
  if (args.json) writeJson(io, result);
  else if (result.total === 0) io.out(`No tracked note matches (${result.indexed} searched).\n`);
  else {
    io.out(
      `${result.total} of ${result.indexed} tracked notes match${result.total > result.results.length ? `; the best ${result.results.length}` : ""}:\n`,
    );
    for (const hit of result.results) {
      io.out(`\n${hit.local_path} (${hit.title}; ${hit.state.replace("_", " ")})\n`);
      for (const match of hit.matches) io.out(`  ${String(match.line).padStart(5)}: ${match.text}\n`);
    }
  }
  return result.total > 0 ? EXIT.ok : EXIT.attention;
}

/** The `search` subcommand. */
export const searchCommand: HumanCommand = {
  name: "search",
  summary: "search the text of tracked and mirrored notes (local files; no HackMD request)",
  synopsis: "<query> [--limit <n>] [options]",
  description: [
    'Every word must appear; "quoted phrases" must appear as written; tag:<tag> and',
    "folder:<vault folder> filter. Best matches first, with the matching lines and whether each",
    "file still holds its last synced text (in sync) or was edited since (local changed).",
  ].join("\n"),
  positionals: { required: ["query"] },
  options: {
    limit: { type: "string", value: "<n>", help: `most results, 1 to ${MAX_SEARCH_LIMIT} (default 20)` },
  },
  shared: ["root", "json"],
  exitCodes: {
    0: "something matched",
    1: "nothing matched",
    2: "usage error (an empty or too long query), or a failure",
  },
  examples: ['hackmd-bridge search "release plan" tag:project', "hackmd-bridge search budget folder:HackMD/Projects"],
  parse: ({ values, positionals }) => {
    const [query = ""] = positionals;
    if (query.trim() === "") throw new UsageError('give a query: words, "a phrase", tag:<tag> or folder:<path>');
    const given = text(values, "limit");
    const limit = given === undefined ? 20 : Number(given);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT)
      throw new UsageError(`--limit takes a whole number from 1 to ${MAX_SEARCH_LIMIT}`);
    const args: SearchArgs = { query, limit, json: flag(values, "json") };
    return { json: args.json, run: (context) => runSearch(args, context) };
  },
};
