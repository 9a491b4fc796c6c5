/** Confirmation rules shared by note creates and updates (docs/tools.md §7, §9.4, §9.5): what a read-back must show. */
import type { NoteDetail, Permission } from "../hackmd/types";

/** The metadata a write sent, in input names. */
export interface SentMetadata {
  tags?: string[] | undefined;
  description?: string | undefined;
  permalink?: string | undefined;
  read_permission?: Permission | undefined;
  write_permission?: Permission | undefined;
}

/** Names (input names) of sent metadata fields the observed note does not show. */
export function unshownFields(sent: SentMetadata, note: NoteDetail): string[] {
  const missing: string[] = [];
  if (sent.tags !== undefined && !sameTagSet(sent.tags, note.tags)) missing.push("tags");
  if (sent.description !== undefined && sent.description !== (note.description ?? "")) missing.push("description");
  if (sent.permalink !== undefined && sent.permalink.toLowerCase() !== (note.permalink ?? "").toLowerCase())
    missing.push("permalink");
  if (sent.read_permission !== undefined && sent.read_permission !== note.read_permission)
    missing.push("read_permission");
  if (sent.write_permission !== undefined && sent.write_permission !== note.write_permission)
    missing.push("write_permission");
  return missing;
}

function sameTagSet(sent: string[], shown: string[]): boolean {
  const clean = (tags: string[]): Set<string> => new Set(tags.map((tag) => tag.trim()).filter((tag) => tag !== ""));
  const a = clean(sent);
  const b = clean(shown);
  return a.size === b.size && [...a].every((tag) => b.has(tag));
}

/** Whether a note shows the requested folder placement (`null`: in no folder). */
export function showsPlacement(note: NoteDetail, parentFolderId: string | null): boolean {
  return parentFolderId === null ? note.folder_ids.length === 0 : note.folder_ids.includes(parentFolderId);
}

/** A note detail without its body (results embed metadata, not the content). */
export function withoutContent(note: NoteDetail): Omit<NoteDetail, "content"> {
  const copy = { ...note };
  delete copy.content;
  return copy;
}
