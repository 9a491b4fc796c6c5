/**
 * The Node host's LocalFiles adapter (docs/tools.md §2.4, §12, §13.7): every file operation confined
 * to one ROOT folder, writes atomic (hidden temporary file, flush, expectation check, rename).
 *
 * Accepted weaker guarantee (docs/tools.md §12.2): Node offers no directory-handle-relative opens
 * (`openat`, `O_BENEATH`), so confinement is check-then-act. Immediately before each open,
 * create, rename and unlink the ROOT's identity (device + inode) is re-checked and the parent
 * folder is resolved again through symlinks; a process that swaps a folder for a symlink between
 * that check and the system call can still redirect the operation. Opens of a resolved final
 * component use `O_NOFOLLOW` so only a parent swap remains open to that race.
 */

import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
  type BigIntStats,
  type Dirent,
} from "node:fs";
import * as fsp from "node:fs/promises";
import * as nodePath from "node:path";
import { setImmediate } from "node:timers";
import { BridgeError } from "../core/errors";
import { installNodeSha256 } from "./node-sha256";
// Node's modules for the code the plugin shares (node-apis.ts): this host has them at start.
import "./node-apis-install";
import { TOOL_WORDS, type Words } from "../core/wording";
import {
  sameStamp,
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
  assertWritable,
  dotDotError,
  isInsideFolder,
  joinPath,
  parentPath,
  parseRootRelative,
  syncStateFolder,
  type WritePolicy,
} from "../core/paths";

// Windows has neither flag; there a FIFO cannot appear and symlinks are followed (documented gap).
const O_NONBLOCK: number = constants.O_NONBLOCK ?? 0;
const O_NOFOLLOW: number = constants.O_NOFOLLOW ?? 0;
/**
 * The vault configuration folder when `--config-dir` is not given (docs/tools.md §2.1): Obsidian's
 * default name. The command runs outside Obsidian and cannot ask it for `Vault#configDir`, so this
 * is the one place the name is spelled; the rest of the command (and the benches) take it from
 * here. `npm run lint:review` reports this line (CONTRIBUTING.md, "Lint").
 */
export const DEFAULT_CONFIG_DIR = ".obsidian";
/** Longest part of a file name kept in a temporary name, in UTF-8 bytes (NAME_MAX is 255). */
const TEMP_NAME_BYTES = 200;
/** Chunk size of bounded reads of files whose size is unknown or growing. */
const READ_CHUNK = 64 * 1024;
/** Synchronous reads between two turns of the event loop (see lstatOrUndefined). */
const SYNC_CALLS_PER_YIELD = 32;

/** How the standalone command (or a test) opens the ROOT. */
export interface NodeLocalFilesOptions {
  /** The ROOT folder; a relative value is resolved against the working directory. */
  root: string;
  /** The vault configuration folder name (`--config-dir`); giving one makes the ROOT a vault. */
  configDir?: string;
  /** Whether the ROOT is a vault; by default when `configDir` is given or `<ROOT>/.obsidian/` is a folder. */
  isVault?: boolean;
  /** The `protect_agent_files` setting; on by default. */
  protectAgentFiles?: boolean;
  /** The vocabulary of the fixes its messages name (default: the tools' words). */
  words?: Words;
}

/** A path located under the ROOT: the given form, the canonical form and where it lives on disk. */
interface Located {
  /** Normalised ROOT-relative path as given. */
  given: string;
  /** Canonical ROOT-relative path (parents resolved, final component as given). */
  path: string;
  /** Fully resolved ROOT-relative path for reads; `path` otherwise. */
  target: string;
  /** Absolute real path of the parent folder (its tail may not exist yet). */
  parentAbs: string;
  /** Whether the parent folder exists. */
  parentExists: boolean;
  /** Final component. */
  name: string;
  /** Absolute path of the entry itself (the symlink, if the final component is one). */
  abs: string;
  /** Absolute path of what a read opens (the final symlink followed); `abs` otherwise. */
  targetAbs: string;
}

/** The current state of a write target, for expectations and for keeping its mode. */
interface TargetState {
  /** Stamp of the target; undefined when nothing is there (a dangling symlink is there). */
  stamp: FileStamp | undefined;
  /** Permission bits of an existing regular file (through a final symlink). */
  mode: number | undefined;
  /** Whether the entry itself is a folder. */
  folder: boolean;
}

/** The Node LocalFiles adapter; build it with `NodeLocalFiles.open`. */
export class NodeLocalFiles implements LocalFiles {
  readonly root: RootFacts;
  readonly state: StateFiles;
  private readonly words: Words;
  private readonly rootGiven: string;
  private readonly rootReal: string;
  private readonly dev: bigint;
  private readonly ino: bigint;
  private readonly policy: WritePolicy;
  /** Set once the ROOT is seen moved or replaced; sticky until restart (§2.4). */
  private rootLost = false;
  /** Synchronous reads made so far (breathe). */
  private syncCalls = 0;

