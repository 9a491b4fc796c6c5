/**
 * The Obsidian host's LocalFiles adapter (docs/tools.md §12, §13.7): user files through the Vault API
 * (`process` for an existing file with the expectation checked inside the callback, `create` for
 * a new one), sync state files through the vault adapter in the configuration folder, which the
 * vault does not index. Every path passes the pure rules of `core/paths.ts` and `normalizePath`.
 *
 * Weaker than the Node host (for docs/architecture.md):
 * - No symlink resolution through the Vault API. Without a `DesktopPaths` port (mobile, and the
 *   desktop until the plugin injects one) the normalised ROOT-relative path is the file's identity
 *   (§12.2 "Mobile"): a symlink inside the vault is written through, wherever it points. With the
 *   port, parents and the final component are resolved and must stay inside the vault's real
 *   path, and the policy is judged as given, as resolved and as followed; but a final symlink
 *   inside the vault is still written through (the Vault API cannot replace it), not replaced.
 * - The ROOT's identity is not re-checked (§2.4): the vault is the ROOT and Obsidian owns it.
 * - The expectation inside `process` compares the UTF-8 length of the text Obsidian hands over and
 *   the vault's cached `TFile.stat` (captured right after an on-disk stamp pre-check); a same-size
 *   external edit the vault has not noticed yet between the pre-check and the write passes.
 *   Binary data that is not UTF-8 is written with `modifyBinary` after the pre-check only; files
 *   the vault does not index (dot-paths) go through the adapter, checked by length only.
 * - Reads are bounded in what is returned, not in what is read: the Vault API has no ranged or
 *   non-blocking read, so a file is read whole and cut (the adapter knows only files and folders).
 * - Removal goes through `FileManager.trashFile`, honouring the user's deletion setting.
 * - Open editors (docs/architecture.md §5, "Vault host"): Obsidian saves an edited file about two seconds after typing stops,
 *   so before any stat, read, write or removal of a user file, every open text view of it (a
 *   MarkdownView or a plugin's TextFileView, in any leaf) whose text differs from the disk is
 *   saved with `TextFileView.save()`, which writes only what the user typed since the view last
 *   loaded or saved. A read then sees what the editor shows, and a write's expectation (taken at
 *   the earlier read) fails with `conflict` when the user typed since. Writes go through the
 *   vault (`process`), so a clean editor reloads the new text. Left open: typing that lands
 *   between that save and the write (one turn of the event loop) meets the written text in the
 *   editor, and what Obsidian does then (it merges an external change into a dirty editor) is
 *   Obsidian's to decide.
 * - State files: write to a hidden temporary name, then `adapter.rename`. Obsidian's adapters
 *   refuse to rename over an existing file, so when the rename is refused the old file is renamed
 *   aside first (and put back if the second rename fails): a reader in that short window finds no
 *   file, and a crash there leaves the old and new copies under hidden temporary names beside it.
 *   No flush to disk and no file modes (0600/0700) are available through the adapter.
 */
import { FileSystemAdapter, normalizePath, TextFileView, type App, type DataAdapter, type Stat } from "obsidian";
import { BridgeError } from "../core/errors";
import {
  sameStamp,
  type DesktopPaths,
  type CreateFoldersResult,
  type FileInfo,
  type FileStamp,
  type ListEntry,
  type LocalFiles,
  type PathPurpose,
  type ReadOptions,
  type ReadResult,
  type RemoveOptions,
  type ResolvedPath,
  type RootFacts,
  type StateFiles,
  type WriteExpectation,
  type WriteOptions,
  type WriteResult,
} from "../core/local-files";
import {
  absolutePathError,
  assertWritable,
  baseName,
  dotDotError,
  isAbsoluteForm,
  isInsideFolder,
  joinPath,
  parentPath,
  parseRootRelative,
  pathSegments,
  syncStateFolder,
  type WritePolicy,
} from "../core/paths";

/** The parts of the App this adapter uses (the workspace for the open editors of a file). */
export type VaultApp = Pick<App, "vault" | "fileManager" | "workspace">;

