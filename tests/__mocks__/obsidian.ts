/**
 * A small fake of the `obsidian` module for tests (mapped by jest's moduleNameMapper). It holds
 * only what our code uses; grow it on demand. Real behaviour is tested through the Node host and
 * the emulator.
 */

/** Options of requestUrl, as in Obsidian's API. */
export interface RequestUrlParam {
  url: string;
  method?: string;
  contentType?: string;
  body?: string | ArrayBuffer;
  headers?: Record<string, string>;
  throw?: boolean;
}

/** Response of requestUrl, as in Obsidian's API. */
export interface RequestUrlResponse {
  status: number;
  headers: Record<string, string>;
  arrayBuffer: ArrayBuffer;
  text: string;
  json: unknown;
}

/** The fake requestUrl: a jest function tests can program; by default it fails loudly. */
export const requestUrl = jest.fn((_request: RequestUrlParam | string): Promise<RequestUrlResponse> => {
  return Promise.reject(new Error("requestUrl is not programmed in this test"));
});

/** Obsidian's normalizePath: forward slashes, no duplicate or edge slashes, NBSP to space. */
export function normalizePath(path: string): string {
  let out = path.replace(/[\\/]+/g, "/").replace(/\u00A0|\u202F/g, " ");
  if (out !== "/") out = out.replace(/^\/+|\/+$/g, "");
  return out === "" ? "/" : out;
}

/** Platform flags; tests flip them to exercise the mobile path. */
export const Platform = {
  isDesktop: true,
  isDesktopApp: true,
  isMobile: false,
  isMobileApp: false,
};

/** Records every notice so tests can assert what the user was told. */
export class Notice {
  static readonly shown: string[] = [];
  message: string;
  constructor(message: string | DocumentFragment, _duration?: number) {
    this.message = typeof message === "string" ? message : (message.textContent ?? "");
    Notice.shown.push(this.message);
  }
  setMessage(message: string): this {
    this.message = message;
    return this;
  }
  hide(): void {
    /* nothing to hide in tests */
  }
}

/** Minimal Component with owned cleanups, as in Obsidian. */
export class Component {
  private readonly cleanups: Array<() => unknown> = [];
  load(): void {
    this.onload();
  }
  onload(): void {
    /* overridden */
  }
  unload(): void {
    while (this.cleanups.length > 0) this.cleanups.pop()?.();
    this.onunload();
  }
  onunload(): void {
    /* overridden */
  }
  register(cleanup: () => unknown): void {
    this.cleanups.push(cleanup);
  }
}

/** Minimal Plugin: records what it registers. */
export class Plugin extends Component {
  constructor(
    readonly app: unknown,
    readonly manifest: unknown,
  ) {
    super();
  }
}

// ---- events ----

/** Handle of one registered listener, as in Obsidian (opaque there; here it remembers its slot). */
export interface EventRef {
  /** The event name this listener was registered for (fake only). */
  readonly name: string;
}

interface Listener {
  ref: EventRef;
  callback: (...data: unknown[]) => unknown;
  ctx: unknown;
}

/** Obsidian's Events: named listeners, removable by callback or by reference. */
export class Events {
  private readonly listeners = new Map<string, Listener[]>();
  on(name: string, callback: (...data: unknown[]) => unknown, ctx?: unknown): EventRef {
    const ref: EventRef = { name };
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), { ref, callback, ctx }]);
    return ref;
  }
  off(name: string, callback: (...data: unknown[]) => unknown): void {
    this.listeners.set(name, (this.listeners.get(name) ?? []).filter((l) => l.callback !== callback));
  }
  offref(ref: EventRef): void {
    this.listeners.set(ref.name, (this.listeners.get(ref.name) ?? []).filter((l) => l.ref !== ref));
  }
  trigger(name: string, ...data: unknown[]): void {
    for (const listener of this.listeners.get(name) ?? []) listener.callback.apply(listener.ctx, data);
  }
  tryTrigger(evt: EventRef, args: unknown[]): void {
    const listener = (this.listeners.get(evt.name) ?? []).find((l) => l.ref === evt);
    try {
      listener?.callback.apply(listener.ctx, args);
    } catch {
      /* Obsidian logs and swallows listener failures */
    }
  }
}

// ---- files: one in-memory disk behind both the Vault and its DataAdapter ----

/** Write options, as in Obsidian's API. */
export interface DataWriteOptions {
  ctime?: number;
  mtime?: number;
}

/** File metadata of a TFile, as in Obsidian's API. */
export interface FileStats {
  ctime: number;
  mtime: number;
  size: number;
}

/** Adapter metadata, as in Obsidian's API. */
export interface Stat {
  type: "file" | "folder";
  ctime: number;
  mtime: number;
  size: number;
}

