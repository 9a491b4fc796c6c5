/**
 * Wire types of HackMD API v1 (docs/hackmd-api.md Part 1) and the snake_case shapes the client
 * returns (docs/tools.md §5.2, §9). Request bodies are camelCase and hold only supplied fields.
 */

/** Read and write permission values, least to most permissive. */
export type Permission = "owner" | "signed_in" | "guest";

/** Note publish types. */
export type PublishType = "edit" | "view" | "slide" | "book";

/** Comment permission values. */
export type CommentPermission = "disabled" | "forbidden" | "owners" | "signed_in_users" | "everyone";

/** Team visibility values. */
export type TeamVisibility = "public" | "private";

/** Body of `POST /notes` (and the team form); never carries comment or suggest permissions. */
export interface CreateNoteRequest {
  title?: string;
  content?: string;
  tags?: string[];
  description?: string;
  readPermission?: Permission;
  writePermission?: Permission;
  permalink?: string;
  parentFolderId?: string;
  noteFeatures?: Record<string, unknown>;
  origin?: string;
}

/** Body of a note PATCH: `content` is always sent (docs/tools.md §19.1). */
export interface UpdateNoteRequest {
  content: string;
  title?: string;
  tags?: string[];
  description?: string;
  readPermission?: Permission;
  writePermission?: Permission;
  permalink?: string;
  /** A folder id, or null to move the note to the workspace root. */
  parentFolderId?: string | null;
}

/** Body of a folder POST; `parentFolderId` is omitted for a top-level folder, never null. */
export interface CreateFolderRequest {
  name: string;
  description?: string;
  icon?: string;
  color?: string;
  parentFolderId?: string;
}

/** Body of a team folder PATCH; null clears a field. */
export interface UpdateFolderRequest {
  name?: string;
  description?: string | null;
  icon?: string | null;
  color?: string | null;
}

/** The folder order map: `root` or a parent folder id → child folder ids. */
export type FolderOrder = Record<string, string[]>;

/** An image to upload: its bytes, a file name and the sniffed content type. */
export interface ImageUpload {
  bytes: Uint8Array;
  filename: string;
  contentType: string;
}

/** `lastChangeUser` of a note, with missing members read as "". */
export interface LastChangeUser {
  name: string;
  user_path: string;
  photo: string;
  biography: string;
}

/** The note detail of docs/tools.md §5.2. */
export interface NoteDetail {
  id: string;
  short_id: string | null;
  title: string;
  content?: string;
  body_hash?: string;
  description: string | null;
  tags: string[];
  team_path: string | null;
  patch_path: string;
  folder_ids: string[];
  created_at: number | null;
  last_changed_at: number | null;
  title_updated_at?: number;
  tags_updated_at?: number;
  last_change_user?: LastChangeUser;
  publish_type?: PublishType;
  published_at?: number;
  publish_link: string | null;
  permalink: string | null;
  user_path: string | null;
  read_permission: Permission | null;
  write_permission: Permission | null;
  comment_permission: CommentPermission | null;
  note_url?: string;
}

/** A note list item (docs/tools.md §5.2); never holds content or folders. */
export interface NoteSummary {
  id: string;
  note_url?: string;
  short_id: string | null;
  title: string;
  description: string | null;
  tags: string[];
  team_path: string | null;
  created_at: number | null;
  last_changed_at: number | null;
  last_visit?: number;
  publish_link: string | null;
  permalink: string | null;
  read_permission: Permission | null;
  write_permission: Permission | null;
}

/** A folder (docs/tools.md §5.2) with its timestamps. */
export interface Folder {
  id: string;
  name: string;
  description: string | null;
  icon: string | null;
  color: string | null;
  parent_folder_id: string | null;
  created_at: number | null;
  updated_at: number | null;
}

/** A team (docs/tools.md §9.1). */
export interface Team {
  id: string;
  owner_id?: string;
  name: string;
  logo?: string;
  path: string;
  description: string | null;
  hard_limit: number | null;
  visibility?: TeamVisibility;
  created_at?: number;
  upgraded?: boolean;
}

/** The profile of `GET /me`; `teams` is null when HackMD left it out (then `GET /teams` supplies it). */
export interface Me {
  id: string;
  name: string;
  email: string | null;
  user_path: string;
  photo: string | null;
  teams: Team[] | null;
  upgraded?: boolean;
}

/** The reply of a note create: the note, and whether HackMD said it could not place it (207). */
export interface CreatedNote {
  note: NoteDetail;
  /** True for a 207 `{note, error}` reply: created, but not in the requested folder. */
  placement_failed: boolean;
}
