/**
 * A one-line text prompt that resolves a promise (docs/style.md rule 15): the trimmed text, or
 * `undefined` when the modal is closed any other way.
 */
import { Modal, Setting, type App } from "obsidian";

/** What the text prompt shows. */
export interface PromptOptions {
  title: string;
  description: string;
  placeholder: string;
  submitText: string;
}

/** Asks for one line of text; resolves the trimmed text, or undefined when cancelled. */
export class PromptModal extends Modal {
  private readonly options: PromptOptions;
  private value = "";
  private settle: ((value: string | undefined) => void) | undefined;

  /** A prompt over `app`; call `ask()` to show it. */
  constructor(app: App, options: PromptOptions) {
    super(app);
    this.options = options;
  }

  /** Opens the modal and resolves when it closes. */
  ask(): Promise<string | undefined> {
    return new Promise((resolve) => {
      this.settle = resolve;
      this.open();
    });
  }

  override onOpen(): void {
    this.setTitle(this.options.title);
    this.contentEl.createEl("p", { text: this.options.description });
    const submit = (): void => {
      const value = this.value.trim();
      if (value === "") return;
      this.finish(value);
    };
    new Setting(this.contentEl).addText((text) => {
      text.setPlaceholder(this.options.placeholder).onChange((value) => {
        this.value = value;
      });
      text.inputEl.addEventListener("keydown", (event) => {
        if (event.key === "Enter") submit();
      });
      window.setTimeout(() => text.inputEl.focus(), 0);
    });
    new Setting(this.contentEl).addButton((button) =>
      button.setButtonText(this.options.submitText).setCta().onClick(submit),
    );
  }

  override onClose(): void {
    this.contentEl.empty();
    this.finish(undefined);
  }

  private finish(value: string | undefined): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.(value);
    if (value !== undefined) this.close();
  }
}
