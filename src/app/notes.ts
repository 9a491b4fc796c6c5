/**
 * Note references, workspaces and the account, as every door reads them: resolve a `note_ref`,
 * list a workspace through the 60-second cache, the account's user and team paths, and the note
 * queue key a write holds. The MCP tools, the Obsidian commands and the command line call these.
 */
import { BridgeError } from "../core/errors";
import type { CallContext } from "../hackmd/call-context";
import { parseNoteRef, resolveNoteRef, type Resolution } from "../hackmd/note-ref";
import type { NoteSummary } from "../hackmd/types";
import { noteQueueKey } from "../sync/queue";
import { recordKey } from "../sync/store";
import type { AppDeps } from "./deps";

/**
 * Runs a use-case's reads and write of one note holding that note's key in the core's queue, the
 * same key the sync engine's pull and push hold, so an agent's write never interleaves with them
 * (docs/adr/0004-one-queue.md).
 */
export function underNote<T>(
  deps: AppDeps,
  address: { teamPath: string | null; noteId: string },
  task: () => Promise<T>,
): Promise<T> {
  return deps.queue.run([noteQueueKey(recordKey(address.teamPath, address.noteId))], task);
}

/** The cache key of a workspace's note list. */
function listKey(teamPath: string | null): string {
  return teamPath === null ? "personal" : `team:${teamPath}`;
}

/** A workspace's notes through the 60-second list cache. */
export function listWorkspace(
  deps: AppDeps,
  call: CallContext,
  teamPath: string | null,
  refresh: boolean,
): Promise<NoteSummary[]> {
  return deps.lists.get(listKey(teamPath), () => deps.client.listNotes(call, { teamPath }), refresh);
}

/** The account's user path through the account cache. */
export async function accountUserPath(deps: AppDeps, call: CallContext, refresh: boolean): Promise<string> {
  const cached = refresh ? undefined : deps.account.freshUserPath();
  if (cached !== undefined) return cached;
  const me = await deps.client.me(call);
  deps.account.remember({ userPath: me.user_path, ...(me.teams ? { teams: me.teams } : {}) });
  return me.user_path;
}

/** The account's team paths through the account cache. */
export async function accountTeamPaths(deps: AppDeps, call: CallContext, refresh: boolean): Promise<string[]> {
  const cached = refresh ? undefined : deps.account.freshTeams();
  if (cached !== undefined) return cached.map((team) => team.path);
  const teams = await deps.client.teams(call);
  deps.account.remember({ teams });
  return teams.map((team) => team.path);
}

/** Refuses a team the account is not a member of, spending at most one `GET /teams` (§6.5). */
export async function ensureTeamMember(deps: AppDeps, call: CallContext, teamPath: string | null): Promise<void> {
  if (teamPath === null) return;
  const cached = deps.account.freshTeams();
  if (cached?.some((team) => team.path === teamPath)) return;
  const fresh = await accountTeamPaths(deps, call, true);
  if (!fresh.includes(teamPath)) {
    throw new BridgeError(
      "not_found",
      `The account is not a member of team ${teamPath}; use a team path from hackmd_get_me.`,
    );
  }
}

/** Parses and resolves a `note_ref` (docs/tools.md §8). */
export function resolveRef(
  deps: AppDeps,
  call: CallContext,
  noteRef: string,
  options: { teamPath: string | null; refresh: boolean; label?: string },
): Promise<Resolution> {
  const ref = parseNoteRef(noteRef, options.label);
  return resolveNoteRef(ref, options, {
    userPath: (refresh) => accountUserPath(deps, call, refresh),
    teamPaths: (refresh) => accountTeamPaths(deps, call, refresh),
    listNotes: async (teamPath, refresh) =>
      (await listWorkspace(deps, call, teamPath, refresh)).map((note) => ({
        id: note.id,
        title: note.title,
        shortId: note.short_id,
        permalink: note.permalink,
      })),
  });
}

/** A reference that did not resolve to exactly one note. */
export type Unresolved = Exclude<Resolution, { status: "resolved" }>;

/** The `resolution` output of a reference that did not resolve (§3.3), the same for a tool and `--json`. */
export function unresolvedOutput(resolution: Unresolved): { resolution: Record<string, unknown> } {
  return resolution.status === "ambiguous"
    ? { resolution: { status: resolution.status, query: resolution.query, candidates: resolution.candidates } }
    : { resolution: { status: resolution.status, query: resolution.query } };
}
