/**
 * Lenient readers of HackMD JSON (docs/tools.md §5.2): camelCase in, snake_case out; loose where
 * HackMD is loose (nulls, unknown enumerations, extra fields), strict where the data matters
 * (ids, timestamps). An unreadable reply is `upstream`; messages never quote the reply.
 */
import { BridgeError } from "../core/errors";
import { bodyHash } from "../core/hash";
import type {
  CommentPermission,
  Folder,
  FolderOrder,
  LastChangeUser,
  Me,
  NoteDetail,
  NoteSummary,
  Permission,
  PublishType,
  Team,
  TeamVisibility,
} from "./types";

/** What a reader needs to know about the request it reads. */
export interface ReadContext {
  /** `<METHOD> <path>` of the request, the prefix of every error message. */
  where: string;
  /** The workspace the request addressed (null = personal). */
  teamPath: string | null;
  /** Whether the default API URL is configured (then notes carry `note_url`). */
  isDefaultApiUrl: boolean;
}

const PERMISSIONS: readonly Permission[] = ["owner", "signed_in", "guest"];
const PUBLISH_TYPES: readonly PublishType[] = ["edit", "view", "slide", "book"];
const COMMENT_PERMISSIONS: readonly CommentPermission[] = [
  "disabled",
  "forbidden",
  "owners",
  "signed_in_users",
  "everyone",
];
const VISIBILITIES: readonly TeamVisibility[] = ["public", "private"];

/** The `upstream` error of a reply that cannot be read; names what was wrong, never the value. */
export function unreadableReply(where: string, what: string): BridgeError {
  return new BridgeError(
    "upstream",
    `${where}: HackMD's reply could not be read (${what}); retry later, and check the API URL if it persists.`,
  );
}

/** The unencoded `patch_path` of a note. */
export function patchPath(teamPath: string | null, noteId: string): string {
  return teamPath === null ? `notes/${noteId}.md` : `teams/${teamPath}/notes/${noteId}.md`;
}

/** The web URL of a note on hackmd.io. */
export function noteUrl(noteId: string): string {
  return `https://hackmd.io/${encodeURIComponent(noteId)}`;
}

/** Reads a single note (`SingleNote`); computes `body_hash` when the body is present. */
export async function readNoteDetail(raw: unknown, context: ReadContext): Promise<NoteDetail> {
  const note = requireObject(raw, context.where, "note");
  const id = requireId(note, context.where, "note");
  const detail: NoteDetail = {
    id,
    short_id: optionalString(note.shortId),
    title: titleOf(note.title),
    description: optionalString(note.description),
    tags: stringArray(note.tags),
    team_path: context.teamPath,
    patch_path: patchPath(context.teamPath, id),
    folder_ids: folderIds(note.folderPaths),
    created_at: timestamp(note.createdAt, context.where, "createdAt"),
    last_changed_at: timestamp(note.lastChangedAt, context.where, "lastChangedAt"),
    publish_link: optionalString(note.publishLink),
    permalink: optionalString(note.permalink),
    user_path: optionalString(note.userPath),
    read_permission: enumValue(note.readPermission, PERMISSIONS),
    write_permission: enumValue(note.writePermission, PERMISSIONS),
    comment_permission: enumValue(note.commentPermission, COMMENT_PERMISSIONS),
  };
  if (typeof note.content === "string") {
    detail.content = note.content;
    detail.body_hash = await bodyHash(note.content);
  }
  setTimestamp(detail, "title_updated_at", note.titleUpdatedAt, context.where, "titleUpdatedAt");
  setTimestamp(detail, "tags_updated_at", note.tagsUpdatedAt, context.where, "tagsUpdatedAt");
  setTimestamp(detail, "published_at", note.publishedAt, context.where, "publishedAt");
  const user = lastChangeUser(note.lastChangeUser);
  if (user !== undefined) detail.last_change_user = user;
  const publishType = enumValue(note.publishType, PUBLISH_TYPES);
  if (publishType !== null) detail.publish_type = publishType;
  if (context.isDefaultApiUrl) detail.note_url = noteUrl(id);
  return orderNoteDetail(detail);
}

/** Reads one list item as a note summary. */
export function readNoteSummary(raw: unknown, context: ReadContext): NoteSummary {
  const note = requireObject(raw, context.where, "note list item");
  const id = requireId(note, context.where, "note list item");
  return {
    id,
    ...(context.isDefaultApiUrl ? { note_url: noteUrl(id) } : {}),
    short_id: optionalString(note.shortId),
    title: titleOf(note.title),
    description: optionalString(note.description),
    tags: stringArray(note.tags),
    team_path: context.teamPath,
    created_at: timestamp(note.createdAt, context.where, "createdAt"),
    last_changed_at: timestamp(note.lastChangedAt, context.where, "lastChangedAt"),
    publish_link: optionalString(note.publishLink),
    permalink: optionalString(note.permalink),
    read_permission: enumValue(note.readPermission, PERMISSIONS),
    write_permission: enumValue(note.writePermission, PERMISSIONS),
  };
}

