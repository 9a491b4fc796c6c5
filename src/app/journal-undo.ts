/**
 * Undo from the sync journal (docs/sync-journal.md "Undo"): one write, or an agent session's writes
 * as a change set, newest first. Each undo writes only over exactly what the write left — the
 * note's body hash on HackMD, the file's hash — so it never lands on a later edit: when someone
 * edited after the write, that undo is refused, naming the note or file, and nothing is written
 * for it. Every undo that writes adds its own journal entry (`kind: "undo"`, `undoes`).
 *
 * - a note edit (`update_note`): the note gets its text from before back (the journal's copy),
 *   through the edit use-case with `expected_hash` set to what the write left;
 * - a created note: deleted (a personal note goes to HackMD's trash, where it can be restored); a
 *   published note is also untracked, its file kept;
 * - a push, force push or merge: HackMD gets its text from before back, and the sync record's
 *   baseline becomes that text, so no baseline names text that is no longer on either side (the
 *   file keeps its edits, which now read as local changes); a merge also gives the file back its
 *   text from before when the merge rewrote it;
 * - a pull: the file gets its text from before back (a file the pull created is removed and the
 *   note untracked), and the baseline becomes that text.
 * Notes synced with conversion (docs/conversion-rules.md) undo too: the journal keeps HackMD's text
 * in HackMD's form and the file's text in the file's form, each side is checked against what the
 * write left in its own form, and the new baseline is the restored text in HackMD's form, saved
 * with the record's conversion, so the file still compares through it.
 */
import { BridgeError, isBridgeError } from "../core/errors";
import { bodyHash } from "../core/hash";
import { normalizeLineEndings } from "../core/text";
import { CallContext, type CallActor } from "../hackmd/call-context";
import type { JournalDraft, JournalEntry } from "../sync/journal";
import { noteQueueKey, pathQueueKey } from "../sync/queue";
import { expectationOf, recordKey } from "../sync/store";
import type { AppDeps } from "./deps";
import { canUndoEntry, keptHash as kept } from "./journal";
import { underNote } from "./notes";
import { updateNote } from "./update-note";

/** How one undo ended. */
export interface UndoResult {
  entry: JournalEntry;
  undone: boolean;
  /** A sentence for the user: what was restored, or why nothing was (naming the note or file). */
  message: string;
  /**
   * Offered when someone edited a note after the write and the two edits do not overlap: the
   * note's current text with only this write taken back, to apply with `applyMergedUndo`.
   */
  merge?: MergeOffer;
}

/** A merged undo: the text to write, over exactly the current text it was merged with. */
export interface MergeOffer {
  text: string;
  currentHash: string;
}

/** The name a message uses for an entry's note or file. */
function named(entry: JournalEntry): string {
  if (entry.file !== undefined) return entry.file;
  const title = entry.note?.title;
  return title !== undefined && title !== "" ? `"${title}"` : `note ${entry.note?.note_id ?? "?"}`;
}

