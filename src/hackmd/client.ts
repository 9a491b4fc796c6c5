/**
 * The HackMD API v1 client (docs/tools.md §5, §6): one typed method per endpoint. Every method takes
 * the call context of the tool call it serves; the client itself keeps only the last quota seen.
 * Caches and note-reference resolution are layered on top elsewhere.
 */
import { compareCodePoints } from "../core/text";
import { BridgeError } from "../core/errors";
import { TOOL_WORDS } from "../core/wording";
import type { Random } from "../core/ports";
import type { CallContext } from "./call-context";
import type { ClientConfig } from "./config";
import { parseQuota, type Quota } from "./quota";
import {
  readFolder,
  readFolderList,
  readFolderOrNull,
  readFolderOrder,
  readHistory,
  readImageLink,
  readMe,
  readNoteDetail,
  readNoteList,
  readTeamList,
  readTrash,
  type ReadContext,
} from "./read";
import {
  parseJsonReply,
  segment,
  sendApiRequest,
  workspaceParts,
  type ApiRequestSpec,
  type ApiResponse,
  type PathPart,
  type RequestDeps,
  type SentRequest,
} from "./request";
import type {
  CreatedNote,
  CreateFolderRequest,
  CreateNoteRequest,
  Folder,
  FolderOrder,
  ImageUpload,
  Me,
  NoteDetail,
  NoteSummary,
  Team,
  UpdateFolderRequest,
  UpdateNoteRequest,
} from "./types";
import {
  readComment,
  readCommentPage,
  readResolution,
  readUnifiedDiff,
  readVersion,
  readVersionPage,
  readVersionWithContent,
  type CommentPage,
  type CommentQuery,
  type CommentResolution,
  type NoteComment,
  type NoteVersion,
  type NoteVersionWithContent,
  type VersionPage,
  type VersionQuery,
} from "./versions-comments";

/** The ports and configuration of a client: what a request needs, minus the client's own hook. */
export type HackmdClientOptions = Omit<RequestDeps, "onResponse" | "onRequestSent" | "beforeSend">;

/** A note in a workspace. */
export interface NoteAddress {
  /** Null for the personal workspace, else the team's path. */
  teamPath: string | null;
  noteId: string;
}

/** A folder in a workspace. */
export interface FolderAddress {
  teamPath: string | null;
  folderId: string;
}

/** Options of reads used by a read-back poll. */
export interface ReadOptions {
  /** Epoch ms by which the read must complete (from `pollUntil`). */
  deadlineAt?: number;
}

const encoder = new TextEncoder();

/** The HackMD API v1 client. */
export class HackmdClient {
  private readonly deps: RequestDeps;
  private quota: Quota | null = null;
  private readonly sentListeners = new Set<(sent: SentRequest) => void>();
  private readonly sendHooks = new Set<(sent: SentRequest) => Promise<void>>();

  constructor(options: HackmdClientOptions) {
    this.deps = {
      ...options,
      onResponse: (headers) => {
        const seen = parseQuota(headers, options.clock.now());
        if (seen !== null) this.quota = seen;
      },
      beforeSend: async (sent) => {
        for (const hook of [...this.sendHooks]) await hook(sent);
      },
      onRequestSent: (sent) => {
        for (const listener of this.sentListeners) {
          try {
            listener(sent);
          } catch (error) {
            // A counting listener must never fail the request it counts.
            options.logger.debug("hackmd.request_listener_failed", {
              error: error instanceof Error ? error.name : "unknown",
            });
          }
        }
      },
    };
  }

  /** Calls `listener` before every attempt of every API request (a request budget counts them); returns the unsubscribe. */
  onRequestSent(listener: (sent: SentRequest) => void): () => void {
    this.sentListeners.add(listener);
    return () => {
      this.sentListeners.delete(listener);
    };
  }

  /**
   * Awaits `hook` before every attempt of every API request, before `onRequestSent`: a request
   * budget reserves the attempt there, so a request is counted before it can leave. A hook that
   * throws fails the request with nothing sent. Returns the unsubscribe.
   */
  beforeRequestSent(hook: (sent: SentRequest) => Promise<void>): () => void {
    this.sendHooks.add(hook);
    return () => {
      this.sendHooks.delete(hook);
    };
  }