export type { DesktopPaths };

/** How the plugin builds the adapter. */
export interface VaultLocalFilesOptions {
  /** The app whose vault is the ROOT. */
  app: VaultApp;
  /** Desktop symlink checks; undefined gives the mobile semantics of §12.2. */
  desktop?: DesktopPaths;
  /** The `protect_agent_files` setting, read at every check so a settings change applies at once; on by default. */
  protectAgentFiles?: () => boolean;
}

/** A path located in the vault: as given, canonical, and (for reads and followed writes) resolved. */
interface Located {
  /** Normalised ROOT-relative path as given. */
  given: string;
  /** Canonical ROOT-relative path: parents resolved, final component as given. */
  path: string;
  /** The final symlink followed (with a desktop port); `path` otherwise. */
  target: string;
}

/** Thrown inside a `process` callback to abort the write; never escapes this module. */
class ExpectationFailed extends Error {}

/** Longest part of a file name kept in a temporary name, in UTF-8 bytes. */
const TEMP_NAME_BYTES = 200;
const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** LocalFiles over `app.vault` (user files) and `app.vault.adapter` (sync state files). */
export class VaultLocalFiles implements LocalFiles {
  readonly root: RootFacts;
  readonly state: StateFiles;
  private readonly app: VaultApp;
  private readonly desktop: DesktopPaths | undefined;
  private readonly basePath: string | undefined;
  private readonly protectAgentFiles: () => boolean;

  constructor(options: VaultLocalFilesOptions) {
    this.app = options.app;
    this.desktop = options.desktop;
    const adapter = options.app.vault.adapter;
    this.basePath =
      options.desktop?.basePath ?? (adapter instanceof FileSystemAdapter ? adapter.getBasePath() : undefined);
    const protect = options.protectAgentFiles ?? (() => true);
    this.protectAgentFiles = protect;
    const configDir = parseRootRelative(normalizePath(options.app.vault.configDir));
    const absoluteRootAvailable = this.basePath !== undefined;
    this.root = {
      isVault: true,
      configDir,
      stateFolder: syncStateFolder({ isVault: true, configDir }),
      absoluteRootAvailable,
      get protectAgentFiles() {
        return protect();
      },
    };
    this.state = {
      read: (path, readOptions) => this.stateRead(path, readOptions),
      write: (path, data) => this.stateWrite(path, data),
      remove: (path) => this.stateRemove(path),
      list: (folder) => this.stateList(folder),
      create: (path, data) => this.stateCreate(path, data),
      stat: (path) => this.stateStat(path),
    };
  }

  private get adapter(): DataAdapter {
    return this.app.vault.adapter;
  }

  private get policy(): WritePolicy {
    return { isVault: true, configDir: this.root.configDir, protectAgentFiles: this.protectAgentFiles() };
  }

  /** Applies §12.1–12.2 and, for writes, the policy of §12.3–12.4. */
  async resolve(input: string, purpose: PathPurpose): Promise<ResolvedPath> {
    const located = await this.locate(this.givenRelative(input));
    if (purpose !== "write") return { path: located.path, given: located.given, target: located.target };
    this.assertWritable(located);
    // The port's contract: `target` is the followed path for reads only (writes name `path`).
    return { path: located.path, given: located.given, target: located.path };
  }

  /** What a path names (read rules); an open editor's unsaved text is saved first. */
  async stat(input: string): Promise<FileInfo> {
    const located = await this.locate(this.givenRelative(input));
    await this.saveOpenEditors(located);
    const stat = await this.statOf(located.target);
    const symlink = located.target !== located.path;
    if (stat === null) return { path: located.path, kind: "missing", symlink, size: 0, mtimeMs: 0 };
    return { path: located.path, kind: stat.type, symlink, size: stat.size, mtimeMs: stat.mtime, stamp: stampOf(stat) };
  }

