/**
 * The PluginUi port over Obsidian's modals, workspace and clipboard. Dumb: every method shows one
 * thing and resolves what the user chose (docs/style.md rule 15).
 */
import type { App } from "obsidian";
import { NotePickerModal } from "../ui/note-picker";
import { confirm } from "../ui/confirm-modal";
import { PromptModal } from "../ui/prompt-modal";
import { PublishModal } from "../ui/publish-modal";
import { MirrorModal, type MirrorChoice, type MirrorDialog } from "../ui/mirror-modal";
import { QueuedPushesModal } from "../ui/queued-pushes-modal";
import type { OutboxEntry } from "../sync/auto/outbox";
import type { DiffViewOptions } from "../ui/merge-editor-dom";
import type { ConfirmDialog, PickableNote, PluginUi, PublishChoice, PublishDialog } from "./actions";

/** The modals and workspace calls of the plugin. */
export class ObsidianUi implements PluginUi {
  private readonly app: App;
  /** The conflict view, when the plugin has one; set by the wiring. */
  resolveConflict: ((localPath: string) => Promise<void>) | undefined;
  /** The diff view, when the plugin has one; set by the wiring. */
  showDiff: ((localPath: string, diff: DiffViewOptions) => Promise<void>) | undefined;

  /** A UI over `app`. */
  constructor(app: App) {
    this.app = app;
  }

  /** Asks for a note link or id. */
  askNoteRef(): Promise<string | undefined> {
    return new PromptModal(this.app, {
      title: "Pull a note",
      description: "Paste a HackMD link (https://hackmd.io/…) or a note ID.",
      placeholder: "https://hackmd.io/…",
      submitText: "Pull",
    }).ask();
  }

  /** Shows the fuzzy note picker. */
  pickNote(notes: PickableNote[]): Promise<PickableNote | undefined> {
    return new NotePickerModal(this.app, notes).pick();
  }

  /** Shows the queued pushes and resolves the one picked. */
  async pickQueuedPush(choices: Array<{ label: string; value: OutboxEntry }>): Promise<OutboxEntry | undefined> {
    return (await new QueuedPushesModal(this.app, choices).pick())?.value;
  }

  /** Asks a yes/no question. */
  confirm(dialog: ConfirmDialog): Promise<boolean> {
    return confirm(this.app, { title: dialog.title, paragraphs: [dialog.message], confirmText: dialog.confirmText });
  }

  /** Shows the publish dialog. */
  choosePublish(dialog: PublishDialog): Promise<PublishChoice | undefined> {
    return new PublishModal(this.app, dialog).ask();
  }

  /** Shows the mirror dialog. */
  chooseMirror = (dialog: MirrorDialog): Promise<MirrorChoice | undefined> => new MirrorModal(this.app, dialog).ask();

  /** Opens a vault file in the active leaf (or a new one when the active leaf is pinned). */
  async openFile(path: string): Promise<void> {
    const file = this.app.vault.getFileByPath(path);
    if (file) await this.app.workspace.getLeaf(false).openFile(file);
  }

  /** Opens a web page in the system browser. */
  openUrl(url: string): void {
    window.open(url);
  }

  /** Puts text on the clipboard. */
  async copyText(text: string): Promise<void> {
    await navigator.clipboard.writeText(text);
  }
}