/** Undoes one journal entry, or says why not. */
export async function undoJournalEntry(
  deps: AppDeps,
  entry: JournalEntry,
  actor: CallActor = { kind: "user" },
): Promise<UndoResult> {
  const done = (await deps.journal.read({ kind: "undo" })).some((undo) => undo.undoes === entry.id);
  if (done) return { entry, undone: false, message: `This change to ${named(entry)} was already undone.` };
  if (!canUndoEntry(entry))
    return { entry, undone: false, message: `This change to ${named(entry)} cannot be undone.` };
  try {
    const message = await undoNow(deps, entry, actor);
    return { entry, undone: true, message };
  } catch (error) {
    if (isBridgeError(error, "conflict")) {
      const merge = await mergeOffer(deps, entry).catch(() => undefined);
      return {
        entry,
        undone: false,
        message:
          merge === undefined
            ? `${capital(named(entry))} changed after this write, so it was not undone; nothing was written for it. Open it and compare before changing it.`
            : `${capital(named(entry))} changed after this write; nothing was written for it. The later edits do not overlap this one, so Undo can take back only this write and keep them.`,
        ...(merge === undefined ? {} : { merge }),
      };
    }
    return {
      entry,
      undone: false,
      message: `${capital(named(entry))} was not undone: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/**
 * Undoes every write of an agent session, newest first. A refused undo does not stop the others
 * (they concern other notes, or older writes of the same note, which then refuse too).
 */
export async function undoSession(
  deps: AppDeps,
  session: string,
  actor: CallActor = { kind: "user" },
): Promise<UndoResult[]> {
  const writes = (await deps.journal.read({ session })).filter((entry) => entry.kind !== "undo").reverse();
  const results: UndoResult[] = [];
  const refusedNotes = new Set<string>();
  for (const entry of writes) {
    const target = entry.file ?? entry.note?.note_id ?? entry.id;
    // An older write of a note whose newer write was refused would land under someone's edit.
    if (refusedNotes.has(target)) {
      results.push({
        entry,
        undone: false,
        message: `${capital(named(entry))}: a later change to it could not be undone, so this one was left too.`,
      });
      continue;
    }
    const result = await undoJournalEntry(deps, entry, actor);
    if (!result.undone && canUndoEntry(entry)) refusedNotes.add(target);
    results.push(result);
  }
  return results;
}

/**
 * When a note edit's undo is refused because someone edited the note since: the current text with
 * only this write taken back (a three-way merge of what the write left, the text before it and the
 * text now), when the edits do not overlap. Needs the text the write left (`written`).
 */
async function mergeOffer(deps: AppDeps, entry: JournalEntry): Promise<MergeOffer | undefined> {
  if (entry.kind !== "update_note" || entry.note === undefined || entry.written === undefined) return undefined;
  const base = await deps.journal.keptText(entry.written.hash);
  const before = kept(entry, "remote");
  const restored = before === undefined ? undefined : await deps.journal.keptText(before);
  if (base === undefined || restored === undefined) return undefined;
  const current = await deps.client.getNote(new CallContext(), {
    teamPath: entry.note.team_path,
    noteId: entry.note.note_id,
  });
  if (current.content === undefined) return undefined;
  const { threeWayMerge } = await import("../sync/merge");
  const merged = threeWayMerge({ base, local: restored, remote: current.content });
  return merged.clean ? { text: merged.merged, currentHash: await bodyHash(current.content) } : undefined;
}

/** Writes a merged undo the user accepted, only over exactly the text it was merged with. */
export async function applyMergedUndo(
  deps: AppDeps,
  entry: JournalEntry,
  merge: MergeOffer,
  actor: CallActor = { kind: "user" },
): Promise<UndoResult> {
  const note = entry.note;
  if (note === undefined) return { entry, undone: false, message: "This change cannot be undone." };
  try {
    await updateNote(
      deps,
      new CallContext({ actor }),
      { teamPath: note.team_path, noteId: note.note_id },
      { content: merge.text, expected_hash: merge.currentHash },
    );
  } catch (error) {
    if (isBridgeError(error, "conflict"))
      return { entry, undone: false, message: `${capital(named(entry))} changed again; nothing was written.` };
    throw error;
  }
  await journalUndo(deps, entry, actor, {
    remote: { before: merge.currentHash, after: await bodyHash(merge.text) },
  });
  return { entry, undone: true, message: `Took back this write to ${named(entry)} and kept the later edits.` };
}

async function undoNow(deps: AppDeps, entry: JournalEntry, actor: CallActor): Promise<string> {
  const note = entry.note;
  // The text an undo replaces on HackMD (what the write left), as the edit reads it: kept in the journal.
  let replacedText: string | undefined;
  const call = new CallContext({
    actor,
    guard: (change) => {
      if (change.body?.where === "note" && change.body.before !== undefined) replacedText = change.body.before;
      return Promise.resolve();
    },
  });
  const keepReplaced = (): Pick<JournalDraft, "keep"> =>
    replacedText === undefined ? {} : { keep: [{ side: "remote", text: replacedText }] };
  switch (entry.kind) {
    case "update_note": {
      if (note === undefined) throw new BridgeError("invalid_input", "No note.");
      const text = await keptText(deps, entry, "remote");
      await updateNote(
        deps,
        call,
        { teamPath: note.team_path, noteId: note.note_id },
        {
          content: text,
          ...(entry.remote?.after === undefined ? {} : { expected_hash: entry.remote.after }),
        },
      );
      await journalUndo(deps, entry, actor, {
        remote: { before: entry.remote?.after, after: await bodyHash(text) },
        ...keepReplaced(),
      });
      return `Restored ${named(entry)} on HackMD.`;
    }
    case "create_note": {
      if (note === undefined) throw new BridgeError("invalid_input", "No note.");
      const address = { teamPath: note.team_path, noteId: note.note_id };
      await underNote(deps, address, async () => {
        const current = await deps.client.getNote(call, address);
        if (entry.remote?.after !== undefined && current.content !== undefined) {
          if ((await bodyHash(current.content)) !== entry.remote.after)
            throw new BridgeError("conflict", "changed since it was created");
        }
        await deps.lists.aroundWrite(() => deps.client.deleteNote(call, address));
      });
      // A published note is tracked: its record goes too (journaled by the engine), the file stays,
      // so no record is left tracking a deleted note (a mirror would then trash the file).
      const untracked = await deps.sync
        .untrack({ teamPath: note.team_path, noteId: note.note_id, confirm: true, call })
        .then(
          (output) => `; ${output.local_path} is kept and no longer tracked`,
          (error: unknown) =>
            isBridgeError(error, "not_tracked")
              ? ""
              : `; its sync record could not be removed (${error instanceof Error ? error.message : String(error)}), untrack it`,
        );
      await journalUndo(deps, entry, actor, {});
      return `Deleted ${named(entry)}${note.team_path === null ? " (it is in HackMD's trash)" : ""}${untracked}.`;
    }
    case "delete_note": {
      if (note === undefined) throw new BridgeError("invalid_input", "No note.");
      await underNote(deps, { teamPath: null, noteId: note.note_id }, () =>
        deps.lists.aroundWrite(() => deps.client.restoreNote(call, { noteId: note.note_id })),
      );
      await journalUndo(deps, entry, actor, {});
      return `Restored ${named(entry)} from HackMD's trash.`;
    }
    case "push":
    case "force_push":
    case "merge": {
      if (note === undefined || entry.file === undefined) throw new BridgeError("invalid_input", "No note.");
      const text = await keptText(deps, entry, "remote");
      const localBefore = kept(entry, "local");
      const fileText = localBefore === undefined ? undefined : await deps.journal.keptText(localBefore);
      // Nothing is written on either side unless both are as the write left them: the file is
      // checked first, HackMD is written conditionally (expected_hash), and only then the file.
      if (fileText !== undefined) await checkFile(deps, entry, entry.file);
      await updateNote(
        deps,
        call,
        { teamPath: note.team_path, noteId: note.note_id },
        {
          content: text,
          ...(entry.remote?.after === undefined ? {} : { expected_hash: entry.remote.after }),
        },
      );
      // The file changed between the check and here: HackMD's undo stands, the file is left.
      const fileRestored =
        fileText === undefined
          ? false
          : await restoreFile(deps, entry, entry.file, fileText).then(
              () => true,
              (error: unknown) => {
                if (isBridgeError(error, "conflict")) return false;
                throw error;
              },
            );
      await setBaseline(deps, note.team_path, note.note_id, entry.file, { remoteText: text }, entry.baseline?.after);
      await journalUndo(deps, entry, actor, {
        remote: { before: entry.remote?.after, after: await bodyHash(text) },
        baseline: { before: entry.baseline?.after, after: await bodyHash(text) },
        ...keepReplaced(),
      });
      if (fileText !== undefined && !fileRestored)
        return `Restored ${named(entry)} on HackMD; the file changed meanwhile, so it keeps its text.`;
      return `Restored ${named(entry)} on HackMD; the file keeps its text, which now reads as local edits.`;
    }
    case "pull": {
      if (note === undefined || entry.file === undefined) throw new BridgeError("invalid_input", "No note.");
      const localBefore = kept(entry, "local");
      const fileText = localBefore === undefined ? undefined : await deps.journal.keptText(localBefore);
      if (entry.local?.before === undefined) {
        // The pull created the file: it goes, and the note is no longer tracked.
        await removeFile(deps, entry, entry.file);
        await deps.sync
          .untrack({ teamPath: note.team_path, noteId: note.note_id, confirm: true })
          .catch(() => undefined);
        await journalUndo(deps, entry, actor, { local: { before: entry.local?.after } });
        return `Removed ${entry.file}, which the pull had created, and stopped tracking it.`;
      }
      if (fileText === undefined) {
        await journalUndo(deps, entry, actor, {});
        return `${capital(entry.file)} already held the pulled text; nothing to restore.`;
      }
      await restoreFile(deps, entry, entry.file, fileText);
      const baseline = await setBaseline(
        deps,
        note.team_path,
        note.note_id,
        entry.file,
        { fileText },
        entry.baseline?.after,
      );
      await journalUndo(deps, entry, actor, {
        local: { before: entry.local.after, after: entry.local.before },
        baseline: { before: entry.baseline?.after, after: baseline ?? (await bodyHash(fileText)) },
      });
      return `Restored ${entry.file} to its text from before the pull.`;
    }
    default:
      throw new BridgeError("invalid_input", "This change cannot be undone.");
  }
}