  /** Reads a regular file, returning at most `maxBytes` bytes (the whole file is read, then cut). */
  async read(input: string, options: ReadOptions): Promise<ReadResult> {
    checkLimit(options.maxBytes);
    const located = await this.locate(this.givenRelative(input));
    await this.saveOpenEditors(located);
    return requireFile(located.path, await this.readAt(located.path, located.target, options.maxBytes, false));
  }

  /** Reads at most `n` bytes from the start of a regular file. */
  async readHead(input: string, n: number): Promise<ReadResult> {
    checkLimit(n);
    const located = await this.locate(this.givenRelative(input));
    await this.saveOpenEditors(located);
    return requireFile(located.path, await this.readAt(located.path, located.target, n, true));
  }

  /** Writes a user file through the Vault API after the policy and the expectation (§12.6). */
  async write(input: string, data: Uint8Array | string, options: WriteOptions): Promise<WriteResult> {
    const located = await this.locate(this.givenRelative(input));
    this.assertWritable(located);
    // Unsaved typing reaches the disk first, so the expectation below sees it and refuses.
    await this.saveOpenEditors(located);
    const path = located.target;
    const folder = parentPath(path);
    if (folder !== "") {
      const parent = await this.statOf(folder);
      if (parent?.type !== "folder") {
        throw new BridgeError(
          "invalid_input",
          parent === null
            ? `The folder ${folder} does not exist, so ${located.path} cannot be written; create it first (create_parent_dirs: true).`
            : `${folder} is a file, not a folder, so ${located.path} cannot be written; choose another path.`,
          { details: { path: located.path, reason: parent === null ? "missing_parent" : "parent_not_folder" } },
        );
      }
    }
    const current = await this.statOf(path);
    if (current?.type === "folder") throw notRegular(located.path, "a folder");
    checkExpectation(located.path, options.expect, current === null ? undefined : stampOf(current));
    try {
      if (current === null) await this.createFile(located.path, path, data);
      else await this.replaceFile(located.path, path, data, options.expect);
    } catch (error) {
      throw ioError(error, "writing", located.path);
    }
    const written = await this.statOf(path);
    if (written === null)
      throw new BridgeError(
        "local_io",
        `${located.path} is missing right after it was written; check the vault and try again.`,
      );
    return { path: located.path, stamp: stampOf(written) };
  }

  /** Creates the folder and any missing parents; every one passes the policy before any is made. */
  async createFolders(input: string): Promise<CreateFoldersResult> {
    const given = this.givenRelative(input);
    const located = await this.locate(given);
    const segments = pathSegments(located.path);
    const givenSegments = pathSegments(given);
    let existing = segments.length;
    while (existing > 0 && (await this.statOf(segments.slice(0, existing).join("/"))) === null) existing--;
    const existingPath = segments.slice(0, existing).join("/");
    if (existing > 0 && (await this.statOf(existingPath))?.type !== "folder") {
      throw new BridgeError(
        "invalid_input",
        `${existingPath} is a file, not a folder, so ${located.path} cannot be created; choose another path.`,
        {
          details: { path: existingPath },
        },
      );
    }
    const offset = givenSegments.length - segments.length;
    const plan = segments.slice(existing).map((_, i) => ({
      resolved: segments.slice(0, existing + i + 1).join("/"),
      given: givenSegments.slice(0, offset + existing + i + 1).join("/"),
    }));
    for (const folder of plan) assertWritable([folder.given, folder.resolved], "folder", this.policy);
    const created: string[] = [];
    for (const folder of plan) {
      try {
        if (isIndexed(folder.resolved)) await this.app.vault.createFolder(normalizePath(folder.resolved));
        else await this.adapter.mkdir(normalizePath(folder.resolved));
        created.push(folder.resolved);
      } catch (error) {
        const now = await this.statOf(folder.resolved);
        if (now?.type === "folder") continue;
        if (now !== null) {
          throw new BridgeError(
            "conflict",
            `${folder.resolved} appeared while folders were being created and is not a folder; choose another path.`,
            {
              cause: error,
              details: { path: folder.resolved },
            },
          );
        }
        throw ioError(error, "creating the folder", folder.resolved);
      }
    }
    return { path: located.path, created };
  }