/** Adapter folder listing (vault-relative paths), as in Obsidian's API. */
export interface ListedFiles {
  files: string[];
  folders: string[];
}

type DiskEntry = { type: "file"; data: Uint8Array; ctime: number; mtime: number } | { type: "folder"; ctime: number; mtime: number };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function parentOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut < 0 ? "/" : path.slice(0, cut);
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function copyBuffer(bytes: Uint8Array): ArrayBuffer {
  const out = new Uint8Array(bytes.byteLength);
  out.set(bytes);
  return out.buffer;
}

/** Obsidian hides dot-files and dot-folders from the vault index (they live on disk only). */
function isHidden(path: string): boolean {
  return path.split("/").some((segment) => segment.startsWith("."));
}

/** The in-memory DataAdapter (fake only; Obsidian's are FileSystemAdapter and the mobile adapter). */
export class InMemoryAdapter {
  /** Every entry on the fake disk, by normalised path; the root folder is `/`. */
  readonly entries = new Map<string, DiskEntry>([["/", { type: "folder", ctime: 0, mtime: 0 }]]);
  /** Fake clock: every change advances it by one second, so every write changes mtime. */
  clock = 1_700_000_000_000;
  /** Called after each change so the vault index follows, as Obsidian's file watcher does. */
  onChange: (path: string, oldPath?: string) => void = () => undefined;

  getName(): string {
    return "memory";
  }
  tick(): number {
    this.clock += 1000;
    return this.clock;
  }
  async exists(normalizedPath: string, _sensitive?: boolean): Promise<boolean> {
    return this.entries.has(normalizedPath);
  }
  async stat(normalizedPath: string): Promise<Stat | null> {
    const entry = this.entries.get(normalizedPath);
    if (!entry) return null;
    return { type: entry.type, ctime: entry.ctime, mtime: entry.mtime, size: entry.type === "file" ? entry.data.byteLength : 0 };
  }
  async list(normalizedPath: string): Promise<ListedFiles> {
    const folder = this.entries.get(normalizedPath);
    if (folder?.type !== "folder") throw new Error(`ENOENT: no such folder, scandir '${normalizedPath}'`);
    const out: ListedFiles = { files: [], folders: [] };
    for (const [path, entry] of this.entries) {
      if (path !== "/" && parentOf(path) === normalizedPath) (entry.type === "file" ? out.files : out.folders).push(path);
    }
    return out;
  }
  async read(normalizedPath: string): Promise<string> {
    return decoder.decode(this.fileData(normalizedPath));
  }
  async readBinary(normalizedPath: string): Promise<ArrayBuffer> {
    return copyBuffer(this.fileData(normalizedPath));
  }
  async write(normalizedPath: string, data: string, options?: DataWriteOptions): Promise<void> {
    this.put(normalizedPath, encoder.encode(data), options);
  }
  async writeBinary(normalizedPath: string, data: ArrayBuffer, options?: DataWriteOptions): Promise<void> {
    this.put(normalizedPath, new Uint8Array(data.slice(0)), options);
  }
  async process(normalizedPath: string, fn: (data: string) => string, options?: DataWriteOptions): Promise<string> {
    const next = fn(decoder.decode(this.fileData(normalizedPath)));
    this.put(normalizedPath, encoder.encode(next), options);
    return next;
  }
  /** Creates the folder and its missing parents, like the desktop adapter. */
  async mkdir(normalizedPath: string): Promise<void> {
    const segments = normalizedPath.split("/");
    for (let i = 1; i <= segments.length; i++) {
      const path = segments.slice(0, i).join("/");
      const entry = this.entries.get(path);
      if (entry?.type === "file") throw new Error(`EEXIST: file already exists, mkdir '${path}'`);
      if (!entry) {
        const now = this.tick();
        this.entries.set(path, { type: "folder", ctime: now, mtime: now });
        this.onChange(path);
      }
    }
  }
  async remove(normalizedPath: string): Promise<void> {
    if (this.entries.get(normalizedPath)?.type !== "file") throw new Error(`ENOENT: no such file, unlink '${normalizedPath}'`);
    this.entries.delete(normalizedPath);
    this.onChange(normalizedPath);
  }
  /** Renames a file or folder; refuses an existing destination, as Obsidian's adapters do. */
  async rename(normalizedPath: string, normalizedNewPath: string): Promise<void> {
    if (!this.entries.has(normalizedPath)) throw new Error(`ENOENT: no such file or folder, rename '${normalizedPath}'`);
    if (this.entries.has(normalizedNewPath)) throw new Error("Destination file already exists!");
    if (this.entries.get(parentOf(normalizedNewPath))?.type !== "folder") throw new Error(`ENOENT: no such folder '${parentOf(normalizedNewPath)}'`);
    for (const [path, entry] of [...this.entries]) {
      if (path === normalizedPath || path.startsWith(`${normalizedPath}/`)) {
        this.entries.delete(path);
        this.entries.set(normalizedNewPath + path.slice(normalizedPath.length), entry);
      }
    }
    this.onChange(normalizedNewPath, normalizedPath);
  }

