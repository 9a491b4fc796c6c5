/**
 * Tracking follows renames (docs/tools.md §13.9): when a tracked file, or a folder holding tracked
 * files, is renamed or moved inside the vault, the records point at the new path — provided it
 * would be a valid pull destination (ends in `.md`, passes the write policy of §12.2–12.4).
 * Otherwise (moved into `.trash/`, renamed away from `.md`, into a protected folder) the record
 * keeps its old path. When another process pulled the note to the old path while the file moved,
 * the record stays with that new file and a notice says so. Deletions leave records alone.
 * Updates run one at a time.
 */
import { TFile, TFolder, type TAbstractFile } from "obsidian";
import { isInsideFolder } from "../core/paths";
import { showInfo } from "./notices";
import type { PluginServices } from "./plugin-services";

/** Moves sync records after renames in the vault. */
export class RenameTracker {
  private readonly services: PluginServices;
  private queue: Promise<void> = Promise.resolve();

  /** A tracker over the plugin's services. */
  constructor(options: { services: PluginServices }) {
    this.services = options.services;
  }

  /** Handles a vault `rename` event; resolves when the records are updated (never rejects). */
  handleRename(file: TAbstractFile, oldPath: string): Promise<void> {
    const next = this.queue.then(() => this.apply(file, oldPath));
    this.queue = next;
    return next;
  }

  private async apply(file: TAbstractFile, oldPath: string): Promise<void> {
    try {
      if (file instanceof TFile) await this.moveRecord(oldPath, file.path);
      else if (file instanceof TFolder) {
        for (const { record } of await this.services.store.list()) {
          if (isInsideFolder(record.local_path, oldPath) && record.local_path !== oldPath) {
            await this.moveRecord(record.local_path, `${file.path}${record.local_path.slice(oldPath.length)}`);
          }
        }
      }
    } catch (error) {
      this.services.logger.debug("rename_tracking_failed", {
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** Moves one record through the sync engine, so the move is serialised with pull, push and untrack. */
  private async moveRecord(from: string, to: string): Promise<void> {
    const outcome = await (await this.services.loadDeps()).sync.followRename({ from, to });
    if (outcome === "recreated") {
      // Another process (the command) pulled the note to the old path while the file moved.
      showInfo(
        `${to} is no longer tracked: the note was pulled to ${from} again while you renamed it. Your text in ${to} is kept; copy any changes into ${from}.`,
      );
      this.services.status.forget(from);
      return;
    }
    if (outcome !== "followed") return;
    this.services.hashCache.forget(from);
    this.services.status.forget(from);
    this.services.logger.debug("tracking_followed_rename", {});
  }
}
