/**
 * The sync engine (docs/tools.md §14): pull, push, the sync check, untrack and the tracked list over
 * the HackMD client, the LocalFiles port and the sync state store. Host-neutral. Decisions come
 * from the pure tables of decide.ts; pull, push and untrack are serialised per note and per path.
 */
import type { ProposedChange } from "../core/approval";
import type { OverwrittenVersion, SafetyVersion, SafetyVersions } from "../hackmd/safety-version";
import { BridgeError, isBridgeError } from "../core/errors";
import { bodyHash, isBodyHash, sha256Hex, utf8Length } from "../core/hash";
import { sameStamp, type FileStamp, type LocalFiles } from "../core/local-files";
import { baseName, isMarkdownPath, parentPath, remoteSnapshotPath } from "../core/paths";
import type { Clock, Logger, Sleep } from "../core/ports";
import { TOOL_WORDS, type Words } from "../core/wording";
import { normalizeLineEndings, titleDrift } from "../core/text";
import type { NoteListCache } from "../hackmd/cache";
import type { CallContext } from "../hackmd/call-context";
import type { HackmdClient } from "../hackmd/client";
import { PendingWrites } from "../hackmd/pending-writes";
import type { NoteDetail, NoteSummary } from "../hackmd/types";
import { writeBody } from "../hackmd/write-body";
import { decideCheck, decidePush } from "./decide";
import { diffSummary, pullChanges } from "./diff";
import type { ConversionDependencies } from "../convert";
import { SyncConversion, type ConversionSettings, type RemoteForm } from "./conversion";
import { ownedSnapshotStamp, removeSnapshotBeside, type SnapshotOutcome } from "./snapshots";
import { noteQueueKey, pathQueueKey, SyncQueue } from "./queue";
import {
  baselineFile,
  expectationOf,
  MoveSkipped,
  RecordChangedError,
  SaveSkipped,
  recordKey,
  type KeyedRecord,
  type LoadedRecord,
  type SyncStateStore,
} from "./store";
import type {
  PublishForm,
  RelinkOutcome,
  PullRequest,
  PullResult,
  PushOutput,
  PushRequest,
  PushResult,
  PushSafety,
  FollowRenameOutcome,
  SyncCheck,
  SyncTools,
  TrackedEntry,
  UntrackOutput,
  UntrackRequest,
} from "./types";

import { LARGE_BODY_BYTES, MAX_BODY_BYTES } from "./limits";
import type { JournalDraft, SyncJournal } from "./journal";

export { LARGE_BODY_BYTES, MAX_BODY_BYTES };

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The dependencies of a SyncService. */
export interface SyncServiceOptions {
  client: HackmdClient;
  files: LocalFiles;
  store: SyncStateStore;
  clock: Clock;
  sleep: Sleep;
  logger: Logger;
  /** The core's note-list cache, invalidated around a push's PATCH. */
  lists?: NoteListCache<NoteSummary>;
  /** The core's memory of unconfirmed body writes, shared with the tools. */
  pending?: PendingWrites;
  /** The core's one queue, shared with every tool that writes a note body (default: a new one). */
  queue?: SyncQueue;
  /** The vocabulary of the fixes its messages name (default: the tools' words). */
  words?: Words;
  /** Obsidian ↔ HackMD conversion (docs/conversion-rules.md); default: none, every note byte for byte. */
  conversion?: ConversionSettings;
  /** Named versions before deliberate overwrites and the race check after pushes (absent: neither). */
  safety?: SafetyVersions;
  /** The sync journal: one entry per pull and per push that wrote (src/sync/journal.ts); absent: none. */
  journal?: SyncJournal;
}

/** No conversion: pulls write the body as it is. */
const NO_CONVERSION: ConversionSettings = { enabled: () => false, noteUrl: (_team, noteId) => noteId };

/** How long after a change its timestamp is not trusted to go with the body read: twice the 15 s HackMD's own tests wait for a write to show (docs/hackmd-api.md §1.8.1). */
export const SETTLE_MS = 30_000;

/**
 * How old a workspace list may be when a push sends on its word instead of a GET of its own
 * (PushRequest.listed): about what a GET and its PATCH are apart when a push waits for nothing.
 */
export const LISTED_TRUST_MS = 2_000;

/**
 * A push that sent on a list older than this (from the list's request) checks the version list
 * after its write even before the core has seen the versions API: its window for a collaborator's
 * edit is then longer than a GET's and its PATCH's, and an edit replaced in it is reported.
 */
export const LISTED_CHECK_AFTER_MS = 500;

/** How often an operation redoes its decision when its keys or its record moved under it. */
const MAX_ATTEMPTS = 3;

/** Returned from inside the queue when the keys taken no longer cover what the operation touches. */
const STALE = Symbol("stale keys");

/** A note body known to be present. */
type NoteWithBody = NoteDetail & { content: string };

/** The sync engine of one core instance. */
export class SyncService implements SyncTools {
  private readonly client: HackmdClient;
  private readonly files: LocalFiles;
  /** The sync state store; sync-all uses it too, so one record index serves both. */
  readonly store: SyncStateStore;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly logger: Logger;
  private readonly lists: NoteListCache<NoteSummary> | undefined;
  private readonly queue: SyncQueue;
  private readonly pending: PendingWrites;
  /**
   * Paths whose file was just renamed away and whose rename is being followed: a pull must not
   * "restore" such a file, or the record would stay with the restored copy and the renamed file,
   * with its edits, would be left untracked.
   */
  private readonly movingAway = new Map<string, number>();
  private readonly words: Words;
  private readonly conversion: SyncConversion;
  private readonly safety: SafetyVersions | undefined;
  private readonly journal: SyncJournal | undefined;

  /** Builds the service from one named-parameter object. */
  constructor(options: SyncServiceOptions) {
    this.client = options.client;
    this.files = options.files;
    this.pending = options.pending ?? new PendingWrites(options.clock);
    this.queue = options.queue ?? new SyncQueue();
    this.store = options.store;
    this.clock = options.clock;
    this.sleep = options.sleep;
    this.logger = options.logger;
    this.lists = options.lists;
    this.words = options.words ?? TOOL_WORDS;
    this.safety = options.safety;
    this.journal = options.journal;
    this.conversion = new SyncConversion(
      options.store,
      options.files,
      options.conversion ?? NO_CONVERSION,
      options.logger,
    );
  }

  /** A body in the tracked file's syntax (see SyncTools.localFormOf). */
  async localFormOf(found: KeyedRecord, remoteText: string): Promise<string> {
    const previous = await this.store.conversionOf(found);
    return (
      await this.conversion.localForm(remoteText, {
        convert: previous?.enabled === true,
        previous,
        notePath: found.record.local_path,
      })
    ).text;
  }

  /** A tracked working file's text in the baseline's form (see SyncTools.remoteFormOf). */
  async remoteFormOf(found: KeyedRecord, localText: string): Promise<string> {
    return this.conversion.compareForm(await this.store.conversionOf(found), localText);
  }

  /** The sync records on disk as the tracked list reports them (no working file is read). */
  async listTracked(): Promise<TrackedEntry[]> {
    return (await this.store.list()).map(({ record }) => ({
      team_path: record.team_path,
      note_id: record.internal_id,
      local_path: record.local_path,
      baseline_hash: record.baseline_body_hash,
      last_observed_remote_timestamp: record.last_observed_remote_timestamp,
    }));
  }

  /** The sync check of docs/tools.md §14.5: record first, then the file, then one GET; nothing written. */
  async check(options: { localPath: string; call: CallContext }): Promise<SyncCheck> {
    const resolved = await this.files.resolve(options.localPath, "read");
    const loaded = await this.loadTracked(resolved.path);
    const file = (await this.readLocalFile(resolved.path, { confirmLargeFile: true })).text;
    const local = await this.conversion.compareForm(loaded.conversion, file);
    const note = await this.getNote(options.call, loaded);
    const [localHash, remoteHash] = [await bodyHash(local), await bodyHash(note.content)];
    const decision = decideCheck({ baseline: loaded.record.baseline_body_hash, local: localHash, remote: remoteHash });
    return {
      status: decision.status,
      local_path: loaded.record.local_path,
      baseline_path: this.baselinePath(loaded.key),
      note_id: loaded.record.internal_id,
      remote_timestamp: timestampOf(note),
      baseline_body_hash: loaded.record.baseline_body_hash,
      local_body_hash: localHash,
      remote_body_hash: remoteHash,
    };
  }

