/**
 * The versions API (HackMD's OpenAPI document, tag "Versions"): list, get, create a named
 * version, rename it, compare two versions. Personal route only — the document has no team form,
 * and the personal route serves every note the token can read, team notes included. Errors use
 * the versions dialect `{error_code, message}`.
 */
import { createTwoFilesPatch } from "diff";
import { isObject, jsonReply, type Reply, type RouteContext, type RouteDef } from "../http";
import type { NoteEntry } from "../store";
import type { VersionRecord } from "../types";
import { canEditAsGuest, canRead, hasFullAccess } from "./common";

/** The versions dialect. */
function versionError(status: number, code: string, message: string, extra: Record<string, unknown> = {}): Reply {
  return { status, json: { error_code: code, message, ...extra } };
}

function invalid(message: string): Reply {
  return versionError(400, "invalid_request", message);
}

/** The readable (or, with `write`, writable) live note of the route; else a reply. */
function noteFor(ctx: RouteContext, write: boolean): NoteEntry | Reply {
  const entry = ctx.store.notes.get(ctx.params.noteId ?? "");
  if (!entry || entry.committed.trashedAt !== null) return versionError(404, "not_found", "Note not found");
  const note = entry.committed;
  const allowed = write ? hasFullAccess(ctx, note) || canEditAsGuest(note) : canRead(ctx, note);
  if (!allowed) return versionError(403, "forbidden", "Forbidden");
  return entry;
}

function isEntry(value: NoteEntry | Reply): value is NoteEntry {
  return "committed" in value;
}

/** `{user_id, display_name, photo}` of a user record id. */
function versionUser(ctx: RouteContext, userId: string | null): Record<string, unknown> | null {
  const user = userId === null ? undefined : ctx.store.users.get(userId);
  return user ? { user_id: user.id, display_name: user.name, photo: user.photo } : null;
}

/** NoteVersionMetadata of the document. */
export function versionMetadata(ctx: RouteContext, version: VersionRecord): Record<string, unknown> {
  const by = versionUser(ctx, version.createdBy);
  return {
    id: version.id,
    name: version.name,
    name_source: version.nameSource,
    description: version.description,
    created_at: new Date(version.createdAt).toISOString(),
    created_by: by,
    authorship: by === null ? [] : [by],
    content_available: true,
  };
}

/** A positive integer query value, its default when absent, or null when malformed. */
function positive(query: URLSearchParams, key: string, fallback: number, max: number): number | null {
  const raw = query.get(key);
  if (raw === null) return fallback;
  const value = Number(raw);
  return Number.isInteger(value) && value >= 1 && value <= max ? value : null;
}

function time(raw: string | null): number | null | undefined {
  if (raw === null) return undefined;
  const value = Date.parse(raw);
  return Number.isFinite(value) ? value : null;
}

function listVersions(ctx: RouteContext): Reply {
  const entry = noteFor(ctx, false);
  if (!isEntry(entry)) return entry;
  const q = ctx.query;
  const page = positive(q, "page", 1, 1_000_000);
  const limit = positive(q, "limit", 50, 100);
  if (page === null || limit === null) return invalid("page and limit must be positive integers (limit at most 100)");
  const after = time(q.get("created_after"));
  const before = time(q.get("created_before"));
  if (after === null || before === null) return invalid("created_after and created_before must be ISO-8601 datetimes");
  const namedOnly = q.get("named_only");
  if (namedOnly !== null && namedOnly !== "true" && namedOnly !== "false")
    return invalid("named_only must be true or false");
  const text = q.get("q")?.toLowerCase();
  const by = q.get("created_by");
  const matching = [...ctx.store.versionsOf(entry.committed.id)]
    .filter((v) => namedOnly !== "true" || v.nameSource === "user")
    .filter((v) => text === undefined || v.name.toLowerCase().includes(text))
    .filter(
      (v) =>
        by === null ||
        v.createdBy === by ||
        (v.createdBy !== null && ctx.store.users.get(v.createdBy)?.userPath === by),
    )
    .filter((v) => (after === undefined || v.createdAt >= after) && (before === undefined || v.createdAt <= before))
    // Newest first; among equal times the later-made one first.
    .reverse()
    .sort((a, b) => b.createdAt - a.createdAt);
  const total = matching.length;
  const data = matching.slice((page - 1) * limit, page * limit).map((v) => versionMetadata(ctx, v));
  return jsonReply(200, { data, meta: { total_pages: Math.ceil(total / limit), total, limit, page } });
}

function findVersion(ctx: RouteContext, entry: NoteEntry, id: string): VersionRecord | undefined {
  return ctx.store.versionsOf(entry.committed.id).find((v) => v.id === id);
}

function getVersion(ctx: RouteContext): Reply {
  const entry = noteFor(ctx, false);
  if (!isEntry(entry)) return entry;
  const version = findVersion(ctx, entry, ctx.params.versionId ?? "");
  if (!version) return versionError(404, "not_found", "Version not found");
  return jsonReply(200, { ...versionMetadata(ctx, version), content: version.content });
}