  /** Moves a file to the trash the user chose (or removes an unindexed one); false when there was none. */
  async remove(input: string, options: RemoveOptions = {}): Promise<boolean> {
    const located = await this.locate(this.givenRelative(input));
    this.assertWritable(located);
    await this.saveOpenEditors(located);
    const path = located.target;
    const current = await this.statOf(path);
    if (current === null) return false;
    if (current.type === "folder") throw notRegular(located.path, "a folder");
    if (options.expect !== undefined) checkExpectation(located.path, options.expect, stampOf(current));
    try {
      const file = this.app.vault.getFileByPath(normalizePath(path));
      if (file !== null) await this.app.fileManager.trashFile(file);
      else await this.adapter.remove(normalizePath(path));
      return true;
    } catch (error) {
      if ((await this.statOf(path)) === null) return false;
      throw ioError(error, "removing", located.path);
    }
  }

  /** Lists a folder (read rules); empty when it does not exist. */
  /** The vault's own index of files (instant; hidden folders are not in it). */
  listAllFiles(limit: number): Promise<string[]> {
    return Promise.resolve(
      this.app.vault
        .getFiles()
        .slice(0, limit)
        .map((file) => file.path),
    );
  }

  async list(input: string): Promise<ListEntry[]> {
    const located = await this.locate(this.givenRelative(input));
    return this.listAt(located.path, located.target);
  }

  // ---- sync state files (§13.7): the adapter, inside the configuration folder ----

  private async stateRead(path: string, options: ReadOptions): Promise<ReadResult | undefined> {
    checkLimit(options.maxBytes);
    const located = await this.locate(this.stateGiven(path));
    this.assertInState(located);
    return this.readAt(located.path, located.target, options.maxBytes, false, true);
  }

  private async stateWrite(path: string, data: Uint8Array | string): Promise<WriteResult> {
    const located = await this.locate(this.stateGiven(path));
    this.assertInState(located);
    const target = normalizePath(located.target);
    const folder = parentPath(located.target);
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    const temp = normalizePath(joinPath(folder, tempName(baseName(located.target))));
    let tempExists = false;
    try {
      await this.ensureStateFolders(folder);
      const existing = await this.statOf(located.target);
      if (existing?.type === "folder") throw notRegular(located.path, "a folder");
      await this.adapter.writeBinary(temp, toArrayBuffer(bytes));
      tempExists = true;
      try {
        await this.adapter.rename(temp, target);
      } catch (error) {
        // Obsidian's adapters refuse to rename over an existing file: move it aside, rename, drop
        // it; if the second rename fails the old file is put back.
        if (!(await this.adapter.exists(target))) throw error;
        const aside = normalizePath(joinPath(folder, tempName(baseName(located.target))));
        await this.adapter.rename(target, aside);
        try {
          await this.adapter.rename(temp, target);
        } catch (second) {
          await this.adapter.rename(aside, target).catch(() => undefined);
          throw second;
        }
        await this.adapter.remove(aside).catch(() => undefined);
      }
      tempExists = false;
    } catch (error) {
      if (tempExists) await this.adapter.remove(temp).catch(() => undefined);
      throw ioError(error, "writing", located.path);
    }
    const written = await this.statOf(located.target);
    if (written === null)
      throw new BridgeError(
        "local_io",
        `${located.path} is missing right after it was written; check the vault and try again.`,
      );
    return { path: located.path, stamp: stampOf(written) };
  }

