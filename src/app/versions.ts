/**
 * A note's versions on HackMD (docs/versions-and-comments.md): list them, read one, name the
 * current text. Every answer of the versions API also tells the core that this HackMD has one
 * (`SafetyVersions.noteAvailability`), which decides whether overwrites name HackMD's text
 * first. The doors: `hackmd_list_versions`, `hackmd_get_version`, `hackmd_create_version`, the
 * plugin's "Note history" view (obsidian/note-history.ts) and `hackmd-bridge history`.
 */
import type { CallContext } from "../hackmd/call-context";
import type { NoteVersion, NoteVersionWithContent, VersionPage, VersionQuery } from "../hackmd/versions-comments";
import type { AppDeps } from "./deps";

/** One page of a note's versions, newest first. */
export async function listNoteVersions(
  deps: AppDeps,
  call: CallContext,
  noteId: string,
  query: VersionQuery,
): Promise<VersionPage> {
  const page = await deps.client.listVersions(call, { noteId, ...query });
  deps.safety.noteAvailability(true);
  return page;
}

/** One version of a note, with its text (`content` null when HackMD cannot show it). */
export async function getNoteVersion(
  deps: AppDeps,
  call: CallContext,
  noteId: string,
  versionId: string,
): Promise<NoteVersionWithContent> {
  const version = await deps.client.getVersion(call, { noteId, versionId });
  deps.safety.noteAvailability(true);
  return version;
}

/**
 * Names a note's current text as a version, after the host agreed to the change
 * (`CallContext.beforeChange`); `reused` when the text is unchanged since its newest named version.
 */
export async function nameNoteVersion(
  deps: AppDeps,
  call: CallContext,
  address: { teamPath: string | null; noteId: string },
  version: { name: string; description?: string | undefined },
): Promise<{ version: NoteVersion | null; id: string; reused: boolean }> {
  await call.beforeChange({
    action: "create_version",
    note: address,
    fields: { name: version.name, ...(version.description === undefined ? {} : { description: version.description }) },
  });
  const made = await deps.client.createVersion(call, {
    noteId: address.noteId,
    name: version.name,
    ...(version.description === undefined ? {} : { description: version.description }),
  });
  deps.safety.noteAvailability(true);
  return made;
}