  /** Publish, first half (see SyncTools.publishForm). */
  async publishForm(localPath: string): Promise<PublishForm> {
    const resolved = await this.files.resolve(localPath, "write");
    const path = resolved.path;
    if (!isMarkdownPath(path))
      throw new BridgeError("invalid_input", `${path} is not a .md file; publish a Markdown file.`);
    const file = await this.readLocalFile(path, { confirmLargeFile: true });
    // A new note: no answers recorded yet, so everything converts as the vault is now.
    const form = await this.conversion.remoteForm(
      this.conversion.enabledByDefault ? FRESH_CONVERSION : undefined,
      file.text,
      { listVault: true, notePath: path },
    );
    return {
      path,
      text: file.text,
      content: form.text,
      missingImages: form.missingImages,
      ...(form.conversion === undefined ? {} : { conversion: form.conversion }),
    };
  }

  /** Publish, second half (see SyncTools.adopt). */
  async adopt(request: {
    form: PublishForm;
    teamPath: string | null;
    noteId: string;
    call: CallContext;
  }): Promise<{ baseline: string }> {
    const adopted = await this.adoptOnce(request);
    // Publishing from the author's vault: its links to the new note go live on HackMD too.
    await this.relinkOthers(request.form.path, request.teamPath, request.noteId, request.call, false);
    return adopted;
  }

  private async adoptOnce(request: {
    form: PublishForm;
    teamPath: string | null;
    noteId: string;
    call: CallContext;
  }): Promise<{ baseline: string }> {
    const { form, teamPath, noteId, call } = request;
    const key = recordKey(teamPath, noteId);
    const path = form.path;
    return this.serialised(
      () => Promise.resolve([noteQueueKey(key), pathQueueKey(path)]),
      async () => {
        const refuse = (): BridgeError =>
          new BridgeError(
            "conflict",
            `${path} was linked to another note while it was being published; it stays with that note.`,
          );
        if ((await this.store.findByPath(path)) !== undefined) throw refuse();
        const expect = expectationOf(await this.store.readRecord(key));
        let baseline = form.content;
        let conversion = form.conversion;
        if (form.missingImages.length > 0 && conversion !== undefined) {
          const links = await this.conversion.uploadImages({
            call,
            client: this.client,
            teamPath,
            noteId,
            paths: form.missingImages,
          });
          const linked = await this.conversion.remoteForm(conversion, form.text, { extraImages: links });
          if (linked.text !== baseline) {
            await this.writeNote(call, { teamPath, noteId }, linked.text);
            baseline = linked.text;
          }
          conversion = linked.conversion ?? conversion;
        }
        // No timestamp: the next sync reads the note once, and records the settled one.
        await this.store
          .save({
            teamPath,
            noteId,
            localPath: path,
            baseline,
            timestamp: "",
            expect,
            fileStillThere: async () => (await this.files.stat(path)).kind === "file",
            ...(conversion === undefined ? {} : { conversion }),
          })
          .catch((error: unknown) => {
            if (error instanceof SaveSkipped)
              throw new BridgeError(
                "conflict",
                `${path} was moved, deleted or linked to another note while it was being published; nothing was tracked.`,
                { cause: error },
              );
            if (error instanceof RecordChangedError) throw refuse();
            throw error;
          });
        return { baseline };
      },
    );
  }

  /** Relink (see SyncTools.relink). */
  async relink(request: { localPath: string; call: CallContext; fileOnly?: boolean }): Promise<RelinkOutcome> {
    const resolved = await this.files.resolve(request.localPath, "write");
    const path = resolved.path;
    const keysOf = async (): Promise<string[]> => {
      const found = await this.store.findByPath(path);
      if (!found) throw await this.notTracked(path);
      return [noteQueueKey(found.key), pathQueueKey(path)];
    };
    return this.serialised(keysOf, async () => {
      const loaded = await this.loadTracked(path);
      const recorded = loaded.conversion;
      if (recorded === undefined || !recorded.enabled) return "unchanged";
      const file = await this.readLocalFile(path, { confirmLargeFile: true });
      // Only a file nobody edited since its baseline is ever rewritten or re-sent.
      if ((await this.conversion.compareForm(recorded, file.text)) !== loaded.baseline) return "skipped";
      const fresh = await this.conversion.freshened(recorded, file.text, path);
      if (fresh === recorded) return "unchanged";
      const { record } = loaded;
      const address = { teamPath: record.team_path, noteId: record.internal_id };
      // The file's side first: a link a pull wrote as a URL (its note was not tracked then)
      // becomes the wikilink it stands for; HackMD's text stays as it is.
      const local = await this.conversion.localForm(loaded.baseline, {
        convert: true,
        previous: fresh,
        notePath: path,
      });
      if (local.text !== file.text && markerCount(local.text) <= markerCount(file.text)) {
        // The host may ask about this change as about any pull's (an agent's pull relinks other files).
        await request.call.beforeChange({
          action: "pull_note",
          note: address,
          localPath: path,
          body: { where: "file", before: file.text, after: local.text },
        });
        await this.store.expectRecord(loaded.key, expectationOf(record));
        await this.files.write(path, local.text, { expect: file.stamp });
        await this.store.save({
          teamPath: address.teamPath,
          noteId: address.noteId,
          localPath: path,
          baseline: loaded.baseline,
          timestamp: record.last_observed_remote_timestamp,
          expect: expectationOf(record),
          ...(local.conversion === undefined ? {} : { conversion: local.conversion }),
        });
        // A relink rewrote the file: one journal entry, keeping the file's text before it.
        const baselineHash = await bodyHash(loaded.baseline);
        await this.record(request.call, {
          ...journalBase(address, baseName(path).replace(/\.md$/i, ""), path, "relink", "rewritten"),
          kind: "pull",
          local: { before: await bodyHash(file.text), after: await bodyHash(local.text) },
          baseline: { before: baselineHash, after: baselineHash },
          keep: [{ side: "local", text: file.text }],
        });
        return "rewritten";
      }
      if (request.fileOnly === true) return "unchanged";
      // HackMD's side: a wikilink sent as text (its note was not tracked then) becomes a link.
      const form = await this.conversion.remoteForm(fresh, file.text, { listVault: true, notePath: path });
      if (form.text === loaded.baseline || markerCount(form.text) > markerCount(loaded.baseline)) return "unchanged";
      const note = await this.getNote(request.call, loaded);
      // Someone edited the note meanwhile: the next sync merges; nothing is sent over it.
      if (note.content !== loaded.baseline) return "skipped";
      this.pending.assertClear(address, note.content);
      await request.call.beforeChange(pushChange(address, note, path, form.text));
      await this.store.expectRecord(loaded.key, expectationOf(record));
      const [before, after] = [await bodyHash(note.content), await bodyHash(form.text)];
      // As push: an unknown outcome is journaled `unconfirmed` (never retried blindly).
      const last = await this.writeUnlessUnknown(request.call, address, form.text, {
        ...journalBase(address, note.title, path, "relink", "unconfirmed"),
        kind: "push",
        remote: { before, after },
        baseline: { before, after: before },
        keep: [{ side: "remote", text: note.content }],
      });
      await this.saveAfter(path, { record, baseline: form.text, note: last, kind: "push", ...conversionOption(form) });
      // As push: a collaborator's edit between our read and our write was replaced; report it.
      const overwritten = await this.safety?.overwrittenSince(request.call, address.noteId, note.last_changed_at);
      if (overwritten !== undefined && overwritten.length > 0)
        this.logger.warn("sync_relink_overwrote", {
          note_id: address.noteId,
          path,
          versions: overwritten.map((version) => version.version_id).join(","),
        });
      // A relink sent the links to HackMD: one journal entry, keeping HackMD's text before it.
      await this.record(request.call, {
        ...journalBase(address, last.title, path, "relink", "pushed"),
        kind: "push",
        remote: { before, after },
        baseline: { before, after },
        keep: [{ side: "remote", text: note.content }],
      });
      return "pushed";
    });
  }

  /** Pull (docs/tools.md §14.1–14.2): destination checks, one GET, the refusal table, write, save. */
  async pull(request: PullRequest): Promise<PullResult> {
    const result = await this.pullOnce(request);
    if (result.kind === "pulled" && result.newlyTracked === true) {
      // A pull changes files only: the vault may not hold every note yet, so what it would send could differ from the author's.
      await this.relinkOthers(
        result.output.local_path,
        result.output.team_path,
        result.output.note_id,
        request.call,
        true,
      );
      delete result.newlyTracked;
    }
    return result;
  }