  /** The configuration the client was built with. */
  get config(): ClientConfig {
    return this.deps.config;
  }

  /** What lists versions or comment threads, in the words of the messages' audience. */
  private listing(action: "list_versions" | "list_comments"): string {
    return (this.deps.config.words ?? TOOL_WORDS).step({ action });
  }

  /** The quota headers of the most recent response that carried any, or null. */
  get lastQuota(): Quota | null {
    return this.quota;
  }

  /** `GET /me`: the profile; `teams` is null when HackMD left it out. */
  async me(context: CallContext): Promise<Me> {
    const reply = await this.send(context, { method: "GET", parts: ["me"], mode: "read" });
    return readMe(parseJsonReply(reply), this.readContext(reply, null));
  }

  /** `GET /teams`: the account's teams. */
  async teams(context: CallContext): Promise<Team[]> {
    const reply = await this.send(context, { method: "GET", parts: ["teams"], mode: "read" });
    return readTeamList(parseJsonReply(reply), this.readContext(reply, null));
  }

  /** `GET /history`: recently visited notes, each with its own workspace and `last_visit`. */
  async history(context: CallContext): Promise<NoteSummary[]> {
    const reply = await this.send(context, { method: "GET", parts: ["history"], mode: "read" });
    return readHistory(parseJsonReply(reply), this.readContext(reply, null));
  }

  /** `GET /trash`: the personal trash as note summaries. */
  async trash(context: CallContext): Promise<NoteSummary[]> {
    const reply = await this.send(context, { method: "GET", parts: ["trash"], mode: "read" });
    return readTrash(parseJsonReply(reply), this.readContext(reply, null));
  }

  /** `PUT /trash/{id}/restore`: brings a personal note back; any 2xx settles it. */
  async restoreNote(context: CallContext, args: { noteId: string }): Promise<void> {
    await this.send(context, {
      method: "PUT",
      parts: ["trash", segment("note id", args.noteId), "restore"],
      mode: "idempotent_write",
    });
  }

  /** `GET /notes` or `GET /teams/{tp}/notes`: the whole workspace list. */
  async listNotes(context: CallContext, args: { teamPath: string | null }): Promise<NoteSummary[]> {
    const reply = await this.send(context, {
      method: "GET",
      parts: workspaceParts(args.teamPath, "notes"),
      mode: "read",
    });
    return readNoteList(parseJsonReply(reply), this.readContext(reply, args.teamPath));
  }

  /** `GET /notes/{id}` (team route for a team): the note with its body and `body_hash`. */
  async getNote(context: CallContext, args: NoteAddress & ReadOptions): Promise<NoteDetail> {
    const reply = await this.send(context, {
      method: "GET",
      parts: notePartsOf(args),
      mode: "read",
      ...deadline(args),
    });
    const note = await readNoteDetail(parseJsonReply(reply), this.readContext(reply, args.teamPath));
    context.observeNote(note);
    return note;
  }

  /**
   * `POST /notes` (team form): never retried. An unreadable reply is `readback`, because the
   * note may exist; a 207 `{note, error}` is a created note whose folder placement failed.
   */
  async createNote(
    context: CallContext,
    args: { teamPath: string | null; body: CreateNoteRequest },
  ): Promise<CreatedNote> {
    const reply = await this.send(context, {
      method: "POST",
      parts: workspaceParts(args.teamPath, "notes"),
      mode: "plain_write",
      body: { json: definedFields(args.body, ["parentFolderId"]) },
    });
    const unreadable = (): BridgeError =>
      new BridgeError(
        "readback",
        `${reply.where}: HackMD accepted the create (${reply.response.status}) but its reply could not be read; the note may exist. List the workspace's notes before creating it again.`,
      );
    try {
      const json = parseJsonReply(reply);
      if (reply.response.status === 207) {
        if (typeof json !== "object" || json === null || !("note" in json)) throw unreadable();
        const note = await readNoteDetail(json.note, this.readContext(reply, args.teamPath));
        return { note, placement_failed: true };
      }
      return { note: await readNoteDetail(json, this.readContext(reply, args.teamPath)), placement_failed: false };
    } catch (error) {
      if (error instanceof BridgeError && error.kind === "readback") throw error;
      throw unreadable();
    }
  }

