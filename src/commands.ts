/**
 * Every command of the plugin, with a stable id (ids are a contract: users bind hotkeys to them).
 * Each body calls one use-case of BridgeActions. No default hotkeys (Obsidian's guidelines); the
 * file commands appear only while a Markdown file is active.
 */
import type { Command, Plugin, TFile } from "obsidian";
import type { BridgeActions } from "./obsidian/actions";
import type { MergeEditors } from "./obsidian/merge-editors";

/** A command on the active Markdown file. */
interface FileCommand {
  id: string;
  name: string;
  icon: string;
  run: (actions: BridgeActions, path: string) => Promise<unknown>;
}

/** The commands on the active file, in palette order. */
export const FILE_COMMANDS: readonly FileCommand[] = [
  { id: "push-file", name: "Push current file", icon: "upload", run: (a, p) => a.pushFile(p) },
  { id: "sync-file", name: "Sync current file", icon: "refresh-cw", run: (a, p) => a.syncFile(p) },
  { id: "publish-file", name: "Publish current file as a new note", icon: "send", run: (a, p) => a.publishFile(p) },
  {
    id: "open-in-browser",
    name: "Open current note in the browser",
    icon: "external-link",
    run: (a, p) => a.openInBrowser(p),
  },
  { id: "copy-link", name: "Copy link to current note", icon: "link", run: (a, p) => a.copyLink(p) },
  { id: "show-status", name: "Show sync status of current file", icon: "info", run: (a, p) => a.showStatus(p) },
  { id: "untrack-file", name: "Untrack current file", icon: "unlink", run: (a, p) => a.untrackFile(p) },
  {
    id: "pull-without-conversion",
    name: "Pull current file without syntax conversion",
    icon: "file-code",
    run: (a, p) => a.pullConverting(p, false),
  },
  {
    id: "pull-with-conversion",
    name: "Pull current file with syntax conversion",
    icon: "file-text",
    run: (a, p) => a.pullConverting(p, true),
  },
  {
    id: "resolve-conflict",
    name: "Resolve conflict in current file",
    icon: "git-merge",
    run: (a, p) => a.resolveConflict(p),
  },
  {
    id: "show-changes-since-sync",
    name: "Show changes since last sync",
    icon: "file-diff",
    run: (a, p) => a.showChangesSinceSync(p),
  },
  {
    id: "compare-with-hackmd",
    name: "Compare current file with HackMD",
    icon: "git-compare",
    run: (a, p) => a.compareWithHackmd(p),
  },
];

/**
 * The commands other modules register with their own callbacks (history, automatic sync,
 * endpoint): their ids and names are kept here with the rest, so every command id is in this file.
 */
export const WIRED_COMMANDS = {
  openNoteHistory: { id: "open-note-history", name: "Open note history", icon: "history" },
  openComments: { id: "open-comments", name: "Open comments", icon: "message-square" },
  showQueuedPushes: { id: "show-queued-pushes", name: "Show queued pushes", icon: "inbox" },
  toggleMcpEndpoint: { id: "toggle-mcp-endpoint", name: "Start or stop the MCP endpoint" },
  copyMcpClientConfig: { id: "copy-mcp-client-config", name: "Copy MCP client configuration" },
  openMcpActivityLog: { id: "open-mcp-activity-log", name: "Open MCP activity log" },
  openSyncHistory: { id: "open-sync-history", name: "Open sync history", icon: "history" },
} as const satisfies Record<string, Pick<Command, "id" | "name" | "icon">>;

/** "Mirror a HackMD workspace" (src/obsidian/mirror-actions.ts); "HackMD" is a brand, written as such. */
export const MIRROR_COMMAND = {
  id: "mirror-workspace",
  name: "Mirror a HackMD workspace",
  icon: "folder-sync",
} as const satisfies Pick<Command, "id" | "name" | "icon">;

/** The active file when it is Markdown. */
function activeMarkdown(plugin: Plugin): TFile | null {
  const file = plugin.app.workspace.getActiveFile();
  return file !== null && file.extension === "md" ? file : null;
}

/** Registers every command on the plugin; returns them (tests check ids and hotkeys). */
export function registerCommands(plugin: Plugin, actions: BridgeActions): Command[] {
  const commands: Command[] = [
    plugin.addCommand({
      id: "pull-note",
      name: "Pull a note by link or ID",
      icon: "download",
      callback: () => void actions.pullByRef(),
    }),
    plugin.addCommand({
      id: "pull-from-list",
      name: "Pull a note from your notes list",
      icon: "list",
      callback: () => void actions.pullFromList(),
    }),
    plugin.addCommand({
      id: "sync-all",
      name: "Sync all tracked notes",
      icon: "refresh-ccw",
      callback: () => void actions.syncAllTracked(),
    }),
    plugin.addCommand({ ...MIRROR_COMMAND, callback: () => void actions.mirrorWorkspace() }),
  ];
  for (const command of FILE_COMMANDS) {
    commands.push(
      plugin.addCommand({
        id: command.id,
        name: command.name,
        icon: command.icon,
        checkCallback: (checking) => {
          const file = activeMarkdown(plugin);
          if (file === null) return false;
          if (!checking) void command.run(actions, file.path);
          return true;
        },
      }),
    );
  }
  return commands;
}

/**
 * The merge editor's navigation commands, available while a merge or diff tab is active: users
 * bind their own keys to them (no default hotkeys).
 */
export function registerMergeCommands(
  plugin: Plugin,
  editors: Pick<MergeEditors, "hasActive" | "next" | "previous">,
): Command[] {
  return [
    plugin.addCommand({
      id: "next-conflict",
      name: "Go to next conflict or change",
      icon: "arrow-down",
      checkCallback: (checking) => {
        if (!editors.hasActive()) return false;
        if (!checking) editors.next();
        return true;
      },
    }),
    plugin.addCommand({
      id: "previous-conflict",
      name: "Go to previous conflict or change",
      icon: "arrow-up",
      checkCallback: (checking) => {
        if (!editors.hasActive()) return false;
        if (!checking) editors.previous();
        return true;
      },
    }),
  ];
}
