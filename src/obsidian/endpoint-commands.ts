/**
 * The MCP endpoint's commands: start or stop it (turning it on asks the same confirmation as the
 * settings tab), copy a client configuration, and open the activity log. Desktop only in effect:
 * on mobile the controller refuses to start and says why.
 */
import { FuzzySuggestModal, type App, type Plugin } from "obsidian";
import { WIRED_COMMANDS } from "../commands";
import { clientConfigs, type ClientConfig } from "../mcp/client-configs";
import { confirm } from "../ui/confirm-modal";
import { ENABLE_ENDPOINT_CONFIRMATION, ENDPOINT_SAFEGUARDS } from "../ui/settings-tab";
import type { DeviceSettings } from "./device-settings";
import { describeEndpointStatus, type McpEndpointController } from "./mcp-endpoint";
import { showInfo } from "./notices";
import type { PluginSecrets } from "./secrets";

/** What the endpoint commands act on. */
export interface EndpointCommandOptions {
  plugin: Plugin;
  endpoint: McpEndpointController;
  device: DeviceSettings;
  secrets: PluginSecrets;
  openActivityLog: () => Promise<void>;
  /** Seams for tests: the confirmation, the client picker and the clipboard. */
  ask?: (app: App) => Promise<boolean>;
  pick?: (app: App, configs: ClientConfig[]) => Promise<ClientConfig | undefined>;
  copy?: (text: string) => Promise<void>;
}

/** Registers the endpoint commands (stable ids, no hotkeys). */
export function registerEndpointCommands(options: EndpointCommandOptions): void {
  const { plugin, endpoint, device } = options;
  const ask =
    options.ask ??
    ((app: App) =>
      confirm(app, {
        ...ENABLE_ENDPOINT_CONFIRMATION,
        paragraphs: [...ENABLE_ENDPOINT_CONFIRMATION.paragraphs, ENDPOINT_SAFEGUARDS],
      }));
  const pick = options.pick ?? pickClient;
  const copy = options.copy ?? ((text: string) => navigator.clipboard.writeText(text));

  plugin.addCommand({
    ...WIRED_COMMANDS.toggleMcpEndpoint,
    callback: async () => {
      const state = endpoint.status.state;
      if (state === "listening" || state === "starting") {
        device.setMcpEnabled(false);
        await endpoint.stop();
        showInfo("MCP endpoint stopped.");
        return;
      }
      if (!device.get().mcpEnabled && !(await ask(plugin.app))) return;
      device.setMcpEnabled(true);
      showInfo(`MCP endpoint: ${describeEndpointStatus(await endpoint.start())}`);
    },
  });

  plugin.addCommand({
    ...WIRED_COMMANDS.copyMcpClientConfig,
    callback: async () => {
      const status = endpoint.status;
      const token = options.secrets.endpointToken.getToken();
      if (status.state !== "listening" || token === undefined) {
        showInfo("Start the MCP endpoint first; the configuration names its address and token.");
        return;
      }
      const chosen = await pick(plugin.app, clientConfigs(status.url, token));
      if (!chosen) return;
      await copy(chosen.text);
      showInfo(`Copied the ${chosen.label} configuration. It contains the endpoint token: keep it private.`);
    },
  });

  plugin.addCommand({ ...WIRED_COMMANDS.openMcpActivityLog, callback: () => void options.openActivityLog() });
}

/** Lets the user pick one client's configuration. */
function pickClient(app: App, configs: ClientConfig[]): Promise<ClientConfig | undefined> {
  return new Promise((resolve) => {
    let chosen: ClientConfig | undefined;
    const modal = new (class extends FuzzySuggestModal<ClientConfig> {
      getItems(): ClientConfig[] {
        return configs;
      }
      getItemText(item: ClientConfig): string {
        return item.label;
      }
      onChooseItem(item: ClientConfig): void {
        chosen = item;
      }
      override onClose(): void {
        // onChooseItem runs before onClose; resolve after the current turn so a choice is seen.
        window.setTimeout(() => resolve(chosen), 0);
      }
    })(app);
    modal.setPlaceholder("Which client to configure?");
    modal.open();
  });
}
