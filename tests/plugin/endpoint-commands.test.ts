/** The MCP endpoint's commands over the real controller and loopback listener. */
import { App, Notice, Platform, Plugin } from "../__mocks__/obsidian";
import { silentLogger } from "../../src/core/ports";
import type { ClientConfig } from "../../src/mcp/client-configs";
import { DeviceSettings } from "../../src/obsidian/device-settings";
import { registerEndpointCommands } from "../../src/obsidian/endpoint-commands";
import { McpEndpointController } from "../../src/obsidian/mcp-endpoint";
import { PluginSecrets } from "../../src/obsidian/secrets";
import { startBridge, type TestBridge } from "../helpers/bridge";
import { freePort } from "../helpers/ports";

describe("endpoint commands", () => {
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  async function setup(answers: { confirm: boolean; pick?: string }) {
    Platform.isDesktopApp = true;
    Notice.shown.length = 0;
    const app = new App();
    const plugin = new Plugin(app, { id: "hackmd-bridge" });
    const secrets = new PluginSecrets({ app });
    secrets.hackmdToken.set(bridge.emu.token);
    const device = new DeviceSettings({ app });
    device.setMcpPort(await freePort());
    const endpoint = new McpEndpointController({
      getCore: () => bridge.core,
      secrets,
      device,
      logger: silentLogger,
      onActivity: () => undefined,
    });
    const asked: string[] = [];
    const copied: string[] = [];
    let opened = 0;
    registerEndpointCommands({
      plugin: plugin as never,
      endpoint,
      device,
      secrets,
      openActivityLog: () => {
        opened += 1;
        return Promise.resolve();
      },
      ask: () => {
        asked.push("confirm");
        return Promise.resolve(answers.confirm);
      },
      pick: (_app, configs: ClientConfig[]) => Promise.resolve(configs.find((config) => config.id === answers.pick)),
      copy: (text) => {
        copied.push(text);
        return Promise.resolve();
      },
    });
    const run = async (id: string): Promise<void> => {
      const command = plugin.commands.find((entry) => entry.id === id);
      if (!command?.callback) throw new Error(`no command ${id}`);
      await command.callback();
    };
    return { plugin, endpoint, device, secrets, asked, copied, opened: () => opened, run };
  }

  it("registers three commands with stable ids and no hotkeys", async () => {
    const { plugin, endpoint } = await setup({ confirm: false });
    expect(plugin.commands.map((command) => command.id)).toEqual([
      "toggle-mcp-endpoint",
      "copy-mcp-client-config",
      "open-mcp-activity-log",
    ]);
    expect(plugin.commands.every((command) => command.hotkeys === undefined)).toBe(true);
    await endpoint.stop();
  });

  it("asks before turning the endpoint on, and does nothing when the user declines", async () => {
    const { endpoint, device, asked, run } = await setup({ confirm: false });
    await run("toggle-mcp-endpoint");
    expect(asked).toEqual(["confirm"]);
    expect(device.get().mcpEnabled).toBe(false);
    expect(endpoint.status.state).toBe("stopped");
  });

  it("starts after confirmation, copies a client configuration with the live URL and token, and stops again", async () => {
    const { endpoint, device, secrets, copied, run, opened } = await setup({ confirm: true, pick: "claude-code" });
    await run("copy-mcp-client-config");
    expect(copied).toEqual([]);
    expect(Notice.shown.at(-1)).toMatch(/Start the MCP endpoint first/);

    await run("toggle-mcp-endpoint");
    expect(device.get().mcpEnabled).toBe(true);
    expect(endpoint.status.state).toBe("listening");
    const url = endpoint.status.state === "listening" ? endpoint.status.url : "";
    await run("copy-mcp-client-config");
    expect(copied).toHaveLength(1);
    expect(copied[0]).toContain(url);
    expect(copied[0]).toContain(secrets.endpointToken.getToken());
    expect(Notice.shown.join("\n")).not.toContain(secrets.endpointToken.getToken());

    await run("open-mcp-activity-log");
    expect(opened()).toBe(1);

    await run("toggle-mcp-endpoint");
    expect(device.get().mcpEnabled).toBe(false);
    expect(endpoint.status.state).toBe("stopped");
  });
});
