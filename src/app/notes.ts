/** Helpers shared by the tool handlers: workspace arguments, resolution, paging, permissions. */
import { BridgeError, invalidInput } from "../core/errors";
import { isBodyHash } from "../core/hash";
import type { CallContext } from "../hackmd/call-context";
import { parseNoteRef, resolveNoteRef, type Resolution } from "../hackmd/note-ref";
import { checkIdentifier, hasControlCharacter, MAX_IDENTIFIER_LENGTH, type IdentifierLabel } from "../hackmd/identifiers";
import type { NoteSummary, Permission } from "../hackmd/types";
import { noteQueueKey } from "../sync/queue";
import { recordKey } from "../sync/store";
import type { ToolSuccess } from "../mcp/define-tool";
import type { ToolDeps } from "../mcp/tools/tool";

/** Checks and trims `team_path` (TOOLS.md §3.1, §5.5): omitted or null → personal (null). */
export function workspaceArg(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const trimmed = value.trim();
  // Length and characters (hackmd/identifiers.ts) before any request; a huge value is refused before any scan.
  if (trimmed.length > MAX_IDENTIFIER_LENGTH) checkIdentifier("team path", trimmed);
  if (trimmed === "" || trimmed === "." || trimmed === ".." || hasControlCharacter(trimmed)) {
    throw invalidInput(
      "team_path is blank, a dot segment or contains a control character; pass a team path from hackmd_get_me, or omit team_path for the personal workspace.",
    );
  }
  checkIdentifier("team path", trimmed);
  return trimmed;
}

/** Checks a caller-given id before any request (TOOLS.md §5.5; length and characters: hackmd/identifiers.ts). */
export function idArg(label: Exclude<IdentifierLabel, "team path">, value: string): string {
  checkIdentifier(label, value);
  return value;
}

/**
 * Runs a tool's reads and write of one note holding that note's key in the core's queue, the same
 * key the sync engine's pull and push hold, so an agent's write never interleaves with them.
 */
export function underNote<T>(deps: ToolDeps, address: { teamPath: string | null; noteId: string }, task: () => Promise<T>): Promise<T> {
  return deps.queue.run([noteQueueKey(recordKey(address.teamPath, address.noteId))], task);
}

/** How a workspace reads in messages. */
export function workspaceName(teamPath: string | null): string {
  return teamPath === null ? "the personal workspace" : `team ${teamPath}`;
}

/** Checks a caller-supplied hash (TOOLS.md §11.1). */
export function hashArg(name: string, value: string | undefined, source: string): string | undefined {
  if (value === undefined) return undefined;
  if (!isBodyHash(value)) {
    throw invalidInput(`${name} must be "sha256:" followed by 64 lowercase hex digits; pass ${source} exactly as returned.`);
  }
  return value;
}

const PERMISSION_ORDER: Record<Permission, number> = { owner: 0, signed_in: 1, guest: 2 };

/** Refuses settings HackMD's API cannot apply and write more permissive than read (TOOLS.md §5.4). */
export function checkPermissions(args: {
  read_permission?: Permission | undefined;
  write_permission?: Permission | undefined;
  comment_permission?: string | undefined;
  suggest_edit_permission?: string | undefined;
}): void {
  for (const key of ["comment_permission", "suggest_edit_permission"] as const) {
    if (args[key] !== undefined) {
      throw invalidInput(`${key} cannot be set through HackMD's API; leave it out and change it in HackMD's web interface.`);
    }
  }
  if (args.read_permission && args.write_permission && PERMISSION_ORDER[args.write_permission] > PERMISSION_ORDER[args.read_permission]) {
    throw invalidInput(
      `write_permission "${args.write_permission}" is more permissive than read_permission "${args.read_permission}"; choose a write permission no wider than the read permission.`,
    );
  }
}

/** The cache key of a workspace's note list. */
function listKey(teamPath: string | null): string {
  return teamPath === null ? "personal" : `team:${teamPath}`;
}

/** A workspace's notes through the 60-second list cache. */
export function listWorkspace(deps: ToolDeps, call: CallContext, teamPath: string | null, refresh: boolean): Promise<NoteSummary[]> {
  return deps.lists.get(listKey(teamPath), () => deps.client.listNotes(call, { teamPath }), refresh);
}

/** The account's user path through the account cache. */
export async function accountUserPath(deps: ToolDeps, call: CallContext, refresh: boolean): Promise<string> {
  const cached = refresh ? undefined : deps.account.freshUserPath();
  if (cached !== undefined) return cached;
  const me = await deps.client.me(call);
  deps.account.remember({ userPath: me.user_path, ...(me.teams ? { teams: me.teams } : {}) });
  return me.user_path;
}

/** The account's team paths through the account cache. */
export async function accountTeamPaths(deps: ToolDeps, call: CallContext, refresh: boolean): Promise<string[]> {
  const cached = refresh ? undefined : deps.account.freshTeams();
  if (cached !== undefined) return cached.map((team) => team.path);
  const teams = await deps.client.teams(call);
  deps.account.remember({ teams });
  return teams.map((team) => team.path);
}

/** Refuses a team the account is not a member of, spending at most one `GET /teams` (§6.5). */
export async function ensureTeamMember(deps: ToolDeps, call: CallContext, teamPath: string | null): Promise<void> {
  if (teamPath === null) return;
  const cached = deps.account.freshTeams();
  if (cached?.some((team) => team.path === teamPath)) return;
  const fresh = await accountTeamPaths(deps, call, true);
  if (!fresh.includes(teamPath)) {
    throw new BridgeError("not_found", `The account is not a member of team ${teamPath}; use a team path from hackmd_get_me.`);
  }
}

/** Parses and resolves a `note_ref` (TOOLS.md §8). */
export function resolveRef(
  deps: ToolDeps,
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

/** The success result for a reference that did not resolve to exactly one note (§3.3). */
export function unresolved(resolution: Exclude<Resolution, { status: "resolved" }>): ToolSuccess {
  const output =
    resolution.status === "ambiguous"
      ? { resolution: { status: resolution.status, query: resolution.query, candidates: resolution.candidates } }
      : { resolution: { status: resolution.status, query: resolution.query } };
  const detail = resolution.status === "ambiguous" ? `${resolution.candidates.length} notes match` : "no note matches";
  return { summary: `The reference ${resolution.query} did not resolve to exactly one note (${detail}).`, output };
}

/** Paging of TOOLS.md §9.2. */
export function page<T>(items: readonly T[], offset: number, limit: number): {
  slice: T[];
  paging: { total: number; count: number; offset: number; has_more: boolean; next_offset: number | null };
} {
  const slice = items.slice(offset, offset + limit);
  const hasMore = offset + slice.length < items.length;
  return {
    slice,
    paging: { total: items.length, count: slice.length, offset, has_more: hasMore, next_offset: hasMore ? offset + slice.length : null },
  };
}

/** Locale-independent case folding of TOOLS.md §9.2. */
export function fold(text: string): string {
  return text.toUpperCase().toLowerCase();
}

/** Drops undefined members so request bodies carry only supplied fields. */
export function defined<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<T>;
}