  private constructor(init: {
    rootGiven: string;
    rootReal: string;
    dev: bigint;
    ino: bigint;
    facts: RootFacts;
    words: Words;
  }) {
    this.words = init.words;
    this.rootGiven = init.rootGiven;
    this.rootReal = init.rootReal;
    this.dev = init.dev;
    this.ino = init.ino;
    this.root = init.facts;
    this.policy = {
      isVault: init.facts.isVault,
      configDir: init.facts.configDir,
      protectAgentFiles: init.facts.protectAgentFiles,
    };
    this.state = {
      read: (path, options) => this.stateRead(path, options),
      write: (path, data) => this.stateWrite(path, data),
      remove: (path) => this.stateRemove(path),
      list: (folder) => this.stateList(folder),
      create: (path, data) => this.stateCreate(path, data),
      stat: (path) => this.stateStat(path),
    };
  }

  /** Resolves the ROOT to its real path, remembers its identity and decides whether it is a vault. */
  static async open(options: NodeLocalFilesOptions): Promise<NodeLocalFiles> {
    installNodeSha256();
    const rootGiven = nodePath.resolve(options.root);
    let rootReal: string;
    let stats: BigIntStats;
    try {
      rootReal = await fsp.realpath(rootGiven);
      stats = await fsp.stat(rootReal, { bigint: true });
    } catch (error) {
      throw new BridgeError(
        "invalid_input",
        `The ROOT ${rootGiven} cannot be opened (${describe(error)}); pass an existing folder with --root or HACKMD_BRIDGE_ROOT.`,
        {
          cause: error,
        },
      );
    }
    if (!stats.isDirectory()) {
      throw new BridgeError(
        "invalid_input",
        `The ROOT ${rootGiven} is not a folder; pass a folder with --root or HACKMD_BRIDGE_ROOT.`,
      );
    }
    const configDir = parseRootRelative(options.configDir ?? DEFAULT_CONFIG_DIR);
    const isVault =
      options.isVault ??
      (options.configDir !== undefined || (await isFolder(nodePath.join(rootReal, DEFAULT_CONFIG_DIR))));
    const facts: RootFacts = {
      isVault,
      configDir,
      stateFolder: syncStateFolder({ isVault, configDir }),
      absoluteRootAvailable: true,
      protectAgentFiles: options.protectAgentFiles ?? true,
    };
    return new NodeLocalFiles({
      rootGiven,
      rootReal,
      dev: stats.dev,
      ino: stats.ino,
      facts,
      words: options.words ?? TOOL_WORDS,
    });
  }

  /** The ROOT's real path (absolute, platform form). */
  get rootPath(): string {
    return this.rootReal;
  }

  async resolve(input: string, purpose: PathPurpose): Promise<ResolvedPath> {
    await this.checkRoot();
    const given = this.givenRelative(input);
    const located = await this.locate(given, purpose);
    if (purpose === "write") assertWritable([given, located.path], "file", this.policy);
    return { path: located.path, given, target: located.target };
  }

  async stat(input: string): Promise<FileInfo> {
    await this.checkRoot();
    const located = await this.locate(this.givenRelative(input), "read");
    return this.statAt(located);
  }

  async read(input: string, options: ReadOptions): Promise<ReadResult> {
    checkLimit(options.maxBytes);
    await this.checkRoot();
    const located = await this.locate(this.givenRelative(input), "read");
    return this.requireFile(located, await this.readAt(located, options.maxBytes, false));
  }

  async readHead(input: string, n: number): Promise<ReadResult> {
    checkLimit(n);
    await this.checkRoot();
    const located = await this.locate(this.givenRelative(input), "read");
    return this.requireFile(located, await this.readAt(located, n, true));
  }

  async write(input: string, data: Uint8Array | string, options: WriteOptions): Promise<WriteResult> {
    await this.checkRoot();
    const given = this.givenRelative(input);
    const located = await this.locate(given, "write");
    assertWritable([given, located.path], "file", this.policy);
    if (!located.parentExists) {
      const folder = parentPath(located.path);
      throw new BridgeError(
        "invalid_input",
        `The folder ${folder} does not exist, so ${located.path} cannot be written; create it first (${this.words.flag("create_parent_dirs")}).`,
        {
          details: { path: located.path, reason: "missing_parent" },
        },
      );
    }
    return this.writeAt(located, data, { expect: options.expect, private: false });
  }

  async createFolders(input: string): Promise<CreateFoldersResult> {
    await this.checkRoot();
    return this.createFoldersAt(this.givenRelative(input), false);
  }