  /**
   * After a note became tracked at `path`: relinks the unedited files (itself among them) whose saved
   * conversion asked about it (docs/conversion-rules.md, "Relink"), so the order in which notes
   * are pulled or published does not change any file. One read of each record's conversion; a
   * relink that fails is logged and left for the next sync.
   */
  private async relinkOthers(
    path: string,
    teamPath: string | null,
    noteId: string,
    call: CallContext,
    fileOnly: boolean,
  ): Promise<void> {
    const name = path
      .slice(path.lastIndexOf("/") + 1)
      .replace(/\.md$/i, "")
      .toLowerCase();
    const url = this.conversion.noteUrl(teamPath, noteId);
    // The operation that called this succeeded: nothing here may turn it into a failure.
    const records = await this.store.list().catch((error: unknown) => {
      this.logger.warn("sync_relink_failed", { reason: describe(error) });
      return [];
    });
    // The file just written too: its links to itself were written before it was tracked.
    for (const found of records) {
      const conversion = await this.store.conversionOf(found).catch(() => undefined);
      if (conversion === undefined || !conversion.enabled) continue;
      const asked = conversion.answers.some(([question]) => {
        const lower = question.toLowerCase();
        return (
          lower.includes(name) || question.includes(noteId) || question.includes(url) || question.endsWith(`:${path}`)
        );
      });
      if (!asked) continue;
      try {
        await this.relink({ localPath: found.record.local_path, call, fileOnly });
      } catch (error) {
        this.logger.warn("sync_relink_failed", { reason: describe(error) });
      }
    }
  }

  private async pullOnce(request: PullRequest): Promise<PullResult & { newlyTracked?: boolean }> {
    const resolved = await this.files.resolve(request.localPath, "write");
    const path = resolved.path;
    if (!isMarkdownPath(path))
      throw new BridgeError("invalid_input", `The destination ${path} must be a .md file; give a path ending in .md.`);
    await this.destinationChecks(path, request);
    const target = await request.resolveTarget();
    if (target.status !== "resolved") return { kind: "unresolved", resolution: target };
    const key = recordKey(target.teamPath, target.noteId);
    // The note, the destination and the file the note is tracked at now (if another) are held.
    const keysOf = async (): Promise<string[]> => {
      const prior = await this.store.readRecord(key);
      const elsewhere = typeof prior === "object" && prior.local_path !== path ? [pathQueueKey(prior.local_path)] : [];
      return [noteQueueKey(key), pathQueueKey(path), ...elsewhere];
    };
    return this.serialised(keysOf, async () => {
      const prior = await this.store.readRecord(key);
      const expect = expectationOf(prior);
      const previous = typeof prior === "object" ? await this.store.conversionOf({ key, record: prior }) : undefined;
      const leaving =
        typeof prior === "object" && prior.local_path !== path && !request.discardLocalChanges
          ? prior.local_path
          : undefined;
      const leftAs =
        leaving !== undefined && typeof prior === "object"
          ? await this.refuseStranding({ key, record: prior }, previous, path)
          : undefined;
      const strandingRefusal = (): BridgeError =>
        new BridgeError(
          "unpushed_changes",
          `${leaving ?? ""} changed while note ${target.noteId} was being pulled to ${path}; nothing was written. Push ${leaving ?? ""} first, or pull again.`,
          {
            details: { local_path: leaving ?? "" },
          },
        );
      const before = await this.files.stat(path);
      const prefetched = request.prefetched;
      const note =
        prefetched !== undefined && prior === undefined && before.kind === "missing" && prefetched.id === target.noteId
          ? prefetched
          : await this.client.getNote(request.call, { teamPath: target.teamPath, noteId: target.noteId });
      const body = requireBody(note, target.noteId);
      const size = utf8Length(body);
      if (size > MAX_BODY_BYTES) {
        throw new BridgeError(
          "too_large",
          `Note ${target.noteId} holds ${size} bytes, more than the 50 MiB a pull accepts; nothing was written.`,
        );
      }
      if (size > LARGE_BODY_BYTES && !request.confirmLargeFile) {
        throw new BridgeError(
          "confirmation_required",
          `Note ${target.noteId} holds ${size} bytes (above 5 MiB); pull again with ${this.words.flag("confirm_large_file")}.`,
        );
      }
      // What the file will hold: the body, or its Obsidian form (docs/conversion-rules.md).
      const formOptions = {
        convert: request.convert ?? previous?.enabled ?? this.conversion.enabledByDefault,
        previous,
        keepOff: request.convert === false,
        notePath: path,
      };
      let form = await this.conversion.localForm(body, formOptions);
      const text = form.text;
      // The GET took time: the destination may have changed (an editor save, a new folder).
      const exists = await this.destinationChecks(path, request);
      if (!exists && (before.kind !== "missing" || this.movingAway.has(path))) {
        // Renamed or deleted meanwhile: a fresh copy here would pair the moved file's record with text it never held.
        throw new BridgeError(
          "conflict",
          `${path} was moved or deleted while the note was being pulled; nothing was written. Pull again to the path you want.`,
        );
      }
      let stamp: FileStamp | "absent" = "absent";
      let oldRaw: string | undefined;
      let usable: string | undefined;
      if (exists) {
        try {
          const read = await this.files.read(path, { maxBytes: MAX_BODY_BYTES });
          stamp = read.stamp;
          const text = read.truncated ? undefined : decodeUtf8(read.bytes);
          oldRaw = text;
          usable = text === undefined ? undefined : normalizeLineEndings(text);
        } catch (error) {
          if (!request.discardLocalChanges) {
            if (isBridgeError(error, "local_io")) throw error;
            throw new BridgeError(
              "local_io",
              `The existing file ${path} cannot be read (${describe(error)}); nothing was written. Fix it, or retry with ${this.words.flag("discard_local_changes")} to replace it.`,
              {
                cause: error,
              },
            );
          }
          const info = await this.files.stat(path);
          if (info.stamp) stamp = info.stamp;
        }
      }
      const same = usable !== undefined && usable === text;
      const changes = exists && usable !== undefined && !same ? pullChanges(usable, text) : undefined;
      if (exists && !same && !request.discardLocalChanges) await this.refuseUnlessBehind(path, usable);
      // The one point before anything is written: the host may ask the user about exactly this change.
      await request.call.beforeChange({
        action: "pull_note",
        note: { teamPath: target.teamPath, noteId: target.noteId, title: note.title },
        localPath: path,
        body: { where: "file", before: usable ?? "", after: text },
      });
      // Collaborators' images come into the vault only now, after the host agreed to the change.
      if (form.unknownImages !== undefined)
        form =
          (await this.conversion.downloadedForm(body, form.unknownImages, {
            ...formOptions,
            download: { notePath: path, teamPath: target.teamPath },
          })) ?? form;
      if (!exists && request.createParentDirs && parentPath(path) !== "") {
        const parent = await this.files.stat(parentPath(path));
        if (parent.kind === "missing") await this.files.createFolders(parentPath(path));
      }
      // Another process may have saved the record meanwhile: redo the decision before writing anything.
      await this.store.expectRecord(key, expect);
      if (leaving !== undefined && leftAs !== undefined && !(await this.firstFileUnchanged(leaving, leftAs)))
        throw strandingRefusal();
      // An unchanged file is left alone (its mtime too); a CRLF copy of the body is rewritten.
      const written = oldRaw !== form.text ? await this.files.write(path, form.text, { expect: stamp }) : undefined;
      try {
        const timestamp = this.recordedTimestamp(target, note, body);
        const fileStillThere = async (): Promise<boolean> => (await this.files.stat(path)).kind === "file";
        await this.store.save({
          teamPath: target.teamPath,
          noteId: target.noteId,
          localPath: path,
          baseline: body,
          timestamp,
          expect,
          fileStillThere,
          ...(form.conversion ? { conversion: form.conversion } : {}),
        });
      } catch (error) {
        if (error instanceof SaveSkipped) {
          throw new BridgeError(
            "conflict",
            `${path} was removed while note ${target.noteId} was being pulled to it; nothing was saved. Pull again.`,
            { cause: error },
          );
        }
        if (error instanceof RecordChangedError) {
          // A file this pull created holds only the note's body (HackMD has it): take it back, unless
          // it changed since or a record names it by now (another process's pull kept it), so no
          // copy that nothing tracks is left behind and no record names a removed file.
          if (stamp === "absent" && written !== undefined && (await this.takeBack(key, path, written.stamp))) {
            throw new BridgeError(
              "conflict",
              `Another window or process changed the sync record of note ${target.noteId} while it was being pulled to ${path}; nothing was kept. Check where the note is tracked now, then pull again.`,
              {
                cause: error,
              },
            );
          }
          throw new BridgeError(
            "conflict",
            `${path} now holds the note's body, but another window or process changed its sync record while it was written, so the record was left as that process saved it. Check the file's status, then pull again.`,
            { cause: error },
          );
        }
        throw new BridgeError(
          "local_io",
          `The note was written to ${path}, but its sync state could not be saved (${describe(error)}), so the file is not tracked; pull again to repair it.`,
          {
            cause: error,
          },
        );
      }
      if (leaving !== undefined && leftAs !== undefined && !(await this.firstFileUnchanged(leaving, leftAs))) {
        // Typed into after the last look: the record has moved, the text there is not lost, but say so.
        throw new BridgeError(
          "conflict",
          `The note was pulled to ${path}, but ${leaving} was edited meanwhile and is no longer tracked; its text is kept there. Copy your edits from ${leaving} into ${path}, then push ${path}.`,
          { details: { local_path: leaving } },
        );
      }
      const drift = titleDrift(note.title, body);
      const remoteHash = await bodyHash(body);
      // A pull that found the file and its record already as HackMD has them replaced nothing.
      const replacedNothing =
        written === undefined &&
        typeof prior === "object" &&
        prior.local_path === path &&
        prior.baseline_body_hash === remoteHash;
      if (!replacedNothing)
        await this.record(request.call, {
          kind: "pull",
          branch: "pull",
          outcome: written === undefined ? "unchanged" : "pulled",
          note: { team_path: target.teamPath, note_id: target.noteId, title: note.title },
          file: path,
          local: {
            ...(usable === undefined ? {} : { before: await bodyHash(usable) }),
            after: await bodyHash(normalizeLineEndings(form.text)),
          },
          remote: { before: remoteHash, after: remoteHash },
          baseline: {
            ...(typeof prior === "object" ? { before: prior.baseline_body_hash } : {}),
            after: remoteHash,
          },
          ...(usable !== undefined && !same ? { keep: [{ side: "local" as const, text: usable }] } : {}),
          // For a pull, the text it left in the file (the Sync history view shows the change as a diff).
          ...(written === undefined ? {} : { keepWritten: normalizeLineEndings(form.text) }),
        });
      // The file and the note now agree: a snapshot of an earlier conflict of this file has done its job.
      const snapshot =
        typeof prior === "object" && prior.local_path === path ? await this.cleanSnapshot(key, path) : undefined;
      return {
        kind: "pulled",
        ...(typeof prior === "object" && prior.local_path === path ? {} : { newlyTracked: true }),
        output: {
          team_path: target.teamPath,
          note_id: target.noteId,
          title: note.title,
          local_path: path,
          bytes: size,
          body_hash: remoteHash,
          ...(changes === undefined ? {} : { changes }),
          ...(drift === undefined ? {} : { title_drift: drift }),
          // The record moved here: the file it named is kept as it is, but no longer tracked.
          ...(typeof prior === "object" && prior.local_path !== path ? { moved_from: prior.local_path } : {}),
        },
        ...(snapshot === undefined ? {} : { snapshot }),
      };
    });
  }