async function keptText(deps: AppDeps, entry: JournalEntry, side: "local" | "remote"): Promise<string> {
  const hash = kept(entry, side);
  const text = hash === undefined ? undefined : await deps.journal.keptText(hash);
  if (text === undefined)
    throw new BridgeError("invalid_input", "the text from before is no longer kept in the journal");
  return text;
}

/** Writes the file's earlier text back, only when the file is exactly as the write left it. */
async function restoreFile(deps: AppDeps, entry: JournalEntry, path: string, text: string): Promise<void> {
  await deps.queue.run([pathQueueKey(path)], async () => {
    const read = await deps.files.read(path, { maxBytes: 64 * 1024 * 1024 });
    const current = normalizeLineEndings(new TextDecoder("utf-8").decode(read.bytes));
    const left = entry.local?.after;
    if (left !== undefined && (await bodyHash(current)) !== left) throw new BridgeError("conflict", "edited");
    await deps.files.write(path, text, { expect: read.stamp });
  });
}

/** Refuses (`conflict`) unless the file is exactly as the write left it; writes nothing. */
async function checkFile(deps: AppDeps, entry: JournalEntry, path: string): Promise<void> {
  const read = await deps.files.read(path, { maxBytes: 64 * 1024 * 1024 });
  const current = normalizeLineEndings(new TextDecoder("utf-8").decode(read.bytes));
  const left = entry.local?.after;
  if (left !== undefined && (await bodyHash(current)) !== left) throw new BridgeError("conflict", "edited");
}