  /** Note `PATCH`: always carries `content`; never retried; the 2xx reply is not parsed. */
  async updateNote(context: CallContext, args: NoteAddress & { body: UpdateNoteRequest }): Promise<void> {
    if (typeof (args.body as Partial<UpdateNoteRequest>).content !== "string") {
      // HackMD may blank a note whose PATCH lacks `content` (docs/tools.md §19.1).
      throw new BridgeError(
        "internal",
        "A note PATCH without content was refused before sending; report this as a bug.",
      );
    }
    await this.send(context, {
      method: "PATCH",
      parts: notePartsOf(args),
      mode: "plain_write",
      body: { json: definedFields(args.body, []) },
    });
  }

  /** Note `DELETE` (personal or team route): never retried. */
  async deleteNote(context: CallContext, args: NoteAddress): Promise<void> {
    await this.send(context, { method: "DELETE", parts: notePartsOf(args), mode: "plain_write" });
  }

  /**
   * `POST /notes/{id}/images` (personal route for team notes too): one multipart part `image`.
   * Never retried; 413 → `too_large`; an unreadable reply → `upstream`.
   */
  async uploadImage(context: CallContext, args: { noteId: string; image: ImageUpload }): Promise<{ link: string }> {
    const { bytes, contentType } = multipartBody(args.image, this.deps.random);
    const reply = await this.send(context, {
      method: "POST",
      parts: ["notes", segment("note id", args.noteId), "images"],
      mode: "plain_write",
      body: { bytes, contentType },
      isImageUpload: true,
    });
    const unreadable = new BridgeError(
      "upstream",
      `${reply.where}: HackMD accepted the image but its reply could not be read; upload it again (that only leaves an unused copy behind).`,
    );
    let json: unknown;
    try {
      json = parseJsonReply(reply);
    } catch {
      throw unreadable;
    }
    const link = readImageLink(json);
    if (link === null) throw unreadable;
    return { link };
  }

  /** `GET /folders` (team route for a team): the flat folder list. */
  async listFolders(context: CallContext, args: { teamPath: string | null }): Promise<Folder[]> {
    const reply = await this.send(context, {
      method: "GET",
      parts: workspaceParts(args.teamPath, "folders"),
      mode: "read",
    });
    return readFolderList(parseJsonReply(reply), this.readContext(reply, args.teamPath));
  }

  /** `GET /folders/{id}` (team route): the folder, or null when HackMD answers without an id. */
  async getFolder(context: CallContext, args: FolderAddress & ReadOptions): Promise<Folder | null> {
    const reply = await this.send(context, {
      method: "GET",
      parts: folderPartsOf(args),
      mode: "read",
      ...deadline(args),
    });
    return readFolderOrNull(parseJsonReply(reply), this.readContext(reply, args.teamPath));
  }

  /** Folder `POST`: never retried; `parentFolderId` is omitted unless a string; unreadable reply → `readback`. */
  async createFolder(
    context: CallContext,
    args: { teamPath: string | null; body: CreateFolderRequest },
  ): Promise<Folder> {
    const reply = await this.send(context, {
      method: "POST",
      parts: workspaceParts(args.teamPath, "folders"),
      mode: "plain_write",
      body: { json: definedFields(args.body, ["parentFolderId"]) },
    });
    try {
      return readFolder(parseJsonReply(reply), this.readContext(reply, args.teamPath));
    } catch {
      throw new BridgeError(
        "readback",
        `${reply.where}: HackMD accepted the folder (${reply.response.status}) but its reply could not be read; the folder may exist. List the folders before creating it again.`,
      );
    }
  }

  /** `PATCH /teams/{tp}/folders/{id}` (team folders only): idempotent, retried; `null` clears a field. */
  async updateFolder(
    context: CallContext,
    args: { teamPath: string; folderId: string; body: UpdateFolderRequest },
  ): Promise<void> {
    await this.send(context, {
      method: "PATCH",
      parts: folderPartsOf(args),
      mode: "idempotent_write",
      body: { json: definedFields(args.body, []) },
    });
  }