  async remove(input: string, options: RemoveOptions = {}): Promise<boolean> {
    await this.checkRoot();
    const given = this.givenRelative(input);
    const located = await this.locate(given, "write");
    assertWritable([given, located.path], "file", this.policy);
    return this.removeAt(located, options.expect);
  }

  /** Every file under the ROOT outside hidden folders (a bounded breadth-first walk; symlinks not followed). */
  async listAllFiles(limit: number): Promise<string[]> {
    await this.checkRoot();
    const out: string[] = [];
    const folders = [""];
    while (folders.length > 0 && out.length < limit) {
      const folder = folders.shift() ?? "";
      let entries: Dirent[];
      try {
        entries = await fsp.readdir(
          folder === "" ? this.rootReal : nodePath.join(this.rootReal, ...folder.split("/")),
          { withFileTypes: true },
        );
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (entry.name.startsWith(".")) continue;
        const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
        if (entry.isDirectory()) folders.push(path);
        else if (entry.isFile() && out.length < limit) out.push(path);
      }
    }
    return out;
  }

  async list(input: string): Promise<ListEntry[]> {
    await this.checkRoot();
    return this.listAt(await this.locate(this.givenRelative(input), "read"));
  }

  // ---- doctor's writability probes (§2.6) ----

  /**
   * Whether a file can be created in the ROOT (`"root"`) or in the sync state folder (`"state"`;
   * when it does not exist yet, its nearest existing ancestor). The location is judged exactly as
   * the tools judge it (inside the ROOT after resolving symlinks, no dangling symlink on the way,
   * state paths staying in the state folder): a refused location throws the tools' BridgeError.
   * A private hidden file is created and removed at once; no folder is ever created.
   */
  async probeWritable(where: "root" | "state"): Promise<boolean> {
    await this.checkRoot();
    const segments = where === "root" ? [] : this.root.stateFolder.split("/");
    const prefix = await this.realPrefix(segments);
    const existing = this.relativeOf(prefix.abs);
    if (prefix.abs !== this.rootReal && !(await isFolder(prefix.abs))) {
      throw new BridgeError(
        "invalid_input",
        `${existing} is a file, not a folder, so ${this.root.stateFolder} cannot be created there; move the file away.`,
        {
          details: { path: existing },
        },
      );
    }
    if (where === "state") this.assertInState(joinPath(existing, ...prefix.rest));
    const existingGiven = segments.slice(0, segments.length - prefix.rest.length);
    const located = await this.locate(
      joinPath(...existingGiven, `.hackmd-bridge-doctor.${randomBytes(6).toString("hex")}.tmp`),
      "write",
    );
    let created = false;
    try {
      await this.recheckParent(located);
      const handle = await fsp.open(
        located.abs,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW,
        0o600,
      );
      created = true;
      await handle.close();
      return true;
    } catch (error) {
      if (error instanceof BridgeError) throw error;
      return false;
    } finally {
      if (created) await fsp.rm(located.abs, { force: true }).catch(() => undefined);
    }
  }

  // ---- sync state files (§13.7) ----

  private async stateRead(path: string, options: ReadOptions): Promise<ReadResult | undefined> {
    checkLimit(options.maxBytes);
    await this.checkRoot();
    const located = await this.locate(this.stateGiven(path), "read");
    this.assertInState(located.path, located.target);
    return this.readAt(located, options.maxBytes, false, true);
  }

  private async stateWrite(path: string, data: Uint8Array | string): Promise<WriteResult> {
    await this.checkRoot();
    const given = this.stateGiven(path);
    await this.createFoldersAt(parentPath(given), true);
    const located = await this.locate(given, "write");
    this.assertInState(located.path);
    return this.writeAt(located, data, { expect: undefined, private: true });
  }

