/**
 * Wires the settings tab, the MCP endpoint component and the activity log onto the plugin (their
 * modules belong to the settings/endpoint work; this adapts PluginServices to what they need).
 * Nothing here makes a request or starts a listener during onload: the endpoint starts, when the
 * device switch is on, once the workspace layout is ready.
 */
import { VERSION } from "../core/version";
import { normalizePath, type Plugin } from "obsidian";
import { isBridgeError } from "../core/errors";
import type { Settings } from "../settings/schema";
import { registerActivityView } from "../ui/activity-view";
import { agentVersionBefore } from "./agent-versions";
import { HackmdBridgeSettingTab, type ConnectionTestResult } from "../ui/settings-tab";
import type { MirrorSettings } from "../ui/mirror-list";
import { ConfirmModal } from "../ui/confirm-modal";
import { ActivityLog, type ActivityEntry } from "./activity-log";
import { vaultActivityStore } from "./activity-store";
import { pluginGate } from "./agent-gate";
import { DeviceSettings } from "./device-settings";
import { registerEndpointCommands } from "./endpoint-commands";
import { McpEndpointController } from "./mcp-endpoint";
import { errorNoticeText, showInfo } from "./notices";
import type { AutoSyncHost } from "./auto-sync";
import type { PluginServices } from "./plugin-services";
import type { PluginSecrets } from "./secrets";

/** What the wiring needs from the plugin. */
export interface EndpointWiringOptions {
  plugin: Plugin;
  services: PluginServices;
  secrets: PluginSecrets;
  /** Automatic sync, for the settings' "requests used this month". */
  autoSync: Pick<AutoSyncHost, "usage" | "subscribe">;
  /** Merges, saves and applies a settings change. */
  saveSettings: (change: Partial<Settings>) => Promise<void>;
  /** The mirrors' section of the settings tab. */
  mirrors?: MirrorSettings;
}

/** Registers the settings tab, the activity view and the endpoint (stopped on unload). */
export function wireSettingsAndEndpoint(options: EndpointWiringOptions): { activityLog: ActivityLog } {
  const { plugin, services, secrets } = options;
  const { app } = plugin;
  // The history lives in the plugin's own folder, bounded (activity-log.ts).
  const pluginFolder = plugin.manifest.dir ?? normalizePath(`${app.vault.configDir}/plugins/${plugin.manifest.id}`);
  const activityLog = new ActivityLog({
    capacity: services.settings.activityLogSize,
    store: vaultActivityStore(app.vault.adapter, pluginFolder),
  });
  void activityLog.load();
  // The tracked file is the name the user knows the note by (no request is made).
  const trackedName = async (noteId: string): Promise<string | undefined> =>
    (await (await services.loadDeps()).sync.listTracked()).find((entry) => entry.note_id === noteId)?.local_path;
  const confirmUndo = (entry: ActivityEntry): Promise<boolean> => {
    const modal = new ConfirmModal(app, {
      title: "Undo the agent's change?",
      paragraphs: [
        `The note gets back its text from before the call at ${new Date(entry.at).toLocaleTimeString()}.`,
        "If anyone changed the note after the agent, nothing is changed.",
      ],
      confirmText: "Undo",
      warning: true,
    });
    modal.open();
    return modal.result;
  };
  const undo = async (entry: ActivityEntry): Promise<void> => {
    // Undo runs the update tool's logic (and its schemas): loaded on first use, not with the plugin.
    const { undoAgentWrite } = await import("./activity-undo");
    const outcome = await undoAgentWrite(
      { log: activityLog, deps: await services.loadDeps(), newCall: () => services.newCall(), confirm: confirmUndo },
      entry,
    );
    showInfo(outcome.message);
  };
  const openActivityLog = registerActivityView(plugin, activityLog, trackedName, undo);
  const gate = pluginGate({
    app,
    settings: () => services.settings,
    timers: window,
    noteName: async (change) =>
      change.localPath ?? (change.note === undefined ? undefined : await trackedName(change.note.noteId)),
    beforeWrite: agentVersionBefore({
      deps: () => services.loadDeps(),
      enabled: () => services.settings.agentVersionsOnHackmd,
    }),
  });
  const device = new DeviceSettings({ app: plugin.app });
  const endpoint = new McpEndpointController({
    getCore: () => services.loadCore(),
    secrets,
    device,
    logger: services.logger,
    onActivity: (event, change) => activityLog.record(event, change),
    gate,
    version: VERSION,
  });
  plugin.register(() => gate.closeQuestions());
  plugin.register(() => void endpoint.stop());
  registerEndpointCommands({ plugin, endpoint, device, secrets, openActivityLog });
  plugin.app.workspace.onLayoutReady(() => void endpoint.startIfEnabled());
  const testConnection = async (): Promise<ConnectionTestResult> => {
    try {
      const me = await (await services.loadDeps()).client.me(services.newCall());
      return { ok: true, name: me.name, user_path: me.user_path, teams: (me.teams ?? []).map((team) => team.path) };
    } catch (error) {
      services.logger.debug("connection_test_failed", { kind: isBridgeError(error) ? error.kind : "unexpected" });
      return { ok: false, message: errorNoticeText(error) };
    }
  };
  plugin.addSettingTab(
    new HackmdBridgeSettingTab(plugin.app, plugin, {
      getSettings: () => services.settings,
      saveSettings: async (change) => {
        await options.saveSettings(change);
        activityLog.setCapacity(services.settings.activityLogSize);
      },
      secrets,
      device,
      endpoint,
      testConnection,
      autoSync: options.autoSync,
      ...(options.mirrors === undefined ? {} : { mirrors: options.mirrors }),
      activityLog,
      openActivityLog,
    }),
  );
  return { activityLog };
}