/** A `name` (1–80 characters, not only blanks) and an optional `description` (≤ 500), or why not. */
function checkNaming(body: Record<string, unknown>, nameRequired: boolean): string | null {
  const { name, description } = body;
  if (name === undefined && nameRequired) return "name is required";
  if (name !== undefined && (typeof name !== "string" || name.length < 1 || name.length > 80 || !/\S/.test(name))) {
    return "name must be 1 to 80 characters and not only blanks";
  }
  if (description !== undefined && (typeof description !== "string" || description.length > 500)) {
    return "description must be a string of at most 500 characters";
  }
  return null;
}

/** `version:{id}` → the id; anything else → null. */
function versionRef(base: unknown): string | null {
  return typeof base === "string" && base.startsWith("version:") && base.length > "version:".length
    ? base.slice("version:".length)
    : null;
}

function createVersion(ctx: RouteContext): Reply {
  if (!isObject(ctx.body)) return invalid("the body must be an object with a name");
  const body = ctx.body;
  const problem = checkNaming(body, true);
  if (problem !== null) return invalid(problem);
  const entry = noteFor(ctx, true);
  if (!isEntry(entry)) return entry;
  const name = body.name as string;
  const description = typeof body.description === "string" ? body.description : null;
  const base = body.base ?? "note_content";
  const list = ctx.store.versionsOf(entry.committed.id);
  const nameIt = (version: VersionRecord): Reply => {
    version.name = name;
    version.nameSource = "user";
    version.description = description;
    return jsonReply(201, versionMetadata(ctx, version), true);
  };
  const ref = versionRef(base);
  if (ref !== null) {
    const version = list.find((v) => v.id === ref);
    if (!version) return versionError(404, "not_found", "Version not found");
    if (version.nameSource === "user") {
      return versionError(409, "version_already_named", "The version already has a name.", {
        version_id: version.id,
        name: version.name,
      });
    }
    return nameIt(version);
  }
  if (base !== "note_content") return invalid("base must be note_content or version:{id}");
  const content = entry.committed.content;
  const latest = list[list.length - 1];
  if (latest && latest.content === content) {
    if (latest.nameSource === "user") {
      return versionError(409, "no_content_change", "Current note content has no changes to save.", {
        latest_version_id: latest.id,
        latest_name_source: latest.nameSource,
      });
    }
    return nameIt(latest);
  }
  const version: VersionRecord = {
    id: ctx.store.nextVersionId(entry.committed.id),
    noteId: entry.committed.id,
    name,
    nameSource: "user",
    description,
    createdAt: ctx.now,
    createdBy: ctx.user.id,
    content,
  };
  list.push(version);
  return jsonReply(201, versionMetadata(ctx, version), true);
}

function updateVersion(ctx: RouteContext): Reply {
  if (!isObject(ctx.body)) return invalid("the body must be an object with base and a name or description");
  const body = ctx.body;
  const ref = versionRef(body.base);
  if (ref === null) return invalid("base must be version:{id}");
  if (body.name === undefined && body.description === undefined) return invalid("name or description is required");
  const problem = checkNaming(body, false);
  if (problem !== null) return invalid(problem);
  const entry = noteFor(ctx, true);
  if (!isEntry(entry)) return entry;
  const version = findVersion(ctx, entry, ref);
  if (!version) return versionError(404, "not_found", "Version not found");
  if (version.nameSource !== "user") {
    return versionError(422, "version_not_named", "The version is not named. Use POST with base=version:{id} first.", {
      version_id: version.id,
    });
  }
  if (typeof body.name === "string") version.name = body.name;
  if (typeof body.description === "string") version.description = body.description;
  return jsonReply(200, versionMetadata(ctx, version), true);
}

function compareVersions(ctx: RouteContext): Reply {
  const entry = noteFor(ctx, false);
  if (!isEntry(entry)) return entry;
  const side = (key: string): { label: string; content: string } | Reply => {
    const raw = ctx.query.get(key);
    if (raw === null) return invalid(`${key} is required (note_content or version:{id})`);
    if (raw === "note_content") return { label: "note_content", content: entry.committed.content };
    const ref = versionRef(raw);
    if (ref === null) return invalid(`${key} must be note_content or version:{id}`);
    const version = findVersion(ctx, entry, ref);
    if (!version) return versionError(404, "not_found", "Version not found");
    return { label: raw, content: version.content };
  };
  const base = side("base");
  if ("status" in base) return base;
  const target = side("target");
  if ("status" in target) return target;
  return jsonReply(200, {
    unified_diff: createTwoFilesPatch(base.label, target.label, base.content, target.content, "", "", { context: 3 }),
  });
}

/** The versions routes (personal form only, as in HackMD's document). */
export const versionRoutes: RouteDef[] = [
  { method: "GET", path: "/notes/:noteId/versions", family: "versions", handler: listVersions },
  { method: "POST", path: "/notes/:noteId/versions", family: "versions", handler: createVersion },
  { method: "PATCH", path: "/notes/:noteId/versions", family: "versions", handler: updateVersion },
  { method: "GET", path: "/notes/:noteId/versions/compare", family: "versions", handler: compareVersions },
  { method: "GET", path: "/notes/:noteId/versions/:versionId", family: "versions", handler: getVersion },
];