  /** Folder `DELETE`: never retried. */
  async deleteFolder(context: CallContext, args: FolderAddress): Promise<void> {
    await this.send(context, { method: "DELETE", parts: folderPartsOf(args), mode: "plain_write" });
  }

  /** `GET /folders/folder-order` (team form): the whole order map. */
  async getFolderOrder(context: CallContext, args: { teamPath: string | null } & ReadOptions): Promise<FolderOrder> {
    const reply = await this.send(context, {
      method: "GET",
      parts: workspaceParts(args.teamPath, "folders", "folder-order"),
      mode: "read",
      ...deadline(args),
    });
    return readFolderOrder(parseJsonReply(reply), this.readContext(reply, args.teamPath));
  }

  /** `PUT /folders/folder-order` (team form): `{"order": map}` with keys in code-point order; never retried. */
  async putFolderOrder(context: CallContext, args: { teamPath: string | null; order: FolderOrder }): Promise<void> {
    await this.send(context, {
      method: "PUT",
      parts: workspaceParts(args.teamPath, "folders", "folder-order"),
      mode: "plain_write",
      body: { json: { order: sortedOrder(args.order) } },
    });
  }

  /** `GET /notes/{id}/versions` (personal route for team notes too): one page, newest first. */
  async listVersions(context: CallContext, args: { noteId: string } & VersionQuery): Promise<VersionPage> {
    const reply = await this.send(context, {
      method: "GET",
      parts: versionParts(args.noteId),
      mode: "read",
      query: [
        ["named_only", text(args.namedOnly)],
        ["q", args.q],
        ["created_by", args.createdBy],
        ["created_after", args.createdAfter],
        ["created_before", args.createdBefore],
        ["page", text(args.page)],
        ["limit", text(args.limit)],
      ],
      statusTexts: { notFound: VERSIONS_NOT_FOUND },
    });
    return readVersionPage(parseJsonReply(reply), reply.where);
  }

  /** `GET /notes/{id}/versions/{versionId}`: one version with its body. */
  async getVersion(context: CallContext, args: { noteId: string; versionId: string }): Promise<NoteVersionWithContent> {
    const reply = await this.send(context, {
      method: "GET",
      parts: [...versionParts(args.noteId), segment("version id", args.versionId)],
      mode: "read",
      statusTexts: { notFound: `check the note id and the version id (${this.listing("list_versions")} lists them)` },
    });
    return readVersionWithContent(parseJsonReply(reply), reply.where);
  }

  /**
   * `POST /notes/{id}/versions` `{base, name}`: names the live body (or `version:<id>`). Never
   * retried; a reply that cannot be read is `readback` (the version may exist). A 409
   * `no_content_change` is an answer, not a failure: the latest named version already holds the
   * body, and its id is returned with `reused: true`.
   */
  async createVersion(
    context: CallContext,
    args: { noteId: string; name: string; base?: string; description?: string },
  ): Promise<{ version: NoteVersion | null; id: string; reused: boolean }> {
    const reply = await this.send(context, {
      method: "POST",
      parts: versionParts(args.noteId),
      mode: "plain_write",
      body: {
        json: definedFields({ base: args.base ?? "note_content", name: args.name, description: args.description }, []),
      },
      passStatuses: [409],
      statusTexts: { notFound: VERSIONS_NOT_FOUND },
    });
    let json: unknown;
    try {
      json = parseJsonReply(reply);
    } catch {
      json = undefined;
    }
    if (reply.response.status === 409) {
      const body = typeof json === "object" && json !== null ? (json as Record<string, unknown>) : {};
      if (body.error_code === "no_content_change" && typeof body.latest_version_id === "string") {
        return { version: null, id: body.latest_version_id, reused: true };
      }
      throw new BridgeError(
        "conflict",
        `${reply.where}: conflict (409): ${body.error_code === "version_already_named" ? "that version already has a name; rename it instead" : "HackMD refused the version"}; list the versions and try again.`,
        { details: { status: 409 } },
      );
    }
    try {
      const version = readVersion(json, reply.where);
      return { version, id: version.id, reused: false };
    } catch {
      throw new BridgeError(
        "readback",
        `${reply.where}: HackMD accepted the version (${reply.response.status}) but its reply could not be read; the version may exist. List the note's versions before creating it again.`,
      );
    }
  }