  private async stateCreate(path: string, data: string): Promise<boolean> {
    await this.checkRoot();
    const given = this.stateGiven(path);
    await this.createFoldersAt(parentPath(given), true);
    const located = await this.locate(given, "write");
    this.assertInState(located.path);
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(
        located.abs,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW,
        0o600,
      );
    } catch (error) {
      if (errorCode(error) === "EEXIST") return false;
      throw ioError(error, "creating", located.path);
    }
    try {
      await handle.writeFile(data);
    } catch (error) {
      throw ioError(error, "writing", located.path);
    } finally {
      await handle.close().catch(() => undefined);
    }
    return true;
  }

  private async stateRemove(path: string): Promise<boolean> {
    await this.checkRoot();
    const located = await this.locate(this.stateGiven(path), "write");
    this.assertInState(located.path);
    return this.removeAt(located, undefined);
  }

  private async stateList(folder: string): Promise<ListEntry[]> {
    await this.checkRoot();
    const given = folder === "" ? this.root.stateFolder : this.stateGiven(folder);
    const located = await this.locate(given, "read");
    this.assertInState(located.path, located.target);
    return this.listAt(located);
  }

  private async stateStat(path: string): Promise<FileStamp | undefined> {
    await this.checkRoot();
    const given = path === "" ? this.root.stateFolder : this.stateGiven(path);
    const located = await this.locate(given, "read");
    this.assertInState(located.path, located.target);
    let stats: BigIntStats;
    try {
      stats = statSync(located.targetAbs, { bigint: true });
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw ioError(error, "checking", located.path);
    }
    // The change time joins the identity: a folder's ctime moves with its entries as its mtime does.
    return stateStampOf(stats);
  }

  private stateGiven(path: string): string {
    return joinPath(this.root.stateFolder, parseRootRelative(path));
  }

  private assertInState(...paths: string[]): void {
    for (const path of paths) {
      if (!isInsideFolder(path, this.root.stateFolder)) {
        throw new BridgeError(
          "local_access",
          `The sync state path ${path} lies outside ${this.root.stateFolder}/ after resolving symlinks; remove the symlink inside the sync state folder.`,
          { details: { path } },
        );
      }
    }
  }

  // ---- the ROOT and path resolution (§2.4, §12.1–12.2) ----

  /** Refuses everything once the ROOT's real path no longer names the folder opened at start. */
  private async checkRoot(): Promise<void> {
    if (!this.rootLost) {
      let stats: BigIntStats | undefined;
      try {
        // Path checks are synchronous: a metadata call answered from the kernel's caches takes
        // microseconds, a thread-pool round trip several times that, and they run on every call.
        stats = statSync(this.rootReal, { bigint: true });
      } catch (error) {
        const code = errorCode(error);
        if (code !== "ENOENT" && code !== "ENOTDIR") {
          throw new BridgeError(
            "local_io",
            `The ROOT ${this.rootReal} cannot be checked (${describe(error)}); check that it is accessible and try again.`,
            {
              cause: error,
            },
          );
        }
      }
      if (stats?.isDirectory() && stats.dev === this.dev && stats.ino === this.ino) return;
      this.rootLost = true;
    }
    throw new BridgeError(
      "local_access",
      `The ROOT ${this.rootReal} was moved or replaced after start, so every local path is refused; put it back and restart the command (or reload the plugin).`,
    );
  }

  /** The normalised ROOT-relative form of a caller's path (§12.1); absolute paths must lie inside. */
  private givenRelative(input: string): string {
    if (!nodePath.isAbsolute(input)) return parseRootRelative(input);
    if (input.includes("\0")) return parseRootRelative(input);
    const parts = nodePath.sep === "\\" ? input.split(/[\\/]/) : input.split("/");
    if (parts.includes("..")) throw dotDotError(input);
    const absolute = nodePath.resolve(input);
    for (const base of [this.rootReal, this.rootGiven]) {
      const relative = nodePath.relative(base, absolute);
      if (relative === "") {
        throw new BridgeError(
          "invalid_input",
          `The path ${input} names the ROOT itself; name a file inside it, e.g. Notes/plan.md.`,
        );
      }
      if (isDescendant(relative)) return parseRootRelative(toSlashes(relative));
    }
    throw new BridgeError(
      "local_access",
      `The path ${input} lies outside the ROOT (${this.rootReal}); name a file inside the ROOT, preferably in the ROOT-relative form such as Notes/plan.md.`,
      { details: { root: this.rootReal } },
    );
  }

  /** Locates a given path: parent symlinks resolved (and, for reads, the final one), confined to the ROOT. */
  private async locate(given: string, purpose: PathPurpose): Promise<Located> {
    const segments = given.split("/");
    const name = segments.pop() ?? "";
    if (purpose === "read") {
      // Fast path, one realpath instead of two: a path whose real path is itself has no symlink
      // on it and exists, so the full walk below would find exactly this. Anything else (missing,
      // a symlink anywhere, another spelling) takes the full walk and its checks.
      const literal = nodePath.join(this.rootReal, ...segments, name);
      const real = await this.realpathOrUndefined(literal, given);
      if (real === literal) {
        return {
          given,
          path: given,
          target: given,
          parentAbs: nodePath.dirname(literal),
          parentExists: true,
          name,
          abs: literal,
          targetAbs: literal,
        };
      }
      // Nothing resolves there (a missing file, or a dangling final symlink): only the parent is
      // walked; the final component is not resolved again (a read opens it with O_NOFOLLOW).
      if (real === undefined) return this.locateParent(given, segments, name, false);
    }
    return this.locateParent(given, segments, name, purpose === "read");
  }

  /** The full walk of `locate`: the parent through symlinks, then (`resolveFinal`) the final component. */
  private async locateParent(
    given: string,
    segments: readonly string[],
    name: string,
    resolveFinal: boolean,
  ): Promise<Located> {
    const parent = await this.realPrefix(segments);
    const parentAbs = nodePath.join(parent.abs, ...parent.rest);
    const abs = nodePath.join(parentAbs, name);
    const path = joinPath(this.relativeOf(parentAbs), name);
    const located: Located = {
      given,
      path,
      target: path,
      parentAbs,
      parentExists: parent.rest.length === 0,
      name,
      abs,
      targetAbs: abs,
    };
    if (resolveFinal && located.parentExists) {
      const real = await this.realpathOrUndefined(abs, path);
      if (real !== undefined) {
        if (!this.isInsideRoot(real)) {
          throw new BridgeError(
            "local_access",
            `${path} is a symlink to ${real}, outside the ROOT (${this.rootReal}); only files inside the ROOT are read. Name the file inside the ROOT instead.`,
            { details: { path, root: this.rootReal } },
          );
        }
        located.target = this.relativeOf(real) || path;
        located.targetAbs = real;
      }
    }
    return located;
  }

  /**
   * Resolves the longest existing prefix of `segments` through symlinks and returns it with the
   * rest re-attached. The prefix must lie inside the ROOT; a symlink that cannot be resolved
   * (dangling, looping) on the way is refused, since where it leads cannot be confirmed.
   */
  private async realPrefix(segments: readonly string[]): Promise<{ abs: string; rest: string[] }> {
    for (let k = segments.length; k > 0; k--) {
      const prefix = segments.slice(0, k);
      const real = await this.realpathSettled(nodePath.join(this.rootReal, ...prefix), prefix.join("/"));
      if (real !== undefined) return { abs: real, rest: segments.slice(k) };
    }
    return { abs: this.rootReal, rest: [...segments] };
  }

  /**
   * The real path of an existing entry, confirmed inside the ROOT; undefined when nothing is there.
   * realpath failing while lstat finds an entry means either a dangling symlink or an entry that
   * appeared in between (another call or process creating the same folder). Resolving once more
   * tells them apart: only an entry that is itself a symlink and still leads nowhere is refused.
   */
  private async realpathSettled(candidate: string, shown: string): Promise<string | undefined> {
    let real = await this.realpathOrUndefined(candidate, shown);
    if (real === undefined) {
      const own = lstatOrUndefined(candidate, shown);
      if (own === undefined) return undefined;
      real = await this.realpathOrUndefined(candidate, shown);
      if (real === undefined) {
        // A plain entry that was there a moment ago and is gone again is simply missing.
        if (!own.isSymbolicLink()) return undefined;
        throw new BridgeError(
          "local_access",
          `${shown} is a symlink whose target does not exist, so it cannot be confirmed to stay inside the ROOT (${this.rootReal}); remove it or name another destination.`,
          { details: { path: shown } },
        );
      }
    }
    if (!this.isInsideRoot(real)) {
      throw new BridgeError(
        "local_access",
        `${shown} leads through a symlink to ${real}, outside the ROOT (${this.rootReal}); name a destination inside the ROOT.`,
        {
          details: { path: shown, root: this.rootReal },
        },
      );
    }
    return real;
  }

  /** realpath, or undefined when the path (or a symlink on it) does not exist. */
  private async realpathOrUndefined(absolute: string, shown: string): Promise<string | undefined> {
    try {
      // Synchronous for the same reason as checkRoot (libc realpath either way).
      return realpathSync.native(absolute);
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw ioError(error, "resolving", shown);
    }
  }

  private isInsideRoot(absolute: string): boolean {
    const relative = nodePath.relative(this.rootReal, absolute);
    return relative === "" || isDescendant(relative);
  }

  private relativeOf(absolute: string): string {
    return toSlashes(nodePath.relative(this.rootReal, absolute));
  }

  /** Resolves the parent again right before a create, rename or unlink; it must not have moved. */
  private async recheckParent(located: Located): Promise<void> {
    await this.checkRoot();
    const segments = located.given.split("/").slice(0, -1);
    const parent = await this.realPrefix(segments);
    if (nodePath.join(parent.abs, ...parent.rest) !== located.parentAbs) {
      throw new BridgeError(
        "conflict",
        `A folder on the path of ${located.path} changed while this call ran; nothing was written. Try again.`,
        {
          details: { path: located.path },
        },
      );
    }
  }

  // ---- operations on located paths ----

  private async statAt(located: Located): Promise<FileInfo> {
    const own = lstatOrUndefined(located.abs, located.path);
    if (own === undefined) return { path: located.path, kind: "missing", symlink: false, size: 0, mtimeMs: 0 };
    const symlink = own.isSymbolicLink();
    // A dangling final symlink keeps its own metadata: present, but nothing to read.
    const stats =
      symlink && located.targetAbs !== located.abs ? (statOrUndefined(located.targetAbs, located.path) ?? own) : own;
    const kind = stats.isFile() ? "file" : stats.isDirectory() ? "folder" : "other";
    return {
      path: located.path,
      kind,
      symlink,
      size: Number(stats.size),
      mtimeMs: Number(stats.mtimeMs),
      stamp: stampOf(stats),
    };
  }

  /** Bounded non-blocking read of a regular file; undefined when it does not exist. A state file's stamp (`state`) is in stateStat's form. */
  private async readAt(located: Located, limit: number, head: boolean, state = false): Promise<ReadResult | undefined> {
    await this.breathe();
    let fd: number;
    try {
      fd = openSync(located.targetAbs, constants.O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOENT") {
        // A dangling symlink is there but unreadable; a plain missing file is absent.
        if (lstatOrUndefined(located.abs, located.path) === undefined) return undefined;
        throw notRegular(located.path, "a symlink whose target does not exist");
      }
      // ELOOP: the final component is (or just became) a symlink; ENXIO: a socket or device.
      if (code === "ELOOP" || code === "ENXIO") throw notRegular(located.path, "not a regular file");
      throw ioError(error, "reading", located.path);
    }
    try {
      const stats = fstatSync(fd, { bigint: true });
      if (!stats.isFile()) throw notRegular(located.path, stats.isDirectory() ? "a folder" : "not a regular file");
      const capacity = head ? limit : limit + 1;
      const size = Number(stats.size);
      const chunks: Buffer[] = [];
      let total = 0;
      while (total < capacity) {
        // The stat size plus one byte (to see growth), then chunks; only the bytes read are kept.
        const want = Math.min(capacity - total, total < size ? size - total + 1 : READ_CHUNK);
        const buffer = Buffer.allocUnsafe(want);
        const bytesRead = readSync(fd, buffer, 0, want, null);
        if (bytesRead === 0) break;
        chunks.push(buffer.subarray(0, bytesRead));
        total += bytesRead;
        // A short read of a regular file at or past its stat size is its end: no second read.
        if (bytesRead < want && total >= size) break;
      }
      const bytes = new Uint8Array(Buffer.concat(chunks, total).subarray(0, Math.min(total, limit)));
      const truncated = head ? Number(stats.size) > limit : total > limit;
      return { path: located.path, bytes, stamp: state ? stateStampOf(stats) : stampOf(stats), truncated };
    } catch (error) {
      throw ioError(error, "reading", located.path);
    } finally {
      try {
        closeSync(fd);
      } catch {
        // Closing a read-only descriptor cannot lose data.
      }
    }
  }

  /** Lets the event loop run between every `SYNC_CALLS_PER_YIELD` synchronous reads. */
  private async breathe(): Promise<void> {
    this.syncCalls += 1;
    if (this.syncCalls % SYNC_CALLS_PER_YIELD === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  private requireFile(located: Located, result: ReadResult | undefined): ReadResult {
    if (result !== undefined) return result;
    throw new BridgeError(
      "invalid_input",
      `There is no file at ${located.path}; name an existing regular file inside the ROOT.`,
      {
        details: { path: located.path, reason: "missing" },
      },
    );
  }

  /** Atomic write: hidden temporary file, flush, expectation, mode, rename (§12.6). */
  private async writeAt(
    located: Located,
    data: Uint8Array | string,
    options: { expect: WriteExpectation | undefined; private: boolean },
  ): Promise<WriteResult> {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    const before = await this.targetState(located);
    if (before.folder) throw notRegular(located.path, "a folder");
    const tempAbs = nodePath.join(located.parentAbs, tempName(located.name));
    // Replacing a file: start private and take its mode later. A new file: the umask decides.
    const createMode = options.private || before.mode !== undefined ? 0o600 : 0o666;
    let handle: fsp.FileHandle | undefined;
    let tempExists = false;
    try {
      await this.recheckParent(located);
      handle = await fsp.open(
        tempAbs,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW,
        createMode,
      );
      tempExists = true;
      await handle.writeFile(bytes);
      await handle.sync();
      await this.recheckParent(located);
      const current = await this.targetState(located);
      if (current.folder) throw notRegular(located.path, "a folder");
      checkExpectation(located.path, options.expect, current.stamp);
      const mode = options.private ? 0o600 : current.mode;
      if (mode !== undefined) await handle.chmod(mode);
      const stats = await handle.stat({ bigint: true });
      await handle.close();
      handle = undefined;
      await fsp.rename(tempAbs, located.abs);
      tempExists = false;
      await syncFolder(located.parentAbs);
      return { path: located.path, stamp: stampOf(stats) };
    } catch (error) {
      if (handle !== undefined) await handle.close().catch(() => undefined);
      if (tempExists) await fsp.rm(tempAbs, { force: true }).catch(() => undefined);
      if (errorCode(error) === "ENOENT") {
        throw new BridgeError(
          "local_io",
          `The folder of ${located.path} disappeared while writing; nothing was written. Check the folder and try again.`,
          {
            cause: error,
            details: { path: located.path },
          },
        );
      }
      throw ioError(error, "writing", located.path);
    }
  }

  /** What is at a write target now, without following a final symlink except for stamp and mode. */
  private async targetState(located: Located): Promise<TargetState> {
    const own = lstatOrUndefined(located.abs, located.path);
    if (own === undefined) return { stamp: undefined, mode: undefined, folder: false };
    if (own.isDirectory()) return { stamp: stampOf(own), mode: undefined, folder: true };
    // Through a final symlink the stamp is that of the file a read saw; a dangling one keeps its own.
    const seen = own.isSymbolicLink() ? (statOrUndefined(located.abs, located.path) ?? own) : own;
    return { stamp: stampOf(seen), mode: seen.isFile() ? Number(seen.mode) & 0o7777 : undefined, folder: false };
  }

  private async removeAt(located: Located, expect: FileStamp | undefined): Promise<boolean> {
    if (!located.parentExists) return false;
    const current = await this.targetState(located);
    if (current.stamp === undefined) return false;
    if (current.folder) throw notRegular(located.path, "a folder");
    if (expect !== undefined) checkExpectation(located.path, expect, current.stamp);
    try {
      await this.recheckParent(located);
      await fsp.unlink(located.abs);
      return true;
    } catch (error) {
      if (errorCode(error) === "ENOENT") return false;
      throw ioError(error, "removing", located.path);
    }
  }

  /** Creates the missing folders of a given path; every one passes the policy before any is made. */
  private async createFoldersAt(given: string, isPrivate: boolean): Promise<CreateFoldersResult> {
    const segments = given.split("/");
    const prefix = await this.realPrefix(segments);
    const existing = this.relativeOf(prefix.abs);
    if (prefix.abs !== this.rootReal && !(await isFolder(prefix.abs))) {
      throw new BridgeError(
        "invalid_input",
        `${existing} is a file, not a folder, so ${given} cannot be created; choose another path.`,
        {
          details: { path: existing },
        },
      );
    }
    const base = segments.length - prefix.rest.length;
    const plan = prefix.rest.map((name, i) => ({
      given: segments.slice(0, base + i + 1).join("/"),
      resolved: joinPath(existing, ...prefix.rest.slice(0, i + 1)),
      abs: nodePath.join(prefix.abs, ...prefix.rest.slice(0, i + 1)),
      name,
    }));
    for (const folder of plan) {
      if (!isPrivate) assertWritable([folder.given, folder.resolved], "folder", this.policy);
      else if (
        !isInsideFolder(folder.resolved, this.root.stateFolder) &&
        !isInsideFolder(this.root.stateFolder, folder.resolved)
      )
        this.assertInState(folder.resolved);
    }
    const created: string[] = [];
    for (const folder of plan) {
      try {
        await this.checkRoot();
        const parent = await this.realPrefix(folder.given.split("/").slice(0, -1));
        if (parent.rest.length > 0 || parent.abs !== nodePath.dirname(folder.abs)) {
          throw new BridgeError(
            "conflict",
            `A folder on the path of ${folder.resolved} changed while folders were being created; try again.`,
            {
              details: { path: folder.resolved },
            },
          );
        }
        await fsp.mkdir(folder.abs, { mode: isPrivate ? 0o700 : 0o777 });
        // The umask can only remove bits; private folders must be exactly 0700.
        if (isPrivate) await fsp.chmod(folder.abs, 0o700);
        created.push(folder.resolved);
      } catch (error) {
        if (errorCode(error) === "EEXIST") {
          const now = lstatOrUndefined(folder.abs, folder.resolved);
          if (now?.isDirectory()) continue;
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
    return { path: plan.at(-1)?.resolved ?? existing, created };
  }

  private async listAt(located: Located): Promise<ListEntry[]> {
    let entries: Dirent[];
    try {
      entries = await fsp.readdir(located.targetAbs, { withFileTypes: true });
    } catch (error) {
      if (errorCode(error) === "ENOENT") return [];
      if (errorCode(error) === "ENOTDIR") throw notRegular(located.path, "a file, not a folder");
      throw ioError(error, "listing", located.path);
    }
    return entries.map((entry) => ({
      name: entry.name,
      kind: entry.isFile() ? "file" : entry.isDirectory() ? "folder" : "other",
    }));
  }
}

/** Fails with `conflict` (nothing written) unless the target still meets the expectation. */
function checkExpectation(path: string, expect: WriteExpectation | undefined, current: FileStamp | undefined): void {
  if (expect === undefined) return;
  if (expect === "absent") {
    if (current === undefined) return;
    throw new BridgeError(
      "conflict",
      `${path} appeared while this call ran; nothing was written. Read it and try again.`,
      {
        details: { path, expected: "absent" },
      },
    );
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

function stampOf(stats: BigIntStats): FileStamp {
  // mtimeNs keeps full precision; mtimeMs of a bigint stat is whole milliseconds.
  return { size: Number(stats.size), mtimeMs: Number(stats.mtimeNs) / 1e6, id: `${stats.dev}:${stats.ino}` };
}

/** A state file's stamp: the change time joins the identity (stateStat and state reads give this form). */
function stateStampOf(stats: BigIntStats): FileStamp {
  const stamp = stampOf(stats);
  return { ...stamp, id: `${stamp.id ?? ""}:${stats.ctimeNs}` };
}

function tempName(name: string): string {
  let kept = name;
  while (Buffer.byteLength(kept, "utf8") > TEMP_NAME_BYTES) kept = Array.from(kept).slice(0, -1).join("");
  return `.${kept}.${randomBytes(6).toString("hex")}.tmp`;
}

function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 0)
    throw new BridgeError("internal", `A read limit must be a non-negative integer, not ${limit}.`);
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

function isDescendant(relative: string): boolean {
  return (
    relative !== "" && relative !== ".." && !relative.startsWith(`..${nodePath.sep}`) && !nodePath.isAbsolute(relative)
  );
}

function toSlashes(relative: string): string {
  return relative.split(nodePath.sep).join("/");
}

async function isFolder(absolute: string): Promise<boolean> {
  try {
    return (await fsp.stat(absolute)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Metadata and small reads of one file are synchronous calls (microseconds on a local disk, the
 * same system calls as the promise API without a thread-pool round trip each): a sync-all over
 * 10,000 notes makes about 100,000 of them. `NodeLocalFiles` yields to the event loop every
 * `SYNC_CALLS_PER_YIELD` reads, so a long run never holds up other work (the HTTP endpoint).
 */
function lstatOrUndefined(absolute: string, shown: string): BigIntStats | undefined {
  try {
    return lstatSync(absolute, { bigint: true });
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw ioError(error, "checking", shown);
  }
}

function statOrUndefined(absolute: string, shown: string): BigIntStats | undefined {
  try {
    return statSync(absolute, { bigint: true });
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") return undefined;
    throw ioError(error, "checking", shown);
  }
}

/** Flushes a folder's entry list after a rename; not every platform allows it, so failures are ignored. */
async function syncFolder(absolute: string): Promise<void> {
  try {
    const handle = await fsp.open(absolute, constants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Durability of the folder entry is best effort (Windows cannot open folders this way).
  }
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}

function describe(error: unknown): string {
  return errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}

/** Maps a Node file-system failure to the docs/tools.md kinds, naming the ROOT-relative path and the fix. */
function ioError(error: unknown, action: string, path: string): BridgeError {
  if (error instanceof BridgeError) return error;
  const code = errorCode(error);
  const options = { cause: error, details: { path, code: code ?? null } };
  switch (code) {
    case "EACCES":
    case "EPERM":
      return new BridgeError(
        "local_io",
        `Permission denied ${action} ${path}; check the permissions of the file and its folder.`,
        options,
      );
    case "ENOSPC":
    case "EDQUOT":
      return new BridgeError(
        "local_io",
        `No space left on the disk while ${action} ${path}; free some space and try again.`,
        options,
      );
    case "EROFS":
      return new BridgeError(
        "local_io",
        `The disk holding ${path} is read-only; make it writable or choose another destination.`,
        options,
      );
    case "ENOTDIR":
      return new BridgeError("invalid_input", `A folder on the path ${path} is a file; choose another path.`, options);
    case "EISDIR":
      return new BridgeError("invalid_input", `${path} is a folder, not a file; name a file.`, options);
    case "ENAMETOOLONG":
      return new BridgeError(
        "invalid_input",
        `A name in ${path} is too long for the file system; choose a shorter name.`,
        options,
      );
    case "ELOOP":
      return new BridgeError(
        "local_access",
        `${path} passes through too many symlinks (a loop?); name the file directly.`,
        options,
      );
    default:
      return new BridgeError(
        "local_io",
        `Failed ${action} ${path} (${describe(error)}); check that it is accessible and try again.`,
        options,
      );
  }
}
