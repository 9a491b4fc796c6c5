/** Device-local switches in the fake app's vault local storage. */
// The same module instance jest maps "obsidian" to (lint keeps tests from importing "obsidian").
import { App } from "../__mocks__/obsidian";
import { DEFAULT_DEVICE_SETTINGS, DEVICE_SETTINGS_KEY, DeviceSettings } from "../../src/obsidian/device-settings";

describe("DeviceSettings", () => {
  it("keeps the MCP switch and port in vault local storage, with defaults and validation", () => {
    const app = new App();
    const device = new DeviceSettings({ app });
    expect(device.get()).toEqual({ mcpEnabled: false, mcpPort: 27183 });
    device.setMcpEnabled(true);
    device.setMcpPort(28000);
    expect(app.loadLocalStorage(DEVICE_SETTINGS_KEY)).toEqual({ mcpEnabled: true, mcpPort: 28000 });
    expect(new DeviceSettings({ app }).get()).toEqual({ mcpEnabled: true, mcpPort: 28000 });
    for (const bad of [80, 70000, 1.5, Number.NaN])
      expect(() => device.setMcpPort(bad)).toThrow(expect.objectContaining({ kind: "invalid_input" }));
    app.saveLocalStorage(DEVICE_SETTINGS_KEY, { mcpEnabled: "yes", mcpPort: "28000" });
    expect(device.get()).toEqual(DEFAULT_DEVICE_SETTINGS);
    app.saveLocalStorage(DEVICE_SETTINGS_KEY, "garbage");
    expect(device.get()).toEqual(DEFAULT_DEVICE_SETTINGS);
    device.setMcpEnabled(true);
    device.reset();
    expect(app.loadLocalStorage(DEVICE_SETTINGS_KEY)).toBeNull();
  });
});
