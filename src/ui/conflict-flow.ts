/**
 * The conflict resolution flow behind the merge editor: read base, mine and theirs (one GET),
 * let the user choose, then act — and write only what the user chose. Host-neutral: the plugin
 * passes the merge editor as `openModal`; tests pass an answer and run it against the emulator.
 *
 * Safety (docs/style.md rules 5 and 6, docs/tools.md §14.4): every push carries `expected_remote_hash`, so
 * HackMD is overwritten only when it still holds exactly the version shown; the remote is
 * checked again just before the merged text is written into the file; local writes expect the
 * stamp read when the modal opened; when either side moved, nothing is written for that round
 * and the modal opens again on fresh text (at most `maxRounds` times). A merged result is never
 * dropped for a moved remote: it is written into the file (as the user asked) and the next round
 * shows it as "mine" against HackMD's new version. Failures are thrown as BridgeErrors for the
 * caller's one error-to-notice mapping (docs/style.md rule 8).
 *
 * Nothing discarded unasked (docs/style.md rule 6): the editor asks before a whole-file choice, and the
 * flow keeps the losing side through `keepCopy` (the plugin moves a copy to the trash) before it
 * writes; a failed copy writes nothing. After a resolution the sync engine removes the
 * `.remote.md` snapshot it wrote when unedited (sync/snapshots.ts), and the notice says so, or
 * where a kept one is.
 */
import { BridgeError, isBridgeError } from "../core/errors";
import { bodyHash } from "../core/hash";
import type { FileStamp, LocalFiles } from "../core/local-files";
import { normalizeLineEndings } from "../core/text";
import type { CallContext } from "../hackmd/call-context";
import type { HackmdClient } from "../hackmd/client";
import { decideCheck } from "../sync/decide";
import { MAX_BODY_BYTES } from "../sync/limits";
import type { KeyedRecord, LoadedRecord, SyncStateStore } from "../sync/store";
import { snapshotCleanupSentence, type SnapshotOutcome } from "../sync/snapshots";
import type { PullOutput, PushOutput, PushSafety, SyncCheck, SyncTools } from "../sync/types";
import { safetySentence, type OverwriteAction, type SafetyVersion } from "../hackmd/safety-version";
import type { ConflictChoice, ConflictViewModel } from "./conflict-view-model";

/** How many times the modal opens before the flow gives up on a note that keeps changing. */
export const DEFAULT_CONFLICT_ROUNDS = 3;

/**
 * A hash no body has (no known SHA-256 preimage): as `expected_remote_hash` it makes a safe push
 * answer only `conflict` (and write the snapshot) or write nothing — never PATCH (§14.4 S4/S7).
 */
const NO_BODY_HASH = `sha256:${"0".repeat(64)}`;

/** Which text a copy keeps: the file's ("mine"), HackMD's ("theirs") or a merge that could not be saved. */
export type KeptSide = "mine" | "theirs" | "merged";

/** What the conflict flow needs; the plugin adapts its PluginServices to it. */
export interface ConflictFlowServices {
  /** The sync engine (push and pull only). */
  sync: Pick<SyncTools, "push" | "pull" | "remoteFormOf" | "localFormOf">;
  /** The HackMD client, for the one GET of the current remote body. */
  client: Pick<HackmdClient, "getNote">;
  /** The vault (or any ROOT) as LocalFiles. */
  files: LocalFiles;
  /** The sync records: the file's record and its verified baseline. */
  store: Pick<SyncStateStore, "findByPath" | "load">;
  /** Tells the user something (the plugin shows a notice). */
  notify(message: string): void;
  /** A fresh per-operation call context (docs/tools.md §4.3). */
  newCall(): CallContext;
  /** Shows the view model (the merge editor) and resolves the user's answer. */
  openModal: (viewModel: ConflictViewModel) => Promise<ConflictChoice>;
  /**
   * Keeps a copy of text a whole-file choice is about to drop; resolves a sentence saying where
   * (for the notice). Throwing stops the choice before anything is written. Absent: no copy.
   */
  keepCopy?: ((path: string, text: string, side: KeptSide) => Promise<string>) | undefined;
  /** Rounds before giving up when the note or the file keeps changing (default 3). */
  maxRounds?: number | undefined;
}