  /** Push (docs/tools.md §14.3–14.4): read, load, one GET, decide, then execute the decision. */
  async push(request: PushRequest): Promise<PushResult> {
    const resolved = await this.files.resolve(request.localPath, "read");
    const expected = request.expectedRemoteHash;
    if (expected !== undefined && !isBodyHash(expected)) {
      throw new BridgeError(
        "invalid_input",
        `${this.words.input("expected_remote_hash")} must be "sha256:" followed by 64 lowercase hex digits; pass the remote_body_hash a push conflict reported, exactly as returned.`,
      );
    }
    if (request.strategy === "overwrite" && !request.confirm) {
      throw new BridgeError(
        "confirmation_required",
        `${this.words.flag("strategy_overwrite")} replaces the note's body with the local file, discarding remote edits; push again with ${this.words.flag("confirm")} if that is intended.`,
      );
    }
    const path = resolved.path;
    const keysOf = async (): Promise<string[]> => {
      const found = await this.store.findByPath(path);
      if (!found) throw await this.notTracked(path);
      return [noteQueueKey(found.key), pathQueueKey(path)];
    };
    return this.serialised(keysOf, async () => this.withSnapshotCleanup(await this.pushHeld(request, path)));
  }

  /** The push itself, holding the note's and the file's keys (see `push`). */
  private async pushHeld(request: PushRequest, path: string): Promise<PushResult> {
    const expected = request.expectedRemoteHash;
    // Read only now, holding the keys: a pull that ran meanwhile has already written this file.
    const loaded = await this.loadTracked(path);
    const file = await this.readLocalFile(path, { confirmLargeFile: request.confirmLargeFile });
    let form = await this.conversion.remoteForm(loaded.conversion, file.text, { listVault: true, notePath: path });
    const { record } = loaded;
    const address = { teamPath: record.team_path, noteId: record.internal_id };
    if (request.crossCheck) {
      const resolution = await request.crossCheck(record.team_path);
      if (resolution.status !== "resolved") return { kind: "unresolved", resolution };
      if (resolution.noteId !== address.noteId || resolution.teamPath !== address.teamPath) {
        throw new BridgeError(
          "invalid_input",
          `note_ref names a different note (${resolution.noteId}) than the one ${path} was pulled from (${address.noteId}); omit note_ref or pass that note.`,
        );
      }
    }
    const listed = await this.listedNote(request, loaded, form);
    const note = listed ?? (await this.getNote(request.call, loaded));
    let local = form.text;
    let localHash = await bodyHash(local);
    const remoteHash = await bodyHash(note.content);
    const decision = decidePush({
      strategy: request.strategy,
      baseline: record.baseline_body_hash,
      local: localHash,
      remote: remoteHash,
      expected,
    });
    const base: PushOutput = {
      status: decision.status,
      team_path: address.teamPath,
      note_id: address.noteId,
      local_path: record.local_path,
      baseline_path: this.baselinePath(loaded.key),
    };
    const uploads =
      decision.effect === "patch" || decision.effect === "merge" ? await this.conversion.imagesToUpload(form) : [];
    if (uploads.length > 0) {
      // New or edited embedded images go up first (one request each), then the file converts with their links.
      await this.store.expectRecord(loaded.key, expectationOf(record));
      const links = await this.conversion.uploadImages({
        call: request.call,
        client: this.client,
        teamPath: address.teamPath,
        noteId: address.noteId,
        paths: uploads,
      });
      form = await this.conversion.remoteForm(loaded.conversion, file.text, {
        extraImages: links,
        listVault: true,
        notePath: path,
      });
      local = form.text;
      localHash = await bodyHash(local);
    }
    const conversion = conversionOption(form);
    switch (decision.effect) {
      case "none":
        if (decision.status === "remote_changed") {
          return {
            kind: "pushed",
            output: {
              ...base,
              remote_body_hash: remoteHash,
              instructions: `The note changed on HackMD and ${path} has no local edits. Run ${this.words.step({ action: "pull", path, noteId: address.noteId, teamPath: address.teamPath, flags: ["overwrite_local"] })} to bring the file up to date.`,
            },
          };
        }
        return { kind: "pushed", output: { ...base, body_hash: localHash, ...drift(note.title, local) } };
      case "advance_baseline":
        await this.saveAfter(path, { record, baseline: local, note, kind: "advance", ...conversion });
        await this.record(request.call, {
          ...journalBase(address, note.title, path, decision.branch, decision.status),
          kind: "advance_baseline",
          local: { before: localHash, after: localHash },
          remote: { before: remoteHash, after: remoteHash },
        });
        return { kind: "pushed", output: { ...base, body_hash: localHash, ...drift(note.title, local) } };
      case "patch": {
        // An earlier unconfirmed write may still land on top of the body just read: wait for it.
        this.pending.assertClear(address, note.content);
        await request.call.beforeChange(pushChange(address, note, record.local_path, local));
        if (listed !== undefined) await this.assertListStillFresh(request, loaded);
        await this.store.expectRecord(loaded.key, expectationOf(record));
        // A deliberate overwrite of HackMD's text first names that text as a version (one request).
        const version = OVERWRITE_BRANCHES.has(decision.branch)
          ? await this.safety?.before(request.call, address.noteId, request.purpose ?? "push")
          : undefined;
        const probe =
          listed !== undefined &&
          request.listed !== undefined &&
          this.clock.now() - request.listed.at > LISTED_CHECK_AFTER_MS;
        const last = await this.writeUnlessUnknown(request.call, address, local, {
          ...journalBase(address, note.title, path, decision.branch, "unconfirmed"),
          kind: request.strategy === "overwrite" ? "force_push" : "push",
          local: { before: localHash, after: localHash },
          baseline: { before: record.baseline_body_hash, after: record.baseline_body_hash },
          remote: { before: remoteHash, after: localHash },
          keep: [{ side: "remote", text: note.content }],
        });
        await this.saveAfter(path, { record, baseline: local, note: last, kind: "push", ...conversion });
        // A collaborator's edit between our read (or, after a force push, the version named
        // before it) and our write was replaced: the version list shows it; report it.
        const since =
          version?.made === true && typeof version.created_at_ms === "number"
            ? version.created_at_ms
            : note.last_changed_at;
        const overwritten = await this.safety?.overwrittenSince(request.call, address.noteId, since, { probe });
        await this.record(request.call, {
          ...journalBase(address, last.title, path, decision.branch, "pushed"),
          kind: request.strategy === "overwrite" ? "force_push" : "push",
          local: { before: localHash, after: localHash },
          baseline: { before: record.baseline_body_hash, after: localHash },
          remote: { before: remoteHash, after: localHash },
          ...(version?.made === true
            ? {
                replaced: [
                  { side: "remote" as const, hash: remoteHash, where: "version" as const, version_id: version.id },
                ],
              }
            : {}),
          keep: [{ side: "remote", text: note.content }],
          // What HackMD now holds, so the Sync history view can show the change as a diff.
          keepWritten: local,
        });
        return {
          kind: "pushed",
          output: { ...base, body_hash: localHash, ...drift(last.title, local) },
          ...pushSafety(version, overwritten),
        };
      }
      case "merge": {
        // The merge engine loads on first use (not with the plugin).
        const { threeWayMerge } = await import("./merge");
        const merge = threeWayMerge({ base: loaded.baseline, local, remote: note.content });
        if (!merge.clean) {
          const output = await this.conflictOutput(
            { ...base, status: "conflict" },
            loaded,
            local,
            note.content,
            remoteHash,
          );
          await this.recordConflict(request.call, output, note.title, path, "G7", localHash, remoteHash);
          return { kind: "pushed", output };
        }
        const merged = merge.merged;
        // The merged body in the file's form (docs/conversion-rules.md), and the conversion that goes with it.
        const mergedForm = await this.conversion.localForm(merged, {
          convert: form.conversion?.enabled === true,
          previous: form.conversion,
          notePath: path,
        });
        const mergedConversion = mergedForm.conversion ? { conversion: mergedForm.conversion } : {};
        // Ask once, about what changes: the note's body, or (when HackMD already holds the merge) only the file.
        if (merged !== note.content)
          await request.call.beforeChange(pushChange(address, note, record.local_path, merged));
        else if (mergedForm.text !== file.raw) {
          await request.call.beforeChange({
            action: "push_note",
            note: { ...address, title: note.title },
            localPath: record.local_path,
            body: { where: "file", before: file.text, after: mergedForm.text },
          });
        }
        // The file first, exactly as read (an edit made meanwhile wins); then HackMD; then the baseline.
        if (mergedForm.text !== file.raw) {
          await this.store.expectRecord(loaded.key, expectationOf(record));
          try {
            await this.files.write(path, mergedForm.text, { expect: file.stamp });
          } catch (error) {
            if (!isBridgeError(error, "conflict")) throw error;
            throw new BridgeError(
              "conflict",
              `${path} changed while its edits were being merged with the note's; nothing was written or sent. Sync it again.`,
              { cause: error },
            );
          }
        }
        const mergedHash = await bodyHash(merged);
        const fileBefore = await bodyHash(file.text);
        if (merged === note.content) {
          await this.saveAfter(path, { record, baseline: merged, note, kind: "advance", ...mergedConversion });
          await this.record(request.call, {
            ...journalBase(address, note.title, path, decision.branch, "nothing_to_push"),
            kind: "merge",
            local: { before: fileBefore, after: await bodyHash(mergedForm.text) },
            remote: { before: remoteHash, after: remoteHash },
            keep: [{ side: "local", text: file.text }],
          });
          return {
            kind: "pushed",
            output: {
              ...base,
              status: "nothing_to_push",
              body_hash: mergedHash,
              merged: true,
              ...drift(note.title, merged),
            },
          };
        }
        this.pending.assertClear(address, note.content);
        await this.store.expectRecord(loaded.key, expectationOf(record));
        const last = await this.writeUnlessUnknown(request.call, address, merged, {
          ...journalBase(address, note.title, path, decision.branch, "unconfirmed"),
          kind: "merge",
          local: { before: fileBefore, after: await bodyHash(mergedForm.text) },
          remote: { before: remoteHash, after: mergedHash },
          baseline: { before: record.baseline_body_hash, after: record.baseline_body_hash },
          keep: [
            ...(mergedForm.text !== file.raw ? [{ side: "local" as const, text: file.text }] : []),
            { side: "remote" as const, text: note.content },
          ],
        });
        await this.saveAfter(path, { record, baseline: merged, note: last, kind: "push", ...mergedConversion });
        const overwritten = await this.safety?.overwrittenSince(request.call, address.noteId, note.last_changed_at);
        await this.record(request.call, {
          ...journalBase(address, last.title, path, decision.branch, "pushed"),
          kind: "merge",
          local: { before: fileBefore, after: await bodyHash(mergedForm.text) },
          remote: { before: remoteHash, after: mergedHash },
          baseline: { before: record.baseline_body_hash, after: mergedHash },
          keep: [
            ...(mergedForm.text !== file.raw ? [{ side: "local" as const, text: file.text }] : []),
            { side: "remote" as const, text: note.content },
          ],
          keepWritten: merged,
        });
        return {
          kind: "pushed",
          output: { ...base, body_hash: mergedHash, merged: true, ...drift(last.title, merged) },
          ...pushSafety(undefined, overwritten),
        };
      }
      case "snapshot": {
        const output = await this.conflictOutput(base, loaded, local, note.content, remoteHash);
        // Both sides changed (S7): say when strategy merge would merge them without help.
        const mergeable = decision.branch === "S7" && (await mergesCleanly(loaded.baseline, local, note.content));
        await this.recordConflict(request.call, output, note.title, path, decision.branch, localHash, remoteHash);
        return { kind: "pushed", output, ...(mergeable ? { mergeable: true as const } : {}) };
      }
    }
  }