/** Removes a file the write created, only when it is exactly as the write left it. */
async function removeFile(deps: AppDeps, entry: JournalEntry, path: string): Promise<void> {
  await deps.queue.run([pathQueueKey(path)], async () => {
    const read = await deps.files.read(path, { maxBytes: 64 * 1024 * 1024 });
    const current = normalizeLineEndings(new TextDecoder("utf-8").decode(read.bytes));
    if (entry.local?.after !== undefined && (await bodyHash(current)) !== entry.local.after)
      throw new BridgeError("conflict", "edited");
    await deps.files.remove(path);
  });
}

/**
 * Points the note's sync record at a new baseline, when the record is still as the write left it;
 * returns the new baseline's hash (undefined: the record was left). The baseline is HackMD's form:
 * `remoteText` as it is, or `fileText` (the file's form) mapped through the record's conversion.
 * A record synced with conversion keeps its conversion, saved again for the new baseline.
 */
async function setBaseline(
  deps: AppDeps,
  teamPath: string | null,
  noteId: string,
  path: string,
  text: { remoteText: string } | { fileText: string },
  leftHash: string | undefined,
): Promise<string | undefined> {
  const store = deps.sync.store;
  if (store === undefined) return undefined;
  const key = recordKey(teamPath, noteId);
  return deps.queue.run([noteQueueKey(key), pathQueueKey(path)], async () => {
    const record = await store.readRecord(key);
    if (typeof record !== "object" || record.local_path !== path) return undefined;
    if (leftHash !== undefined && record.baseline_body_hash !== leftHash) return undefined;
    const found = { key, record };
    const conversion = await store.conversionOf(found);
    const baseline = "remoteText" in text ? text.remoteText : await deps.sync.remoteFormOf(found, text.fileText);
    await store.save({
      teamPath,
      noteId,
      localPath: path,
      baseline,
      // No trusted timestamp: the next sync reads the note instead of trusting its list entry.
      timestamp: "",
      expect: expectationOf(record),
      ...(conversion === undefined ? {} : { conversion }),
    });
    return bodyHash(baseline);
  });
}

async function journalUndo(
  deps: AppDeps,
  entry: JournalEntry,
  actor: CallActor,
  hashes: Pick<JournalEntry, "local" | "remote" | "baseline"> & Pick<JournalDraft, "keep">,
): Promise<void> {
  const clean = (side: { before?: string | undefined; after?: string | undefined } | undefined) =>
    side === undefined
      ? undefined
      : {
          ...(side.before === undefined ? {} : { before: side.before }),
          ...(side.after === undefined ? {} : { after: side.after }),
        };
  const local = clean(hashes.local);
  const remote = clean(hashes.remote);
  const baseline = clean(hashes.baseline);
  await deps.journal.append({
    actor,
    kind: "undo",
    branch: entry.kind,
    outcome: "undone",
    undoes: entry.id,
    ...(entry.note === undefined ? {} : { note: entry.note }),
    ...(entry.file === undefined ? {} : { file: entry.file }),
    ...(local === undefined ? {} : { local }),
    ...(remote === undefined ? {} : { remote }),
    ...(baseline === undefined ? {} : { baseline }),
    ...(hashes.keep === undefined ? {} : { keep: hashes.keep }),
  });
}

/** Capitalised for the start of a sentence; a file path stays as it is spelled (`n.md` is not `N.md`). */
function capital(text: string): string {
  if (/\.md$/i.test(text)) return text;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
