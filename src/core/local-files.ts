/**
 * The LocalFiles port: every local file operation of the core, confined to the ROOT (docs/tools.md
 * §12, §13.7). Paths going in are ROOT-relative with `/` (or, where the host has one, absolute
 * inside the ROOT); paths coming out are always the canonical ROOT-relative form of §12.7.
 * Failures are BridgeErrors: `invalid_input`, `local_access`, `local_io`, `conflict`.
 */

/** What a file looked like when it was read; a write can demand that it still does (§12.6). */
export interface FileStamp {
  /** Size in bytes. */
  readonly size: number;
  /** Modification time in epoch milliseconds (fractional where the host has finer times). */
  readonly mtimeMs: number;
  /** Host-specific file identity (Node: device and inode); compared only when both stamps have one. */
  readonly id?: string;
}

/** A write's expectation: the target is still absent, or still matches the stamp seen. */
export type WriteExpectation = "absent" | FileStamp;

/** What a path names. A dangling symlink is `other` (present, but not a readable file). */
export type EntryKind = "file" | "folder" | "other" | "missing";

/** Why a path is resolved: reads follow a final symlink (inside the ROOT); writes replace it. */
export type PathPurpose = "read" | "write";

/** A path after the rules of §12.1–12.2 (and, for writes, the policy of §12.3–12.4). */
export interface ResolvedPath {
  /** The canonical ROOT-relative path: parent symlinks resolved, final component as given. */
  readonly path: string;
  /** The normalised ROOT-relative path as the caller gave it, before any symlink resolution. */
  readonly given: string;
  /** For reads, the fully resolved ROOT-relative path (the final symlink followed); else `path`. */
  readonly target: string;
}

/** The metadata of one path (after the read rules: a final symlink inside the ROOT is followed). */
export interface FileInfo {
  /** Canonical ROOT-relative path. */
  readonly path: string;
  readonly kind: EntryKind;
  /** Whether the final component is a symlink. */
  readonly symlink: boolean;
  /** Size in bytes; 0 when missing. */
  readonly size: number;
  /** Modification time in epoch ms; 0 when missing. */
  readonly mtimeMs: number;
  /** The stamp a write can expect; absent only when the path is missing. */
  readonly stamp?: FileStamp;
}

/** The bytes of a regular file, read without blocking and bounded. */
export interface ReadResult {
  /** Canonical ROOT-relative path. */
  readonly path: string;
  /** At most the requested number of bytes. */
  readonly bytes: Uint8Array;
  /** The file as it was opened; the expectation for a later write. */
  readonly stamp: FileStamp;
  /** True when the file holds more bytes than were asked for. */
  readonly truncated: boolean;
}

/** The outcome of an atomic write. */
export interface WriteResult {
  /** Canonical ROOT-relative path. */
  readonly path: string;
  /** The stamp of the file just written. */
  readonly stamp: FileStamp;
}

/** Options of a user-file write. */
export interface WriteOptions {
  /** Checked immediately before the file is replaced; a mismatch is `conflict` and writes nothing. */
  readonly expect: WriteExpectation;
}

/** Options of a bounded read. */
export interface ReadOptions {
  /** At most this many bytes are returned; at most one more is read to detect a larger file. */
  readonly maxBytes: number;
}

/** Options of a removal. */
export interface RemoveOptions {
  /** When given, the file is removed only if it still matches (else `conflict`). */
  readonly expect?: FileStamp;
}

/** The outcome of `createFolders`. */
export interface CreateFoldersResult {
  /** Canonical ROOT-relative path of the innermost folder. */
  readonly path: string;
  /** Canonical ROOT-relative paths of the folders created, outermost first. */
  readonly created: readonly string[];
}

/** One entry of a folder listing. */
export interface ListEntry {
  /** The entry's name (one component). */
  readonly name: string;
  /** What it is, without following a symlink (a symlink is `other`). */
  readonly kind: Exclude<EntryKind, "missing">;
}

/** The facts of the ROOT that decide the policy (docs/tools.md §2.4, §12.3, §13.1). */
export interface RootFacts {
  /** Whether the ROOT is an Obsidian vault. */
  readonly isVault: boolean;
  /** The vault configuration folder, ROOT-relative (meaningful when `isVault`). */
  readonly configDir: string;
  /** The sync state folder in use, ROOT-relative (§13.1). */
  readonly stateFolder: string;
  /** Whether absolute paths are accepted (false on Obsidian mobile). */
  readonly absoluteRootAvailable: boolean;
  /** Whether agent instruction files are refused (the `protect_agent_files` setting). */
  readonly protectAgentFiles: boolean;
}

/**
 * Private files of the sync state store, inside `RootFacts.stateFolder` (docs/tools.md §13.7). Paths
 * are relative to that folder (`tracked/<key>.json`). Files are written atomically with mode 0600
 * and missing folders created with mode 0700 where the host has modes; the protected-folder and
 * agent-file policy does not apply, but confinement does.
 */
