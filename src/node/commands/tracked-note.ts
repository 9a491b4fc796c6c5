/** The note a tracked working file was pulled from, for the subcommands that look it up by path. */
import { BridgeError } from "../../core/errors";
import { SyncStateStore, type KeyedRecord } from "../../sync/store";
import type { CommandContext } from "./command";
import { CLI_WORDS } from "./words";

/** The file's canonical path, its record and the store that holds it; a file that is not tracked is refused naming the fix. */
export async function trackedNote(
  context: CommandContext,
  path: string,
  purpose: string,
): Promise<{ path: string; found: KeyedRecord; store: SyncStateStore }> {
  const deps = context.core.deps;
  const resolved = await deps.files.resolve(path, "read");
  // The plugin's and the engine's records, read the way the sync check reads them.
  const store = commandStore(context);
  const found = await store.findByPath(resolved.path);
  if (found === undefined) {
    throw (
      (await movedAway(store, resolved.path)) ??
      new BridgeError(
        "not_tracked",
        `${resolved.path} is not tracked, so it has no ${purpose}; pull a note to it first with ${CLI_WORDS.step({ action: "pull", path: resolved.path })}.`,
      )
    );
  }
  return { path: resolved.path, found, store };
}

/**
 * The refusal for a file whose note a pull moved to another file (the record's `moved_from`), as
 * push and status word it, or undefined when no record names the file so.
 */
export async function movedAway(store: SyncStateStore, path: string): Promise<BridgeError | undefined> {
  const moved = await store.movedAwayFrom(path).catch(() => undefined);
  if (moved === undefined) return undefined;
  const { record } = moved;
  return new BridgeError(
    "not_tracked",
    `${path} is no longer tracked: note ${record.internal_id} was pulled to ${record.local_path}, which is tracked in its place (${path} was kept as it was). Work on ${record.local_path}, or pull the note back here with ${CLI_WORDS.step({ action: "pull", path, noteId: record.internal_id, teamPath: record.team_path, flags: ["overwrite_local"] })}.`,
  );
}

/** The sync state store of the command's root (what trackedNote reads). */
export function commandStore(context: CommandContext): SyncStateStore {
  const deps = context.core.deps;
  return new SyncStateStore({
    files: deps.files.state,
    logger: deps.logger,
    words: CLI_WORDS,
    stateFolder: deps.files.root.stateFolder,
  });
}