  private fileData(path: string): Uint8Array {
    const entry = this.entries.get(path);
    if (entry?.type !== "file") throw new Error(`ENOENT: no such file, open '${path}'`);
    return entry.data;
  }

  private put(path: string, data: Uint8Array, options?: DataWriteOptions): void {
    const before = this.entries.get(path);
    if (before?.type === "folder") throw new Error(`EISDIR: illegal operation on a directory, open '${path}'`);
    if (this.entries.get(parentOf(path))?.type !== "folder") throw new Error(`ENOENT: no such file or directory, open '${path}'`);
    const now = this.tick();
    this.entries.set(path, { type: "file", data, ctime: options?.ctime ?? before?.ctime ?? now, mtime: options?.mtime ?? now });
    this.onChange(path);
  }
}

/** The desktop adapter: the in-memory disk plus an absolute base path. */
export class FileSystemAdapter extends InMemoryAdapter {
  constructor(private readonly basePath = "/Users/me/Vault") {
    super();
  }
  getBasePath(): string {
    return this.basePath;
  }
}

/** A file or folder in the vault index, as in Obsidian's API. */
export abstract class TAbstractFile {
  vault!: Vault;
  path = "";
  name = "";
  parent: TFolder | null = null;
}

/** A file in the vault index. */
export class TFile extends TAbstractFile {
  stat: FileStats = { ctime: 0, mtime: 0, size: 0 };
  basename = "";
  extension = "";
}

/** A folder in the vault index. */
export class TFolder extends TAbstractFile {
  children: TAbstractFile[] = [];
  isRoot(): boolean {
    return this.path === "/";
  }
}

/**
 * The in-memory Vault: an index of TFile/TFolder over the adapter's disk, kept in step as a file
 * watcher would (dot-paths stay unindexed), with create/modify/delete/rename events.
 */
export class Vault extends Events {
  adapter: InMemoryAdapter;
  configDir = ".obsidian";
  private readonly index = new Map<string, TAbstractFile>();

  constructor(adapter: InMemoryAdapter = new InMemoryAdapter()) {
    super();
    this.adapter = adapter;
    const root = new TFolder();
    Object.assign(root, { vault: this, path: "/", name: "" });
    this.index.set("/", root);
    adapter.onChange = (path, oldPath) => this.sync(path, oldPath);
  }

  getName(): string {
    return "Vault";
  }
  getRoot(): TFolder {
    const root = this.getFolderByPath("/");
    if (!root) throw new Error("the root folder is always indexed");
    return root;
  }
  getFileByPath(path: string): TFile | null {
    const file = this.index.get(path);
    return file instanceof TFile ? file : null;
  }
  getFolderByPath(path: string): TFolder | null {
    const folder = this.index.get(path === "" ? "/" : path);
    return folder instanceof TFolder ? folder : null;
  }
  getAbstractFileByPath(path: string): TAbstractFile | null {
    return this.index.get(path === "" ? "/" : path) ?? null;
  }
  async read(file: TFile): Promise<string> {
    return this.adapter.read(file.path);
  }
  async readBinary(file: TFile): Promise<ArrayBuffer> {
    return this.adapter.readBinary(file.path);
  }
  async create(path: string, data: string, options?: DataWriteOptions): Promise<TFile> {
    this.refuseExisting(path, "File already exists.");
    await this.adapter.write(path, data, options);
    return this.getFileByPath(path) ?? this.fail(path);
  }
  async createBinary(path: string, data: ArrayBuffer, options?: DataWriteOptions): Promise<TFile> {
    this.refuseExisting(path, "File already exists.");
    await this.adapter.writeBinary(path, data, options);
    return this.getFileByPath(path) ?? this.fail(path);
  }
  async createFolder(path: string): Promise<TFolder> {
    this.refuseExisting(path, "Folder already exists.");
    await this.adapter.mkdir(path);
    const folder = this.getFolderByPath(path);
    if (!folder) throw new Error(`Folder ${path} is not indexed`);
    return folder;
  }
  async modify(file: TFile, data: string, options?: DataWriteOptions): Promise<void> {
    await this.adapter.write(file.path, data, options);
  }
  async modifyBinary(file: TFile, data: ArrayBuffer, options?: DataWriteOptions): Promise<void> {
    await this.adapter.writeBinary(file.path, data, options);
  }
  /** Reads, transforms synchronously and writes back; a throwing callback writes nothing. */
  async process(file: TFile, fn: (data: string) => string, options?: DataWriteOptions): Promise<string> {
    return this.adapter.process(file.path, fn, options);
  }
  async rename(file: TAbstractFile, newPath: string): Promise<void> {
    await this.adapter.rename(file.path, newPath);
  }
  async delete(file: TAbstractFile, _force?: boolean): Promise<void> {
    for (const path of [...this.adapter.entries.keys()]) {
      if (path === file.path || path.startsWith(`${file.path}/`)) this.adapter.entries.delete(path);
    }
    this.sync(file.path);
  }

