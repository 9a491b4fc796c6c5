/**
 * Plugin test harness: the real plugin (src/main.ts) on the fake `obsidian` module, with
 * `requestUrl` forwarded to Node's fetch so every request reaches a real HackMD emulator on
 * loopback, and a scripted PluginUi (answers instead of modals).
 */
import { App, Notice, Plugin, requestUrl } from "../__mocks__/obsidian";
import { createEmulatorFree } from "../helpers/emulator";
import type { Emulator, EmulatorOptions } from "../../src/emulator";
import HackmdBridgePlugin from "../../src/main";
import { HACKMD_TOKEN_SECRET_ID } from "../../src/obsidian/secrets";
import { forwardToFetch } from "./request-url-fetch";

/** Programs the fake requestUrl to send every request with Node's fetch (as requestUrl would). */
export function forwardRequestUrlToFetch(): void {
  forwardToFetch(requestUrl);
}

/** Makes `window` the Node global, which has the timers the plugin uses. */
export function provideWindow(): void {
  (globalThis as { window?: unknown }).window ??= globalThis;
}

/** A running plugin against an emulator. */
export interface PluginHarness {
  emu: Emulator;
  app: App;
  plugin: HackmdBridgePlugin;
  /** The fake's view of the plugin (recorded commands, ribbon icons, status bar, data.json). */
  fake: Plugin;
  /** Number of requests the emulator has logged so far. */
  requestCount(): number;
  /** Runs a command by id (checkCallback for file commands) and waits for the next notice. */
  run(id: string): Promise<string>;
  /** Writes a vault file (creating its folder). */
  write(path: string, text: string): Promise<void>;
  /** Reads a vault file. */
  read(path: string): Promise<string>;
  close(): Promise<void>;
}

/** Waits until `check` holds (polling), failing after `ms`. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Starts an emulator (demo seed) and the plugin pointed at it with its token in secret storage. */
export async function startPlugin(
  options: {
    data?: Record<string, unknown>;
    emulator?: EmulatorOptions;
    /** Runs on the app before onload (device switches, secrets, the plugin's tunings). */
    beforeLoad?: (app: App, plugin: HackmdBridgePlugin) => void;
  } = {},
): Promise<PluginHarness> {
  provideWindow();
  forwardRequestUrlToFetch();
  // The plugin logs to the debug console only; keep test output clean.
  jest.spyOn(console, "debug").mockImplementation(() => undefined);
  const emu = await createEmulatorFree({ seed: "demo", ...options.emulator });
  const app = new App();
  app.secretStorage.setSecret(HACKMD_TOKEN_SECRET_ID, emu.token);
  const plugin = new HackmdBridgePlugin(app as never, { id: "hackmd-bridge" } as never);
  const fake = plugin as unknown as Plugin;
  fake.data = { version: 1, apiUrl: emu.url, ...options.data };
  options.beforeLoad?.(app, plugin);
  await plugin.onload();
  const run = async (id: string): Promise<string> => {
    const command = fake.commands.find((c) => c.id === id);
    if (!command) throw new Error(`no command ${id}`);
    const before = Notice.shown.length;
    if (command.callback) command.callback();
    else if (command.checkCallback?.(false) === false) throw new Error(`command ${id} is not available`);
    await waitFor(() => Notice.shown.length > before);
    // Progress notices come first; the last notice is the outcome.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return Notice.shown[Notice.shown.length - 1] ?? "";
  };
  return {
    emu,
    app,
    plugin,
    fake,
    requestCount: () => emu.requests().length,
    run,
    write: async (path, text) => {
      const folder = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
      if (folder !== "" && !app.vault.getFolderByPath(folder)) await app.vault.createFolder(folder);
      const file = app.vault.getFileByPath(path);
      if (file) await app.vault.modify(file, text);
      else await app.vault.create(path, text);
    },
    read: (path) => app.vault.adapter.read(path),
    close: async () => {
      fake.unload();
      await emu.close();
    },
  };
}