  /**
   * A push's or merge's body write; when its outcome is unknown (HackMD accepted it, or may have,
   * but no read-back showed it, so `PendingWrites` remembers it) the journal gets `unconfirmed`,
   * the entry `draft` with outcome `unconfirmed (<error kind>)` and the text it sent as `written`,
   * and the error goes on. The baseline was not advanced: the entry says so.
   */
  private async writeUnlessUnknown(
    call: CallContext,
    address: { teamPath: string | null; noteId: string },
    content: string,
    draft: Omit<JournalDraft, "actor">,
  ): Promise<NoteDetail> {
    try {
      return await this.writeNote(call, address, content);
    } catch (error) {
      if (this.pending.holds(address, content)) {
        const kind = error instanceof BridgeError ? error.kind : "unknown";
        await this.record(call, { ...draft, outcome: `unconfirmed (${kind})`, keepWritten: content });
      }
      throw error;
    }
  }

  /** Appends a journal entry for a write this call made (never fails the operation). */
  private async record(call: CallContext, draft: Omit<JournalDraft, "actor">): Promise<void> {
    if (this.journal === undefined) return;
    await this.journal.append({ ...draft, actor: this.journal.actorOr(call.actor) });
  }

  /** A push that ended in a conflict wrote the remote text to `.remote.md` (or could not). */
  private async recordConflict(
    call: CallContext,
    output: PushOutput,
    title: string,
    path: string,
    branch: string,
    localHash: string,
    remoteHash: string,
  ): Promise<void> {
    await this.record(call, {
      ...journalBase({ teamPath: output.team_path, noteId: output.note_id }, title, path, branch, "conflict"),
      kind: "conflict",
      local: { before: localHash, after: localHash },
      remote: { before: remoteHash, after: remoteHash },
      ...(output.snapshot_path === undefined
        ? {}
        : {
            replaced: [
              { side: "remote" as const, hash: remoteHash, where: "remote_md" as const, path: output.snapshot_path },
            ],
          }),
    });
  }

  /**
   * After a push that leaves the file, the baseline and the note agreeing (pushed, or nothing to
   * push), the `.remote.md` of an earlier conflict has done its job: it goes when it is still the
   * unedited snapshot this tool wrote (sync/snapshots.ts). Runs holding the push's keys; never
   * fails the push.
   */
  private async withSnapshotCleanup(result: PushResult): Promise<PushResult> {
    if (result.kind !== "pushed" || (result.output.status !== "pushed" && result.output.status !== "nothing_to_push"))
      return result;
    const snapshot = await this.cleanSnapshot(
      recordKey(result.output.team_path, result.output.note_id),
      result.output.local_path,
    );
    return snapshot === undefined ? result : { ...result, snapshot };
  }

  /** Removes the owned `.remote.md` beside the tracked file `path` of record `key` (the record read now); never throws. */
  private async cleanSnapshot(key: string, path: string): Promise<SnapshotOutcome | undefined> {
    try {
      const record = await this.store.readRecord(key);
      if (typeof record !== "object" || record.local_path !== path) return undefined;
      const cleanup = await removeSnapshotBeside(this.files, path, record.remote_snapshot_hash);
      return cleanup.kind === "none" ? undefined : cleanup;
    } catch (error) {
      // The operation stands; a snapshot left behind is only clutter.
      this.logger.debug("snapshot_cleanup_failed", { kind: isBridgeError(error) ? error.kind : "unexpected" });
      return undefined;
    }
  }

