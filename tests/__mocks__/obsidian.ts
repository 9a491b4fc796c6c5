/**
 * A small fake of the `obsidian` module for tests (mapped by jest's moduleNameMapper). It holds
 * only what `src/` and the tests use, with signatures as in `node_modules/obsidian/obsidian.d.ts`;
 * grow it on demand and remove what nothing uses. Members marked "fake only" are the tests'
 * handles (what was registered, shown or opened), not Obsidian API. Real behaviour is tested
 * through the Node host and the emulator; this fake models the host behaviour that bites a sync
 * plugin:
 *
 * - One in-memory disk behind both the Vault and its DataAdapter; every write advances a fake
 *   clock by a second, so every write changes mtime. The vault index follows the disk as a file
 *   watcher would (dot-paths stay unindexed) and fires create/modify/delete/rename per file.
 * - Open editors. `workspace.getLeaf().openFile(file)` opens a `.md` file in a MarkdownView whose
 *   `editor` the test can type into (`editor.setValue`, `replaceRange`); each edit fires the
 *   workspace's `editor-change` (editor, view). Typing does not touch the
 *   disk: it requests a save that runs 2 s after the last keystroke, on `workspace.timers`, which
 *   the test advances by hand (`await app.workspace.timers.advance(2000)`), so "later" is
 *   deterministic while the loopback requests run on real time. `view.save()` writes the editor's
 *   text through `Vault.modify` now, and only when it differs from what the view last loaded or
 *   saved (Obsidian keeps that privately as `lastSavedData`; the fake exposes it).
 * - A change of an open file on disk (any write, through the vault or the adapter): a clean view
 *   reloads the new text, as Obsidian does. A dirty view KEEPS its text and does not reload, so
 *   its pending save later overwrites the disk with the text the user typed on top of the old
 *   version. That is the conservative case, the one that loses a pull.
 * - Custom views: `Plugin.registerView` registers a factory with the workspace (removed on
 *   unload); `leaf.setViewState({ type, state })` creates the view (`load`, `onOpen`, then
 *   `setState`), or only calls `setState` when the leaf already shows that type, as Obsidian does;
 *   `leaf.open(view)` puts a view object in the leaf the same way; `leaf.detach()` runs `onClose`
 *   and unloads. `getActiveViewOfType` answers for the active leaf.
 * - Secret storage and `SecretComponent`: the component is a dropdown of the stored secret ids
 *   (Obsidian's is a keychain picker that can also create a secret); tests pick by a `change`
 *   event on its select.
 * - The plugin's surfaces as records tests can read and click: notices (`Notice.shown`), open
 *   modals (`Modal.opened`), commands, ribbon icons, status-bar items and menu items. Modals,
 *   settings and views render into real DOM (jsdom in the `dom` project).
 *
 * What it does not model: Obsidian's merge of an external change into a dirty editor (recent
 * versions apply the change to the editor as a transaction, which may or may not keep the typing),
 * the watcher's delay for changes made outside Obsidian (here the index follows at once), CRLF
 * handling in the editor, preview mode, cursor and undo state, several windows, deferred leaves
 * (every leaf is loaded), view history and the layout's saving and restoring, modal key scopes
 * (hotkeys), fuzzy search in pickers, the trash setting (`trashFile` deletes), CSS and layout
 * (nothing is measured), and the metadata cache. Renames keep the TFile object, so an open view
 * follows its file.
 */