/** How the flow ended. */
export type ConflictOutcome =
  /** There was nothing to resolve (the check status says why); nothing written. */
  | { outcome: "no-conflict"; status: Exclude<SyncCheck["status"], "conflict"> }
  /** The merged text was written to the file and pushed (or HackMD already held it). */
  | { outcome: "merged"; push: PushOutput }
  /** The file was pushed over exactly the remote version shown (named on HackMD first, when it could be). */
  | { outcome: "kept-mine"; push: PushOutput; version?: SafetyVersion | undefined }
  /** The file was replaced by HackMD's version and the baseline moved to it. */
  | { outcome: "took-theirs"; pull: PullOutput }
  /** Both versions stay: the file untouched, HackMD's version in the `.remote.md` snapshot (or why not). */
  | { outcome: "kept-both"; snapshotPath?: string; snapshotError?: string }
  /** The merged text was written but equals the baseline, so a safe push has nothing to send. */
  | { outcome: "not-pushed"; push: PushOutput }
  /** The user cancelled; nothing written. */
  | { outcome: "cancelled" }
  /** The note or the file kept changing; the last round wrote nothing to HackMD. */
  | { outcome: "gave-up"; rounds: number };

/** One round's facts: the three bodies as shown, and what later writes must expect. */
interface Round {
  path: string;
  loaded: LoadedRecord;
  /** The file's raw text and its stamp when read. */
  raw: string;
  stamp: FileStamp;
  viewModel: ConflictViewModel;
}

/** A round's end: a final outcome, or open the modal again. */
type Step = { done: ConflictOutcome } | { again: true };

const AGAIN: Step = { again: true };

/** Resolves the conflict of one tracked file with the user (see the module comment). */
export async function openConflictResolution(
  services: ConflictFlowServices,
  localPath: string,
): Promise<ConflictOutcome> {
  const rounds = services.maxRounds ?? DEFAULT_CONFLICT_ROUNDS;
  for (let round = 1; round <= rounds; round++) {
    const state = await readRound(services, localPath);
    if ("status" in state) {
      services.notify(`${state.path} has no conflict to resolve (${STATUS_WORDS[state.status]}).`);
      return { outcome: "no-conflict", status: state.status };
    }
    const choice = await services.openModal(state.viewModel);
    const step = await act(services, state, choice);
    if ("done" in step) return step.done;
  }
  services.notify(
    `The note of ${localPath} kept changing on HackMD, so the conflict was left for later. Try again in a moment.`,
  );
  return { outcome: "gave-up", rounds };
}

/** How each non-conflict status reads in a notice. */
const STATUS_WORDS: Readonly<Record<Exclude<SyncCheck["status"], "conflict">, string>> = {
  in_sync: "it is in sync with HackMD",
  local_changed: "only the file changed; push it",
  remote_changed: "only the note changed on HackMD; pull it",
};

/** Reads the record, the baseline, the file and the remote (one GET), and classifies them. */
async function readRound(
  services: ConflictFlowServices,
  localPath: string,
): Promise<Round | { path: string; status: Exclude<SyncCheck["status"], "conflict"> }> {
  const path = (await services.files.resolve(localPath, "read")).path;
  const found: KeyedRecord | undefined = await services.store.findByPath(path);
  if (!found)
    throw new BridgeError("not_tracked", `${path} is not tracked; pull the note to it first with hackmd_pull_note.`);
  const loaded = await services.store.load(found);
  const { raw, stamp } = await readText(services.files, path);
  const local = normalizeLineEndings(raw);
  const remote = await readRemote(services, loaded);
  const remoteHash = await bodyHash(remote);
  const decision = decideCheck({
    baseline: loaded.record.baseline_body_hash,
    local: await bodyHash(await services.sync.remoteFormOf(found, local)),
    remote: remoteHash,
  });
  if (decision.status !== "conflict") return { path, status: decision.status };
  // Shown in the syntax the file is written in (docs/conversion-rules.md); the hash stays HackMD's own. The view
  // model runs the merge engine, which loads on first use (not with the plugin).
  const [base, theirs] = [
    await services.sync.localFormOf(found, loaded.baseline),
    await services.sync.localFormOf(found, remote),
  ];
  const { buildConflictViewModel } = await import("./conflict-view-model");
  const viewModel = buildConflictViewModel({
    base,
    local,
    remote: theirs,
    remoteHash,
    localPath: path,
    noteId: loaded.record.internal_id,
  });
  return { path, loaded, raw, stamp, viewModel };
}

