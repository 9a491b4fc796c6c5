/**
 * A yes/no confirmation (docs/style.md rule 15): the modal receives plain text and resolves a promise
 * of a boolean; closing it any other way than the confirm button resolves `false`.
 */
import { Modal, Setting, type App } from "obsidian";

/** What the confirmation says. */
export interface ConfirmOptions {
  title: string;
  /** Paragraphs of explanation, shown in order. */
  paragraphs: readonly string[];
  /** Bullet points after the paragraphs (what exactly is at stake). */
  bullets?: readonly string[];
  /** Text of the confirm button. */
  confirmText: string;
  /** The confirm button drops something: Obsidian's warning style instead of the call to action. */
  warning?: boolean;
}

/** A modal that asks one question and resolves true only when the user confirms. */
export class ConfirmModal extends Modal {
  private resolved = false;
  private resolve: (value: boolean) => void = () => undefined;
  /** Settles when the user answers or closes the modal. */
  readonly result: Promise<boolean>;

  constructor(
    app: App,
    private readonly options: ConfirmOptions,
  ) {
    super(app);
    this.result = new Promise<boolean>((resolve) => {
      this.resolve = resolve;
    });
  }

  override onOpen(): void {
    this.setTitle(this.options.title);
    const { contentEl } = this;
    contentEl.empty();
    contentEl.addClass("hackmd-bridge-confirm");
    for (const paragraph of this.options.paragraphs) contentEl.createEl("p", { text: paragraph });
    if (this.options.bullets && this.options.bullets.length > 0) {
      const list = contentEl.createEl("ul");
      for (const bullet of this.options.bullets) list.createEl("li", { text: bullet });
    }
    new Setting(contentEl)
      .addButton((button) => button.setButtonText("Cancel").onClick(() => this.answer(false)))
      .addButton((button) => {
        button.setButtonText(this.options.confirmText).onClick(() => this.answer(true));
        // setWarning is deprecated and setDestructive needs Obsidian 1.13 (minAppVersion is 1.11.4):
        // the class both of them set gives the warning style on every version.
        if (this.options.warning === true) button.buttonEl.addClass("mod-warning");
        else button.setCta();
      });
  }

  override onClose(): void {
    this.contentEl.empty();
    this.settle(false);
  }

  private answer(value: boolean): void {
    this.settle(value);
    this.close();
  }

  private settle(value: boolean): void {
    if (this.resolved) return;
    this.resolved = true;
    this.resolve(value);
  }
}

/** Opens a confirmation and resolves whether the user confirmed. */
export function confirm(app: App, options: ConfirmOptions): Promise<boolean> {
  const modal = new ConfirmModal(app, options);
  modal.open();
  return modal.result;
}