  /**
   * Exclusive create. On desktop through the real file system (`O_EXCL`), so the lock holds against
   * the standalone command; on mobile no other process shares the folder, and a check followed by
   * the adapter's write is enough.
   */
  private async stateCreate(path: string, data: string): Promise<boolean> {
    const located = await this.locate(this.stateGiven(path));
    this.assertInState(located);
    const folder = parentPath(located.target);
    try {
      await this.ensureStateFolders(folder);
      if (this.desktop !== undefined) return await this.desktop.createExclusive(located.target, data);
      if (await this.adapter.exists(normalizePath(located.target))) return false;
      await this.adapter.write(normalizePath(located.target), data);
      return true;
    } catch (error) {
      throw ioError(error, "creating", located.path);
    }
  }

  private async stateRemove(path: string): Promise<boolean> {
    const located = await this.locate(this.stateGiven(path));
    this.assertInState(located);
    const current = await this.statOf(located.target);
    if (current === null) return false;
    if (current.type === "folder") throw notRegular(located.path, "a folder");
    try {
      await this.adapter.remove(normalizePath(located.target));
      return true;
    } catch (error) {
      if ((await this.statOf(located.target)) === null) return false;
      throw ioError(error, "removing", located.path);
    }
  }

  private async stateList(folder: string): Promise<ListEntry[]> {
    const located = await this.locate(folder === "" ? this.root.stateFolder : this.stateGiven(folder));
    this.assertInState(located);
    return this.listAt(located.path, located.target);
  }

  private async stateStat(path: string): Promise<FileStamp | undefined> {
    const located = await this.locate(path === "" ? this.root.stateFolder : this.stateGiven(path));
    this.assertInState(located);
    const stat = await this.statOf(located.target);
    return stat === null ? undefined : stateStampOf(stat);
  }

  private stateGiven(path: string): string {
    return normalizePath(joinPath(this.root.stateFolder, parseRootRelative(path)));
  }

  private assertInState(located: Located): void {
    for (const path of [located.path, located.target]) {
      if (!isInsideFolder(path, this.root.stateFolder)) {
        throw new BridgeError(
          "local_access",
          `The sync state path ${path} lies outside ${this.root.stateFolder}/ after resolving symlinks; remove the symlink inside the sync state folder.`,
          { details: { path } },
        );
      }
    }
  }

  /** Creates the missing folders of the state store one level at a time (adapter `mkdir`). */
  private async ensureStateFolders(folder: string): Promise<void> {
    if ((await this.statOf(folder))?.type === "folder") return;
    const segments = pathSegments(folder);
    for (let i = 1; i <= segments.length; i++) {
      const prefix = segments.slice(0, i).join("/");
      const stat = await this.statOf(prefix);
      if (stat?.type === "folder") continue;
      if (stat !== null)
        throw new BridgeError(
          "local_io",
          `${prefix} is a file where the sync state folder should be; move it away and try again.`,
          { details: { path: prefix } },
        );
      await this.adapter.mkdir(normalizePath(prefix));
    }
  }

  // ---- paths (§12.1–12.2) ----

  /** The normalised ROOT-relative form of a caller's path; absolute paths only with a desktop base path. */
  private givenRelative(input: string): string {
    if (!isAbsoluteForm(input) || input.includes("\0")) return normalizePath(parseRootRelative(input));
    if (this.basePath === undefined) throw absolutePathError(input);
    if (input.split(/[\\/]/).includes("..")) throw dotDotError(input);
    const relative = this.desktop !== undefined ? this.desktop.relativeOf(input) : relativeToBase(input, this.basePath);
    if (relative === "") {
      throw new BridgeError(
        "invalid_input",
        `The path ${input} names the ROOT itself; name a file inside it, e.g. Notes/plan.md.`,
      );
    }
    if (relative === undefined) {
      throw new BridgeError(
        "local_access",
        `The path ${input} lies outside the ROOT (${this.basePath}); name a file inside the ROOT, preferably in the ROOT-relative form such as Notes/plan.md.`,
        { details: { root: this.basePath } },
      );
    }
    return normalizePath(parseRootRelative(relative));
  }