import { TextDecoder as NodeTextDecoder, TextEncoder as NodeTextEncoder } from "node:util";

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
  /** Removes the listener on unload, as in Obsidian. */
  registerEvent(eventRef: EventRef): void {
    this.register(() => eventRef.owner?.offref(eventRef));
  }
  /** Adds a DOM listener removed on unload, as in Obsidian. */
  registerDomEvent<K extends keyof HTMLElementEventMap>(
    el: HTMLElement,
    type: K,
    callback: (this: HTMLElement, ev: HTMLElementEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void {
    el.addEventListener(type, callback, options);
    this.register(() => el.removeEventListener(type, callback, options));
  }
  /** Clears the interval on unload, as in Obsidian; returns the id. */
  registerInterval(id: number): number {
    this.register(() => clearInterval(id as unknown as NodeJS.Timeout));
    return id;
  }
}

/** A command, as in Obsidian's API. */
export interface Command {
  id: string;
  name: string;
  icon?: string;
  hotkeys?: unknown[];
  callback?: () => unknown;
  checkCallback?: (checking: boolean) => boolean | void;
}

/** A status-bar element: only the text, attributes, classes and click listeners the plugin uses (fake only). */
export class FakeStatusBarItem {
  text = "";
  readonly attrs = new Map<string, string>();
  readonly classes = new Set<string>();
  private readonly listeners = new Map<string, Set<(evt: unknown) => unknown>>();
  setText(text: string): void {
    this.text = text;
  }
  setAttr(name: string, value: string | null): void {
    if (value === null) this.attrs.delete(name);
    else this.attrs.set(name, value);
  }
  toggleClass(classes: string | string[], value: boolean): void {
    for (const cls of Array.isArray(classes) ? classes : [classes]) {
      if (value) this.classes.add(cls);
      else this.classes.delete(cls);
    }
  }
  hasClass(cls: string): boolean {
    return this.classes.has(cls);
  }
  addEventListener(type: string, callback: (evt: unknown) => unknown): void {
    const set = this.listeners.get(type) ?? new Set();
    set.add(callback);
    this.listeners.set(type, set);
  }
  removeEventListener(type: string, callback: (evt: unknown) => unknown): void {
    this.listeners.get(type)?.delete(callback);
  }
  /** Clicks the item (fake only): runs the click listeners. */
  click(): void {
    for (const listener of this.listeners.get("click") ?? []) listener({ type: "click" });
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
  /** Settings tabs added with addSettingTab (fake only). */
  readonly settingTabs: unknown[] = [];
  /** View factories registered with registerView, by type (fake only). */
  readonly views = new Map<string, (leaf: never) => unknown>();
  /** Commands added with addCommand, in order (fake only). */
  readonly commands: Command[] = [];
  /** Ribbon icons added with addRibbonIcon (fake only). */
  readonly ribbonIcons: Array<{ icon: string; title: string; callback: (evt: MouseEvent) => unknown }> = [];
  /** Status-bar items added with addStatusBarItem (fake only). */
  readonly statusBarItems: FakeStatusBarItem[] = [];
  /** The content of data.json (fake only; undefined when the file is missing). */
  data: unknown = undefined;
  addCommand(command: Command): Command {
    this.commands.push(command);
    return command;
  }
  addRibbonIcon(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
    this.ribbonIcons.push({ icon, title, callback });
    return {} as HTMLElement;
  }
  addStatusBarItem(): FakeStatusBarItem {
    const item = new FakeStatusBarItem();
    this.statusBarItems.push(item);
    this.register(() => this.statusBarItems.splice(this.statusBarItems.indexOf(item), 1));
    return item;
  }
  async loadData(): Promise<unknown> {
    return this.data === undefined ? null : JSON.parse(JSON.stringify(this.data));
  }
  async saveData(data: unknown): Promise<void> {
    this.data = JSON.parse(JSON.stringify(data));
  }
  addSettingTab(settingTab: unknown): void {
    this.settingTabs.push(settingTab);
  }
  registerView(type: string, viewCreator: (leaf: never) => unknown): void {
    this.views.set(type, viewCreator);
    const workspace = (this.app as { workspace?: Workspace } | null)?.workspace;
    if (workspace instanceof Workspace) {
      workspace.viewFactories.set(type, viewCreator as (leaf: WorkspaceLeaf) => View);
      this.register(() => {
        workspace.viewFactories.delete(type);
        for (const leaf of workspace.getLeavesOfType(type)) leaf.detach();
      });
    }
  }
}

// ---- events ----

/** Handle of one registered listener, as in Obsidian (opaque there; here it remembers its slot). */
export interface EventRef {
  /** The event name this listener was registered for (fake only). */
  readonly name: string;
  /** The emitter, so registerEvent can remove the listener on unload (fake only). */
  readonly owner?: Events;
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
    const ref: EventRef = { name, owner: this };
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), { ref, callback, ctx }]);
    return ref;
  }
  off(name: string, callback: (...data: unknown[]) => unknown): void {
    this.listeners.set(
      name,
      (this.listeners.get(name) ?? []).filter((l) => l.callback !== callback),
    );
  }
  /** How many listeners an event has (fake only; tests check unload). */
  listenerCount(name: string): number {
    return this.listeners.get(name)?.length ?? 0;
  }
  offref(ref: EventRef): void {
    this.listeners.set(
      ref.name,
      (this.listeners.get(ref.name) ?? []).filter((l) => l.ref !== ref),
    );
  }
  trigger(name: string, ...data: unknown[]): void {
    for (const listener of this.listeners.get(name) ?? []) listener.callback.apply(listener.ctx, data);
  }
  /** Kept so the fake's SecretStorage passes where code takes Obsidian's type (it extends Events). */
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

type DiskEntry =
  { type: "file"; data: Uint8Array; ctime: number; mtime: number } | { type: "folder"; ctime: number; mtime: number };

