/**
 * A fuzzy picker that resolves a promise with the chosen item, or undefined when dismissed: the
 * one place that knows Obsidian calls `onChooseItem` after `onClose`.
 */
import { FuzzySuggestModal } from "obsidian";

/** Base of the plugin's pickers: subclasses give the items and their text. */
export abstract class PickerModal<T> extends FuzzySuggestModal<T> {
  private chosen: T | undefined;
  private settle: ((choice: T | undefined) => void) | undefined;

  /** Opens the picker and resolves when it closes. */
  pick(): Promise<T | undefined> {
    return new Promise((resolve) => {
      this.settle = resolve;
      this.open();
    });
  }

  override onChooseItem(choice: T): void {
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