/** Reads a note list (`GET /notes` or the team form). */
export function readNoteList(raw: unknown, context: ReadContext): NoteSummary[] {
  return requireArray(raw, context.where, "note list").map((item) => readNoteSummary(item, context));
}

/** Reads `GET /history`: a bare array or `{history: [...]}`; each entry keeps its team and `last_visit`. */
export function readHistory(raw: unknown, context: ReadContext): NoteSummary[] {
  const list = isObject(raw) && !Array.isArray(raw) && Array.isArray(raw.history) ? raw.history : raw;
  return requireArray(list, context.where, "history").map((item) => {
    const entry = isObject(item) ? item : {};
    const teamPath = typeof entry.teamPath === "string" && entry.teamPath !== "" ? entry.teamPath : null;
    const summary = readNoteSummary(item, { ...context, teamPath });
    const lastVisit = timestamp(entry.lastVisit, context.where, "lastVisit");
    if (lastVisit === null) return summary;
    // Keep the documented field order: last_visit sits after last_changed_at.
    const { publish_link, permalink, read_permission, write_permission, ...head } = summary;
    return { ...head, last_visit: lastVisit, publish_link, permalink, read_permission, write_permission };
  });
}

/** Reads `GET /trash` as personal note summaries without `note_url` (the link would not open). */
export function readTrash(raw: unknown, context: ReadContext): NoteSummary[] {
  return readNoteList(raw, { ...context, teamPath: null, isDefaultApiUrl: false });
}

/** Reads a folder; null for an object without `id` (HackMD may answer `{}` for an unknown folder). */
export function readFolderOrNull(raw: unknown, context: ReadContext): Folder | null {
  const folder = requireObject(raw, context.where, "folder");
  if (folder.id === undefined) return null;
  const id = requireId(folder, context.where, "folder");
  return {
    id,
    name: titleOf(folder.name),
    description: optionalString(folder.description),
    icon: optionalString(folder.icon),
    color: optionalString(folder.color),
    parent_folder_id: optionalString(folder.parentFolderId),
    created_at: timestamp(folder.createdAt, context.where, "createdAt"),
    updated_at: timestamp(folder.updatedAt, context.where, "updatedAt"),
  };
}

/** Reads a folder that must be there (list items, a create reply). */
export function readFolder(raw: unknown, context: ReadContext): Folder {
  const folder = readFolderOrNull(raw, context);
  if (folder === null) throw unreadableReply(context.where, "folder without id");
  return folder;
}

/** Reads a folder list. */
export function readFolderList(raw: unknown, context: ReadContext): Folder[] {
  return requireArray(raw, context.where, "folder list").map((item) => readFolder(item, context));
}

/** Reads the folder order map; entries that are not lists are dropped, non-string ids too. */
export function readFolderOrder(raw: unknown, context: ReadContext): FolderOrder {
  const map = requireObject(raw, context.where, "folder order");
  const entries: Array<[string, string[]]> = [];
  for (const [key, value] of Object.entries(map)) {
    // Strict on purpose: the order map is written back whole, so an entry we could not read
    // would be silently dropped for every other parent (docs/tools.md §9.10 keeps other entries).
    if (!Array.isArray(value) || !value.every((id): id is string => typeof id === "string")) {
      throw unreadableReply(context.where, `the order entry for ${JSON.stringify(key)} is not a list of folder ids`);
    }
    entries.push([key, value]);
  }
  // fromEntries defines own properties, so a key such as "__proto__" stays a plain entry.
  return Object.fromEntries(entries);
}

/** Reads a team. */
export function readTeam(raw: unknown, context: ReadContext): Team {
  const team = requireObject(raw, context.where, "team");
  const id = requireId(team, context.where, "team");
  if (typeof team.path !== "string" || team.path === "") throw unreadableReply(context.where, "team without path");
  const visibility = enumValue(team.visibility, VISIBILITIES);
  const createdAt = timestamp(team.createdAt, context.where, "createdAt");
  return {
    id,
    ...(typeof team.ownerId === "string" ? { owner_id: team.ownerId } : {}),
    name: titleOf(team.name),
    ...(typeof team.logo === "string" ? { logo: team.logo } : {}),
    path: team.path,
    description: optionalString(team.description),
    hard_limit: typeof team.hardLimit === "number" && Number.isFinite(team.hardLimit) ? team.hardLimit : null,
    ...(visibility === null ? {} : { visibility }),
    ...(createdAt === null ? {} : { created_at: createdAt }),
    ...(typeof team.upgraded === "boolean" ? { upgraded: team.upgraded } : {}),
  };
}