  /** A conflict's output: the `.remote.md` snapshot, the diff summary and the next steps; nothing sent. */
  private async conflictOutput(
    base: PushOutput,
    loaded: LoadedRecord,
    local: string,
    remote: string,
    remoteHash: string,
  ): Promise<PushOutput> {
    const path = loaded.record.local_path;
    const snapshot = await this.writeSnapshot(loaded, remote);
    return {
      ...base,
      remote_body_hash: remoteHash,
      diff_summary: diffSummary({ baseline: loaded.baseline, local, remote }),
      ...snapshot,
      instructions: conflictInstructions({
        path,
        remoteHash,
        snapshot: "snapshot_path" in snapshot ? snapshot.snapshot_path : undefined,
        words: this.words,
      }),
    };
  }

  /** Runs many operations with one scan of the records (see SyncStateStore.batch). */
  batch<T>(run: () => Promise<T>): Promise<T> {
    return this.store.batch(run);
  }

  /** Follows a rename inside the ROOT (docs/tools.md §13.9), in the same queue as pull, push and untrack. */
  async followRename(options: { from: string; to: string }): Promise<FollowRenameOutcome> {
    // Marked before the first await: a pull that finds `from` missing from now on knows it moved.
    this.movingAway.set(options.from, (this.movingAway.get(options.from) ?? 0) + 1);
    try {
      return await this.followRenameMarked(options);
    } finally {
      const left = (this.movingAway.get(options.from) ?? 1) - 1;
      if (left <= 0) this.movingAway.delete(options.from);
      else this.movingAway.set(options.from, left);
    }
  }

