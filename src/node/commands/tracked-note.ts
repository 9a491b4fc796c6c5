/** The note a tracked working file was pulled from, for the subcommands that look it up by path. */
import { BridgeError } from "../../core/errors";
import { SyncStateStore, type KeyedRecord } from "../../sync/store";
import type { CommandContext } from "./command";
import { CLI_WORDS } from "./words";

/** The file's canonical path, its record and the store that holds it; a file that is not tracked is refused naming the fix. */
export async function trackedNote(context: CommandContext, path: string, purpose: string): Promise<{ path: string; found: KeyedRecord; store: SyncStateStore }> {
  const deps = context.core.deps;
  const resolved = await deps.files.resolve(path, "read");
  // The plugin's and the engine's records, read the way the sync check reads them.
  const store = new SyncStateStore({ files: deps.files.state, logger: deps.logger, words: CLI_WORDS, stateFolder: deps.files.root.stateFolder });
  const found = await store.findByPath(resolved.path);
  if (found === undefined) {
    throw new BridgeError("not_tracked", `${resolved.path} is not tracked, so it has no ${purpose}; pull a note to it first with \`hackmd-bridge pull <note_ref> ${resolved.path}\`.`);
  }
  return { path: resolved.path, found, store };
}
