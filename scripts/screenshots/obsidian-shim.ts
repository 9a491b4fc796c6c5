/**
 * The few classes of the `obsidian` module the sync history view and the approval modal use,
 * drawn with Obsidian's own class names (`.modal`, `.setting-item`, `.view-content`, `select.dropdown`)
 * so obsidian-theme.css styles them as Obsidian does. Only for the screenshot page
 * (scripts/screenshots-journal.mjs aliases `obsidian` to this file); no behaviour beyond clicks.
 */
export type App = object;
export type WorkspaceLeaf = { containerEl: HTMLElement };

export class Component {
  register(_cleanup: () => void): void {
    /* the page never unloads */
  }
}

export class ItemView extends Component {
  readonly containerEl: HTMLElement;
  readonly contentEl: HTMLElement;
  constructor(leaf: WorkspaceLeaf) {
    super();
    this.containerEl = leaf.containerEl;
    this.contentEl = leaf.containerEl.createDiv({ cls: "view-content" });
  }
}

export class Modal {
  readonly modalEl: HTMLElement;
  readonly titleEl: HTMLElement;
  readonly contentEl: HTMLElement;
  private readonly container: HTMLElement;
  constructor(_app: App) {
    this.container = document.body.createDiv({ cls: "modal-container" });
    this.container.createDiv({ cls: "modal-bg" });
    this.modalEl = this.container.createDiv({ cls: "modal" });
    this.titleEl = this.modalEl.createDiv({ cls: "modal-title" });
    this.contentEl = this.modalEl.createDiv({ cls: "modal-content" });
  }
  open(): void {
    this.onOpen();
  }
  close(): void {
    this.onClose();
    this.container.detach();
  }
  onOpen(): void {
    /* overridden */
  }
  onClose(): void {
    /* overridden */
  }
  setTitle(title: string): this {
    this.titleEl.setText(title);
    return this;
  }
}

export class ButtonComponent {
  readonly buttonEl: HTMLButtonElement;
  constructor(parent: HTMLElement) {
    this.buttonEl = parent.createEl("button");
  }
  setButtonText(text: string): this {
    this.buttonEl.setText(text);
    return this;
  }
  setTooltip(text: string): this {
    this.buttonEl.setAttr("aria-label", text);
    return this;
  }
  setClass(cls: string): this {
    this.buttonEl.addClass(cls);
    return this;
  }
  setCta(): this {
    this.buttonEl.addClass("mod-cta");
    return this;
  }
  onClick(handler: () => void): this {
    this.buttonEl.addEventListener("click", handler);
    return this;
  }
}

export class DropdownComponent {
  readonly selectEl: HTMLSelectElement;
  constructor(parent: HTMLElement) {
    this.selectEl = parent.createEl("select", { cls: "dropdown" });
  }
  addOption(value: string, text: string): this {
    this.selectEl.createEl("option", { value, text });
    return this;
  }
  setValue(value: string): this {
    this.selectEl.value = value;
    return this;
  }
  onChange(handler: (value: string) => void): this {
    this.selectEl.addEventListener("change", () => handler(this.selectEl.value));
    return this;
  }
}

export class Setting {
  readonly settingEl: HTMLElement;
  private readonly info: HTMLElement;
  private readonly control: HTMLElement;
  constructor(parent: HTMLElement) {
    this.settingEl = parent.createDiv({ cls: "setting-item" });
    this.info = this.settingEl.createDiv({ cls: "setting-item-info" });
    this.control = this.settingEl.createDiv({ cls: "setting-item-control" });
  }
  setName(name: string): this {
    this.info.createDiv({ cls: "setting-item-name", text: name });
    return this;
  }
  addButton(build: (button: ButtonComponent) => unknown): this {
    build(new ButtonComponent(this.control));
    return this;
  }
}