  private async followRenameMarked(options: { from: string; to: string }): Promise<FollowRenameOutcome> {
    // The record as it was when the file moved: only that record belongs to the moved text.
    const found = await this.store.findByPath(options.from);
    if (!found || !isMarkdownPath(options.to)) return "unchanged";
    try {
      await this.files.resolve(options.to, "write");
    } catch {
      return "unchanged"; // into .trash/, a protected folder or outside: the record keeps its old path
    }
    return this.queue.run([noteQueueKey(found.key), pathQueueKey(options.from), pathQueueKey(options.to)], async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
        const current = await this.store.findByPath(options.from);
        // Gone, or another note's record now (its keys are not held): left alone.
        if (current?.key !== found.key) return "unchanged";
        // A file at the old path that is not the renamed one (a case-only rename shows the same
        // file under both names) was written since the rename: another process pulled the note
        // there and said so to its caller. The record stays with that file; the host tells the user.
        if (await this.recreatedAt(options.from, options.to)) return "recreated";
        // Otherwise the record follows the file, even when another process saved it meanwhile: its
        // pull wrote the file before it was renamed, so the renamed file is the one it describes.
        // A save landing between this read and the move is read again, not left behind.
        try {
          // Asked again under the record's lock, so a pull of the other process cannot write the
          // old path between this check and the move and still keep the record there.
          await this.store.move(current, options.to, { unless: () => this.recreatedAt(options.from, options.to) });
          return "followed";
        } catch (error) {
          if (error instanceof MoveSkipped) return "recreated";
          if (!(error instanceof RecordChangedError)) throw error;
        }
      }
      return "unchanged";
    });
  }

  /** Whether a file other than the one now at `to` stands at `from`. */
  private async recreatedAt(from: string, to: string): Promise<boolean> {
    const [atFrom, atTo] = await Promise.all([
      this.files.stat(from).catch(() => undefined),
      this.files.stat(to).catch(() => undefined),
    ]);
    if (atFrom?.kind !== "file" || atFrom.stamp === undefined) return false;
    return atTo?.stamp === undefined || !sameStamp(atFrom.stamp, atTo.stamp);
  }

  /** Untrack (docs/tools.md §9.14): removes record, baseline and hint; the file and the note stay. */
  async untrack(request: UntrackRequest): Promise<UntrackOutput> {
    if (request.noteId.trim() === "")
      throw new BridgeError(
        "invalid_input",
        `${this.words.input("note_id")} is blank; pass the ${this.words.input("note_id")} of a tracked note (see ${this.words.step({ action: "list_tracked" })}).`,
      );
    if (!request.confirm) {
      throw new BridgeError(
        "confirmation_required",
        `Untracking forgets the sync record of note ${request.noteId} (the Markdown file is kept); call again with ${this.words.flag("confirm")}.`,
      );
    }
    const key = recordKey(request.teamPath, request.noteId);
    return this.queue.run([noteQueueKey(key)], async () => {
      const removed = await this.store.remove(request.teamPath, request.noteId);
      if (!removed) {
        throw new BridgeError(
          "not_tracked",
          `Note ${request.noteId} in ${request.teamPath === null ? "the personal workspace" : `team ${request.teamPath}`} is not tracked; see ${this.words.step({ action: "list_tracked" })}.`,
        );
      }
      if (this.journal !== undefined)
        await this.journal.append({
          actor: this.journal.actorOr(request.call?.actor),
          kind: "untrack",
          branch: "untrack",
          outcome: "untracked",
          note: { team_path: request.teamPath, note_id: request.noteId },
          file: removed.localPath,
        });
      return { team_path: request.teamPath, note_id: request.noteId, local_path: removed.localPath };
    });
  }

  /**
   * The serialisation rule (docs/architecture.md §3): runs `task` holding the keys `keysOf` names,
   * after checking inside the queue that they still cover what it touches. A task that finds its
   * record changed by another process before it wrote anything (`RecordChangedError`) is redone
   * from its first read; after a few attempts the operation gives up with `conflict`.
   */
  private async serialised<T>(keysOf: () => Promise<string[]>, task: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const keys = await keysOf();
      try {
        const outcome = await this.queue.run(keys, async () => {
          const now = await keysOf();
          return now.every((key) => keys.includes(key)) ? task() : STALE;
        });
        if (outcome !== STALE) return outcome;
      } catch (error) {
        if (!(error instanceof RecordChangedError)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw error;
        continue;
      }
      if (attempt >= MAX_ATTEMPTS) {
        throw new BridgeError(
          "conflict",
          "The sync record this operation needs kept changing while it waited (another window or process is syncing the same note); nothing was written. Try again.",
        );
      }
    }
  }

  /**
   * Pulling a tracked note to a second path moves its record there; the first file must not keep
   * edits that then belong to nothing. Refuses unless that file is missing or equals its baseline.
   */
  private async refuseStranding(
    found: KeyedRecord,
    conversion: LoadedRecord["conversion"],
    path: string,
  ): Promise<FileStamp | "missing"> {
    const prior = found.record;
    const first = prior.local_path;
    let text: string | undefined;
    let stamp: FileStamp | undefined;
    try {
      const info = await this.files.stat(first);
      if (info.kind === "missing") return "missing";
      const read = await this.files.read(first, { maxBytes: MAX_BODY_BYTES });
      text = read.truncated ? undefined : decodeUtf8(read.bytes);
      stamp = read.stamp;
    } catch {
      text = undefined;
    }
    if (
      text !== undefined &&
      stamp !== undefined &&
      (await bodyHash(await this.conversion.compareForm(conversion, normalizeLineEndings(text)))) ===
        prior.baseline_body_hash
    )
      return stamp;
    throw new BridgeError(
      "unpushed_changes",
      `Note ${prior.internal_id} is tracked at ${first}, which has edits that were never pushed; pulling it to ${path} would leave them untracked. Push ${first} first, or retry with ${this.words.flag("discard_local_changes")} to drop them.`,
      { details: { local_path: first } },
    );
  }

  /**
   * Whether the file a pull moves the record away from still is as `refuseStranding` found it.
   * Typing does not wait in the queue, so the pull looks again right before and right after it
   * moves the record.
   */
  private async firstFileUnchanged(first: string, seen: FileStamp | "missing"): Promise<boolean> {
    const info = await this.files.stat(first).catch(() => undefined);
    if (info === undefined) return false;
    if (seen === "missing") return info.kind === "missing";
    return info.stamp !== undefined && sameStamp(info.stamp, seen);
  }

  /** The ROOT-relative path of a record's baseline. */
  private baselinePath(key: string): string {
    return `${this.files.root.stateFolder}/${baselineFile(key)}`;
  }

  /** Finds and loads the record of a path: untracked → `not_tracked`; damaged → `sync_state`. */
  private async loadTracked(path: string): Promise<LoadedRecord> {
    const found = await this.store.findByPath(path);
    if (!found) throw await this.notTracked(path);
    return this.store.load(found);
  }

  /**
   * The `not_tracked` refusal of a path; when a pull moved the note's record away from it, the
   * message says where the note is tracked now (the record's `moved_from`).
   */
  private async notTracked(path: string): Promise<BridgeError> {
    const moved = await this.store.movedAwayFrom(path).catch(() => undefined);
    if (moved === undefined) return notTracked(path, this.words);
    const { record } = moved;
    return new BridgeError(
      "not_tracked",
      `${path} is no longer tracked: note ${record.internal_id} was pulled to ${record.local_path}, which is tracked in its place (${path} was kept as it was). Work on ${record.local_path}, or pull the note back here with ${this.words.step({ action: "pull", path, noteId: record.internal_id, teamPath: record.team_path, flags: ["overwrite_local"] })}.`,
    );
  }

  /**
   * Reads a working file under the size and UTF-8 rules of §14.3 step 2: its normalised text (what
   * is compared and pushed), the raw text and the stamp a later write of the file must expect.
   */
  private async readLocalFile(
    path: string,
    options: { confirmLargeFile: boolean },
  ): Promise<{ text: string; raw: string; stamp: FileStamp }> {
    const read = await this.files.read(path, { maxBytes: MAX_BODY_BYTES });
    if (read.truncated)
      throw new BridgeError("too_large", `${path} is larger than 50 MiB, more than a note may hold; shorten it.`);
    if (read.bytes.byteLength > LARGE_BODY_BYTES && !options.confirmLargeFile) {
      throw new BridgeError(
        "confirmation_required",
        `${path} holds ${read.bytes.byteLength} bytes (above 5 MiB); push again with ${this.words.flag("confirm_large_file")}.`,
      );
    }
    const raw = decodeUtf8(read.bytes);
    if (raw === undefined)
      throw new BridgeError("invalid_input", `${path} is not valid UTF-8; save it as UTF-8 text and try again.`);
    return { text: normalizeLineEndings(raw), raw, stamp: read.stamp };
  }

  /** Removes a file this pull created, under the note's record lock and only while no record names it. */
  private async takeBack(key: string, path: string, stamp: FileStamp): Promise<boolean> {
    return this.store
      .withLock(key, async () => {
        if ((await this.store.findByPath(path)) !== undefined) return false;
        return this.files.remove(path, { expect: stamp });
      })
      .catch(() => false);
  }

  /**
   * The note as the caller's fresh workspace list showed it, with the baseline as its body, when
   * that list may stand in for the push's own GET (PushRequest.listed); otherwise undefined.
   */
  private async listedNote(
    request: PushRequest,
    loaded: LoadedRecord,
    form: RemoteForm,
  ): Promise<NoteWithBody | undefined> {
    const listed = request.listed;
    if (listed === undefined) return undefined;
    const { record } = loaded;
    const address = { teamPath: record.team_path, noteId: record.internal_id };
    const settled =
      record.last_observed_remote_timestamp !== "" &&
      listed.note.last_changed_at !== null &&
      String(listed.note.last_changed_at) === record.last_observed_remote_timestamp;
    if (!settled || listed.note.id !== record.internal_id || this.clock.now() - listed.at > LISTED_TRUST_MS)
      return undefined;
    if (this.pending.mayStillLand(address, loaded.baseline)) return undefined;
    if ((await this.conversion.imagesToUpload(form)).length > 0) return undefined;
    const { note } = listed;
    return {
      id: note.id,
      short_id: note.short_id,
      title: note.title,
      description: note.description,
      tags: note.tags,
      team_path: note.team_path,
      patch_path: "",
      folder_ids: [],
      created_at: note.created_at,
      last_changed_at: note.last_changed_at,
      publish_link: note.publish_link,
      permalink: note.permalink,
      user_path: null,
      read_permission: note.read_permission,
      write_permission: note.write_permission,
      comment_permission: null,
      content: loaded.baseline,
    };
  }

  /**
   * A push that took a list as its read sends only while that list is fresh; past that it reads
   * the note after all, and goes on only when HackMD still holds the baseline.
   */
  private async assertListStillFresh(request: PushRequest, loaded: LoadedRecord): Promise<void> {
    const listed = request.listed;
    if (listed === undefined || this.clock.now() - listed.at <= LISTED_TRUST_MS) return;
    const note = await this.getNote(request.call, loaded);
    if (note.content === loaded.baseline) return;
    throw new BridgeError(
      "conflict",
      `Note ${loaded.record.internal_id} changed on HackMD while ${loaded.record.local_path} was being pushed; nothing was sent. Sync it again.`,
    );
  }

  /** One GET of a tracked note in the record's workspace; a reply without a body is `upstream`. */
  private async getNote(call: CallContext, loaded: KeyedRecord): Promise<NoteWithBody> {
    const note = await this.client.getNote(call, {
      teamPath: loaded.record.team_path,
      noteId: loaded.record.internal_id,
    });
    return { ...note, content: requireBody(note, loaded.record.internal_id) };
  }

  /**
   * The destination checks of §14.1 step 2 (run again after the GET). Returns whether a file
   * exists there (allowed only with `overwrite_local`).
   */
  private async destinationChecks(path: string, request: PullRequest): Promise<boolean> {
    const info = await this.files.stat(path);
    if (info.kind === "folder")
      throw new BridgeError("invalid_input", `${path} is a folder; the destination must be a .md file.`);
    if (info.kind !== "missing") {
      if (!request.overwriteLocal) {
        throw new BridgeError(
          "confirmation_required",
          `${path} already exists; pull again with ${this.words.flag("overwrite_local")} to replace it (unpushed edits are still protected).`,
        );
      }
      return true;
    }
    const parent = parentPath(path);
    if (parent === "") return false;
    const folder = await this.files.stat(parent);
    if (folder.kind === "missing") {
      if (!request.createParentDirs) {
        throw new BridgeError(
          "confirmation_required",
          `The folder ${parent} does not exist; pull again with ${this.words.flag("create_parent_dirs")} to create it.`,
        );
      }
    } else if (folder.kind !== "folder") {
      throw new BridgeError(
        "invalid_input",
        `${parent} is not a folder, so ${path} cannot be written; choose another destination.`,
      );
    }
    return false;
  }

  /** The refusal table of §14.2 for an existing file that differs from the note. */
  private async refuseUnlessBehind(path: string, usable: string | undefined): Promise<void> {
    const state = await this.store.inspectPath(path);
    if (state.kind === "several") {
      throw new BridgeError(
        "unpushed_changes",
        `More than one sync record names ${path}, so its edits cannot be verified as pushed; push them first, or retry with ${this.words.flag("discard_local_changes")} to drop them.`,
      );
    }
    if (state.kind === "one") {
      let loaded: LoadedRecord | undefined;
      try {
        loaded = await this.store.load(state);
      } catch (error) {
        if (!isBridgeError(error, "sync_state")) throw error;
      }
      if (loaded) {
        if (
          usable !== undefined &&
          (await bodyHash(await this.conversion.compareForm(loaded.conversion, usable))) ===
            loaded.record.baseline_body_hash
        )
          return;
        throw new BridgeError(
          "unpushed_changes",
          `${path} has edits that were never pushed; push them first (${this.words.step({ action: "push", path })}), or retry with ${this.words.flag("discard_local_changes")} to drop them.`,
        );
      }
    }
    throw new BridgeError(
      "unverified_local_content",
      `${path} differs from the note and nothing shows its content was ever pushed; to keep it, pull to another path, carry the edits over and push, or retry with ${this.words.flag("discard_local_changes")}.`,
    );
  }

  /** PATCH {content} (never retried), then polls until exactly that body shows; else `readback` (hackmd/write-body.ts). */
  private writeNote(
    call: CallContext,
    address: { teamPath: string | null; noteId: string },
    content: string,
  ): Promise<NoteDetail> {
    return writeBody(
      { client: this.client, pending: this.pending, lists: this.lists, clock: this.clock, sleep: this.sleep },
      call,
      {
        address,
        content,
        unconfirmed: () =>
          new BridgeError(
            "readback",
            `HackMD accepted the push to note ${address.noteId}, but reading it back never showed the pushed body; the baseline was not advanced. Check the note (${this.words.step({ action: "check", noteId: address.noteId, teamPath: address.teamPath })}) before pushing again.`,
          ),
      },
    );
  }

  /**
   * The `lastChangedAt` to record with a baseline, or `""` when it may not belong to that body.
   * HackMD can show a write's timestamp before its body (docs/hackmd-api.md §1.8.1), so a body read
   * shortly after a change, or while one of our own writes may still land, is recorded with no
   * timestamp: sync-all then fetches the note once more instead of trusting the note list, and
   * that later pull records the settled timestamp. Costs one GET after a fresh change.
   */
  private recordedTimestamp(
    address: { teamPath: string | null; noteId: string },
    note: NoteDetail,
    body: string,
  ): string {
    if (this.pending.mayStillLand(address, body)) return "";
    if (note.last_changed_at !== null && this.clock.now() - note.last_changed_at < SETTLE_MS) return "";
    return timestampOf(note);
  }

  /** Saves the record after a confirmed push (failure → `partial_write`) or a baseline advance. */
  private async saveAfter(
    path: string,
    options: {
      record: LoadedRecord["record"];
      baseline: string;
      note: NoteDetail;
      kind: "push" | "advance";
      conversion?: LoadedRecord["conversion"];
    },
  ): Promise<void> {
    try {
      await this.store.save({
        teamPath: options.record.team_path,
        noteId: options.record.internal_id,
        localPath: path,
        baseline: options.baseline,
        timestamp: this.recordedTimestamp(
          { teamPath: options.record.team_path, noteId: options.record.internal_id },
          options.note,
          options.baseline,
        ),
        expect: expectationOf(options.record),
        ...(options.conversion ? { conversion: options.conversion } : {}),
      });
    } catch (error) {
      if (options.kind === "advance") throw error;
      // Another process pushed the same text and saved it first: the baseline is where this push would put it.
      if (error instanceof RecordChangedError && (await this.savedAlready(options.record, path, options.baseline)))
        return;
      if (error instanceof RecordChangedError) {
        throw new BridgeError(
          "partial_write",
          `HackMD has the new body of note ${options.record.internal_id}, but another window or process changed the sync record of ${path} meanwhile, so the baseline was not moved; check the file's status and pull with ${this.words.flag("overwrite_local")} before the next push.`,
          { cause: error, details: { note_id: options.record.internal_id } },
        );
      }
      throw new BridgeError(
        "partial_write",
        `HackMD has the new body of note ${options.record.internal_id}, but the sync state could not be saved (${describe(error)}); run ${this.words.step({ action: "pull", path, noteId: options.record.internal_id, teamPath: options.record.team_path, flags: ["overwrite_local"] })} before the next push.`,
        { cause: error, details: { note_id: options.record.internal_id } },
      );
    }
  }

  /** Whether the note's record now names `path` with `baseline` as its baseline (saved by another process). */
  private async savedAlready(record: LoadedRecord["record"], path: string, baseline: string): Promise<boolean> {
    const current = await this.store.readRecord(recordKey(record.team_path, record.internal_id)).catch(() => undefined);
    return (
      typeof current === "object" &&
      current.local_path === path &&
      current.baseline_body_hash === (await bodyHash(baseline))
    );
  }

  /** Writes the `.remote.md` snapshot under the ownership rule of §14.7; never throws. */
  private async writeSnapshot(
    loaded: LoadedRecord,
    remoteBody: string,
  ): Promise<{ snapshot_path: string } | { snapshot_error: string }> {
    // In the syntax the user writes (docs/conversion-rules.md), so a conflict is resolved in that syntax.
    const remote = (
      await this.conversion.localForm(remoteBody, {
        convert: loaded.conversion?.enabled === true,
        previous: loaded.conversion,
        // Relative links and images resolve beside the note, as its pull resolves them.
        notePath: loaded.record.local_path,
      })
    ).text;
    let target: string;
    try {
      target = (await this.files.resolve(remoteSnapshotPath(loaded.record.local_path), "write")).path;
    } catch (error) {
      return { snapshot_error: `No snapshot was written: ${describe(error)}` };
    }
    try {
      const info = await this.files.stat(target);
      let expect: FileStamp | "absent" = "absent";
      if (info.kind !== "missing") {
        const owned =
          info.kind === "file"
            ? await ownedSnapshotStamp(this.files, target, loaded.record.remote_snapshot_hash)
            : undefined;
        if (!owned) {
          return {
            snapshot_error: `${target} exists and is not the snapshot this tool wrote, so it was left alone; move it away to get a fresh snapshot of the remote body.`,
          };
        }
        expect = owned;
      }
      await this.store.expectRecord(loaded.key, expectationOf(loaded.record));
      const written = await this.files.write(target, remote, { expect });
      try {
        await this.store.setSnapshotHash(loaded, `sha256:${await sha256Hex(remote)}`);
      } catch (error) {
        await this.files.remove(target, { expect: written.stamp }).catch(() => false);
        if (error instanceof RecordChangedError) throw error;
        return {
          snapshot_error: `The snapshot ${target} was removed again because the sync record could not be updated (${describe(error)}).`,
        };
      }
      return { snapshot_path: written.path };
    } catch (error) {
      if (error instanceof RecordChangedError) throw error; // the push redoes its decision
      this.logger.warn("sync_snapshot_failed", { path: target, kind: isBridgeError(error) ? error.kind : "unknown" });
      return { snapshot_error: `No snapshot was written to ${target}: ${describe(error)}` };
    }
  }
}

