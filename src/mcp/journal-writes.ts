/**
 * The sync journal's entries for agent tool calls (src/sync/journal.ts): every MCP tool that
 * changes something adds one entry with the agent's client name and session. Pulls and pushes
 * are journaled by the sync engine itself (with their decision-table branch), and so is untrack, so
 * they are left out here: each write is journaled exactly once.
 */
import type { ChangeAction } from "../core/approval";
import type { JournalDraft, JournalKind, ReplacedText, SyncJournal } from "../sync/journal";
import type { ToolWrite } from "./server";

/** The journal's kind for each change a tool names; pulls and pushes are the engine's. */
const KINDS: Partial<Record<ChangeAction, JournalKind>> = {
  edit_note: "update_note",
  update_note: "update_note",
  create_note: "create_note",
  delete_note: "delete_note",
  restore_note: "delete_note",
  upload_image: "image",
  create_folder: "folder",
  update_folder: "folder",
  delete_folder: "folder",
  create_version: "version",
  resolve_comment: "comment",
};

/** The journal entry of one tool write, or undefined for writes the engine journals itself. */
export function toolWriteDraft(write: ToolWrite): JournalDraft | undefined {
  const { change } = write.made;
  const kind = KINDS[change.action];
  if (kind === undefined) return undefined;
  const side = change.body?.where === "file" ? "local" : "remote";
  const hashes = {
    ...(write.made.hashBefore === undefined ? {} : { before: write.made.hashBefore }),
    ...(write.made.hashAfter === undefined ? {} : { after: write.made.hashAfter }),
  };
  const replaced: ReplacedText[] = [];
  const version = write.meta?.safety_version as { id?: unknown } | null | undefined;
  if (typeof version?.id === "string" && write.made.hashBefore !== undefined)
    replaced.push({ side: "remote", hash: write.made.hashBefore, where: "version", version_id: version.id });
  const before = change.body?.before;
  const draft: JournalDraft = {
    actor: {
      kind: "agent",
      door: "mcp",
      client: write.caller.client,
      session: write.caller.session,
      tool: write.caller.tool,
    },
    kind,
    branch: change.action,
    outcome: write.ok ? "done" : `unconfirmed (${write.errorKind ?? "unknown"})`,
    ...(change.note === undefined && write.noteId === undefined
      ? {}
      : {
          note: {
            team_path: change.note?.teamPath ?? change.folder?.teamPath ?? null,
            note_id: change.note?.noteId ?? write.noteId ?? "",
            ...(change.note?.title === undefined ? {} : { title: change.note.title }),
          },
        }),
    ...(change.localPath === undefined ? {} : { file: change.localPath }),
    ...(Object.keys(hashes).length === 0 ? {} : side === "local" ? { local: hashes } : { remote: hashes }),
    ...(replaced.length === 0 ? {} : { replaced }),
    ...(before !== undefined && before !== "" && write.made.hashBefore !== write.made.hashAfter
      ? { keep: [{ side, text: before }] }
      : {}),
    // What a note edit left on HackMD: an undo after someone else's edit can then offer a merge.
    ...(kind === "update_note" && change.body?.where === "note" ? { keepWritten: change.body.after } : {}),
  };
  return draft;
}

/** Appends the entry of one tool write (nothing for the engine's own writes). */
export async function journalToolWrite(journal: SyncJournal, write: ToolWrite): Promise<void> {
  const draft = toolWriteDraft(write);
  if (draft !== undefined) await journal.append(draft);
}
