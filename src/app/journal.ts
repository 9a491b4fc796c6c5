/**
 * Reading the sync journal (src/sync/journal.ts, docs/sync-journal.md) for the three doors: the
 * command's `log`, the `hackmd_list_journal` tool and the plugin's "Sync history" view. A path is
 * resolved as the caller gave it, so `notes/a.md` and `./notes/a.md` name the same entries.
 */
import type { JournalEntry, JournalQuery } from "../sync/journal";
import type { AppDeps } from "./deps";

/** At most this many entries per read. */
export const MAX_JOURNAL_READ = 1000;

/** The entries a door asked for, newest last. */
export async function readJournal(
  deps: Pick<AppDeps, "journal" | "files">,
  query: JournalQuery & { path?: string },
): Promise<JournalEntry[]> {
  const path = query.path === undefined ? undefined : await canonical(deps, query.path);
  const limit = Math.min(query.limit ?? 100, MAX_JOURNAL_READ);
  return deps.journal.read({ ...query, ...(path === undefined ? {} : { path }), limit });
}

async function canonical(deps: Pick<AppDeps, "files">, path: string): Promise<string> {
  try {
    return (await deps.files.resolve(path, "read")).path;
  } catch {
    // A note id, or a file that no longer exists: matched as given.
    return path;
  }
}

/** Who made an entry, in words: "you (Obsidian)", "Claude (agent)", "automatic sync". */
export function actorWords(entry: JournalEntry): string {
  const { actor } = entry;
  if (actor.kind === "agent") return `${actor.client ?? "unknown client"} (agent)`;
  if (actor.kind === "auto") return actor.tool === "outbox" ? "automatic sync (outbox)" : "automatic sync";
  return actor.door === "obsidian" ? "you (Obsidian)" : actor.door === "command" ? "you (command)" : "you";
}

/** Where an entry's replaced text lives, in words, or "" when it replaced none. */
export function replacedWords(entry: JournalEntry): string {
  return (entry.replaced ?? [])
    .map((place) => {
      const side = place.side === "local" ? "file" : "HackMD";
      switch (place.where) {
        case "journal":
          return `${side} text kept in the journal`;
        case "remote_md":
          return `HackMD's text in ${place.path ?? ".remote.md"}`;
        case "version":
          return `${side} text in version ${place.version_id ?? "?"}`;
        case "trash":
          return `${side} text in ${place.path ?? ".trash"}`;
        case "outbox":
          return "queued in the outbox";
      }
      return "";
    })
    .filter((words) => words !== "")
    .join("; ");
}

/** `YYYY-MM-DD HH:MM:SS` in local time. */
export function entryTime(at: number): string {
  const date = new Date(at);
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** Kinds of entries that can be undone. */
const UNDOABLE = new Set(["update_note", "create_note", "delete_note", "push", "force_push", "merge", "pull"]);

/** Whether an entry can be offered for undo (its kind, and the text from before is kept when needed). */
export function canUndoEntry(entry: JournalEntry): boolean {
  if (!UNDOABLE.has(entry.kind)) return false;
  if (entry.kind === "create_note") return entry.note !== undefined;
  // A personal note's deletion moves it to HackMD's trash, from where it can be restored; a team's cannot.
  if (entry.kind === "delete_note") return entry.branch === "delete_note" && entry.note?.team_path === null;
  if (entry.kind === "pull") return entry.file !== undefined;
  return keptHash(entry, "remote") !== undefined && entry.note !== undefined;
}

/** The hash of an entry's replaced text kept in the journal, on one side. */
export function keptHash(entry: JournalEntry, side: "local" | "remote"): string | undefined {
  return entry.replaced?.find((place) => place.side === side && place.where === "journal")?.hash;
}

/** An entry's change as two texts the journal kept, or a sentence saying why there is none. */
export type EntryTexts =
  { side: "file" | "HackMD"; before: string; after: string } | { side?: undefined; missing: string };

/**
 * The texts before and after a write, from the journal's own store: a note edit, push or merge
 * shows HackMD's side (the replaced text and the text written), a pull the file's. Entries written
 * before the journal kept both texts, and texts dropped with old segments or above 2 MiB, have
 * none; the sentence says so.
 */
export async function entryTexts(
  journal: { keptText(hash: string): Promise<string | undefined> },
  entry: JournalEntry,
): Promise<EntryTexts> {
  const side = entry.kind === "pull" ? "local" : "remote";
  const words = side === "local" ? "file" : "HackMD";
  if (!["update_note", "push", "force_push", "merge", "pull"].includes(entry.kind))
    return { missing: "The journal keeps no text for this kind of write." };
  if (entry.kind === "pull" && entry.local?.before !== undefined && entry.local.before === entry.local.after)
    return { missing: "This pull left the file's text as it was." };
  const beforeHash = keptHash(entry, side);
  const before =
    beforeHash !== undefined
      ? await journal.keptText(beforeHash)
      : entry.kind === "pull" && entry.local?.before === undefined
        ? ""
        : undefined;
  const after = entry.written === undefined ? undefined : await journal.keptText(entry.written.hash);
  if (before === undefined || after === undefined)
    return {
      missing: `The journal does not hold the ${words} text from ${before === undefined ? "before" : "after"} this write (not kept, or dropped with older entries), so no diff can be shown.`,
    };
  return { side: words, before, after };
}
