/**
 * The plugin's use-cases, one method per command (docs/architecture.md §3):
 * each calls the core through PluginServices, asks the user through the PluginUi port (modals in
 * the app, scripted answers in tests) and reports through notices.ts. Every method catches its
 * own failures, so a command never throws into Obsidian.
 */
import { normalizePath } from "obsidian";
import { BridgeError, isBridgeError } from "../core/errors";
import { baseName } from "../core/paths";
import { bodyHash } from "../core/hash";
import { normalizeLineEndings } from "../core/text";
import type { CallContext } from "../hackmd/call-context";
import type { Resolution } from "../hackmd/note-ref";
import { overwrittenSentence } from "../hackmd/safety-version";
import type { Permission } from "../hackmd/types";
import { accountTeamPaths, listWorkspace, resolveRef } from "../app/notes";
import { publishFile } from "../app/publish";
import { snapshotCleanupSentence, type SnapshotOutcome } from "../sync/snapshots";
import type { SyncAllResult } from "../sync/sync-all";
import type { KeyedRecord } from "../sync/store";
import type { PushOutput } from "../sync/types";
import type { DiffViewOptions } from "../ui/merge-editor-dom";
import type { MirrorChoice, MirrorDialog } from "../ui/mirror-modal";
import type { MirrorActions } from "./mirror-actions";
import { showError, showInfo, showProgress, type NoticeOperation } from "./notices";
import type { PluginServices } from "./plugin-services";
import { localSyncState, SYNC_STATE_LABELS } from "./sync-status";

/** A note the user can pick from the list. */
export interface PickableNote {
  teamPath: string | null;
  noteId: string;
  title: string;
}

/** A folder offered in the publish dialog. */
export interface FolderChoice {
  id: string;
  name: string;
}

/** Where and how a file is published. */
export interface PublishChoice {
  teamPath: string | null;
  readPermission: Permission;
  writePermission: Permission;
  /** A folder of the chosen workspace, or undefined for its root. */
  parentFolderId?: string | undefined;
}

/** What the publish dialog shows. */
export interface PublishDialog {
  /** The file being published. */
  path: string;
  defaults: PublishChoice;
  /** Team paths of the account (the personal workspace is always offered). */
  teams: string[];
  /** Folders of a workspace, loaded when the user picks it. */
  loadFolders(teamPath: string | null): Promise<FolderChoice[]>;
}

/** A yes/no question. */
export interface ConfirmDialog {
  title: string;
  message: string;
  confirmText: string;
}

/** How the use-cases ask and show things; the plugin implements it with modals. */
export interface PluginUi {
  /** Asks for a note link or id; undefined when cancelled. */
  askNoteRef(): Promise<string | undefined>;
  /** Lets the user pick one note (fuzzy search); undefined when cancelled. */
  pickNote(notes: PickableNote[]): Promise<PickableNote | undefined>;
  /** Asks a yes/no question; false when cancelled. */
  confirm(dialog: ConfirmDialog): Promise<boolean>;
  /** Asks where and how to publish; undefined when cancelled. */
  choosePublish(dialog: PublishDialog): Promise<PublishChoice | undefined>;
  /** Opens a vault file in the editor. */
  openFile(path: string): Promise<void>;
  /** Opens a web page. */
  openUrl(url: string): void;
  /** Puts text on the clipboard. */
  copyText(text: string): Promise<void>;
  /** The conflict resolution view, when the plugin has it (`openConflictResolution`). */
  resolveConflict?: ((localPath: string) => Promise<void>) | undefined;
  /** Shows a read-only diff of a file, when the plugin has the merge editor. */
  showDiff?: ((localPath: string, diff: DiffViewOptions) => Promise<void>) | undefined;
  /** Asks which workspace or folder to mirror into which vault folder (src/obsidian/mirror-actions.ts). */
  chooseMirror?: ((dialog: MirrorDialog) => Promise<MirrorChoice | undefined>) | undefined;
}

/** What `BridgeActions` needs. */
export interface BridgeActionsOptions {
  services: PluginServices;
  ui: PluginUi;
}