  /**
   * Locates a given path. Without a desktop port it is its own identity (§12.2 "Mobile"). With
   * one, the longest existing prefix of the parent is resolved through symlinks and the rest
   * re-attached, and the final component is followed; both must stay inside the vault.
   */
  private async locate(given: string): Promise<Located> {
    if (this.desktop === undefined) return { given, path: given, target: given };
    const segments = pathSegments(given);
    const name = segments.pop() ?? "";
    let parent = segments.join("/");
    for (let k = segments.length; k > 0; k--) {
      const prefix = segments.slice(0, k).join("/");
      const real = await this.desktop.realRelative(prefix);
      if (real === null) {
        throw new BridgeError(
          "local_access",
          `${prefix} leads through a symlink outside the ROOT (${this.desktop.basePath}) or to a target that does not exist; name a destination inside the ROOT.`,
          { details: { path: prefix, root: this.desktop.basePath } },
        );
      }
      if (real !== undefined) {
        parent = joinPath(real, ...segments.slice(k));
        break;
      }
    }
    const path = normalizePath(joinPath(parent, name));
    const real = await this.desktop.realRelative(path);
    if (real === null) {
      throw new BridgeError(
        "local_access",
        `${path} is a symlink to a place outside the ROOT (${this.desktop.basePath}) or to nothing; only files inside the ROOT are used. Name the file inside the ROOT instead.`,
        { details: { path, root: this.desktop.basePath } },
      );
    }
    return { given, path, target: real === undefined || real === "" ? path : normalizePath(real) };
  }

  /** The write policy as given, as resolved and (when a final symlink is followed) as followed. */
  private assertWritable(located: Located): void {
    assertWritable([located.given, located.path, located.target], "file", this.policy);
  }

  // ---- operations on located paths ----

  /**
   * Saves every open text view of the file whose text differs from the disk (see the header).
   * `TextFileView.save()` itself writes only text typed since the view last loaded or saved, so a
   * clean view that has not yet shown a change made on disk does not write its older text back;
   * the comparison with the disk spares a save (and a new mtime) when nothing differs.
   */
  private async saveOpenEditors(located: Located): Promise<void> {
    const paths = new Set([located.given, located.path, located.target]);
    const views: TextFileView[] = [];
    this.app.workspace.iterateAllLeaves((leaf) => {
      const view = leaf.view;
      if (view instanceof TextFileView && view.file !== null && paths.has(view.file.path)) views.push(view);
    });
    for (const view of views) {
      const file = view.file;
      // A view left on a file that was deleted (or replaced) has nothing on disk to agree with.
      if (file === null || this.app.vault.getFileByPath(file.path) !== file) continue;
      const onDisk = await this.app.vault.read(file).catch(() => undefined);
      if (view.getViewData() === onDisk) continue;
      try {
        await view.save();
      } catch (error) {
        throw ioError(error, "saving the open editor of", located.path);
      }
    }
  }

  private async statOf(path: string): Promise<Stat | null> {
    try {
      return await this.adapter.stat(normalizePath(path));
    } catch (error) {
      throw ioError(error, "checking", path);
    }
  }

  /**
   * Bounded read of a regular file; undefined when nothing is there. The stamp is taken before
   * reading; a state file's (`state`) is in `stateStat`'s form, so the two can be compared.
   */
  private async readAt(
    shown: string,
    path: string,
    limit: number,
    head: boolean,
    state = false,
  ): Promise<ReadResult | undefined> {
    const stat = await this.statOf(path);
    if (stat === null) return undefined;
    if (stat.type !== "file") throw notRegular(shown, "a folder");
    let buffer: ArrayBuffer;
    try {
      const file = this.app.vault.getFileByPath(normalizePath(path));
      buffer =
        file !== null ? await this.app.vault.readBinary(file) : await this.adapter.readBinary(normalizePath(path));
    } catch (error) {
      if ((await this.statOf(path)) === null) return undefined;
      throw ioError(error, "reading", shown);
    }
    const all = new Uint8Array(buffer);
    // A stamp taken before the read errs on the safe side: a change in between fails the later write.
    const truncated = head ? Math.max(all.byteLength, stat.size) > limit : all.byteLength > limit;
    return { path: shown, bytes: all.slice(0, limit), stamp: state ? stateStampOf(stat) : stampOf(stat), truncated };
  }