/** Carries out the user's choice for one round. */
async function act(services: ConflictFlowServices, round: Round, choice: ConflictChoice): Promise<Step> {
  const { path, viewModel } = round;
  switch (choice.action) {
    case "cancel":
      return { done: { outcome: "cancelled" } };
    case "merged": {
      // Re-check the target just before writing (docs/style.md rule 5): a moved remote is sent nothing,
      // but the result is the user's work, so it still goes into the file and becomes "mine".
      const moved = (await bodyHash(await readRemote(services, round.loaded))) !== viewModel.remoteHash;
      if (choice.text === round.raw) {
        // Nothing to write, but the push sends the file as it is now: it must still be the text chosen.
        if (!(await fileUnchanged(services.files, round))) return fileMoved(services, path);
      } else {
        try {
          await services.files.write(path, choice.text, { expect: round.stamp });
        } catch (error) {
          if (!isBridgeError(error, "conflict")) throw error;
          // The file moved under the editor: keep the merged text rather than drop it.
          const kept = await keepCopy(services, path, choice.text, "merged");
          return fileMoved(services, path, kept);
        }
      }
      if (moved) return remoteMoved(services, path, SAVED_AS_MINE);
      const { output: push, snapshot } = await pushResult(services, path, viewModel.remoteHash);
      if (push.status === "conflict") return remoteMoved(services, path, SAVED_AS_MINE);
      if (push.status === "remote_changed") {
        services.notify(
          `The merged text of ${path} equals the last synced version, so nothing was pushed. HackMD's version is newer; sync the file to take it.`,
        );
        return { done: { outcome: "not-pushed", push } };
      }
      const done =
        push.status === "pushed"
          ? `Merged ${path} and pushed it to HackMD.`
          : `Merged ${path}; HackMD already held that text.`;
      services.notify(done + snapshotCleanupSentence(snapshot));
      return { done: { outcome: "merged", push } };
    }
    case "keep-mine": {
      if (!(await fileUnchanged(services.files, round))) return fileMoved(services, path);
      // HackMD's version is what this choice overwrites: keep a copy first (a failure sends nothing).
      const kept = await keepCopy(services, path, viewModel.theirs, "theirs");
      // E = the remote shown: HackMD is overwritten only if it still holds exactly that version;
      // the push names that version on HackMD first (docs/versions-and-comments.md).
      const { output: push, safety, snapshot } = await pushResult(services, path, viewModel.remoteHash, "keep mine");
      if (push.status === "conflict") return remoteMoved(services, path);
      const version = safety?.version === undefined ? "" : ` ${safetySentence(safety.version)}`;
      services.notify(
        `Pushed ${path} to HackMD, replacing the version shown.${version}${kept}${snapshotCleanupSentence(snapshot)}`,
      );
      return { done: { outcome: "kept-mine", push, version: safety?.version } };
    }
    case "take-theirs": {
      if (!(await fileUnchanged(services.files, round))) return fileMoved(services, path);
      // The file's text is what this choice drops: keep a copy first (a failure writes nothing).
      const kept = await keepCopy(services, path, round.raw, "mine");
      const { record } = round.loaded;
      const result = await services.sync.pull({
        localPath: path,
        resolveTarget: () =>
          Promise.resolve({ status: "resolved", teamPath: record.team_path, noteId: record.internal_id }),
        overwriteLocal: true,
        // The user chose to drop the local edits (a copy is kept); the file's stamp was checked just above.
        discardLocalChanges: true,
        createParentDirs: false,
        confirmLargeFile: true,
        call: services.newCall(),
      });
      if (result.kind !== "pulled")
        throw new BridgeError(
          "internal",
          `The note of ${path} could not be addressed by its sync record; nothing was written.`,
        );
      const newer =
        result.output.body_hash !== viewModel.remoteHash
          ? " It had changed again meanwhile; the file holds its newest version."
          : "";
      services.notify(
        `Replaced ${path} with HackMD's version.${newer}${kept}${snapshotCleanupSentence(result.snapshot)}`,
      );
      return { done: { outcome: "took-theirs", pull: result.output } };
    }
    case "keep-both": {
      if (!(await fileUnchanged(services.files, round))) return fileMoved(services, path);
      // A safe push that can only report the conflict: it writes the .remote.md snapshot, never the note.
      const push = await pushFile(services, path, NO_BODY_HASH);
      if (push.status !== "conflict") {
        services.notify(`${path} has no conflict any more; nothing was written.`);
        return {
          done: { outcome: "no-conflict", status: push.status === "remote_changed" ? "remote_changed" : "in_sync" },
        };
      }
      if (push.snapshot_path !== undefined) {
        services.notify(`Kept both versions: ${path} holds yours, ${push.snapshot_path} holds HackMD's.`);
        return { done: { outcome: "kept-both", snapshotPath: push.snapshot_path } };
      }
      const why = push.snapshot_error ?? "no reason was given";
      services.notify(`Kept ${path} unchanged, but HackMD's version could not be saved beside it: ${why}`);
      return { done: { outcome: "kept-both", snapshotError: why } };
    }
  }
}