// Node's encoders: the dom project's jsdom has no global TextEncoder (Obsidian and Node do).
const encoder = new NodeTextEncoder();
const decoder = new NodeTextDecoder();

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
    return {
      type: entry.type,
      ctime: entry.ctime,
      mtime: entry.mtime,
      size: entry.type === "file" ? entry.data.byteLength : 0,
    };
  }
  async list(normalizedPath: string): Promise<ListedFiles> {
    const folder = this.entries.get(normalizedPath);
    if (folder?.type !== "folder") throw new Error(`ENOENT: no such folder, scandir '${normalizedPath}'`);
    const out: ListedFiles = { files: [], folders: [] };
    for (const [path, entry] of this.entries) {
      if (path !== "/" && parentOf(path) === normalizedPath)
        (entry.type === "file" ? out.files : out.folders).push(path);
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
        this.touchParent(path, now);
        this.onChange(path);
      }
    }
  }
  async remove(normalizedPath: string): Promise<void> {
    if (this.entries.get(normalizedPath)?.type !== "file")
      throw new Error(`ENOENT: no such file, unlink '${normalizedPath}'`);
    this.entries.delete(normalizedPath);
    this.touchParent(normalizedPath, this.tick());
    this.onChange(normalizedPath);
  }
  /**
   * Moves a file into the vault's `.trash` folder (Obsidian's "Move to Obsidian trash"), keeping
   * its name, numbered when the name is taken. Whether the real adapter numbers the same way is
   * not modelled; only that nothing is deleted.
   */
  async trashLocal(normalizedPath: string): Promise<void> {
    if (this.entries.get(normalizedPath)?.type !== "file")
      throw new Error(`ENOENT: no such file, trash '${normalizedPath}'`);
    if (!this.entries.has(".trash")) await this.mkdir(".trash");
    const base = normalizedPath.slice(normalizedPath.lastIndexOf("/") + 1);
    const stem = base.replace(/\.md$/i, "");
    let name = base;
    for (let n = 2; this.entries.has(`.trash/${name}`); n += 1) name = `${stem} ${n}.md`;
    await this.rename(normalizedPath, `.trash/${name}`);
  }
  /** Renames a file or folder; refuses an existing destination, as Obsidian's adapters do. */
  async rename(normalizedPath: string, normalizedNewPath: string): Promise<void> {
    if (!this.entries.has(normalizedPath))
      throw new Error(`ENOENT: no such file or folder, rename '${normalizedPath}'`);
    if (this.entries.has(normalizedNewPath)) throw new Error("Destination file already exists!");
    if (this.entries.get(parentOf(normalizedNewPath))?.type !== "folder")
      throw new Error(`ENOENT: no such folder '${parentOf(normalizedNewPath)}'`);
    for (const [path, entry] of [...this.entries]) {
      if (path === normalizedPath || path.startsWith(`${normalizedPath}/`)) {
        this.entries.delete(path);
        this.entries.set(normalizedNewPath + path.slice(normalizedPath.length), entry);
      }
    }
    const now = this.tick();
    this.touchParent(normalizedPath, now);
    this.touchParent(normalizedNewPath, now);
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
    if (this.entries.get(parentOf(path))?.type !== "folder")
      throw new Error(`ENOENT: no such file or directory, open '${path}'`);
    const now = this.tick();
    this.entries.set(path, {
      type: "file",
      data,
      ctime: options?.ctime ?? before?.ctime ?? now,
      mtime: options?.mtime ?? now,
    });
    if (!before) this.touchParent(path, now);
    this.onChange(path);
  }

  /** A folder's times change when an entry in it is created, removed or renamed, as on a real disk. */
  private touchParent(path: string, now: number): void {
    const parent = this.entries.get(parentOf(path));
    if (parent?.type === "folder") this.entries.set(parentOf(path), { ...parent, mtime: now, ctime: now });
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

  getFiles(): TFile[] {
    return [...this.index.values()].filter((entry): entry is TFile => entry instanceof TFile);
  }
  getFileByPath(path: string): TFile | null {
    const file = this.index.get(path);
    return file instanceof TFile ? file : null;
  }
  getFolderByPath(path: string): TFolder | null {
    const folder = this.index.get(path === "" ? "/" : path);
    return folder instanceof TFolder ? folder : null;
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
      Object.assign(file, {
        vault: this,
        path,
        name,
        basename: dot > 0 ? name.slice(0, dot) : name,
        extension: dot > 0 ? name.slice(dot + 1) : "",
      });
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

/**
 * Timers under the test's control (fake only): the editors' delayed saves run on them, so a test
 * decides when "two seconds later" is. `advance(ms)` runs every timer that falls due, earliest
 * first, and waits for whatever each returns (a save) before the next.
 */
export class ManualTimers {
  private now = 0;
  private nextId = 1;
  private readonly waiting = new Map<number, { at: number; callback: () => unknown }>();
  setTimeout(callback: () => unknown, ms: number): number {
    const id = this.nextId++;
    this.waiting.set(id, { at: this.now + Math.max(0, ms), callback });
    return id;
  }
  clearTimeout(id: number | undefined): void {
    if (id !== undefined) this.waiting.delete(id);
  }
  /** How many timers are waiting. */
  get pending(): number {
    return this.waiting.size;
  }
  /** Moves the clock `ms` forward, running the timers that fall due on the way. */
  async advance(ms: number): Promise<void> {
    const until = this.now + ms;
    for (;;) {
      let next: [number, { at: number; callback: () => unknown }] | undefined;
      for (const entry of this.waiting)
        if (entry[1].at <= until && (next === undefined || entry[1].at < next[1].at)) next = entry;
      if (next === undefined) break;
      this.waiting.delete(next[0]);
      this.now = next[1].at;
      await next[1].callback();
    }
    this.now = until;
  }
}

/** The workspace: leaves and their views, the active file, `file-open` / `file-menu` events, layout-ready callbacks. */
export class Workspace extends Events {
  /** Files opened with a leaf's openFile, in order (fake only). */
  readonly opened: string[] = [];
  /** The timers of the editors' delayed saves (fake only; Obsidian uses window timers). */
  readonly timers = new ManualTimers();
  /** View factories registered by plugins, by view type (fake only; Obsidian keeps a view registry). */
  readonly viewFactories = new Map<string, (leaf: WorkspaceLeaf) => View>();
  private readonly leaves: WorkspaceLeaf[] = [];
  private activeLeaf: WorkspaceLeaf | null = null;
  private active: TFile | null = null;
  constructor(
    private readonly vault: Vault,
    private readonly app: App,
  ) {
    super();
  }
  getActiveFile(): TFile | null {
    return this.active;
  }
  /** Makes `path` the active file and fires `file-open`, as opening it in the editor would (fake only). */
  openPath(path: string | null): void {
    this.active = path === null ? null : this.vault.getFileByPath(path);
    this.trigger("file-open", this.active);
  }
  /** Runs the callback at once: the fake layout is always ready. */
  onLayoutReady(callback: () => unknown): void {
    callback();
  }
  /** The active leaf, or a new one when asked for (any truthy `newLeaf`) or when there is none. */
  getLeaf(newLeaf?: boolean | "tab" | "split" | "window"): WorkspaceLeaf {
    if (!newLeaf && this.activeLeaf !== null) return this.activeLeaf;
    const leaf = new WorkspaceLeaf(this.app);
    this.leaves.push(leaf);
    this.activeLeaf = leaf;
    return leaf;
  }
  /** Opens a file in a new leaf and returns its Markdown view (fake only; `.md` files). */
  async openInEditor(path: string): Promise<MarkdownView> {
    const file = this.vault.getFileByPath(path);
    if (file === null) throw new Error(`no file ${path}`);
    const leaf = this.getLeaf(true);
    await leaf.openFile(file);
    if (!(leaf.view instanceof MarkdownView)) throw new Error(`${path} did not open in a Markdown view`);
    return leaf.view;
  }
  /** A leaf in the right sidebar (fake: a new leaf). */
  getRightLeaf(_split: boolean): WorkspaceLeaf | null {
    return this.getLeaf(true);
  }
  /** Makes the leaf the active one (the fake has no sidebars to expand). */
  async revealLeaf(leaf: WorkspaceLeaf): Promise<void> {
    this.setActiveLeaf(leaf);
    await Promise.resolve();
  }
  /** Makes a leaf active (fake: no focus handling). */
  setActiveLeaf(leaf: WorkspaceLeaf, _params?: { focus?: boolean }): void {
    if (this.leaves.includes(leaf)) this.activeLeaf = leaf;
  }
  /** The active leaf's view when it is of that class. */
  getActiveViewOfType<T extends View>(type: abstract new (...args: never[]) => T): T | null {
    const view = this.activeLeaf?.view;
    return view instanceof type ? view : null;
  }
  iterateAllLeaves(callback: (leaf: WorkspaceLeaf) => unknown): void {
    for (const leaf of [...this.leaves]) callback(leaf);
  }
  getLeavesOfType(viewType: string): WorkspaceLeaf[] {
    return this.leaves.filter((leaf) => leaf.view?.getViewType() === viewType);
  }
  /** Forgets a detached leaf (fake only; called by `WorkspaceLeaf.detach`). */
  removeLeaf(leaf: WorkspaceLeaf): void {
    const at = this.leaves.indexOf(leaf);
    if (at >= 0) this.leaves.splice(at, 1);
    if (this.activeLeaf === leaf) this.activeLeaf = this.leaves.at(-1) ?? null;
  }
}

/** A menu item; records its title and click callback (fake only). */
export class MenuItem {
  title = "";
  icon: string | null = null;
  callback: (evt: MouseEvent | KeyboardEvent) => unknown = () => undefined;
  setTitle(title: string): this {
    this.title = title;
    return this;
  }
  setIcon(icon: string | null): this {
    this.icon = icon;
    return this;
  }
  setSection(_section: string): this {
    return this;
  }
  onClick(callback: (evt: MouseEvent | KeyboardEvent) => unknown): this {
    this.callback = callback;
    return this;
  }
}

/** A context menu: records its items (fake only); showing it does nothing. */
export class Menu extends Component {
  readonly items: MenuItem[] = [];
  addItem(cb: (item: MenuItem) => unknown): this {
    const item = new MenuItem();
    cb(item);
    this.items.push(item);
    return this;
  }
  showAtMouseEvent(_evt: MouseEvent): this {
    return this;
  }
}

/** The App: a vault, its file manager, secret storage and vault-scoped local storage (JSON). */
export class App {
  vault: Vault;
  fileManager: FileManager;
  secretStorage = new SecretStorage();
  private readonly local = new Map<string, string>();

  workspace: Workspace;

  constructor(adapter: InMemoryAdapter = new InMemoryAdapter()) {
    this.vault = new Vault(adapter);
    this.fileManager = new FileManager(this.vault);
    this.workspace = new Workspace(this.vault, this);
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

// ---- settings tab, modal, view and components (DOM-backed: build them in *.dom.test.ts) ----

/** A detached element when a DOM exists (dom tests); null in the node project, where nothing renders. */
function detached(tag: keyof HTMLElementTagNameMap): HTMLElement {
  return (typeof document === "undefined" ? null : document.createElement(tag)) as HTMLElement;
}

/** Base of every component, as in Obsidian. */
export class BaseComponent {
  disabled = false;
  then(cb: (component: this) => unknown): this {
    cb(this);
    return this;
  }
  setDisabled(disabled: boolean): this {
    this.disabled = disabled;
    return this;
  }
}

/** A button; `buttonEl.click()` runs the click callback. */
export class ButtonComponent extends BaseComponent {
  buttonEl: HTMLButtonElement;
  constructor(containerEl: HTMLElement) {
    super();
    this.buttonEl = containerEl.createEl("button");
  }
  override setDisabled(disabled: boolean): this {
    this.buttonEl.disabled = disabled;
    return super.setDisabled(disabled);
  }
  setCta(): this {
    this.buttonEl.addClass("mod-cta");
    return this;
  }
  setWarning(): this {
    this.buttonEl.addClass("mod-warning");
    return this;
  }
  /** Since 1.13; the fake styles it as Obsidian's warning buttons. */
  setDestructive(): this {
    this.buttonEl.addClass("mod-warning");
    return this;
  }
  setTooltip(tooltip: string): this {
    this.buttonEl.setAttribute("aria-label", tooltip);
    return this;
  }
  setButtonText(name: string): this {
    this.buttonEl.setText(name);
    return this;
  }
  setIcon(_icon: string): this {
    return this;
  }
  setClass(cls: string): this {
    this.buttonEl.addClass(cls);
    return this;
  }
  onClick(callback: (evt: MouseEvent) => unknown): this {
    this.buttonEl.addEventListener("click", (evt) => void callback(evt));
    return this;
  }
}

/** An icon button; `extraSettingsEl.click()` runs the click callback. */
export class ExtraButtonComponent extends BaseComponent {
  extraSettingsEl: HTMLElement;
  constructor(containerEl: HTMLElement) {
    super();
    this.extraSettingsEl = containerEl.createDiv({ cls: ["clickable-icon", "extra-setting-button"] });
  }
  setTooltip(tooltip: string): this {
    this.extraSettingsEl.setAttribute("aria-label", tooltip);
    return this;
  }
  setIcon(_icon: string): this {
    return this;
  }
  onClick(callback: () => unknown): this {
    this.extraSettingsEl.addEventListener("click", () => void callback());
    return this;
  }
}

/** A component holding a value, as in Obsidian. */
export abstract class ValueComponent<T> extends BaseComponent {
  abstract getValue(): T;
  abstract setValue(value: T): this;
}

/** A toggle; `toggleEl.click()` flips it and runs the change callback (setValue does not). */
export class ToggleComponent extends ValueComponent<boolean> {
  toggleEl: HTMLElement;
  private value = false;
  private changed: (value: boolean) => unknown = () => undefined;
  constructor(containerEl: HTMLElement) {
    super();
    this.toggleEl = containerEl.createDiv({ cls: "checkbox-container" });
    this.toggleEl.addEventListener("click", () => {
      if (this.disabled) return;
      this.setValue(!this.value);
      void this.changed(this.value);
    });
  }
  getValue(): boolean {
    return this.value;
  }
  setValue(on: boolean): this {
    this.value = on;
    this.toggleEl.toggleClass("is-enabled", on);
    return this;
  }
  setTooltip(tooltip: string): this {
    this.toggleEl.setAttribute("aria-label", tooltip);
    return this;
  }
  onChange(callback: (value: boolean) => unknown): this {
    this.changed = callback;
    return this;
  }
}

/** A text area; an `input` event runs the change callback (as TextComponent, on a `textarea`). */
export class TextAreaComponent extends ValueComponent<string> {
  inputEl: HTMLTextAreaElement;
  private changed: (value: string) => unknown = () => undefined;
  constructor(containerEl: HTMLElement) {
    super();
    this.inputEl = containerEl.createEl("textarea");
    this.inputEl.addEventListener("input", () => void this.changed(this.getValue()));
  }
  getValue(): string {
    return this.inputEl.value;
  }
  setValue(value: string): this {
    this.inputEl.value = value;
    return this;
  }
  setPlaceholder(placeholder: string): this {
    this.inputEl.placeholder = placeholder;
    return this;
  }
  onChange(callback: (value: string) => unknown): this {
    this.changed = callback;
    return this;
  }
}

/** A text input; an `input` event runs the change callback. */
export class TextComponent extends ValueComponent<string> {
  inputEl: HTMLInputElement;
  private changed: (value: string) => unknown = () => undefined;
  constructor(containerEl: HTMLElement) {
    super();
    this.inputEl = containerEl.createEl("input", { type: "text" });
    this.inputEl.addEventListener("input", () => this.onChanged());
  }
  getValue(): string {
    return this.inputEl.value;
  }
  setValue(value: string): this {
    this.inputEl.value = value;
    return this;
  }
  setPlaceholder(placeholder: string): this {
    this.inputEl.placeholder = placeholder;
    return this;
  }
  override setDisabled(disabled: boolean): this {
    this.inputEl.disabled = disabled;
    return super.setDisabled(disabled);
  }
  onChanged(): void {
    void this.changed(this.getValue());
  }
  onChange(callback: (value: string) => unknown): this {
    this.changed = callback;
    return this;
  }
}

/** A dropdown; a `change` event on `selectEl` runs the change callback. */
export class DropdownComponent extends ValueComponent<string> {
  selectEl: HTMLSelectElement;
  private changed: (value: string) => unknown = () => undefined;
  constructor(containerEl: HTMLElement) {
    super();
    this.selectEl = containerEl.createEl("select", { cls: "dropdown" });
    this.selectEl.addEventListener("change", () => void this.changed(this.selectEl.value));
  }
  addOption(value: string, display: string): this {
    this.selectEl.createEl("option", { value, text: display });
    return this;
  }
  getValue(): string {
    return this.selectEl.value;
  }
  setValue(value: string): this {
    this.selectEl.value = value;
    return this;
  }
  onChange(callback: (value: string) => unknown): this {
    this.changed = callback;
    return this;
  }
}

/**
 * Obsidian's secret picker (since 1.11.1): its value is the id of a secret in `app.secretStorage`,
 * never the secret. The fake shows a dropdown of the stored ids; `choose(id)` picks one as the
 * user would (Obsidian's also creates and shares secrets from the keychain UI).
 */
export class SecretComponent extends BaseComponent {
  readonly selectEl: HTMLSelectElement;
  private value = "";
  private changed: (value: string) => unknown = () => undefined;
  constructor(
    private readonly app: App,
    containerEl: HTMLElement,
  ) {
    super();
    this.selectEl = containerEl.createEl("select", { cls: "fake-secret-component" });
    this.refresh();
    this.selectEl.addEventListener("change", () => this.choose(this.selectEl.value));
  }
  setValue(value: string): this {
    this.value = value;
    this.refresh();
    return this;
  }
  onChange(cb: (value: string) => unknown): this {
    this.changed = cb;
    return this;
  }
  /** The id shown (fake only). */
  getValue(): string {
    return this.value;
  }
  /** Picks a secret id as the user would (fake only); `""` unlinks. */
  choose(id: string): void {
    this.value = id;
    this.refresh();
    void this.changed(id);
  }
  private refresh(): void {
    if (!this.selectEl) return;
    this.selectEl.empty();
    this.selectEl.createEl("option", { text: "No secret", attr: { value: "" } });
    for (const id of this.app.secretStorage.listSecrets())
      this.selectEl.createEl("option", { text: id, attr: { value: id } });
    this.selectEl.value = this.value;
  }
}

/** One settings row, as in Obsidian (`setDesc` replaces the description's content). */
export class Setting {
  settingEl: HTMLElement;
  infoEl: HTMLElement;
  nameEl: HTMLElement;
  descEl: HTMLElement;
  controlEl: HTMLElement;
  components: BaseComponent[] = [];
  constructor(containerEl: HTMLElement) {
    this.settingEl = containerEl.createDiv({ cls: "setting-item" });
    this.infoEl = this.settingEl.createDiv({ cls: "setting-item-info" });
    this.nameEl = this.infoEl.createDiv({ cls: "setting-item-name" });
    this.descEl = this.infoEl.createDiv({ cls: "setting-item-description" });
    this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
  }
  setName(name: string | DocumentFragment): this {
    this.nameEl.empty();
    this.nameEl.append(name);
    return this;
  }
  setDesc(desc: string | DocumentFragment): this {
    this.descEl.empty();
    this.descEl.append(desc);
    return this;
  }
  setClass(cls: string): this {
    this.settingEl.addClass(cls);
    return this;
  }
  setTooltip(tooltip: string): this {
    this.nameEl.setAttribute("aria-label", tooltip);
    return this;
  }
  setHeading(): this {
    this.settingEl.addClass("setting-item-heading");
    return this;
  }
  setDisabled(disabled: boolean): this {
    this.settingEl.toggleClass("is-disabled", disabled);
    for (const component of this.components) component.setDisabled(disabled);
    return this;
  }
  addButton(cb: (component: ButtonComponent) => unknown): this {
    return this.add(new ButtonComponent(this.controlEl), cb);
  }
  addExtraButton(cb: (component: ExtraButtonComponent) => unknown): this {
    return this.add(new ExtraButtonComponent(this.controlEl), cb);
  }
  addToggle(cb: (component: ToggleComponent) => unknown): this {
    return this.add(new ToggleComponent(this.controlEl), cb);
  }
  addText(cb: (component: TextComponent) => unknown): this {
    return this.add(new TextComponent(this.controlEl), cb);
  }
  addTextArea(cb: (component: TextAreaComponent) => unknown): this {
    return this.add(new TextAreaComponent(this.controlEl), cb);
  }
  addDropdown(cb: (component: DropdownComponent) => unknown): this {
    return this.add(new DropdownComponent(this.controlEl), cb);
  }
  addComponent<T extends BaseComponent>(cb: (el: HTMLElement) => T): this {
    this.components.push(cb(this.controlEl));
    return this;
  }
  private add<T extends BaseComponent>(component: T, cb: (component: T) => unknown): this {
    this.components.push(component);
    cb(component);
    return this;
  }
}

/** A settings tab, as in Obsidian: `display()` renders into `containerEl`; `hide()` empties it. */
export abstract class SettingTab {
  icon = "";
  app: App;
  containerEl: HTMLElement = detached("div");
  constructor(app: App) {
    this.app = app;
  }
  getSettingDefinitions(): unknown[] {
    return [];
  }
  display(): void {
    /* overridden */
  }
  hide(): void {
    this.containerEl?.empty();
  }
}

/** A plugin's settings tab. */
export abstract class PluginSettingTab extends SettingTab {
  plugin: Plugin;
  constructor(app: App, plugin: Plugin) {
    super(app);
    this.plugin = plugin;
  }
}

/** A modal: `open()` runs onOpen, `close()` runs onClose; every open modal is listed in `Modal.opened`. */
export class Modal {
  static readonly opened: Modal[] = [];
  app: App;
  containerEl: HTMLElement = detached("div");
  titleEl: HTMLElement = detached("div");
  contentEl: HTMLElement = detached("div");
  constructor(app: App) {
    this.app = app;
  }
  open(): void {
    Modal.opened.push(this);
    void this.onOpen();
  }
  close(): void {
    const at = Modal.opened.indexOf(this);
    if (at < 0) return;
    Modal.opened.splice(at, 1);
    this.onClose();
  }
  onOpen(): Promise<void> | void {
    /* overridden */
  }
  onClose(): void {
    /* overridden */
  }
  setTitle(title: string): this {
    this.titleEl?.setText(title);
    return this;
  }
}

/** A position in an editor, as in Obsidian's API. */
export interface EditorPosition {
  line: number;
  ch: number;
}

/**
 * The editor of a Markdown view (Obsidian's abstract Editor; only what tests type with). An edit
 * changes the view's text, never the disk, and requests the view's delayed save, as typing does.
 */
export class Editor {
  private text = "";
  /** `edited` runs after every edit (fake only: the view requests its save). */
  constructor(private readonly edited: () => void = () => undefined) {}
  getValue(): string {
    return this.text;
  }
  /** Replaces the whole text, as a user edit. */
  setValue(content: string): void {
    this.text = content;
    this.edited();
  }
  /** Replaces the text between two positions (or inserts at `from`), as a user edit. */
  replaceRange(replacement: string, from: EditorPosition, to?: EditorPosition, _origin?: string): void {
    const start = this.offset(from);
    const end = to === undefined ? start : this.offset(to);
    this.text = this.text.slice(0, start) + replacement + this.text.slice(end);
    this.edited();
  }
  /** Sets the text without an edit, as loading the file does (fake only). */
  load(content: string): void {
    this.text = content;
  }
  private offset(pos: EditorPosition): number {
    const lines = this.text.split("\n");
    let at = 0;
    for (let i = 0; i < Math.min(pos.line, lines.length); i++) at += (lines[i]?.length ?? 0) + 1;
    return Math.min(this.text.length, at + pos.ch);
  }
}

/** A view in a leaf, as in Obsidian. */
export abstract class View extends Component {
  app: App;
  icon = "";
  navigation = false;
  containerEl: HTMLElement = detached("div");
  constructor(readonly leaf: WorkspaceLeaf) {
    super();
    this.app = leaf.app;
  }
  abstract getViewType(): string;
  abstract getDisplayText(): string;
  getIcon(): string {
    return this.icon;
  }
  async onOpen(): Promise<void> {
    /* overridden */
  }
  async onClose(): Promise<void> {
    /* overridden */
  }
  async setState(_state: unknown, _result: ViewStateResult): Promise<void> {
    /* overridden */
  }
  getState(): Record<string, unknown> {
    return {};
  }
}

/** What setState reports back, as in Obsidian's API. */
export interface ViewStateResult {
  history: boolean;
}

/** A leaf's view state, as in Obsidian's API. */
export interface ViewState {
  type: string;
  state?: Record<string, unknown>;
  active?: boolean;
}

/** An item view, as in Obsidian: a view with `contentEl`, opened and closed by its leaf. */
export abstract class ItemView extends View {
  contentEl: HTMLElement = detached("div");
}

/** A view of one file, as in Obsidian. */
export abstract class FileView extends ItemView {
  file: TFile | null = null;
  override navigation = true;
  getDisplayText(): string {
    return this.file?.basename ?? "";
  }
  async onLoadFile(_file: TFile): Promise<void> {
    /* overridden */
  }
  async onUnloadFile(_file: TFile): Promise<void> {
    /* overridden */
  }
}

/** An editable file view, as in Obsidian. */
export abstract class EditableFileView extends FileView {}

/**
 * A text file view, as in Obsidian: the view's text (`getViewData`) is saved through
 * `Vault.modify` by `save()` only when it differs from what the view last loaded or saved;
 * `requestSave()` saves 2 s after its last call (on `workspace.timers`). A change of the file on
 * disk reloads a clean view and leaves a dirty one as it is (see the header).
 */
export abstract class TextFileView extends EditableFileView {
  data = "";
  requestSave: () => void;
  /** What the view last loaded from or saved to its file (Obsidian's private `lastSavedData`; fake only). */
  lastSavedData = "";
  private saveTimer: number | undefined;
  constructor(leaf: WorkspaceLeaf) {
    super(leaf);
    this.requestSave = () => {
      const timers = this.app.workspace.timers;
      timers.clearTimeout(this.saveTimer);
      this.saveTimer = timers.setTimeout(() => {
        this.saveTimer = undefined;
        return this.save();
      }, 2000);
    };
    this.registerEvent(
      this.app.vault.on("modify", (file: unknown) => {
        if (file !== null && file === this.file) void this.reloadFromDisk();
      }),
    );
  }
  /** Whether the view holds text its file was not given yet (fake only; Obsidian keeps it private). */
  get dirty(): boolean {
    return this.file !== null && this.getViewData() !== this.lastSavedData;
  }
  override async onLoadFile(file: TFile): Promise<void> {
    const text = await this.app.vault.read(file);
    this.lastSavedData = text;
    this.data = text;
    this.setViewData(text, true);
  }
  override async onUnloadFile(_file: TFile): Promise<void> {
    await this.save();
  }
  /** Writes the view's text now, when it differs from what the view last loaded or saved. */
  async save(_clear?: boolean): Promise<void> {
    const file = this.file;
    if (file === null) return;
    const text = this.getViewData();
    if (text === this.lastSavedData) return;
    this.data = text;
    this.lastSavedData = text;
    await this.app.vault.modify(file, text);
  }
  abstract getViewData(): string;
  abstract setViewData(data: string, clear: boolean): void;
  abstract clear(): void;

  /** The file changed on disk: a clean view shows the new text; a dirty one keeps its own. */
  private async reloadFromDisk(): Promise<void> {
    const file = this.file;
    if (file === null) return;
    let text: string;
    try {
      text = await this.app.vault.read(file);
    } catch {
      return; // removed meanwhile
    }
    if (file !== this.file || text === this.lastSavedData || this.dirty) return;
    this.lastSavedData = text;
    this.data = text;
    this.setViewData(text, false);
  }
}

/** The Markdown view, as in Obsidian: its text is the editor's (source mode only). */
export class MarkdownView extends TextFileView {
  editor: Editor;
  constructor(leaf: WorkspaceLeaf) {
    super(leaf);
    // Typing requests the delayed save and fires the workspace's `editor-change`, as in Obsidian.
    this.editor = new Editor(() => {
      this.requestSave();
      this.app.workspace.trigger("editor-change", this.editor, this);
    });
  }
  getViewType(): string {
    return "markdown";
  }
  getViewData(): string {
    return this.editor.getValue();
  }
  setViewData(data: string, _clear: boolean): void {
    this.editor.load(data);
  }
  clear(): void {
    this.editor.load("");
  }
}

/** A workspace leaf: one view; `openFile` shows a `.md` file in a MarkdownView. */
export class WorkspaceLeaf {
  view: View | null = null;
  constructor(readonly app: App) {}
  /** Opens a file: the previous file's view is saved first; a `.md` file gets a MarkdownView. */
  async openFile(file: TFile, _openState?: unknown): Promise<void> {
    const workspace = this.app.workspace;
    workspace.opened.push(file.path);
    const previous = this.view;
    if (previous instanceof FileView && previous.file !== null) await previous.onUnloadFile(previous.file);
    if (file.extension === "md") {
      const view = previous instanceof MarkdownView ? previous : new MarkdownView(this);
      if (view !== previous) {
        previous?.unload();
        this.view = view;
        view.load();
      }
      view.file = file;
      await view.onLoadFile(file);
    } else {
      previous?.unload();
      this.view = null;
    }
    workspace.openPath(file.path);
  }
  /** Opens a view object in this leaf, as Obsidian's `open(view)`: the previous view closes and unloads, the new one loads and opens. */
  async open(view: View): Promise<View> {
    const previous = this.view;
    if (previous) {
      await previous.onClose();
      previous.unload();
    }
    this.view = view;
    view.load();
    await view.onOpen();
    return view;
  }
  /** Shows a registered view type: a new view (load, onOpen, setState), or setState on the one shown. */
  async setViewState(viewState: ViewState, _eState?: unknown): Promise<void> {
    const workspace = this.app.workspace;
    if (this.view?.getViewType() !== viewState.type) {
      const factory = workspace.viewFactories.get(viewState.type);
      if (!factory) throw new Error(`no view type ${viewState.type} is registered`);
      const previous = this.view;
      if (previous) {
        await previous.onClose();
        previous.unload();
      }
      const view = factory(this);
      this.view = view;
      view.load();
      await view.onOpen();
    }
    await this.view?.setState(viewState.state ?? {}, { history: false });
    if (viewState.active === true) workspace.setActiveLeaf(this);
  }
  /** Closes the leaf: its file view starts its last save (not awaited, as in Obsidian), its view closes, then unloads. */
  detach(): void {
    const view = this.view;
    if (view instanceof FileView && view.file !== null) void view.onUnloadFile(view.file);
    if (view) void view.onClose();
    view?.unload();
    this.view = null;
    this.app.workspace.removeLeaf(this);
  }
}

/** A fuzzy picker, as in Obsidian: `getItems`, `getItemText`, `onChooseItem` (tests answer pickers through the plugin's `ui`). */
export abstract class FuzzySuggestModal<T> extends Modal {
  emptyStateText = "";
  placeholder = "";
  setPlaceholder(placeholder: string): void {
    this.placeholder = placeholder;
  }
  abstract getItems(): T[];
  abstract getItemText(item: T): string;
  abstract onChooseItem(item: T, evt: MouseEvent | KeyboardEvent): void;
}
