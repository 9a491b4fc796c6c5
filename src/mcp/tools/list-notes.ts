import { z } from "zod/v4";
import { invalidInput } from "../../core/errors";
import type { NoteSummary } from "../../hackmd/types";
import { limitInput, noteSummaryOutput, offsetInput, pageFields, refreshInput, teamPathInput } from "./schemas";
import { listWorkspace } from "../../app/notes";
import { workspaceArg } from "../../app/inputs";
import { fold, page, workspaceName } from "./shared";
import { tool } from "./tool";

const SORTS = ["last_changed_desc", "last_changed_asc", "created_desc", "created_asc", "title_asc"] as const;
type Sort = (typeof SORTS)[number];

const trackedEntry = z.object({
  team_path: z.string().nullable(),
  note_id: z.string(),
  local_path: z.string(),
  baseline_hash: z.string(),
  last_observed_remote_timestamp: z.string(),
});

/** `hackmd_list_notes` (docs/tools.md §9.2): workspace, history, trash or tracked notes, filtered and paged. */
export const listNotesTool = tool({
  name: "hackmd_list_notes",
  title: "List HackMD Notes",
  description:
    'Lists note metadata (never bodies) from a workspace (default; cached 60 s, refresh bypasses), the account\'s history, the personal trash, or "tracked" local files (no request). Filter with query (id, title, short id, description, tags; case-insensitive) and tags (all must match), sort, and page with limit/offset. history and trash refuse team_path and refresh; tracked refuses tags, sort and refresh. Use the ids with hackmd_get_note.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: z
    .object({
      source: z.enum(["workspace", "history", "trash", "tracked"]).default("workspace").describe("Which list to read."),
      team_path: teamPathInput,
      limit: limitInput,
      offset: offsetInput,
      query: z
        .string()
        .optional()
        .describe(
          "Case-insensitive substring over id, title, short id, description and tags (tracked: note id or local_path).",
        ),
      tags: z.array(z.string()).optional().describe("Every tag must match one of the note's tags, case-insensitively."),
      refresh: refreshInput,
      sort: z
        .enum(SORTS)
        .optional()
        .describe("Default last_changed_desc for workspace; HackMD's order for history and trash."),
    })
    .strict(),
  output: z.union([
    z.object({ mode: z.literal("notes"), ...pageFields, notes: z.array(noteSummaryOutput) }),
    z.object({ mode: z.literal("tracked"), ...pageFields, notes: z.array(trackedEntry) }),
  ]),
  create: (deps) => async (args, call) => {
    const { source, limit, offset } = args;
    if (source === "tracked") {
      if ((args.tags?.length ?? 0) > 0 || args.sort !== undefined || args.refresh) {
        throw invalidInput(
          'tags, sort and refresh do not apply to source "tracked" (it lists local sync records); remove them.',
        );
      }
      const teamPath = args.team_path === undefined ? undefined : workspaceArg(args.team_path);
      const records = await deps.sync.listTracked();
      const query = args.query ? fold(args.query) : "";
      const matches = records
        .filter((record) => teamPath === undefined || record.team_path === teamPath)
        .filter(
          (record) => query === "" || fold(record.note_id).includes(query) || fold(record.local_path).includes(query),
        );
      const { slice, paging } = page(matches, offset, limit);
      return {
        summary: `Listed ${paging.count} of ${paging.total} tracked notes.`,
        output: { mode: "tracked", ...paging, notes: slice },
      };
    }
    if (source !== "workspace" && args.team_path !== undefined && args.team_path !== null) {
      throw invalidInput(
        `team_path does not apply to source "${source}" (${source === "history" ? "history is account-wide" : "trash is personal"}); remove it.`,
      );
    }
    if (source !== "workspace" && args.refresh) {
      throw invalidInput(`refresh does not apply to source "${source}" (it is always fetched fresh); remove it.`);
    }
    let notes: NoteSummary[];
    let where: string;
    if (source === "workspace") {
      const teamPath = workspaceArg(args.team_path);
      notes = await listWorkspace(deps, call, teamPath, args.refresh);
      where = workspaceName(teamPath);
    } else if (source === "history") {
      notes = await deps.client.history(call);
      where = "the history";
    } else {
      notes = await deps.client.trash(call); // trash summaries carry no note_url (the reader omits it)
      where = "the trash";
    }
    const filtered = filterNotes(notes, args.query, args.tags ?? []);
    const sort = args.sort ?? (source === "workspace" ? "last_changed_desc" : undefined);
    const ordered = sort ? sortNotes(filtered, sort) : filtered;
    const { slice, paging } = page(ordered, offset, limit);
    return {
      summary: `Listed ${paging.count} of ${paging.total} notes from ${where}.`,
      output: { mode: "notes", ...paging, notes: slice },
    };
  },
});

function filterNotes(notes: NoteSummary[], query: string | undefined, tags: string[]): NoteSummary[] {
  const needle = query ? fold(query) : "";
  const wanted = tags.map(fold);
  return notes.filter((note) => {
    if (needle !== "") {
      const fields = [note.id, note.title, note.short_id ?? "", note.description ?? "", ...note.tags];
      if (!fields.some((field) => fold(field).includes(needle))) return false;
    }
    if (wanted.length > 0) {
      const have = new Set(note.tags.map(fold));
      if (!wanted.every((tag) => have.has(tag))) return false;
    }
    return true;
  });
}

function sortNotes(notes: NoteSummary[], sort: Sort): NoteSummary[] {
  const byId = (a: NoteSummary, b: NoteSummary): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const byDate =
    (key: "last_changed_at" | "created_at", descending: boolean) =>
    (a: NoteSummary, b: NoteSummary): number => {
      const x = a[key];
      const y = b[key];
      if (x === y) return byId(a, b);
      // Notes without the date go last in a descending sort and first in an ascending one.
      if (x === null) return descending ? 1 : -1;
      if (y === null) return descending ? -1 : 1;
      return (descending ? y - x : x - y) || byId(a, b);
    };
  const compare: Record<Sort, (a: NoteSummary, b: NoteSummary) => number> = {
    last_changed_desc: byDate("last_changed_at", true),
    last_changed_asc: byDate("last_changed_at", false),
    created_desc: byDate("created_at", true),
    created_asc: byDate("created_at", false),
    title_asc: (a, b) => {
      const x = fold(a.title);
      const y = fold(b.title);
      return x < y ? -1 : x > y ? 1 : byId(a, b);
    },
  };
  return [...notes].sort(compare[sort]);
}
