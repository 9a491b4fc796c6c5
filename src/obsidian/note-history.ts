/**
 * The use-cases behind the "Note history" and "Comments" views (docs/versions-and-comments.md): a tracked file's
 * versions on HackMD (list, view, compare with the file or with another version, restore one into
 * the file as an ordinary unpushed change) and its comment threads (list, resolve, reopen). Every
 * method makes its requests only when a view asks; none runs at load. Failures are thrown for the
 * views, which show them through notices.ts.
 */
import { getNoteVersion, listNoteVersions } from "../app/versions";
import { BridgeError } from "../core/errors";
import { normalizeLineEndings } from "../core/text";
import { safetySentence } from "../hackmd/safety-version";
import { isOpenThread } from "../hackmd/comment-thread";
import type { NoteComment, NoteVersion } from "../hackmd/versions-comments";
import type { KeyedRecord } from "../sync/store";
import { pathQueueKey } from "../sync/queue";
import type { KeptSide } from "../ui/conflict-flow";
import type { PluginUi } from "./actions";
import type { PluginServices } from "./plugin-services";
import { localMinute } from "../hackmd/safety-version";

/** What the history use-cases need. */
export interface NoteHistoryOptions {
  services: PluginServices;
  ui: Pick<PluginUi, "confirm" | "showDiff" | "openUrl">;
  /** Keeps a copy of text a restore is about to drop (the plugin's .trash copy). */
  keepCopy: (path: string, text: string, side: KeptSide) => Promise<string>;
}

/** A version as the history view lists it. */
export interface HistoryEntry {
  version: NoteVersion;
  /** Name for people: the version's name, or when HackMD saved it by itself. */
  label: string;
  /** Local time and author, e.g. "2026-12-01 14:03 · Ada Collaborator". */
  detail: string;
}

/** How a restore ended. */
export type RestoreOutcome = "restored" | "unchanged" | "cancelled";

const MAX_BYTES = 50 * 1_048_576;
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The history and comments use-cases of the plugin. */
export class NoteHistory {
  private readonly services: PluginServices;
  private readonly ui: NoteHistoryOptions["ui"];
  private readonly keepCopy: NoteHistoryOptions["keepCopy"];

  constructor(options: NoteHistoryOptions) {
    this.services = options.services;
    this.ui = options.ui;
    this.keepCopy = options.keepCopy;
  }

  /** Whether a file is tracked (no request), so a view can say what it will show. */
  async isTracked(path: string): Promise<boolean> {
    return (await this.services.store.findByPath(path).catch(() => undefined)) !== undefined;
  }

  /** The newest versions of the file's note (one request). */
  async versions(path: string): Promise<{ noteId: string; total: number; entries: HistoryEntry[] }> {
    const found = await this.tracked(path);
    const page = await listNoteVersions(
      await this.services.loadDeps(),
      this.services.newCall(),
      found.record.internal_id,
      { limit: 50 },
    );
    return {
      noteId: found.record.internal_id,
      total: page.total,
      entries: page.versions.map((version) => ({
        version,
        label: version.name_source === "user" && version.name !== "" ? version.name : "Saved by HackMD",
        detail: [
          version.created_at_ms === null ? version.created_at : localMinute(version.created_at_ms),
          version.created_by?.display_name,
        ]
          .filter((part) => part !== undefined && part !== "")
          .join(" · "),
      })),
    };
  }

  /** Shows one version's text (one request). */
  async view(path: string, entry: HistoryEntry): Promise<void> {
    const text = await this.text(path, entry.version);
    await this.diff(path, {
      title: `${entry.label} (${entry.detail})`,
      description: "The text of this version on HackMD.",
      original: text,
      modified: text,
      originalLabel: "This version",
      modifiedLabel: "This version",
    });
  }

  /** Compares a version with the file (one request). */
  async compareWithFile(path: string, entry: HistoryEntry): Promise<void> {
    const text = await this.text(path, entry.version);
    const local = (await this.readFile(path)).text;
    await this.diff(path, {
      title: `${entry.label} compared with the file`,
      description: "The version on HackMD against your file now.",
      original: text,
      modified: local,
      originalLabel: "Only in the version",
      modifiedLabel: "Only in this file",
    });
  }

  /** Compares an older version with a newer one (two requests). */
  async compareVersions(path: string, older: HistoryEntry, newer: HistoryEntry): Promise<void> {
    const before = await this.text(path, older.version);
    const after = await this.text(path, newer.version);
    await this.diff(path, {
      title: `${older.label} compared with ${newer.label}`,
      description: `What changed from ${older.detail} to ${newer.detail}.`,
      original: before,
      modified: after,
      originalLabel: "Only in the older version",
      modifiedLabel: "Only in the newer version",
    });
  }