  /** A new file: `create` (or the adapter in a folder the vault does not index); refuses one that appeared meanwhile. */
  private async createFile(shown: string, path: string, data: Uint8Array | string): Promise<void> {
    const normal = normalizePath(path);
    try {
      if (!isIndexed(path)) {
        if (await this.adapter.exists(normal)) throw new Error("File already exists.");
        if (typeof data === "string") await this.adapter.write(normal, data);
        else await this.adapter.writeBinary(normal, toArrayBuffer(data));
      } else if (typeof data === "string") {
        await this.app.vault.create(normal, data);
      } else {
        await this.app.vault.createBinary(normal, toArrayBuffer(data));
      }
    } catch (error) {
      // Vault.create refuses an existing file: one that appeared since the check is a conflict.
      if ((await this.statOf(path)) !== null) throw appearedError(shown);
      throw error;
    }
  }

  /** An existing file: `process` with the expectation checked inside the callback (§12.6). */
  private async replaceFile(
    shown: string,
    path: string,
    data: Uint8Array | string,
    expect: WriteExpectation,
  ): Promise<void> {
    const normal = normalizePath(path);
    const text = typeof data === "string" ? data : decodeStrict(data);
    const expectedSize = expect === "absent" ? -1 : expect.size;
    const file = this.app.vault.getFileByPath(normal);
    const cached = file === null ? undefined : { mtime: file.stat.mtime, size: file.stat.size };
    const unchanged = (current: string | undefined): boolean =>
      (file === null || cached === undefined || (file.stat.mtime === cached.mtime && file.stat.size === cached.size)) &&
      (current === undefined || encoder.encode(current).byteLength === expectedSize);
    try {
      if (text !== undefined) {
        const transform = (current: string): string => {
          if (!unchanged(current)) throw new ExpectationFailed();
          return text;
        };
        if (file !== null) await this.app.vault.process(file, transform);
        else await this.adapter.process(normal, transform);
      } else {
        // Bytes that are not UTF-8 cannot pass through `process`: the pre-check has to do.
        if (!unchanged(undefined)) throw new ExpectationFailed();
        if (file !== null) await this.app.vault.modifyBinary(file, toArrayBuffer(data as Uint8Array));
        else await this.adapter.writeBinary(normal, toArrayBuffer(data as Uint8Array));
      }
    } catch (error) {
      if (error instanceof ExpectationFailed) {
        throw new BridgeError(
          "conflict",
          `${shown} changed while this call ran (its size or modification time differs from when it was read); nothing was written. Read it again and retry.`,
          { details: { path: shown } },
        );
      }
      throw error;
    }
  }

  private async listAt(shown: string, path: string): Promise<ListEntry[]> {
    const stat = await this.statOf(path);
    if (stat === null) return [];
    if (stat.type !== "folder") throw notRegular(shown, "a file, not a folder");
    const prefix = `${normalizePath(path)}/`;
    try {
      const listed = await this.adapter.list(normalizePath(path));
      const names = (paths: string[]): string[] =>
        paths.map((p) => (p.startsWith(prefix) ? p.slice(prefix.length) : baseName(p)));
      return [
        ...names(listed.folders).map((name): ListEntry => ({ name, kind: "folder" })),
        ...names(listed.files).map((name): ListEntry => ({ name, kind: "file" })),
      ];
    } catch (error) {
      if ((await this.statOf(path)) === null) return [];
      throw ioError(error, "listing", shown);
    }
  }
}

/** Fails with `conflict` (nothing written) unless the target still meets the expectation. */
function checkExpectation(path: string, expect: WriteExpectation, current: FileStamp | undefined): void {
  if (expect === "absent") {
    if (current === undefined) return;
    throw appearedError(path);
  }
  if (current !== undefined && sameStamp(expect, current)) return;
  throw new BridgeError(
    "conflict",
    current === undefined
      ? `${path} was removed while this call ran; nothing was written. Try again.`
      : `${path} changed while this call ran (its size or modification time differs from when it was read); nothing was written. Read it again and retry.`,
    { details: { path } },
  );
}

