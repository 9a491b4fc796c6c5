/** Load and unload: settings migration, no network on load, everything registered is removed. */
import { App, Notice, Plugin } from "../__mocks__/obsidian";
import { BridgeError, ERROR_KINDS } from "../../src/core/errors";
import HackmdBridgePlugin from "../../src/main";
import { ERROR_NOTICES, errorNoticeText } from "../../src/obsidian/notices";
import { HACKMD_TOKEN_SECRET_ID } from "../../src/obsidian/secrets";
import { SETTINGS_VERSION } from "../../src/settings/schema";
import { forwardRequestUrlToFetch, provideWindow } from "./helpers";
import { requestUrl } from "../__mocks__/obsidian";

function newPlugin(app: App): { plugin: HackmdBridgePlugin; fake: Plugin } {
  const plugin = new HackmdBridgePlugin(app as never, { id: "hackmd-bridge" } as never);
  return { plugin, fake: plugin as unknown as Plugin };
}

beforeAll(() => {
  provideWindow();
  jest.spyOn(console, "debug").mockImplementation(() => undefined);
});

describe("plugin lifecycle", () => {
  it("migrates old settings on load, moves a legacy token to secret storage and makes no request", async () => {
    forwardRequestUrlToFetch();
    requestUrl.mockClear();
    const app = new App();
    const { plugin, fake } = newPlugin(app);
    fake.data = { token: "legacy-token", pullFolder: "Inbox", readPermission: "signed_in", autoCheckInterval: 0 };
    await plugin.onload();
    expect(plugin.settings).toMatchObject({
      version: SETTINGS_VERSION,
      defaultPullFolder: "Inbox",
      defaultReadPermission: "signed_in",
    });
    expect(fake.data).toEqual(plugin.settings);
    expect(JSON.stringify(fake.data)).not.toContain("legacy-token");
    expect(app.secretStorage.getSecret(HACKMD_TOKEN_SECRET_ID)).toBe("legacy-token");
    expect(requestUrl).not.toHaveBeenCalled();
    fake.unload();
  });

  it("removes its events and intervals on unload", async () => {
    const app = new App();
    const { plugin, fake } = newPlugin(app);
    fake.data = { version: 1, backgroundCheckMinutes: 5 };
    const setSpy = jest.spyOn(globalThis, "setInterval");
    const clearSpy = jest.spyOn(globalThis, "clearInterval");
    await plugin.onload();
    expect(app.vault.listenerCount("rename")).toBe(1);
    // Automatic sync's edit watch (idle while the setting is off) and the status bar's refresh.
    expect(app.vault.listenerCount("modify")).toBe(2);
    expect(app.workspace.listenerCount("editor-change")).toBe(1);
    expect(app.workspace.listenerCount("file-open")).toBe(1);
    expect(app.workspace.listenerCount("file-menu")).toBe(1);
    const intervalIds = setSpy.mock.results.map((r) => r.value as unknown);
    expect(intervalIds).toHaveLength(1);
    expect(fake.statusBarItems).toHaveLength(1);

    fake.unload();
    expect(app.vault.listenerCount("rename")).toBe(0);
    expect(app.vault.listenerCount("modify")).toBe(0);
    expect(app.workspace.listenerCount("editor-change")).toBe(0);
    expect(app.vault.listenerCount("delete")).toBe(0);
    expect(app.workspace.listenerCount("file-open")).toBe(0);
    expect(app.workspace.listenerCount("file-menu")).toBe(0);
    expect(clearSpy.mock.calls.map((c) => c[0] as unknown)).toContain(intervalIds[0]);
    expect(fake.statusBarItems).toHaveLength(0);
    setSpy.mockRestore();
    clearSpy.mockRestore();
  });

  it("restarts the background check when its setting changes, and stops it when turned off", async () => {
    const app = new App();
    const { plugin, fake } = newPlugin(app);
    const setSpy = jest.spyOn(globalThis, "setInterval");
    const clearSpy = jest.spyOn(globalThis, "clearInterval");
    await plugin.onload();
    expect(setSpy).not.toHaveBeenCalled();
    await plugin.saveSettings({ backgroundCheckMinutes: 15 });
    expect(setSpy).toHaveBeenCalledTimes(1);
    expect(setSpy.mock.calls[0]?.[1]).toBe(15 * 60_000);
    await plugin.saveSettings({ backgroundCheckMinutes: 0 });
    expect(clearSpy).toHaveBeenCalledWith(setSpy.mock.results[0]?.value);
    fake.unload();
    setSpy.mockRestore();
    clearSpy.mockRestore();
  });
});

describe("notices", () => {
  it("has a short, sentence-case notice for every error kind", () => {
    for (const kind of ERROR_KINDS) {
      const text = ERROR_NOTICES[kind];
      expect(text.length).toBeLessThan(140);
      expect(text[0]).toBe(text[0]?.toUpperCase());
      expect(text).toMatch(/\.$/);
      expect(text).not.toMatch(/hackmd_|overwrite_local|_input/);
    }
  });

  it("names the fix for auth and readback, adapts to the operation and hides unexpected errors", () => {
    // The fix is named: where the token is set, what to check before trying again.
    expect(errorNoticeText(new BridgeError("auth", "x"))).toMatch(/settings/);
    const pushed = errorNoticeText(new BridgeError("readback", "x"), "push");
    const published = errorNoticeText(new BridgeError("readback", "x"), "publish");
    expect(pushed).not.toBe(published);
    const unexpected = errorNoticeText(new Error("boom at /secret/path"));
    expect(unexpected).not.toMatch(/boom|secret/);
    expect(unexpected).toMatch(/developer console/);
    expect(Notice.shown.every((text) => !text.includes("boom"))).toBe(true);
    // The words, one snapshot: every error kind's notice and the per-operation variants.
    expect({
      ...ERROR_NOTICES,
      "readback, push": pushed,
      "readback, publish": published,
      unexpected,
    }).toMatchSnapshot();
  });
});
