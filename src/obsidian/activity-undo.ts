/**
 * Undo of an agent's note write from the activity history. The note gets back its text
 * from before the call through the same edit use-case the agent's `hackmd_update_note` uses
 * (app/update-note.ts) — the whole text, with `expected_hash` set to the hash the agent's write
 * left — so it runs under the note's queue key, waits for unconfirmed writes and is confirmed by
 * read-back, and it never lands on a later change: if anyone edited the note after the agent,
 * nothing is written.
 */
import { isBridgeError } from "../core/errors";
import { CallContext } from "../hackmd/call-context";
import type { AppDeps } from "../app/deps";
import { workspaceArg } from "../app/inputs";
import { resolveRef } from "../app/notes";
import { checkNoteUpdate, updateNote, type NoteUpdate } from "../app/update-note";
import type { ActivityEntry, ActivityLog } from "./activity-log";
import { errorNoticeText } from "./notices";

/**
 * Restores from a named version where a versions API exists (being built elsewhere): resolves
 * true when it restored the note, false to fall back to the kept text. Not wired yet.
 */
export type RestoreFromVersion = (entry: ActivityEntry) => Promise<boolean>;

/** What Undo needs. */
export interface UndoOptions {
  log: ActivityLog;
  deps: AppDeps;
  newCall: () => CallContext;
  /** Asks the user to confirm; resolves true to go ahead. */
  confirm: (entry: ActivityEntry) => Promise<boolean>;
  restoreFromVersion?: RestoreFromVersion;
}

/** How an Undo ended, as a sentence for a notice. */
export type UndoOutcome = { undone: boolean; message: string };

/** Undoes one entry's change, or says why not; changes nothing unless the note is still as the agent left it. */
export async function undoAgentWrite(options: UndoOptions, entry: ActivityEntry): Promise<UndoOutcome> {
  const { log } = options;
  if (!log.canUndo(entry) || entry.noteId === undefined || entry.hashAfter === undefined) {
    return { undone: false, message: "This call cannot be undone." };
  }
  if (!(await options.confirm(entry))) return { undone: false, message: "Undo cancelled. Nothing was changed." };
  if (options.restoreFromVersion !== undefined && (await options.restoreFromVersion(entry))) {
    log.markUndone(entry.id);
    return { undone: true, message: "Restored the note from its earlier version." };
  }
  const text = await log.textBefore(entry);
  if (text === undefined)
    return { undone: false, message: "The text from before this change is no longer kept, so it cannot be undone." };
  const update: NoteUpdate = { content: text, expected_hash: entry.hashAfter };
  try {
    checkNoteUpdate(update);
    const call = options.newCall();
    const resolution = await resolveRef(options.deps, call, entry.noteId, {
      teamPath: workspaceArg(entry.teamPath ?? null),
      refresh: false,
    });
    // The id the agent's write named; a short id that no longer names one note is not guessed at.
    if (resolution.status !== "resolved") return { undone: false, message: "This call cannot be undone." };
    // The text the undo replaces (the agent's), as the edit read it under the note's key.
    let agentText: string | undefined;
    const writing = new CallContext({
      guard: (change) => {
        agentText = change.body?.before;
        return Promise.resolve();
      },
      actor: { kind: "user", door: "obsidian" },
    });
    await updateNote(options.deps, writing, { teamPath: resolution.teamPath, noteId: resolution.noteId }, update);
    // Undo is a write too: one journal entry, keeping the agent's text it replaced.
    await options.deps.journal.append({
      actor: { kind: "user", door: "obsidian" },
      kind: "undo",
      branch: "update_note",
      outcome: "undone",
      note: { team_path: resolution.teamPath, note_id: resolution.noteId },
      remote: { before: entry.hashAfter, ...(entry.hashBefore === undefined ? {} : { after: entry.hashBefore }) },
      undoes: entry.id,
      ...(agentText === undefined ? {} : { keep: [{ side: "remote" as const, text: agentText }] }),
    });
  } catch (error) {
    if (isBridgeError(error, "conflict")) {
      return {
        undone: false,
        message:
          "The note changed after the agent's write, so Undo changed nothing. Open the note and compare before changing it.",
      };
    }
    return { undone: false, message: errorNoticeText(error) };
  }
  log.markUndone(entry.id);
  return { undone: true, message: "Restored the note's text from before the agent's change." };
}