  private refuseExisting(path: string, message: string): void {
    if (this.adapter.entries.has(path)) throw new Error(message);
  }

  private fail(path: string): never {
    throw new Error(`${path} is not indexed`);
  }

  /** Brings the index in line with the disk for one path (and what moved away from `oldPath`). */
  private sync(path: string, oldPath?: string): void {
    if (oldPath !== undefined) {
      const moved = [...this.index.entries()].filter(([p]) => p === oldPath || p.startsWith(`${oldPath}/`));
      for (const [p, file] of moved) {
        this.index.delete(p);
        this.detach(file);
      }
      for (const [p, file] of moved) {
        const next = path + p.slice(oldPath.length);
        if (isHidden(next)) continue;
        file.path = next;
        file.name = nameOf(next);
        this.index.set(next, file);
        this.attach(file);
      }
      const top = moved.find(([p]) => p === oldPath)?.[1];
      if (top && !isHidden(path)) this.trigger("rename", top, oldPath);
      return;
    }
    for (const [p, file] of [...this.index]) {
      if ((p === path || p.startsWith(`${path}/`)) && !this.adapter.entries.has(p)) {
        this.index.delete(p);
        this.detach(file);
        this.trigger("delete", file);
      }
    }
    const entry = this.adapter.entries.get(path);
    if (!entry || isHidden(path)) return;
    const known = this.index.get(path);
    if (entry.type === "file") {
      const file = known instanceof TFile ? known : new TFile();
      const name = nameOf(path);
      const dot = name.lastIndexOf(".");
      Object.assign(file, { vault: this, path, name, basename: dot > 0 ? name.slice(0, dot) : name, extension: dot > 0 ? name.slice(dot + 1) : "" });
      file.stat = { ctime: entry.ctime, mtime: entry.mtime, size: entry.data.byteLength };
      if (known) {
        this.trigger("modify", file);
        return;
      }
      this.index.set(path, file);
      this.attach(file);
      this.trigger("create", file);
    } else if (!known) {
      const folder = new TFolder();
      Object.assign(folder, { vault: this, path, name: nameOf(path) });
      this.index.set(path, folder);
      this.attach(folder);
      this.trigger("create", folder);
    }
  }

  private attach(file: TAbstractFile): void {
    const parent = this.getFolderByPath(parentOf(file.path));
    file.parent = parent;
    parent?.children.push(file);
  }

  private detach(file: TAbstractFile): void {
    if (file.parent) file.parent.children = file.parent.children.filter((child) => child !== file);
    file.parent = null;
  }
}

/** FileManager: only trashFile, which here deletes a file (the fake has no trash setting). */
export class FileManager {
  constructor(private readonly vault: Vault) {}
  async trashFile(file: TAbstractFile): Promise<void> {
    await this.vault.adapter.remove(file.path);
  }
}

/** Obsidian's app-wide secret storage (since 1.11.4): ids are lowercase letters, digits and dashes. */
export class SecretStorage extends Events {
  private readonly secrets = new Map<string, string>();
  setSecret(id: string, secret: string): void {
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id)) throw new Error(`Invalid secret id: ${id}`);
    this.secrets.set(id, secret);
  }
  getSecret(id: string): string | null {
    return this.secrets.get(id) ?? null;
  }
  listSecrets(): string[] {
    return [...this.secrets.keys()];
  }
}

/** The App: a vault, its file manager, secret storage and vault-scoped local storage (JSON). */
export class App {
  vault: Vault;
  fileManager: FileManager;
  secretStorage = new SecretStorage();
  private readonly local = new Map<string, string>();

  constructor(adapter: InMemoryAdapter = new InMemoryAdapter()) {
    this.vault = new Vault(adapter);
    this.fileManager = new FileManager(this.vault);
  }
  /** Obsidian declares `any | null`; the fake returns what was saved, parsed again. */
  loadLocalStorage(key: string): unknown {
    const text = this.local.get(key);
    return text === undefined ? null : JSON.parse(text);
  }
  saveLocalStorage(key: string, data: unknown): void {
    if (data === null) this.local.delete(key);
    else this.local.set(key, JSON.stringify(data));
  }
}