/** The body of a note, or `upstream` when HackMD sent none. */
function requireBody(note: NoteDetail, noteId: string): string {
  if (note.content === undefined)
    throw new BridgeError("upstream", `HackMD sent note ${noteId} without its body; nothing was written. Retry later.`);
  return note.content;
}

/** `lastChangedAt` in ms as decimal digits, or `""` when HackMD sent none. */
function timestampOf(note: NoteDetail): string {
  return note.last_changed_at === null ? "" : String(note.last_changed_at);
}

/** The fields of a push's journal entry every branch shares. */
function journalBase(
  address: { teamPath: string | null; noteId: string },
  title: string,
  file: string,
  branch: string,
  outcome: string,
): Pick<JournalDraft, "note" | "file" | "branch" | "outcome"> {
  return { note: { team_path: address.teamPath, note_id: address.noteId, title }, file, branch, outcome };
}

/** Push branches that replace text HackMD holds beyond the baseline, or on purpose (docs/tools.md §14.4). */
const OVERWRITE_BRANCHES: ReadonlySet<string> = new Set(["O3", "S6", "G6"]);

/** The safety report of a push that wrote, when there is anything to report. */
function pushSafety(
  version: SafetyVersion | undefined,
  overwritten: OverwrittenVersion[] | undefined,
): { safety?: PushSafety } {
  if (version === undefined && (overwritten === undefined || overwritten.length === 0)) return {};
  return {
    safety: {
      ...(version === undefined ? {} : { version }),
      ...(overwritten && overwritten.length > 0 ? { overwritten } : {}),
    },
  };
}

/** Strict UTF-8 decoding that keeps a byte order mark; undefined when the bytes are not UTF-8. */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** `title_drift` as an optional output field. */
function drift(title: string, body: string): { title_drift?: string } {
  const value = titleDrift(title, body);
  return value === undefined ? {} : { title_drift: value };
}

/** The `not_tracked` refusal of a path. */
function notTracked(path: string, words: Words): BridgeError {
  return new BridgeError(
    "not_tracked",
    `${path} is not tracked; pull the note to it first with ${words.step({ action: "pull", path })}.`,
  );
}

/** The next steps after a conflict. */
function conflictInstructions(options: {
  path: string;
  remoteHash: string;
  snapshot: string | undefined;
  words: Words;
}): string {
  const { path, remoteHash, snapshot, words } = options;
  const where =
    snapshot === undefined
      ? `the remote changes shown in ${words.input("diff_summary")}`
      : `the changes in ${snapshot} (the current remote body)`;
  return `Both ${path} and the note changed since the last sync; nothing was sent. Fold ${where} into ${path}, then push again with ${words.expectedHash(remoteHash)}. Avoid ${words.flag("strategy_overwrite")} until the merge has been reviewed.`;
}

/** Whether baseline, local and remote bodies merge without overlap (the merge engine loads on first use). */
async function mergesCleanly(base: string, local: string, remote: string): Promise<boolean> {
  try {
    const { threeWayMerge } = await import("./merge");
    return threeWayMerge({ base, local, remote }).clean;
  } catch {
    return false;
  }
}

/** How many escape markers (`<!---->`, docs/conversion-rules.md) a text holds. */
function markerCount(text: string): number {
  return text.split("<!---->").length - 1;
}

/** The conversion of a file nothing was recorded for: every answer as the vault is now. */
const FRESH_CONVERSION: ConversionDependencies = { enabled: true, linkFormat: "shortest", answers: [], comments: [] };

/** A short description of a failure for messages. */
function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The conversion to save with a push's baseline, as an optional field. */
function conversionOption(form: RemoteForm): { conversion?: RemoteForm["conversion"] } {
  return form.conversion === undefined ? {} : { conversion: form.conversion };
}

/** The change a push is about to make: the note's body becomes the file's (or the merged) text. */
function pushChange(
  address: { teamPath: string | null; noteId: string },
  note: NoteWithBody,
  localPath: string,
  after: string,
): ProposedChange {
  return {
    action: "push_note",
    note: { ...address, title: note.title },
    localPath,
    body: { where: "note", before: note.content, after },
  };
}
