/**
 * A built `main.js` in the fake Obsidian host (tests/__mocks__/obsidian.ts), as
 * tests/bundle/smoke.test.ts loads it: the bundle is required with the fake as its `obsidian`
 * module, the plugin is constructed over a fake app whose token is in secret storage, `onload`
 * runs, and the commands are run as a user clicks them. Requests go out through the fake
 * `requestUrl`, forwarded to Node's fetch (real HTTP to the emulator).
 */
import { DEMO_NOTE_IDS } from "../../src/emulator/seed/demo";
import type * as FakeObsidian from "../__mocks__/obsidian";
import { forwardToFetch } from "../plugin/request-url-fetch";

type Fake = typeof FakeObsidian;
type FakePlugin = Omit<FakeObsidian.Plugin, "onload"> & { onload(): Promise<void> | void; ui: Record<string, unknown> };

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const until = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > until) throw new Error(`waited in vain for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface LoadedPlugin {
  /** Pulls a demo note by command, appends `marker` to the file, pushes it by command; the file's path. */
  pullEditPush(note: keyof typeof DEMO_NOTE_IDS, marker: string): Promise<string>;
  noteId(note: keyof typeof DEMO_NOTE_IDS): string;
  /** The MCP endpoint's token once it has started (only when loaded with `mcpPort`). */
  endpointToken(): Promise<string>;
  unload(): void;
}

/** Loads `mainJs` (a built bundle) and runs its `onload` against the API at `apiUrl`. */
export async function loadPlugin(
  mainJs: string,
  options: {
    apiUrl: string;
    token: string;
    manifest: { id: string; version: string };
    /** Turns the device's MCP endpoint switch on, on this port (it starts once the layout is ready). */
    mcpPort?: number;
    /** More settings for data.json (e.g. the agents' tool policies). */
    settings?: Record<string, unknown>;
  },
): Promise<LoadedPlugin> {
  (globalThis as { window?: unknown }).window ??= globalThis;
  // The plugin's debug log (console.debug in the fake host) is not what this suite checks.
  jest.spyOn(console, "debug").mockImplementation(() => undefined);
  let loaded: { fake: Fake; Plugin: new (app: unknown, manifest: unknown) => FakePlugin } | undefined;
  jest.isolateModules(() => {
    const fake = jest.requireActual<Fake>("../__mocks__/obsidian");
    jest.doMock("obsidian", () => fake);
    const exports = jest.requireActual<{ default: new (app: unknown, manifest: unknown) => FakePlugin }>(mainJs);
    loaded = { fake, Plugin: exports.default };
  });
  if (loaded === undefined) throw new Error("main.js did not load");
  const { fake, Plugin } = loaded;
  forwardToFetch(fake.requestUrl);
  const app = new fake.App();
  app.secretStorage.setSecret("hackmd-bridge-api-token", options.token);
  if (options.mcpPort !== undefined)
    app.saveLocalStorage("hackmd-bridge-device", { mcpEnabled: true, mcpPort: options.mcpPort });
  const plugin = new Plugin(app, options.manifest);
  plugin.data = { version: 1, apiUrl: options.apiUrl, ...options.settings };
  await plugin.onload();

  const run = async (id: string): Promise<string> => {
    const command = plugin.commands.find((entry) => entry.id === id);
    if (command === undefined) throw new Error(`main.js registered no command ${id}`);
    const before = fake.Notice.shown.length;
    if (command.callback) command.callback();
    else if (command.checkCallback?.(false) === false) throw new Error(`command ${id} is not available`);
    await waitFor(() => fake.Notice.shown.length > before, `a notice from ${id}`);
    return fake.Notice.shown[fake.Notice.shown.length - 1] ?? "";
  };

  return {
    noteId: (note) => DEMO_NOTE_IDS[note],
    unload: () => plugin.unload(),
    async endpointToken() {
      const token = (): string => app.secretStorage.getSecret("hackmd-bridge-mcp-token") ?? "";
      await waitFor(() => token() !== "", "the endpoint's token");
      return token();
    },
    async pullEditPush(note, marker) {
      plugin.ui.askNoteRef = () => Promise.resolve(DEMO_NOTE_IDS[note]);
      const before = new Set(app.vault.adapter.entries.keys());
      await run("pull-note");
      const pulled = [...app.vault.adapter.entries.keys()].find(
        (path) => !before.has(path) && path.endsWith(".md") && !path.startsWith("."),
      );
      if (pulled === undefined) throw new Error(`nothing was pulled; notices: ${fake.Notice.shown.join(" | ")}`);
      const file = app.vault.getFileByPath(pulled);
      if (file === null) throw new Error("the pulled file is not in the vault's index");
      await app.vault.modify(file, `${await app.vault.adapter.read(pulled)}\n${marker}\n`);
      app.workspace.openPath(pulled);
      const shown = await run("push-file");
      if (!/push/i.test(shown)) throw new Error(`push said: ${shown}`);
      return pulled;
    },
  };
}
