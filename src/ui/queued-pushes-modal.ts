/**
 * The list of queued pushes (automatic sync's outbox, issue 15) as a fuzzy picker: each row names
 * the file, why its push waits and when it is tried next. It only shows what it is given and
 * resolves the chosen row, or undefined when dismissed.
 */
import { FuzzySuggestModal, type App } from "obsidian";

/** One row: what the picker shows, and what it stands for. */
export interface QueuedPushChoice<T> {
  label: string;
  value: T;
}

/** Lets the user pick one queued push. */
export class QueuedPushesModal<T> extends FuzzySuggestModal<QueuedPushChoice<T>> {
  private chosen: QueuedPushChoice<T> | undefined;
  private settle: ((choice: QueuedPushChoice<T> | undefined) => void) | undefined;

  constructor(
    app: App,
    private readonly choices: QueuedPushChoice<T>[],
  ) {
    super(app);
    this.setPlaceholder("Pick a queued push to drop it");
    this.emptyStateText = "No matching queued pushes.";
  }

  /** Opens the picker and resolves when it closes. */
  pick(): Promise<QueuedPushChoice<T> | undefined> {
    return new Promise((resolve) => {
      this.settle = resolve;
      this.open();
    });
  }

  override getItems(): QueuedPushChoice<T>[] {
    return this.choices;
  }

  override getItemText(choice: QueuedPushChoice<T>): string {
    return choice.label;
  }

  override onChooseItem(choice: QueuedPushChoice<T>): void {
    this.chosen = choice;
  }

  override onClose(): void {
    super.onClose();
    // Obsidian calls onChooseItem after onClose; settle on the next tick so the choice counts.
    window.setTimeout(() => {
      const settle = this.settle;
      this.settle = undefined;
      settle?.(this.chosen);
    }, 0);
  }
}