  /** `PATCH /notes/{id}/versions` `{base: "version:<id>", name}`: renames a named version; never retried. */
  async renameVersion(
    context: CallContext,
    args: { noteId: string; versionId: string; name: string },
  ): Promise<NoteVersion> {
    const reply = await this.send(context, {
      method: "PATCH",
      parts: versionParts(args.noteId),
      mode: "plain_write",
      body: { json: { base: `version:${args.versionId}`, name: args.name } },
      statusTexts: { notFound: `check the note id and the version id (${this.listing("list_versions")} lists them)` },
    });
    return readVersion(parseJsonReply(reply), reply.where);
  }

  /** `GET /notes/{id}/versions/compare?base=…&target=…` (`note_content` or `version:<id>`): a unified diff. */
  async compareVersions(context: CallContext, args: { noteId: string; base: string; target: string }): Promise<string> {
    const reply = await this.send(context, {
      method: "GET",
      parts: [...versionParts(args.noteId), "compare"],
      mode: "read",
      query: [
        ["base", args.base],
        ["target", args.target],
      ],
      statusTexts: { notFound: `check the note id and the version ids (${this.listing("list_versions")} lists them)` },
    });
    return readUnifiedDiff(parseJsonReply(reply), reply.where);
  }

  /** `GET /notes/{id}/comments` (personal route for team notes too): one page. */
  async listComments(context: CallContext, args: { noteId: string } & CommentQuery): Promise<CommentPage> {
    const reply = await this.send(context, {
      method: "GET",
      parts: commentParts(args.noteId),
      mode: "read",
      query: [
        ["page", text(args.page)],
        ["limit", text(args.limit)],
        ["sort", args.sort],
        ["threadId", args.threadId],
        ["commentStatus", args.commentStatus],
        ["threadStatus", args.threadStatus],
        ["isThreadHead", args.threadHeadsOnly === true ? "true" : undefined],
      ],
      statusTexts: { notFound: COMMENTS_NOT_FOUND },
    });
    return readCommentPage(parseJsonReply(reply), reply.where);
  }

  /** `GET /notes/{id}/comments/{commentId}`: one comment or reply. */
  async getComment(context: CallContext, args: { noteId: string; commentId: string }): Promise<NoteComment> {
    const reply = await this.send(context, {
      method: "GET",
      parts: [...commentParts(args.noteId), segment("comment id", args.commentId)],
      mode: "read",
      statusTexts: { notFound: `check the note id and the comment id (${this.listing("list_comments")} lists them)` },
    });
    return readComment(parseJsonReply(reply), reply.where);
  }

  /**
   * `PUT` (resolve) or `DELETE` (reopen) `/notes/{id}/comments/{commentId}/resolution`. Never
   * retried; 409 `resolution_conflict` (already in that state) → `conflict`.
   */
  async setCommentResolved(
    context: CallContext,
    args: { noteId: string; commentId: string; resolved: boolean },
  ): Promise<CommentResolution> {
    const reply = await this.send(context, {
      method: args.resolved ? "PUT" : "DELETE",
      parts: [...commentParts(args.noteId), segment("comment id", args.commentId), "resolution"],
      mode: "plain_write",
      statusTexts: {
        notFound: `check the note id and the comment id (${this.listing("list_comments")} lists them)`,
        conflict: args.resolved
          ? "the comment is already resolved"
          : "the comment is not resolved, so there is nothing to reopen",
      },
    });
    try {
      return readResolution(parseJsonReply(reply), reply.where);
    } catch {
      throw new BridgeError(
        "readback",
        `${reply.where}: HackMD accepted the change (${reply.response.status}) but its reply could not be read; list the note's comments to see the thread's state.`,
      );
    }
  }

