/**
 * The plugin's load-time shell (issue 13). Obsidian counts `onload` in its start-up time, so
 * `onload` registers what must exist from the first moment — every command, the views, the
 * settings tab — as thin stand-ins, and the plugin body (plugin-body.ts: services, use-cases,
 * status bar, automatic sync, endpoint) loads after the layout is ready or at the first use of a
 * stand-in. The body registers its parts through `host()`, a Plugin whose `addCommand`,
 * `registerView` and `addSettingTab` bind the stand-ins instead of adding new ones; everything
 * else (events, intervals, cleanups) goes to the plugin itself. A stand-in used before the body
 * is there waits for it.
 *
 * What the shell knows up front is only what Obsidian needs synchronously: command ids, names
 * and icons (`commands.ts` holds them, and the body's modules take theirs from there), and the
 * view types. A command or view the body registers that the shell does not know is a bug, and
 * throws, so the plugin tests (which all load the body) catch it.
 */
import { ItemView, PluginSettingTab, type Command, type Plugin, type SettingDefinitionItem, type ViewCreator, type ViewStateResult, type WorkspaceLeaf } from "obsidian";

/** What the shell shows for a view type before its body is there. */
export interface DeferredViewInfo {
  type: string;
  title: string;
  icon: string;
}

/** The plugin's view types (each module that registers one also exports its type constant). */
export const DEFERRED_VIEWS: readonly DeferredViewInfo[] = [
  { type: "hackmd-bridge-activity", title: "Agent activity", icon: "activity" },
  { type: "hackmd-bridge-history", title: "Note history", icon: "history" },
  { type: "hackmd-bridge-comments", title: "Comments", icon: "message-square" },
  { type: "hackmd-bridge-merge", title: "Merge editor", icon: "git-merge" },
];

/** What the shell's tab asks of the body's (our HackmdBridgeSettingTab, which renders both ways). */
interface BodySettingTab {
  containerEl: HTMLElement;
  display(): void;
  hide(): void;
  getSettingDefinitions(): SettingDefinitionItem[];
}

/** The stand-ins and what the body bound to them. */
export class DeferredRegistry {
  private readonly plugin: Plugin;
  private readonly load: () => Promise<unknown>;
  private readonly deferredCommands = new Set<string>();
  private readonly viewTypes = new Set<string>();
  private readonly callbacks = new Map<string, Command>();
  private readonly factories = new Map<string, ViewCreator>();
  private readonly pending = new Set<PendingView>();
  private settingTab: BodySettingTab | undefined;
  private bodyLoaded = false;

  /** `load` loads the body (once; later calls return the same promise). */
  constructor(plugin: Plugin, load: () => Promise<unknown>) {
    this.plugin = plugin;
    this.load = load;
  }

  /** Registers the callback-only commands the body binds later (their palette entries exist now). */
  addCommands(commands: ReadonlyArray<Pick<Command, "id" | "name" | "icon">>): void {
    for (const command of commands) {
      this.deferredCommands.add(command.id);
      this.plugin.addCommand({
        ...command,
        // A body that cannot start is reported by `load` (a notice); nothing more to do here.
        callback: () =>
          void this.load().then(
            () => {
              this.callbacks.get(command.id)?.callback?.();
            },
            () => undefined,
          ),
      });
    }
  }

  /** Registers the view types; a view restored before the body loads is a stand-in until then. */
  registerViews(views: readonly DeferredViewInfo[]): void {
    for (const info of views) {
      this.viewTypes.add(info.type);
      this.plugin.registerView(info.type, (leaf) => this.factories.get(info.type)?.(leaf) ?? new PendingView(leaf, info, this));
    }
  }

  /** Registers the settings tab, which shows the body's once it is there. */
  addSettingTab(): void {
    this.plugin.addSettingTab(new DeferredSettingTab(this.plugin, this));
  }

  /** The body's settings tab, once bound. */
  get boundSettingTab(): BodySettingTab | undefined {
    return this.settingTab;
  }

  /** Loads the body (the stand-ins call this). */
  loadBody(): Promise<unknown> {
    return this.load();
  }

  /** Called once the body has registered everything: restored stand-in views become the real ones. */
  async bodyReady(): Promise<void> {
    // A stand-in left unbound would wait forever: that is a bug of the body's wiring.
    const unbound = [...[...this.deferredCommands].filter((id) => !this.callbacks.has(id)), ...[...this.viewTypes].filter((type) => !this.factories.has(type))];
    if (unbound.length > 0) throw new Error(`the plugin body did not bind ${unbound.join(", ")}`);
    this.bodyLoaded = true;
    for (const view of [...this.pending]) await view.replace();
  }

  /** Whether the body is there. */
  get loaded(): boolean {
    return this.bodyLoaded;
  }

  /** @internal The stand-in views keep track of themselves. */
  track(view: PendingView, open: boolean): void {
    if (open) this.pending.add(view);
    else this.pending.delete(view);
  }

  /** @internal The body's factory for a view type. */
  factory(type: string): ViewCreator | undefined {
    return this.factories.get(type);
  }

