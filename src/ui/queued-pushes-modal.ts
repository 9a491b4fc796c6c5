/**
 * The list of queued pushes (automatic sync's outbox, docs/auto-sync.md) as a fuzzy picker: each row names
 * the file, why its push waits and when it is tried next. It only shows what it is given and
 * resolves the chosen row, or undefined when dismissed.
 */
import type { App } from "obsidian";
import { PickerModal } from "./picker-modal";

/** One row: what the picker shows, and what it stands for. */
export interface QueuedPushChoice<T> {
  label: string;
  value: T;
}

/** Lets the user pick one queued push. */
export class QueuedPushesModal<T> extends PickerModal<QueuedPushChoice<T>> {
  constructor(
    app: App,
    private readonly choices: QueuedPushChoice<T>[],
  ) {
    super(app);
    this.setPlaceholder("Pick a queued push to drop it");
    this.emptyStateText = "No matching queued pushes.";
  }

  override getItems(): QueuedPushChoice<T>[] {
    return this.choices;
  }

  override getItemText(choice: QueuedPushChoice<T>): string {
    return choice.label;
  }
}