/** A safe push of the file with an expected remote hash; an unresolved target cannot happen (no cross-check). */
async function pushFile(services: ConflictFlowServices, path: string, expectedRemoteHash: string): Promise<PushOutput> {
  return (await pushResult(services, path, expectedRemoteHash)).output;
}

/** `pushFile` with the push's safety report (the version made before an overwrite) and what became of the snapshot. */
async function pushResult(
  services: ConflictFlowServices,
  path: string,
  expectedRemoteHash: string,
  purpose?: OverwriteAction,
): Promise<{ output: PushOutput; safety?: PushSafety | undefined; snapshot?: SnapshotOutcome | undefined }> {
  const result = await services.sync.push({
    localPath: path,
    strategy: "safe",
    confirm: false,
    expectedRemoteHash,
    // The user has just seen this text and chosen to send it; size alone asks nothing more.
    confirmLargeFile: true,
    call: services.newCall(),
    ...(purpose === undefined ? {} : { purpose }),
  });
  if (result.kind !== "pushed")
    throw new BridgeError("internal", `The push of ${path} did not address its tracked note; nothing was written.`);
  return { output: result.output, safety: result.safety, snapshot: result.snapshot };
}

/** The sentence after a moved remote when the merged result was written into the file. */
const SAVED_AS_MINE = "Your merged text is saved in the file and shown as yours. ";

/** Tells the user the note moved on HackMD, and asks for another round. */
function remoteMoved(services: ConflictFlowServices, path: string, prefix = ""): Step {
  services.notify(`${prefix}The note of ${path} changed on HackMD again; nothing was sent. Showing its new version.`);
  return AGAIN;
}

/** Tells the user the file changed while the modal was open, and asks for another round. */
function fileMoved(services: ConflictFlowServices, path: string, kept = ""): Step {
  services.notify(`${path} changed while the conflict was open; nothing was written.${kept} Showing it again.`);
  return AGAIN;
}

/** Keeps a losing side through `keepCopy`; the sentence for the notice (with a leading space), or "". */
async function keepCopy(services: ConflictFlowServices, path: string, text: string, side: KeptSide): Promise<string> {
  if (!services.keepCopy) return "";
  return ` ${await services.keepCopy(path, text, side)}`;
}

/** Whether the file still holds the text shown (content, not time, decides). */
async function fileUnchanged(files: LocalFiles, round: Round): Promise<boolean> {
  try {
    return normalizeLineEndings((await readText(files, round.path)).raw) === round.viewModel.mine;
  } catch (error) {
    if (isBridgeError(error)) return false;
    throw error;
  }
}

/** The current remote body of the record's note (one GET); no body → `upstream`. */
async function readRemote(services: ConflictFlowServices, loaded: LoadedRecord): Promise<string> {
  const note = await services.client.getNote(services.newCall(), {
    teamPath: loaded.record.team_path,
    noteId: loaded.record.internal_id,
  });
  if (note.content === undefined)
    throw new BridgeError(
      "upstream",
      `HackMD sent note ${loaded.record.internal_id} without its body; nothing was written. Retry later.`,
    );
  return note.content;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Reads a working file as UTF-8 text with its stamp, under the size rule of docs/tools.md §14.3. */
async function readText(files: LocalFiles, path: string): Promise<{ raw: string; stamp: FileStamp }> {
  const read = await files.read(path, { maxBytes: MAX_BODY_BYTES });
  if (read.truncated)
    throw new BridgeError("too_large", `${path} is larger than 50 MiB, more than a note may hold; shorten it.`);
  try {
    return { raw: decoder.decode(read.bytes), stamp: read.stamp };
  } catch (error) {
    throw new BridgeError("invalid_input", `${path} is not valid UTF-8; save it as UTF-8 text and try again.`, {
      cause: error,
    });
  }
}