  private send(context: CallContext, spec: ApiRequestSpec): Promise<ApiResponse> {
    return sendApiRequest(this.deps, context, spec);
  }

  private readContext(reply: ApiResponse, teamPath: string | null): ReadContext {
    return { where: reply.where, teamPath, isDefaultApiUrl: this.deps.config.api.isDefault };
  }
}

/** What a 404 from the versions routes means once the note is known to exist. */
const VERSIONS_NOT_FOUND =
  "the note does not exist, or this HackMD has no versions API (older deployments answer 404); check the note id";
const COMMENTS_NOT_FOUND =
  "the note does not exist, or this HackMD has no comments API (older deployments answer 404); check the note id";

/** A query value as text; undefined stays out of the query. */
function text(value: number | boolean | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

/** Versions and comments have only the personal route; it serves team notes as well (HackMD's document). */
function versionParts(noteId: string): PathPart[] {
  return ["notes", segment("note id", noteId), "versions"];
}

function commentParts(noteId: string): PathPart[] {
  return ["notes", segment("note id", noteId), "comments"];
}

function notePartsOf(args: NoteAddress): ReturnType<typeof workspaceParts> {
  return workspaceParts(args.teamPath, "notes", segment("note id", args.noteId));
}

function folderPartsOf(args: FolderAddress): ReturnType<typeof workspaceParts> {
  return workspaceParts(args.teamPath, "folders", segment("folder id", args.folderId));
}

function deadline(args: ReadOptions): { deadlineAt?: number } {
  return args.deadlineAt === undefined ? {} : { deadlineAt: args.deadlineAt };
}

/** The body with undefined fields dropped, and `null` dropped for the named never-null fields. */
function definedFields(body: object, neverNull: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined || (value === null && neverNull.includes(key))) continue;
    out[key] = value;
  }
  return out;
}

// compareCodePoints lives in core/text (the record store needs it without the client); re-exported here.
export { compareCodePoints };

/** The order map with its keys in code-point order (the PUT body is then deterministic). */
export function sortedOrder(order: FolderOrder): FolderOrder {
  const keys = Object.keys(order).sort(compareCodePoints);
  // fromEntries defines own properties, so a key such as "__proto__" stays a plain entry.
  return Object.fromEntries(keys.map((key) => [key, [...(order[key] ?? [])]]));
}

const BOUNDARY_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** Builds a `multipart/form-data` body with one part `image` by hand (no FormData in every host). */
export function multipartBody(image: ImageUpload, random: Random): { bytes: Uint8Array; contentType: string } {
  let boundary = newBoundary(random, 0);
  // A random boundary practically never occurs in the image; a counter makes the loop finite anyway.
  for (let tries = 1; contains(image.bytes, encoder.encode(boundary)); tries += 1)
    boundary = newBoundary(random, tries);
  const filename = image.filename.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/"/g, "%22");
  const type = image.contentType.replace(/[\r\n]/g, "");
  const head = encoder.encode(
    `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="image"; filename="${filename}"\r\n` +
      `Content-Type: ${type}\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const bytes = new Uint8Array(head.byteLength + image.bytes.byteLength + tail.byteLength);
  bytes.set(head, 0);
  bytes.set(image.bytes, head.byteLength);
  bytes.set(tail, head.byteLength + image.bytes.byteLength);
  return { bytes, contentType: `multipart/form-data; boundary=${boundary}` };
}

function newBoundary(random: Random, tries: number): string {
  let out = `hackmd-bridge-${tries}-`;
  for (let i = 0; i < 32; i += 1) {
    out += BOUNDARY_ALPHABET[Math.floor(random() * BOUNDARY_ALPHABET.length) % BOUNDARY_ALPHABET.length] ?? "x";
  }
  return out;
}

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0];
  outer: for (
    let i = haystack.indexOf(first ?? 0);
    i !== -1 && i <= haystack.length - needle.length;
    i = haystack.indexOf(first ?? 0, i + 1)
  ) {
    for (let j = 1; j < needle.length; j += 1) {
      if (haystack[i + j] !== needle[j]) continue outer;
    }
    return true;
  }
  return false;
}