function appearedError(path: string): BridgeError {
  return new BridgeError(
    "conflict",
    `${path} appeared while this call ran; nothing was written. Read it and try again.`,
    {
      details: { path, expected: "absent" },
    },
  );
}

/**
 * The ROOT-relative form of an absolute path under a base path, by components (`/` or, for a
 * Windows base, `\` too, compared case-insensitively there); undefined outside the base.
 */
export function relativeToBase(input: string, base: string): string | undefined {
  const windows = /^[A-Za-z]:[\\/]/.test(base) || base.startsWith("\\\\");
  const split = (path: string): string[] =>
    path.split(windows ? /[\\/]/ : "/").filter((segment) => segment !== "" && segment !== ".");
  const parts = split(input);
  const baseParts = split(base);
  const same = (a: string, b: string | undefined): boolean =>
    windows ? a.toLowerCase() === b?.toLowerCase() : a === b;
  if (baseParts.length > parts.length || !baseParts.every((segment, i) => same(segment, parts[i]))) return undefined;
  return parts.slice(baseParts.length).join("/");
}

/** Whether the vault indexes a path: Obsidian leaves dot-files and dot-folders out of its index. */
function isIndexed(path: string): boolean {
  return !pathSegments(path).some((segment) => segment.startsWith("."));
}

function stampOf(stat: Stat): FileStamp {
  return { size: stat.size, mtimeMs: stat.mtime };
}

/** A state file's stamp: the change time joins it (stateStat and state reads give this form). */
function stateStampOf(stat: Stat): FileStamp {
  return { ...stampOf(stat), id: `ctime:${stat.ctime}` };
}

function requireFile(path: string, result: ReadResult | undefined): ReadResult {
  if (result !== undefined) return result;
  throw new BridgeError(
    "invalid_input",
    `There is no file at ${path}; name an existing regular file inside the ROOT.`,
    {
      details: { path, reason: "missing" },
    },
  );
}

function notRegular(path: string, what: string): BridgeError {
  return new BridgeError(
    "invalid_input",
    `${path} is ${what}; only regular files are read or replaced. Name a regular file.`,
    {
      details: { path, reason: "not_regular" },
    },
  );
}

function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 0)
    throw new BridgeError("internal", `A read limit must be a non-negative integer, not ${limit}.`);
}

function decodeStrict(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy.buffer;
}

/** `.<name>.<12 hex>.tmp`, the name cut to TEMP_NAME_BYTES (the Node host's pattern). */
function tempName(name: string): string {
  let kept = name;
  while (encoder.encode(kept).byteLength > TEMP_NAME_BYTES) kept = Array.from(kept).slice(0, -1).join("");
  const random = crypto.getRandomValues(new Uint8Array(6));
  return `.${kept}.${Array.from(random, (byte) => byte.toString(16).padStart(2, "0")).join("")}.tmp`;
}

/** Maps an adapter failure to `local_io` naming the ROOT-relative path; BridgeErrors pass through. */
function ioError(error: unknown, action: string, path: string): BridgeError {
  if (error instanceof BridgeError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = /\b(E[A-Z]{3,})\b/.exec(message)?.[1];
  const options = { cause: error, details: { path, code: code ?? null } };
  if (code === "EACCES" || code === "EPERM") {
    return new BridgeError(
      "local_io",
      `Permission denied ${action} ${path}; check the permissions of the file and its folder.`,
      options,
    );
  }
  if (code === "ENOSPC")
    return new BridgeError(
      "local_io",
      `No space left on the device while ${action} ${path}; free some space and try again.`,
      options,
    );
  return new BridgeError(
    "local_io",
    `Failed ${action} ${path} (${code ?? "the vault refused"}); check that it is accessible and try again.`,
    options,
  );
}
