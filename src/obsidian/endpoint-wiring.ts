/**
 * Wires the settings tab, the MCP endpoint component and the activity log onto the plugin (their
 * modules belong to the settings/endpoint work; this adapts PluginServices to what they need).
 * Nothing here makes a request or starts a listener during onload: the endpoint starts, when the
 * device switch is on, once the workspace layout is ready.
 */
import { VERSION } from "../core/version";
import type { Plugin } from "obsidian";
import { isBridgeError } from "../core/errors";
import type { Settings } from "../settings/schema";
import { registerActivityView } from "../ui/activity-view";
import { HackmdBridgeSettingTab, type ConnectionTestResult } from "../ui/settings-tab";
import { ActivityLog } from "./activity-log";
import { DeviceSettings } from "./device-settings";
import { registerEndpointCommands } from "./endpoint-commands";
import { McpEndpointController } from "./mcp-endpoint";
import { errorNoticeText } from "./notices";
import type { PluginServices } from "./plugin-services";
import type { PluginSecrets } from "./secrets";

/** What the wiring needs from the plugin. */
export interface EndpointWiringOptions {
  plugin: Plugin;
  services: PluginServices;
  secrets: PluginSecrets;
  /** Merges, saves and applies a settings change. */
  saveSettings: (change: Partial<Settings>) => Promise<void>;
}

/** Registers the settings tab, the activity view and the endpoint (stopped on unload). */
export function wireSettingsAndEndpoint(options: EndpointWiringOptions): { activityLog: ActivityLog } {
  const { plugin, services, secrets } = options;
  const activityLog = new ActivityLog({ capacity: services.settings.activityLogSize });
  const openActivityLog = registerActivityView(plugin, activityLog, async (noteId) => {
    // The tracked file is the name the user knows the note by (no request is made).
    const tracked = (await services.deps.sync.listTracked()).find((entry) => entry.note_id === noteId);
    return tracked === undefined ? undefined : tracked.local_path;
  });
  const device = new DeviceSettings({ app: plugin.app });
  const endpoint = new McpEndpointController({
    getCore: () => services.loadCore(),
    secrets,
    device,
    logger: services.logger,
    onActivity: (event) => activityLog.record(event),
    version: VERSION,
  });
  plugin.register(() => void endpoint.stop());
  registerEndpointCommands({ plugin, endpoint, device, secrets, openActivityLog });
  plugin.app.workspace.onLayoutReady(() => void endpoint.startIfEnabled());
  const testConnection = async (): Promise<ConnectionTestResult> => {
    try {
      const me = await services.deps.client.me(services.newCall());
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
      activityLog,
      openActivityLog,
    }),
  );
  return { activityLog };
}