  /**
   * Restores a version into the file after the user confirms: the file's unpushed text is kept in
   * .trash first, HackMD's current text is named as a version (the next push overwrites it), and
   * the file is written only if it is still as read. The restore is an ordinary unpushed change.
   */
  async restore(path: string, entry: HistoryEntry): Promise<{ outcome: RestoreOutcome; message: string }> {
    const found = await this.tracked(path);
    const text = await this.text(path, entry.version);
    if ((await this.readFile(path)).text === text)
      return { outcome: "unchanged", message: `${path} already holds the text of "${entry.label}".` };
    const confirmed = await this.ui.confirm({
      title: "Restore this version?",
      message: `The text of ${path} is replaced by "${entry.label}" (${entry.detail}). It becomes an unpushed change: push the file to send it to HackMD.`,
      confirmText: "Restore",
    });
    if (!confirmed) return { outcome: "cancelled", message: "" };
    return (await this.services.loadDeps()).queue.run([pathQueueKey(path)], async () => {
      const current = await this.readFile(path);
      const loaded = await this.services.store.load(found);
      const kept =
        current.text === normalizeLineEndings(loaded.baseline)
          ? ""
          : ` ${await this.keepCopy(path, current.raw, "mine")}`;
      const version = await (
        await this.services.loadDeps()
      ).safety.before(this.services.newCall(), found.record.internal_id, "restore");
      await this.services.files.write(path, text, { expect: current.stamp });
      this.services.hashCache.forget(path);
      return {
        outcome: "restored" as const,
        message: `Restored "${entry.label}" into ${path}; push the file to send it to HackMD. ${safetySentence(version)}${kept}`,
      };
    });
  }

  /** The file's comment threads (one request); records the open ones for the status bar. */
  async threads(
    path: string,
    includeResolved: boolean,
  ): Promise<{ noteId: string; threads: NoteComment[]; more: boolean }> {
    const found = await this.tracked(path);
    const page = await (
      await this.services.loadDeps()
    ).client.listComments(this.services.newCall(), {
      noteId: found.record.internal_id,
      threadHeadsOnly: true,
      limit: 100,
      ...(includeResolved ? {} : { threadStatus: "open" }),
    });
    const open = page.comments.filter(isOpenThread).length;
    if (!page.has_next || includeResolved) this.services.openThreads.set(path, open);
    return { noteId: found.record.internal_id, threads: page.comments, more: page.has_next };
  }

  /** Resolves or reopens a thread (one request). */
  async setResolved(path: string, comment: NoteComment, resolved: boolean): Promise<NoteComment> {
    const found = await this.tracked(path);
    const done = await (
      await this.services.loadDeps()
    ).client.setCommentResolved(this.services.newCall(), {
      noteId: found.record.internal_id,
      commentId: comment.id,
      resolved,
    });
    const before = this.services.openThreads.get(path);
    if (before !== undefined) this.services.openThreads.set(path, Math.max(0, before + (resolved ? -1 : 1)));
    return done.comment;
  }

  /** Opens the note in HackMD (the default API only). */
  openInHackmd(noteId: string): boolean {
    const url = this.services.noteUrl(noteId);
    if (url === undefined) return false;
    this.ui.openUrl(url);
    return true;
  }

  private async tracked(path: string): Promise<KeyedRecord> {
    const found = await this.services.store.findByPath(path);
    if (!found)
      throw new BridgeError(
        "not_tracked",
        `${path} is not tracked, so it has no note on HackMD; pull a note to it first.`,
      );
    return found;
  }

  private async text(path: string, version: NoteVersion): Promise<string> {
    const found = await this.tracked(path);
    const full = await getNoteVersion(
      await this.services.loadDeps(),
      this.services.newCall(),
      found.record.internal_id,
      version.id,
    );
    if (full.content === null)
      throw new BridgeError("upstream", `HackMD cannot show the text of this version of ${path}; nothing was changed.`);
    return normalizeLineEndings(full.content);
  }

  private async readFile(
    path: string,
  ): Promise<{ raw: string; text: string; stamp: Awaited<ReturnType<PluginServices["files"]["read"]>>["stamp"] }> {
    const read = await this.services.files.read(path, { maxBytes: MAX_BYTES });
    if (read.truncated) throw new BridgeError("too_large", `${path} is larger than 50 MiB.`);
    let raw: string;
    try {
      raw = decoder.decode(read.bytes);
    } catch {
      throw new BridgeError("invalid_input", `${path} is not UTF-8 text.`);
    }
    return { raw, text: normalizeLineEndings(raw), stamp: read.stamp };
  }

  private async diff(path: string, options: Parameters<NonNullable<PluginUi["showDiff"]>>[1]): Promise<void> {
    if (!this.ui.showDiff)
      throw new BridgeError("internal", `The diff view is not available, so ${path} cannot be compared here.`);
    await this.ui.showDiff(path, options);
  }
}