export interface StateFiles {
  /** Reads a file bounded; undefined when it does not exist. */
  read(path: string, options: ReadOptions): Promise<ReadResult | undefined>;
  /** Atomically replaces (or creates) a file, creating missing folders; last write wins. */
  write(path: string, data: Uint8Array | string): Promise<WriteResult>;
  /** Removes a file; false when there was none. */
  remove(path: string): Promise<boolean>;
  /** Lists a folder (`""` for the state folder itself); empty when it does not exist. */
  list(folder: string): Promise<ListEntry[]>;
  /**
   * The stamp of a file or folder (`""` for the state folder itself); undefined when it does not
   * exist. A folder's stamp changes whenever an entry in it is created, removed or renamed, so the
   * store's record index can tell at the cost of one stat that another process saved a record.
   */
  stat(path: string): Promise<FileStamp | undefined>;
  /**
   * Creates a file only when none exists, creating missing folders; false when one does. Where
   * another process can share the state folder (the Node host, the desktop plugin) the check and
   * the creation are one step (`O_EXCL`): this is what the record lock (`sync/record-lock.ts`)
   * stands on. A reader may see the file before its bytes.
   */
  create(path: string, data: string): Promise<boolean>;
}

/**
 * User files under the ROOT (docs/tools.md §12). Every method re-checks the ROOT's identity first and
 * refuses every path once the ROOT has moved or been replaced (§2.4).
 */
export interface LocalFiles {
  /** The ROOT's facts and the policy in force. */
  readonly root: RootFacts;
  /** The sync state store's private files. */
  readonly state: StateFiles;
  /**
   * Applies §12.1–12.2 to a path as a caller gave it; for `write`, also the policy of §12.3–12.4
   * (as given and as resolved), so tools can refuse before any HackMD request.
   */
  resolve(input: string, purpose: PathPurpose): Promise<ResolvedPath>;
  /** What a path names (read rules; an escaping final symlink is `local_access`). */
  stat(input: string): Promise<FileInfo>;
  /** Reads a regular file without blocking, returning at most `maxBytes` bytes (§12.5). */
  read(input: string, options: ReadOptions): Promise<ReadResult>;
  /** Reads at most `n` bytes from the start of a regular file (image sniffing, §16.3). */
  readHead(input: string, n: number): Promise<ReadResult>;
  /**
   * Atomically writes a user file (§12.6) after the policy of §12.3–12.4; a final symlink is
   * replaced, never followed; an existing file's mode is kept. The parent folder must exist.
   */
  write(input: string, data: Uint8Array | string, options: WriteOptions): Promise<WriteResult>;
  /** Creates the folder and any missing parents (`create_parent_dirs`); each one passes the policy. */
  createFolders(input: string): Promise<CreateFoldersResult>;
  /** Removes a file (or a symlink) under the write policy; false when there was none. */
  remove(input: string, options?: RemoveOptions): Promise<boolean>;
  /**
   * Every file path under the ROOT outside hidden (dot) folders, at most `limit` of them: what a
   * link resolves against (docs/conversion-rules.md). Optional: a host without it resolves links to tracked notes
   * and known images only.
   */
  listAllFiles?(limit: number): Promise<string[]>;
  /** Lists a folder (read rules); empty when it does not exist. */
  list(input: string): Promise<ListEntry[]>;
}

/** Whether two stamps describe the same file state (size, time and, where both have it, identity). */
export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && (a.id === undefined || b.id === undefined || a.id === b.id);
}

/**
 * Desktop file-system facts the Vault API does not give (docs/tools.md §12.2), injected by the plugin
 * on desktop through a guarded require; `src/obsidian/` itself never imports `node:*`.
 */
export interface DesktopPaths {
  /** The vault folder's absolute path in the platform's form (Obsidian's `FileSystemAdapter.getBasePath()`). */
  readonly basePath: string;
  /**
   * The ROOT-relative form (`/` separators) of an absolute platform path: `""` for the vault folder
   * itself, undefined when it lies outside both the base path and its real path. No symlinks followed.
   */
  relativeOf(absolute: string): string | undefined;
  /**
   * The real ROOT-relative path of an existing ROOT-relative path (every symlink followed, relative
   * to the vault's real path); undefined when nothing is there; null when it leads outside the
   * vault's real path or through a symlink whose target does not exist.
   */
  realRelative(path: string): Promise<string | null | undefined>;
  /**
   * Creates the file at a ROOT-relative path with `O_EXCL` (its folder must exist): false when a
   * file is there already. The plugin's sync state uses it so the record lock holds against the
   * standalone command on the same vault.
   */
  createExclusive(path: string, data: string): Promise<boolean>;
}
