/**
 * The plugin's side of mirrors (src/app/mirror.ts): the command "Mirror a HackMD workspace" (a
 * modal, then the first mirror with a progress notice), Sync all keeping every mirror whole, and
 * the list of mirrors the settings tab shows. A note gone from HackMD moves its file to Obsidian's
 * trash (as the user's deletion setting says); a file deleted in the vault deletes its note only
 * when the user says yes.
 */
import { normalizePath, type App } from "obsidian";
import { BridgeError } from "../core/errors";
import { accountTeamPaths } from "../app/notes";
import {
  loadMirrors,
  removeMirror,
  RoundLists,
  saveMirror,
  startMirror,
  type MirrorHost,
  type MirrorResult,
  type MirrorState,
} from "../app/mirror";
import { checkExcludePatterns } from "../app/mirror-names";
import { syncWithMirrors, type MirroredSyncResult } from "../app/mirror-sync";
import type { AppDeps } from "../app/deps";
import type { SyncAllOptions } from "../sync/sync-all";
import type { MirrorChoice, MirrorDialog } from "../ui/mirror-modal";
import type { ConfirmDialog } from "./actions";
import { showError, showInfo, showProgress } from "./notices";
import type { PluginServices } from "./plugin-services";

/** What the mirror use-cases ask of the UI. */
export interface MirrorUi {
  chooseMirror?: ((dialog: MirrorDialog) => Promise<MirrorChoice | undefined>) | undefined;
  confirm(dialog: ConfirmDialog): Promise<boolean>;
}

/**
 * The trash for a mirror's files whose notes are gone from HackMD: Obsidian's local trash, the
 * vault's `.trash` folder (`DataAdapter.trashLocal`), whatever the user's deletion setting says.
 * Not `FileManager.trashFile`: with "permanently delete" chosen it would destroy the only copy of
 * text HackMD no longer holds (docs/style.md rule 6: nothing discarded unasked). The vault's
 * `.trash` is where Obsidian's own "Move to Obsidian trash" puts files, and it is not indexed.
 */
export function vaultTrash(app: App): MirrorHost {
  return {
    async trash(path) {
      const normalized = normalizePath(path);
      if (!(await app.vault.adapter.exists(normalized)))
        throw new BridgeError("local_io", `${path} is gone; nothing was moved to the trash.`);
      await app.vault.adapter.trashLocal(normalized);
      return "the vault's .trash folder";
    },
  };
}

/** The proposed vault folder of a mirror: under the pull folder, named by the workspace (and folder). */
export function defaultMirrorFolder(pullFolder: string, teamPath: string | null, folderPath: string): string {
  const name = [teamPath ?? "Personal", ...(folderPath === "" ? [] : [folderPath])].join("/");
  return pullFolder.trim() === "" ? `HackMD/${name}` : `${pullFolder.replace(/\/+$/, "")}/${name}`;
}

/** A mirror result in one sentence. */
export function mirrorSummary(result: MirrorResult): string {
  const count = (action: string): number => result.items.filter((item) => item.action === action).length;
  const parts = [
    [count("pulled"), "fetched"],
    [count("published"), "published"],
    [count("moved"), "moved"],
    [count("trashed"), "moved to the trash"],
    [count("untracked"), "untracked"],
    [count("error"), "failed"],
  ]
    .filter(([n]) => (n as number) > 0)
    .map(([n, word]) => `${String(n)} ${String(word)}`);
  const where = result.local_dir === "" ? "the vault" : result.local_dir;
  return `Mirror of ${result.target} in ${where}: ${parts.length === 0 ? "nothing new" : parts.join(", ")}.${result.complete ? "" : " Not complete yet: run the command again to resume."}`;
}

/** The mirror use-cases of the plugin. */
export class MirrorActions {
  constructor(
    private readonly services: PluginServices,
    private readonly ui: MirrorUi,
  ) {}

  /** "Mirror a HackMD workspace": asks where, then mirrors with a progress notice. */
  async mirrorWorkspace(): Promise<MirrorResult | undefined> {
    const progress = showProgress("Listing the workspace…");
    try {
      const deps = await this.services.loadDeps();
      const call = this.services.newCall();
      const teams = await accountTeamPaths(deps, call, false).catch(() => []);
      progress.hide();
      const choose = this.ui.chooseMirror;
      if (choose === undefined) return undefined;
      const choice = await choose({
        teams,
        defaultFolder: (teamPath, folderPath) =>
          defaultMirrorFolder(this.services.settings.defaultPullFolder, teamPath, folderPath),
      });
      if (choice === undefined) return undefined;
      const running = showProgress("Mirroring…");
      try {
        const settings = this.services.settings;
        const result = await startMirror(deps, {
          target: { teamPath: choice.teamPath, folderPath: choice.folderPath },
          localDir: choice.localDir,
          host: vaultTrash(this.services.app),
          lists: new RoundLists(deps, call),
          call,
          permissions: { read: settings.defaultReadPermission, write: settings.defaultWritePermission },
          onProgress: (report) => {
            if (report.phase === "fetching" && report.total > 0)
              running.update(`Mirroring: ${report.done} of ${report.total} notes…`);
          },
        });
        running.hide();
        showInfo(mirrorSummary(result));
        return result;
      } catch (error) {
        running.hide();
        throw error;
      }
    } catch (error) {
      progress.hide();
      showError(error, { operation: "sync", logger: this.services.logger });
      return undefined;
    }
  }

  /** Sync all with every mirror kept whole (one list per workspace for both). */
  async syncWithMirrors(
    deps: AppDeps,
    syncAll: Omit<SyncAllOptions, "call" | "listNotes">,
  ): Promise<MirroredSyncResult> {
    const settings = this.services.settings;
    return syncWithMirrors(deps, {
      host: vaultTrash(this.services.app),
      syncAll,
      confirmDeleteRemote: (path, noteId) =>
        this.ui.confirm({
          title: "Delete the note on HackMD too?",
          message: `${path} was deleted from the mirror. Delete note ${noteId} on HackMD as well (it goes to HackMD's trash)? Otherwise it stays on HackMD and is no longer tracked.`,
          confirmText: "Delete on HackMD",
        }),
      permissions: { read: settings.defaultReadPermission, write: settings.defaultWritePermission },
    });
  }

  /** A mirror result in one sentence. */
  summary(result: MirrorResult): string {
    return mirrorSummary(result);
  }

  /** The mirrors, for the settings tab. */
  async list(): Promise<MirrorState[]> {
    const deps = await this.services.loadDeps();
    return loadMirrors(deps.files.state);
  }

  /** Forgets a mirror; its files stay tracked. */
  async remove(id: string): Promise<void> {
    const deps = await this.services.loadDeps();
    await removeMirror(deps.files.state, id);
  }

  /** Replaces a mirror's exclude patterns (one per line). */
  async setExclude(mirror: MirrorState, lines: string): Promise<void> {
    const deps = await this.services.loadDeps();
    mirror.exclude = checkExcludePatterns(lines.split("\n").filter((line) => line.trim() !== ""));
    await saveMirror(deps.files.state, mirror);
  }
}