  /** The Plugin the body registers through (see the header). */
  host(): Plugin {
    const plugin = this.plugin;
    const host = Object.create(plugin) as Plugin;
    Object.assign(host, {
      addCommand: (command: Command): Command => {
        if (!this.deferredCommands.has(command.id)) throw new Error(`the shell does not know the command ${command.id}`);
        // The stand-in only forwards a plain callback; a check callback would be silently lost.
        if (command.callback === undefined || command.checkCallback !== undefined || command.editorCallback !== undefined || command.editorCheckCallback !== undefined) {
          throw new Error(`the command ${command.id} must have a plain callback to be bound to its stand-in`);
        }
        this.callbacks.set(command.id, command);
        return command;
      },
      registerView: (type: string, factory: ViewCreator): void => {
        if (!this.viewTypes.has(type)) throw new Error(`the shell does not know the view type ${type}`);
        this.factories.set(type, factory);
      },
      addSettingTab: (tab: PluginSettingTab): void => {
        this.settingTab = tab;
      },
      // Component methods act on the plugin itself, so its unload runs what they register.
      register: (cb: () => unknown) => plugin.register(cb),
      registerEvent: (ref: Parameters<Plugin["registerEvent"]>[0]) => plugin.registerEvent(ref),
      registerDomEvent: (...args: Parameters<Plugin["registerDomEvent"]>) => plugin.registerDomEvent(...args),
      registerInterval: (id: number) => plugin.registerInterval(id),
      addChild: <T extends Parameters<Plugin["addChild"]>[0]>(child: T): T => plugin.addChild(child),
      removeChild: <T extends Parameters<Plugin["removeChild"]>[0]>(child: T): T => plugin.removeChild(child),
    });
    return host;
  }

}

/** A view restored before the body loaded: it loads the body and gives its leaf the real view. */
class PendingView extends ItemView {
  private state: unknown = {};

  constructor(
    leaf: WorkspaceLeaf,
    private readonly info: DeferredViewInfo,
    private readonly registry: DeferredRegistry,
  ) {
    super(leaf);
  }

  override getViewType(): string {
    return this.info.type;
  }

  override getDisplayText(): string {
    return this.info.title;
  }

  override getIcon(): string {
    return this.info.icon;
  }

  override async setState(state: unknown, result: ViewStateResult): Promise<void> {
    this.state = state;
    await super.setState(state, result);
  }

  override getState(): Record<string, unknown> {
    return typeof this.state === "object" && this.state !== null ? (this.state as Record<string, unknown>) : {};
  }

  override async onOpen(): Promise<void> {
    this.contentEl.empty();
    this.contentEl.createDiv({ cls: "hackmd-bridge-loading", text: "Loading…" });
    this.registry.track(this, true);
    // The body's bodyReady() replaces every open stand-in; loading it is all this view asks.
    if (this.registry.loaded) await this.replace();
    else void this.registry.loadBody().catch(() => this.showFailure());
  }

  override async onClose(): Promise<void> {
    this.registry.track(this, false);
    await super.onClose();
  }

  /** The body could not start (the shell gave a notice): the stand-in says so instead of "Loading…". */
  private showFailure(): void {
    this.contentEl.empty();
    this.contentEl.createDiv({ cls: "hackmd-bridge-loading", text: "HackMD Bridge could not start; reload the plugin to try again." });
  }

  /** Opens the real view in this leaf, with the state the workspace gave the stand-in. */
  async replace(): Promise<void> {
    this.registry.track(this, false);
    const factory = this.registry.factory(this.info.type);
    if (factory === undefined || this.leaf.view !== this) return;
    const view = await this.leaf.open(factory(this.leaf));
    await view.setState(this.state, { history: false });
  }
}

/** The settings tab: the body's tab renders into it once the body is there. */
class DeferredSettingTab extends PluginSettingTab {
  private shown = false;

  constructor(
    plugin: Plugin,
    private readonly registry: DeferredRegistry,
  ) {
    super(plugin.app, plugin);
  }

  /** The body's tab, drawing into this tab's element. */
  private real(): BodySettingTab | undefined {
    const tab = this.registry.boundSettingTab;
    if (tab !== undefined) tab.containerEl = this.containerEl;
    return tab;
  }

  override display(): void {
    this.shown = true;
    this.draw();
  }

  /** The body's tab, or a placeholder that gives way to it once the body is there. */
  private draw(): void {
    const real = this.real();
    if (real !== undefined) {
      real.display();
      return;
    }
    this.containerEl.empty();
    this.containerEl.createDiv({ cls: "hackmd-bridge-loading", text: "Loading the settings…" });
    void this.registry.loadBody().then(
      () => {
        if (this.shown && this.registry.boundSettingTab !== undefined) this.draw();
      },
      () => {
        if (!this.shown) return;
        this.containerEl.empty();
        this.containerEl.createDiv({ cls: "hackmd-bridge-loading", text: "HackMD Bridge could not start, so its settings cannot be shown; reload the plugin to try again." });
      },
    );
  }

  override getSettingDefinitions(): SettingDefinitionItem[] {
    const real = this.real();
    if (real !== undefined) return real.getSettingDefinitions();
    // Before the body is there (the layout is barely ready): display() draws a placeholder.
    void this.registry.loadBody().catch(() => undefined);
    return [];
  }

  override hide(): void {
    this.shown = false;
    const real = this.registry.boundSettingTab;
    if (real !== undefined) real.hide();
    else super.hide();
  }
}