/** Characters Obsidian or common file systems refuse in file names. */
const UNSAFE_NAME = /[\\/:*?"<>|#^[\]\p{Cc}]/gu;

/** A file name (without `.md`) from a note title: unsafe characters dropped, at most 100 characters. */
export function fileNameFromTitle(title: string, fallback: string): string {
  const cleaned = Array.from(title.replace(UNSAFE_NAME, " ").replace(/\s+/g, " ").trim().replace(/^\.+/, "").trim())
    .slice(0, 100)
    .join("")
    .trim();
  return cleaned === "" ? fallback.replace(UNSAFE_NAME, "_") : cleaned;
}

/** A push's output and what the engine did with the `.remote.md` snapshot beside the file. */
interface Pushed {
  output: PushOutput;
  snapshot?: SnapshotOutcome | undefined;
}

/** The plugin's use-cases. */
export class BridgeActions {
  private readonly services: PluginServices;
  private readonly ui: PluginUi;
  /** Remote hashes of conflicts reported by push, per path, awaiting a confirmed merge. */
  private readonly conflicts = new Map<string, string>();
  /** Mirrors: the command, Sync all's part and the settings list (mirror-actions.ts, loaded at first use). */
  private mirrorActions: MirrorActions | undefined;

  /** Builds the use-cases over the services and the UI port. */
  constructor(options: BridgeActionsOptions) {
    this.services = options.services;
    this.ui = options.ui;
  }

  /** The mirror use-cases, loaded at first use (not with the plugin). */
  async mirrors(): Promise<MirrorActions> {
    if (this.mirrorActions === undefined) {
      const { MirrorActions } = await import("./mirror-actions");
      const ui = this.ui;
      this.mirrorActions ??= new MirrorActions(this.services, {
        confirm: (dialog) => ui.confirm(dialog),
        get chooseMirror() {
          return ui.chooseMirror;
        },
      });
    }
    return this.mirrorActions;
  }

  /** "Mirror a HackMD workspace" (mirror-actions.ts). */
  async mirrorWorkspace(): Promise<unknown> {
    return (await this.mirrors()).mirrorWorkspace();
  }

  /** Pulls a note by link or id (prompt), into its tracked file or a new file in the default folder. */
  async pullByRef(): Promise<void> {
    const ref = await this.ui.askNoteRef();
    if (ref === undefined || ref.trim() === "") return;
    await this.guard("pull", async () => {
      const call = this.services.newCall();
      const resolution: Resolution = await resolveRef(await this.services.loadDeps(), call, ref, {
        teamPath: null,
        refresh: false,
      });
      if (resolution.status === "not_found") {
        showInfo("No HackMD note matches that link. Check it and try again.");
        return;
      }
      let target: PickableNote | undefined;
      if (resolution.status === "ambiguous") {
        target = await this.ui.pickNote(
          resolution.candidates.map((c) => ({ teamPath: c.team_path, noteId: c.note_id, title: c.title })),
        );
        if (!target) return;
      } else {
        target = { teamPath: resolution.teamPath, noteId: resolution.noteId, title: "" };
      }
      await this.pullNote(call, target);
    });
  }

  /** Pulls a note picked from the personal and team note lists. */
  async pullFromList(): Promise<void> {
    await this.guard("pull", async () => {
      const call = this.services.newCall();
      const deps = await this.services.loadDeps();
      const notes: PickableNote[] = [];
      const toPickable = (teamPath: string | null) => (note: { id: string; title: string }) => ({
        teamPath,
        noteId: note.id,
        title: note.title,
      });
      notes.push(...(await listWorkspace(deps, call, null, false)).map(toPickable(null)));
      for (const team of await accountTeamPaths(deps, call, false)) {
        try {
          notes.push(...(await listWorkspace(deps, call, team, false)).map(toPickable(team)));
        } catch (error) {
          // One unreadable team should not hide the others.
          this.services.logger.debug("team_list_failed", {
            team,
            kind: isBridgeError(error) ? error.kind : "unexpected",
          });
        }
      }
      const picked = await this.ui.pickNote(notes);
      if (picked) await this.pullNote(call, picked);
    });
  }

  /** Pushes a tracked file (strategy safe). */
  async pushFile(path: string): Promise<void> {
    await this.guard("push", async () => {
      await this.handlePush(path, await this.pushSafe(path, this.services.newCall()));
    });
  }

  /** Syncs a tracked file: check, then pull, push or the conflict flow. */
  async syncFile(path: string): Promise<void> {
    await this.guard("sync", async () => {
      const call = this.services.newCall();
      const check = await this.check(path, call);
      switch (check.status) {
        case "in_sync":
          showInfo(`${path} is in sync with HackMD.`);
          return;
        case "local_changed":
          await this.handlePush(path, await this.pushSafe(path, call));
          return;
        case "remote_changed":
          await this.pullTracked(path, call);
          return;
        case "conflict": {
          // Edits in different places merge by themselves; only overlapping ones need the user.
          if (this.services.settings.autoMerge) {
            const merged = await this.pushSafe(path, call, undefined, "merge");
            if (merged.output.status !== "conflict") {
              await this.handlePush(path, merged);
              return;
            }
          }
          await this.conflictFlow(path, call);
          return;
        }
      }
    });
  }

  /** Syncs every tracked note, with a progress notice updated in place, then a summary. */
  async syncAllTracked(): Promise<SyncAllResult | undefined> {
    const progress = showProgress("Syncing tracked notes…");
    try {
      const deps = await this.services.loadDeps();
      const { syncAll } = await import("../sync/sync-all");
      const options = {
        autoMerge: this.services.settings.autoMerge,
        hashCache: this.services.hashCache,
        onProgress: (p: { phase: string; done: number; total: number }) => {
          const phase =
            p.phase === "listing" ? "Listing workspaces" : p.phase === "checking" ? "Checking notes" : "Syncing notes";
          progress.update(`${phase}: ${p.done} of ${p.total}…`);
        },
      };
      // With mirrors, one list per workspace serves both them and sync-all (src/app/mirror-sync.ts).
      // The state folder's `mirrors/` is listed first: without a mirror nothing of them loads.
      const hasMirrors = (await deps.files.state.list("mirrors")).some((entry) => entry.name.endsWith(".json"));
      const mirrors = hasMirrors ? await this.mirrors() : undefined;
      const mirrored = mirrors === undefined ? undefined : await mirrors.syncWithMirrors(deps, options);
      const result = mirrored?.sync ?? (await syncAll(deps, { ...options, call: this.services.newCall() }));
      progress.hide();
      if (mirrors !== undefined) for (const mirror of mirrored?.mirrors ?? []) showInfo(mirrors.summary(mirror));
      let removed = 0;
      for (const item of result.items) {
        this.services.status.forget(item.local_path);
        if (item.outcome === "conflict" && item.remote_body_hash !== undefined)
          this.conflicts.set(item.local_path, item.remote_body_hash);
        // Both sides now agree: the engine removed the snapshot of an earlier conflict.
        if (item.snapshot_cleanup?.kind === "removed") removed += 1;
      }
      const tidy =
        removed === 0
          ? ""
          : ` Removed ${removed === 1 ? "1 .remote.md snapshot" : `${removed} .remote.md snapshots`} of resolved conflicts.`;
      showInfo(syncAllSummary(result) + tidy);
      return result;
    } catch (error) {
      progress.hide();
      showError(error, { operation: "sync", logger: this.services.logger });
      return undefined;
    }
  }

  /** Publishes an untracked file as a new note, then tracks it by pulling it back (adoption, §14.8). */
  async publishFile(path: string): Promise<void> {
    await this.guard("publish", async () => {
      if (await this.services.store.findByPath(path)) {
        showInfo(`${path} is already linked to a HackMD note. Push it instead.`);
        return;
      }
      const call = this.services.newCall();
      const deps = await this.services.loadDeps();
      const settings = this.services.settings;
      const choice = await this.ui.choosePublish({
        path,
        defaults: {
          teamPath: settings.defaultWorkspace,
          readPermission: settings.defaultReadPermission,
          writePermission: settings.defaultWritePermission,
        },
        teams: await accountTeamPaths(deps, call, false),
        loadFolders: async (teamPath) =>
          (await deps.client.listFolders(call, { teamPath })).map((folder) => ({ id: folder.id, name: folder.name })),
      });
      if (!choice) return;
      // The note gets the file's HackMD form and is tracked with exactly that as its baseline; a
      // failed link-up deletes the note again (app/publish.ts).
      const { created } = await publishFile(deps, call, {
        path,
        teamPath: choice.teamPath,
        readPermission: choice.readPermission,
        writePermission: choice.writePermission,
        parentFolderId: choice.parentFolderId,
      });
      showInfo(
        `Published ${path} as a new HackMD note${created.placement_failed ? " (outside the chosen folder)" : ""}.`,
      );
    });
  }

  /** Opens the note of a tracked file in the browser (default API URL only). */
  async openInBrowser(path: string): Promise<void> {
    await this.guard("other", async () => {
      const url = await this.linkOf(path);
      if (url !== undefined) this.ui.openUrl(url);
    });
  }

  /** Copies the link of a tracked file's note. */
  async copyLink(path: string): Promise<void> {
    await this.guard("other", async () => {
      const url = await this.linkOf(path);
      if (url === undefined) return;
      await this.ui.copyText(url);
      showInfo("Copied the note link.");
    });
  }

  /** Checks a tracked file against HackMD (one request) and shows its state. */
  async showStatus(path: string): Promise<void> {
    await this.guard("check", async () => {
      await this.check(path, this.services.newCall());
      const state = await localSyncState(this.sources(), path);
      showInfo(`${path}: ${SYNC_STATE_LABELS[state]}.`);
    });
  }

  /** Shows what changed in a tracked file since the last sync (file against baseline; no request). */
  async showChangesSinceSync(path: string): Promise<void> {
    await this.guard("check", async () => {
      const found = await this.requireTracked(path);
      const loaded = await this.services.store.load(found);
      const local = await this.readText(path);
      // In the syntax the file is written in (docs/conversion-rules.md).
      const baseline = await (await this.services.loadDeps()).sync.localFormOf(found, loaded.baseline);
      if (local === baseline) {
        showInfo(`${path} has not changed since the last sync.`);
        return;
      }
      await this.showDiff(path, {
        title: `Changes in ${baseName(path)} since the last sync`,
        description: "What this file changed since it last matched HackMD.",
        original: baseline,
        modified: local,
        originalLabel: "Only at the last sync",
        modifiedLabel: "Only in this file now",
      });
    });
  }

  /** Compares a tracked file with its note on HackMD (one GET) and shows the differences. */
  async compareWithHackmd(path: string): Promise<void> {
    await this.guard("check", async () => {
      const found = await this.requireTracked(path);
      const note = await (
        await this.services.loadDeps()
      ).client.getNote(this.services.newCall(), { teamPath: found.record.team_path, noteId: found.record.internal_id });
      if (note.content === undefined)
        throw new BridgeError("upstream", `HackMD sent note ${found.record.internal_id} without its body.`);
      const local = await this.readText(path);
      // What HackMD holds is now known: the status bar can show it without another request.
      this.services.status.observe(path, {
        baseline_body_hash: found.record.baseline_body_hash,
        remote_body_hash: await bodyHash(note.content),
      });
      const remote = await (await this.services.loadDeps()).sync.localFormOf(found, note.content);
      if (local === remote) {
        showInfo(`${path} matches its note on HackMD.`);
        return;
      }
      await this.showDiff(path, {
        title: `${baseName(path)} compared with HackMD`,
        description: "Your file against the note on HackMD as it is now.",
        original: remote,
        modified: local,
        originalLabel: "Only on HackMD",
        modifiedLabel: "Only in this file",
      });
    });
  }

  /** Checks a tracked file quietly (background check): only the status bar changes. */
  async checkQuietly(path: string): Promise<void> {
    try {
      await this.check(path, this.services.newCall());
    } catch (error) {
      this.services.logger.debug("background_check_failed", { kind: isBridgeError(error) ? error.kind : "unexpected" });
    }
  }

  /** Forgets the link of a tracked file after confirmation; the file and the note stay. */
  async untrackFile(path: string): Promise<void> {
    await this.guard("untrack", async () => {
      const found = await this.requireTracked(path);
      const confirmed = await this.ui.confirm({
        title: "Untrack this file?",
        message: `${path} stays in the vault and the note stays on HackMD, but they will no longer sync.`,
        confirmText: "Untrack",
      });
      if (!confirmed) return;
      await (
        await this.services.loadDeps()
      ).sync.untrack({ teamPath: found.record.team_path, noteId: found.record.internal_id, confirm: true });
      this.services.status.forget(path);
      this.conflicts.delete(path);
      showInfo(`${path} is no longer linked to HackMD.`);
    });
  }

  /** Resolves a conflict: the conflict view when present, else push a merge the user confirms. */
  async resolveConflict(path: string): Promise<void> {
    await this.guard("push", async () => {
      if (this.ui.resolveConflict) {
        await this.ui.resolveConflict(path);
        return;
      }
      const call = this.services.newCall();
      const remoteHash = this.conflicts.get(path);
      if (remoteHash === undefined) {
        const check = await this.check(path, call);
        if (check.status === "conflict") await this.conflictFlow(path, call);
        else showInfo(`${path} has no conflict (${SYNC_STATE_LABELS[await localSyncState(this.sources(), path)]}).`);
        return;
      }
      const confirmed = await this.ui.confirm({
        title: "Push the merged file?",
        message: `Push ${path} only after folding the changes of its .remote.md snapshot into it. HackMD's version will be replaced.`,
        confirmText: "Push merged file",
      });
      if (!confirmed) return;
      await this.handlePush(path, await this.pushSafe(path, call, remoteHash));
    });
  }

  /** Whether a file has a sync record (no request). */
  async isTracked(path: string): Promise<boolean> {
    try {
      return (await this.services.store.findByPath(path)) !== undefined;
    } catch {
      // A damaged record counts as tracked: sync reports the repair.
      return true;
    }
  }

  // ---- steps ----

  private async showDiff(path: string, diff: DiffViewOptions): Promise<void> {
    if (!this.ui.showDiff) {
      showInfo(`${path} differs: ${diff.description}`);
      return;
    }
    await this.ui.showDiff(path, diff);
  }

  private sources() {
    const services = this.services;
    return {
      files: services.files,
      store: services.store,
      hashCache: services.hashCache,
      memory: services.status,
      remoteForm: async (found: KeyedRecord, text: string) =>
        (await services.loadDeps()).sync.remoteFormOf(found, text),
    };
  }

  private async guard(operation: NoticeOperation, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      showError(error, { operation, logger: this.services.logger });
    }
  }

  private async check(path: string, call: CallContext) {
    const status = this.services.status;
    status.setChecking(path, true);
    try {
      const check = await (await this.services.loadDeps()).sync.check({ localPath: path, call });
      status.setChecking(path, false);
      status.observe(path, check);
      return check;
    } catch (error) {
      status.setChecking(path, false);
      status.setFailed(path);
      throw error;
    }
  }

  private async requireTracked(path: string) {
    const found = await this.services.store.findByPath(path);
    if (!found) throw new BridgeError("not_tracked", `${path} is not tracked.`);
    return found;
  }

  private async linkOf(path: string): Promise<string | undefined> {
    const found = await this.requireTracked(path);
    const url = this.services.noteUrl(found.record.internal_id);
    if (url === undefined)
      showInfo("Links need the default HackMD API URL; open the note from your HackMD server instead.");
    return url;
  }

  private async readText(path: string): Promise<string> {
    const read = await this.services.files.read(path, { maxBytes: 50 * 1_048_576 });
    if (read.truncated) throw new BridgeError("too_large", `${path} is larger than 50 MiB.`);
    try {
      return normalizeLineEndings(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(read.bytes));
    } catch {
      throw new BridgeError("invalid_input", `${path} is not UTF-8 text.`);
    }
  }

  /** Pulls a note into its tracked file, or a free file named after its title in the default folder. */
  private async pullNote(call: CallContext, target: PickableNote): Promise<void> {
    const deps = await this.services.loadDeps();
    const tracked = (await deps.sync.listTracked()).find(
      (entry) => entry.note_id === target.noteId && entry.team_path === target.teamPath,
    );
    let path = tracked?.local_path;
    if (path === undefined) {
      const title =
        target.title !== ""
          ? target.title
          : (await deps.client.getNote(call, { teamPath: target.teamPath, noteId: target.noteId })).title;
      path = await this.freeDestination(fileNameFromTitle(title, target.noteId));
    }
    const { output: out } = await this.runPull(call, {
      path,
      teamPath: target.teamPath,
      noteId: target.noteId,
      overwriteLocal: tracked !== undefined,
    });
    const moved =
      out.moved_from === undefined
        ? ""
        : ` It was linked to ${out.moved_from} until now; that file is kept but no longer linked.`;
    showInfo(`Pulled “${out.title || out.note_id}” to ${out.local_path}.${moved}`);
    await this.ui.openFile(out.local_path);
  }

  /**
   * The per-note conversion switch (docs/conversion-rules.md): pulls the tracked file again, byte for byte
   * (`convert` false) or in Obsidian's syntax, and the note keeps that choice. Unpushed edits are
   * protected as by every pull.
   */
  async pullConverting(path: string, convert: boolean): Promise<void> {
    await this.guard("pull", async () => {
      const found = await this.requireTracked(path);
      const { output: out } = await this.runPull(this.services.newCall(), {
        path,
        teamPath: found.record.team_path,
        noteId: found.record.internal_id,
        overwriteLocal: true,
        convert,
      });
      showInfo(
        convert
          ? `${out.local_path} is written in Obsidian's syntax and converted when pushed.`
          : `${out.local_path} now syncs byte for byte, exactly as HackMD stores it.`,
      );
    });
  }

  private async pullTracked(path: string, call: CallContext): Promise<void> {
    const found = await this.requireTracked(path);
    const { output: out, snapshot } = await this.runPull(call, {
      path,
      teamPath: found.record.team_path,
      noteId: found.record.internal_id,
      overwriteLocal: true,
    });
    showInfo(`Pulled the latest version of ${out.local_path} from HackMD.${snapshotCleanupSentence(snapshot)}`);
  }

  /** One pull; a large note asks first. Records what both sides now hold for the status bar. */
  private async runPull(
    call: CallContext,
    args: { path: string; teamPath: string | null; noteId: string; overwriteLocal: boolean; convert?: boolean },
  ) {
    const sync = (await this.services.loadDeps()).sync;
    const pull = (confirmLargeFile: boolean) =>
      sync.pull({
        localPath: args.path,
        resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: args.teamPath, noteId: args.noteId }),
        overwriteLocal: args.overwriteLocal,
        discardLocalChanges: false,
        createParentDirs: true,
        confirmLargeFile,
        ...(args.convert === undefined ? {} : { convert: args.convert }),
        call,
      });
    let result;
    try {
      result = await pull(false);
    } catch (error) {
      if (!isBridgeError(error, "confirmation_required") || !error.message.includes("confirm_large_file")) throw error;
      const ok = await this.ui.confirm({
        title: "Pull a large note?",
        message: "This note is larger than 5 MiB.",
        confirmText: "Pull",
      });
      if (!ok) throw new BridgeError("confirmation_required", "The large note was not pulled.");
      result = await pull(true);
    }
    if (result.kind !== "pulled") throw new BridgeError("not_found", `Note ${args.noteId} did not resolve.`);
    this.services.hashCache.forget(result.output.local_path);
    this.services.status.observe(result.output.local_path, {
      baseline_body_hash: result.output.body_hash,
      remote_body_hash: result.output.body_hash,
    });
    this.conflicts.delete(result.output.local_path);
    return result;
  }

  private async pushSafe(
    path: string,
    call: CallContext,
    expectedRemoteHash?: string,
    strategy: "safe" | "merge" = "safe",
  ): Promise<Pushed> {
    const sync = (await this.services.loadDeps()).sync;
    const push = (confirmLargeFile: boolean) =>
      sync.push({ localPath: path, strategy, confirm: false, expectedRemoteHash, confirmLargeFile, call });
    let result;
    try {
      result = await push(false);
    } catch (error) {
      if (!isBridgeError(error, "confirmation_required") || !error.message.includes("confirm_large_file")) throw error;
      const ok = await this.ui.confirm({
        title: "Push a large file?",
        message: `${path} is larger than 5 MiB.`,
        confirmText: "Push",
      });
      if (!ok) throw new BridgeError("confirmation_required", "The large file was not pushed.");
      result = await push(true);
    }
    if (result.kind !== "pushed") throw new BridgeError("internal", "A push without a note reference did not resolve.");
    // A collaborator's edit replaced in the read-to-write window: say which version holds it (docs/versions-and-comments.md).
    const overwritten = result.safety?.overwritten ?? [];
    if (overwritten.length > 0)
      showInfo(`${path}: ${overwrittenSentence(overwritten)} Open note history to compare or restore it.`);
    return { output: result.output, snapshot: result.snapshot };
  }

  private async handlePush(path: string, pushed: Pushed): Promise<void> {
    const out = pushed.output;
    const status = this.services.status;
    switch (out.status) {
      case "pushed":
      case "nothing_to_push":
        if (out.body_hash !== undefined)
          status.observe(path, { baseline_body_hash: out.body_hash, remote_body_hash: out.body_hash });
        this.services.hashCache.forget(path);
        this.conflicts.delete(path);
        {
          const done =
            out.merged === true
              ? out.status === "pushed"
                ? `Merged your edits of ${path} with HackMD's and pushed the result.`
                : `Brought HackMD's edits into ${path}; the note already had yours.`
              : out.status === "pushed"
                ? `Pushed ${path} to HackMD.`
                : `Nothing to push: the note already matches ${path}.`;
          // The engine removed the snapshot of an earlier conflict, or says why it stayed.
          showInfo(done + snapshotCleanupSentence(pushed.snapshot));
        }
        return;
      case "remote_changed": {
        const pull = await this.ui.confirm({
          title: "The note changed on HackMD",
          message: `${path} has no local edits. Pull HackMD's version into it?`,
          confirmText: "Pull",
        });
        if (pull) await this.pullTracked(path, this.services.newCall());
        return;
      }
      case "conflict":
        this.reportConflict(path, out);
        return;
    }
  }

  private async conflictFlow(path: string, call: CallContext): Promise<void> {
    if (this.ui.resolveConflict) {
      await this.ui.resolveConflict(path);
      return;
    }
    // The push writes nothing to HackMD on a conflict; it writes the .remote.md snapshot.
    await this.handlePush(path, await this.pushSafe(path, call));
  }

  private reportConflict(path: string, out: PushOutput): void {
    if (out.remote_body_hash !== undefined) this.conflicts.set(path, out.remote_body_hash);
    const where =
      out.snapshot_path !== undefined
        ? `HackMD's version is in ${out.snapshot_path}`
        : "no snapshot of HackMD's version could be written";
    showInfo(
      `Conflict: ${path} and its note both changed; ${where}. Merge the changes into the file, then run "Resolve conflict in current file".`,
    );
  }

  /** The default folder joined with `name.md`, numbered until no file is there. */
  private async freeDestination(name: string): Promise<string> {
    const folder = this.services.settings.defaultPullFolder;
    for (let n = 1; ; n++) {
      const file = n === 1 ? `${name}.md` : `${name} ${n}.md`;
      const path = normalizePath(folder === "" ? file : `${folder}/${file}`);
      const info = await this.services.files.stat(path);
      if (info.kind === "missing") return path;
    }
  }
}

/** One line summarising a sync-all run. */
export function syncAllSummary(result: SyncAllResult): string {
  if (result.items.length === 0) return "No notes are tracked yet. Pull or publish a note first.";
  const c = result.counts;
  const parts = [`${c.in_sync} in sync`, `${c.pulled} pulled`, `${c.pushed} pushed`];
  if (c.merged > 0) parts.push(`${c.merged} merged`);
  if (c.conflicts > 0) parts.push(`${c.conflicts} in conflict (see their .remote.md files)`);
  if (c.missing_local + c.missing_remote > 0) parts.push(`${c.missing_local + c.missing_remote} missing`);
  if (c.errors > 0) parts.push(`${c.errors} failed`);
  if (c.skipped > 0) parts.push(`${c.skipped} skipped (rate limit)`);
  return `Synced ${result.items.length} notes: ${parts.join(", ")}.`;
}