/** Reads a team list (`GET /teams`). */
export function readTeamList(raw: unknown, context: ReadContext): Team[] {
  return requireArray(raw, context.where, "team list").map((item) => readTeam(item, context));
}

/** Reads the profile of `GET /me`; `teams` missing or null reads as null. */
export function readMe(raw: unknown, context: ReadContext): Me {
  const user = requireObject(raw, context.where, "profile");
  const id = requireId(user, context.where, "profile");
  if (typeof user.userPath !== "string" || user.userPath === "") {
    throw unreadableReply(context.where, "profile without userPath");
  }
  const me: Me = {
    id,
    name: titleOf(user.name),
    email: optionalString(user.email),
    user_path: user.userPath,
    photo: optionalString(user.photo),
    teams: Array.isArray(user.teams) ? readTeamList(user.teams, context) : null,
  };
  if (typeof user.upgraded === "boolean") me.upgraded = user.upgraded;
  return me;
}

/** Reads the `{"data":{"link":…}}` reply of an image upload; null when it has no usable link. */
export function readImageLink(raw: unknown): string | null {
  if (!isObject(raw) || !isObject(raw.data)) return null;
  const link = raw.data.link;
  if (typeof link !== "string") return null;
  try {
    const url = new URL(link);
    return url.protocol === "https:" || url.protocol === "http:" ? link : null;
  } catch {
    return null;
  }
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null;
}

function requireObject(value: unknown, where: string, what: string): JsonObject {
  if (!isObject(value) || Array.isArray(value)) throw unreadableReply(where, `${what} is not an object`);
  return value;
}

function requireArray(value: unknown, where: string, what: string): unknown[] {
  if (!Array.isArray(value)) throw unreadableReply(where, `${what} is not a list`);
  return value;
}

function requireId(value: JsonObject, where: string, what: string): string {
  const id = value.id;
  if (typeof id !== "string" || id.trim() === "") throw unreadableReply(where, `${what} without id`);
  return id;
}

function titleOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function optionalString(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function folderIds(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const ids: string[] = [];
  for (const entry of value) {
    if (isObject(entry) && typeof entry.id === "string") ids.push(entry.id);
  }
  return ids;
}

function enumValue<T extends string>(value: unknown, allowed: readonly T[]): T | null {
  return typeof value === "string" && (allowed as readonly string[]).includes(value) ? (value as T) : null;
}

/** A millisecond timestamp: null when absent or not a number; rounded; unreadable when out of range. */
function timestamp(value: unknown, where: string, field: string): number | null {
  if (typeof value !== "number") return null;
  const rounded = Math.round(value);
  if (!Number.isFinite(value) || !Number.isSafeInteger(rounded)) {
    throw unreadableReply(where, `timestamp ${field} out of range`);
  }
  return rounded;
}

function setTimestamp<K extends string>(
  target: Partial<Record<K, number>>,
  key: K,
  value: unknown,
  where: string,
  field: string,
): void {
  const read = timestamp(value, where, field);
  if (read !== null) target[key] = read;
}

function lastChangeUser(value: unknown): LastChangeUser | undefined {
  if (!isObject(value) || Array.isArray(value)) return undefined;
  const text = (member: unknown): string => (typeof member === "string" ? member : "");
  return {
    name: text(value.name),
    user_path: text(value.userPath),
    photo: text(value.photo),
    biography: text(value.biography),
  };
}

/** Puts the fields of a note detail in the documented order (stable JSON for agents and snapshots). */
function orderNoteDetail(detail: NoteDetail): NoteDetail {
  const order: Array<keyof NoteDetail> = [
    "id",
    "short_id",
    "title",
    "content",
    "body_hash",
    "description",
    "tags",
    "team_path",
    "patch_path",
    "folder_ids",
    "created_at",
    "last_changed_at",
    "title_updated_at",
    "tags_updated_at",
    "last_change_user",
    "publish_type",
    "published_at",
    "publish_link",
    "permalink",
    "user_path",
    "read_permission",
    "write_permission",
    "comment_permission",
    "note_url",
  ];
  const ordered: Record<string, unknown> = {};
  for (const key of order) {
    if (detail[key] !== undefined) ordered[key] = detail[key];
  }
  return ordered as unknown as NoteDetail;
}
