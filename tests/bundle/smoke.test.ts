/**
 * Bundle smoke test: builds main.js as esbuild.config.mjs does (scripts/plugin-build.cjs: one
 * plain CommonJS file, minified, with its banner), checks that it reads as ordinary code (no
 * `new Function`, no `eval`, no base64), loads it with `require` against the fake `obsidian` module, and drives it:
 * commands, ribbon, settings tab and status bar are registered; a note is pulled and pushed through
 * the commands against the emulator; the MCP endpoint answers a tool call over real HTTP and its
 * port is free after unload. Then the mobile path: with `Platform.isDesktopApp` false and every
 * Node built-in throwing on require, the bundle still loads and the sync commands still work.
 */
import { TOOLS } from "../../src/mcp/tools";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import type { Plugin } from "esbuild";
import esbuild from "esbuild";
import { builtinModules } from "node:module";
import { bannerFor, pluginOptions } from "../../scripts/plugin-build.cjs";
import { forwardToFetch } from "../plugin/request-url-fetch";

/** Every name Node answers `require` with a built-in for. */
const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];
import type * as FakeObsidian from "../__mocks__/obsidian";
import { FILE_COMMANDS } from "../../src/commands";
import { DEMO_NOTE_IDS } from "../../src/emulator/seed/demo";
import { createEmulatorFree } from "../helpers/emulator";
import type { Emulator } from "../../src/emulator";
import { freePort, portIsFree } from "../helpers/ports";
import { VALID_ARGUMENTS } from "../helpers/tool-arguments";

type Fake = typeof FakeObsidian;
type FakePlugin = Omit<FakeObsidian.Plugin, "onload"> & { onload(): Promise<void> | void; ui: Record<string, unknown> };

/**
 * Modules whose evaluation the bundle reports: each pushes its name onto `globalThis.__hbEvaluated`
 * when its top-level code runs. None of them may run at load: the MCP stack, the tool schemas and
 * the merge engine wait for their first use behind a dynamic `import()`, which esbuild turns into
 * a module wrapper that runs at the import.
 */
const MARKED: ReadonlyArray<{ name: string; file: RegExp }> = [
  { name: "zod", file: /node_modules\/zod\/v4\/core\/core\.js$/ },
  // The SDK's v2 server: its protocol, both revisions' codecs and schemas live in this chunk.
  { name: "mcp-sdk", file: /node_modules\/@modelcontextprotocol\/server\/dist\/src-[^/]+\.mjs$/ },
  { name: "ajv", file: /node_modules\/ajv\/dist\/ajv\.js$/ },
  { name: "tool-registry", file: /src\/mcp\/tools\/index\.ts$/ },
  { name: "merge-engine", file: /src\/sync\/merge\.ts$/ },
];

/** What the marked modules reported so far in this test file's global. */
function evaluated(): string[] {
  return [...((globalThis as { __hbEvaluated?: string[] }).__hbEvaluated ?? [])].sort();
}

/** Appends the evaluation marker to the marked modules (the only difference from the real build). */
const markEvaluation: Plugin = {
  name: "mark-evaluation",
  setup(plugin) {
    plugin.onLoad({ filter: /\.(ts|m?js)$/ }, async (args) => {
      const marked = MARKED.find((entry) => entry.file.test(args.path.split("\\").join("/")));
      if (!marked) return undefined;
      const source = await readFile(args.path, "utf8");
      return {
        contents: `${source}\n;((globalThis).__hbEvaluated ??= []).push(${JSON.stringify(marked.name)});\n`,
        loader: args.path.endsWith(".ts") ? "ts" : "js",
      };
    });
  },
};

/** The plugin build of esbuild.config.mjs (production: minified, no source map), plus the markers when asked. */
async function buildPlugin(outfile: string, marked = true): Promise<void> {
  await esbuild.build({
    ...pluginOptions({ version: "0.0.0-smoke", outfile, plugins: marked ? [markEvaluation] : [] }),
    logLevel: "warning",
  });
}

async function waitFor(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Loads the bundle in a fresh module registry; `mobile` makes every Node built-in throw first. */
function loadBundle(
  bundle: string,
  mobile: boolean,
): { fake: Fake; Plugin: new (app: unknown, manifest: unknown) => FakePlugin; refused: string[] } {
  const refused: string[] = [];
  let loaded: { fake: Fake; Plugin: new (app: unknown, manifest: unknown) => FakePlugin } | undefined;
  jest.isolateModules(() => {
    // An earlier mobile load's traps are lifted first (jest.doMock outlives isolateModules).
    for (const name of nodeBuiltins) jest.dontMock(name);
    // The fake itself is loaded first (it may use Node), so the bundle gets this very instance.
    const fake = jest.requireActual<Fake>("../__mocks__/obsidian");
    jest.doMock("obsidian", () => fake);
    if (mobile) {
      fake.Platform.isDesktopApp = false;
      fake.Platform.isDesktop = false;
      fake.Platform.isMobile = true;
      fake.Platform.isMobileApp = true;
      for (const name of nodeBuiltins) {
        jest.doMock(name, () => {
          refused.push(name);
          throw new Error(`Cannot find module '${name}' (Obsidian mobile has no Node)`);
        });
      }
      // The trap is armed: the registry's module for a built-in throws (then start counting).
      expect(() => jest.requireMock("node:http")).toThrow(/mobile has no Node/);
      expect(() => jest.requireMock("crypto")).toThrow(/mobile has no Node/);
      refused.length = 0;
    }
    // requireActual loads the file itself; its own require calls still go through the mocks above.
    const exports = jest.requireActual<{ default: new (app: unknown, manifest: unknown) => FakePlugin }>(bundle);
    loaded = { fake, Plugin: exports.default };
  });
  if (!loaded) throw new Error("bundle not loaded");
  return { ...loaded, refused };
}

/** Starts the plugin from the bundle over a fresh fake app pointed at the emulator. */
async function startPlugin(
  loaded: ReturnType<typeof loadBundle>,
  emu: Emulator,
  device?: { mcpEnabled: boolean; mcpPort: number },
) {
  const { fake, Plugin } = loaded;
  forwardToFetch(fake.requestUrl);
  const app = new fake.App();
  app.secretStorage.setSecret("hackmd-bridge-api-token", emu.token);
  if (device) app.saveLocalStorage("hackmd-bridge-device", device);
  const plugin = new Plugin(app, { id: "hackmd-bridge", version: "0.0.0-smoke" });
  plugin.data = { version: 1, apiUrl: emu.url };
  await plugin.onload();
  expect(plugin.commands.length).toBeGreaterThan(20);
  const run = async (id: string): Promise<string> => {
    const command = plugin.commands.find((c) => c.id === id);
    if (!command) throw new Error(`no command ${id}`);
    const before = fake.Notice.shown.length;
    if (command.callback) command.callback();
    else if (command.checkCallback?.(false) === false) throw new Error(`command ${id} is not available`);
    await waitFor(() => fake.Notice.shown.length > before);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return fake.Notice.shown[fake.Notice.shown.length - 1] ?? "";
  };
  return { app, plugin, run };
}

/** Pulls the demo's weekly sync note by command, edits it, pushes it by command; returns the pulled path. */
async function pullEditPush(
  started: Awaited<ReturnType<typeof startPlugin>>,
  emu: Emulator,
  marker: string,
): Promise<string> {
  const { app, plugin, run } = started;
  plugin.ui.askNoteRef = () => Promise.resolve(DEMO_NOTE_IDS.weeklySync);
  const before = new Set(app.vault.adapter.entries.keys());
  await run("pull-note");
  const pulled = [...app.vault.adapter.entries.keys()].find(
    (path) => !before.has(path) && path.endsWith(".md") && !path.startsWith("."),
  );
  if (!pulled) throw new Error(`nothing was pulled; notices: ${JSON.stringify(started.plugin)}`);
  const text = await app.vault.adapter.read(pulled);
  expect(text).toContain("Weekly sync");
  const file = app.vault.getFileByPath(pulled);
  if (!file) throw new Error("pulled file not indexed");
  await app.vault.modify(file, `${text}\n${marker}\n`);
  app.workspace.openPath(pulled);
  await run("push-file");
  const remote = await fetch(`${emu.url}/notes/${DEMO_NOTE_IDS.weeklySync}`, {
    headers: { authorization: `Bearer ${emu.token}` },
  });
  expect(((await remote.json()) as { content: string }).content).toContain(marker);
  return pulled;
}

describe("bundle smoke test (main.js on the fake obsidian module)", () => {
  let dir: string;
  let bundle: string;
  let emu: Emulator;

  beforeAll(async () => {
    (globalThis as { window?: unknown }).window ??= globalThis;
    jest.spyOn(console, "debug").mockImplementation(() => undefined);
    dir = await mkdtemp(join(tmpdir(), "hb-bundle-"));
    bundle = join(dir, "main.js");
    await buildPlugin(bundle);
  });
  beforeEach(async () => {
    emu = await createEmulatorFree({ seed: "demo" });
  });
  afterEach(async () => {
    await emu.close();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("is one plain minified file under the banner: no new Function, no eval, no base64, no module loader of its own", async () => {
    // The shipped build, without the evaluation markers.
    const shipped = join(dir, "shipped.js");
    await buildPlugin(shipped, false);
    const text = await readFile(shipped, "utf8");
    // The build names no repository here, so the banner says where the source is without an address.
    expect(text.startsWith(bannerFor(""))).toBe(true);
    expect(bannerFor("https://github.com/owner/hackmd-bridge")).toContain("\nhttps://github.com/owner/hackmd-bridge\n");
    expect(text.slice(0, 400)).not.toMatch(/https?:\/\//);
    expect(text).not.toMatch(/new\s+Function\b/);
    expect(text).not.toMatch(/(?<![\w$.])eval\s*\(/);
    expect(text).not.toMatch(/[A-Za-z0-9+/]{200,}/);
    // Minified: long lines of code, not a readable layout, yet our own strings are there to read.
    expect(text.split("\n").length).toBeLessThan(200);
    for (const command of FILE_COMMANDS) expect(text).toContain(JSON.stringify(command.name));
    expect(text).toContain("hackmd_get_note");
  });

  it("bundles @codemirror/merge and takes CodeMirror's core from Obsidian, one instance", async () => {
    const text = await readFile(bundle, "utf8");
    const required = new Set(
      [...text.matchAll(/require\("(@codemirror\/[a-z]+|@lezer\/[a-z]+|style-mod)"\)/g)].map((match) => match[1]),
    );
    expect([...required].sort()).toEqual([
      "@codemirror/commands",
      "@codemirror/language",
      "@codemirror/state",
      "@codemirror/view",
      "@lezer/highlight",
    ]);
    // The merge view's own code is inside (its base theme's class names are there).
    expect(text).toContain("cm-deletedChunk");
    expect(text).toContain("cm-collapsedLines");
    // ajv is not inside (our ElicitationSchemaValidator replaces it), nor zod's other locales.
    expect(text).not.toContain("strictTuples");
    expect(text).not.toContain("Ongeldige invoer");
  });

  it("desktop: registers everything, pulls and pushes by command, serves MCP, and frees the port on unload", async () => {
    (globalThis as { __hbEvaluated?: string[] }).__hbEvaluated = [];
    const loaded = loadBundle(bundle, false);
    const port = await freePort();
    const started = await startPlugin(loaded, emu, { mcpEnabled: true, mcpPort: port });
    const { app, plugin } = started;

    expect(plugin.commands.map((c) => c.id)).toEqual(
      expect.arrayContaining(["pull-note", "pull-from-list", "sync-all", "push-file", "sync-file"]),
    );
    expect(plugin.commands.every((c) => c.hotkeys === undefined)).toBe(true);
    expect(plugin.ribbonIcons.length).toBeGreaterThan(0);
    expect(plugin.settingTabs).toHaveLength(1);
    const tab = plugin.settingTabs[0] as { display: unknown; getSettingDefinitions: () => Array<{ heading: string }> };
    expect(typeof tab.display).toBe("function");
    expect(tab.getSettingDefinitions().map((group) => group.heading)).toContain("HackMD account");
    expect(plugin.statusBarItems).toHaveLength(1);
    expect([...plugin.views.keys()]).toContain("hackmd-bridge-activity");

    await pullEditPush(started, emu, "Edited in the desktop smoke test.");

    // The device switch is on, so the endpoint starts once the layout is ready.
    await waitFor(
      () =>
        app.secretStorage.getSecret("hackmd-bridge-mcp-token") !== null &&
        !(app.secretStorage.getSecret("hackmd-bridge-mcp-token") === ""),
    );
    const token = app.secretStorage.getSecret("hackmd-bridge-mcp-token") ?? "";
    await waitFor(async () => !(await portIsFree(port)));
    const client = new Client({ name: "smoke", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    // The 14 tools of docs/tools.md and the 5 of docs/versions-and-comments.md.
    expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
    // The endpoint's start loaded the MCP side; the merge engine still waits for a merge.
    expect(evaluated()).toEqual(expect.arrayContaining(["mcp-sdk", "tool-registry", "zod"]));
    expect(evaluated()).not.toContain("merge-engine");
    const me = await client.callTool({ name: "hackmd_get_me", arguments: {} });
    expect(me.isError).toBeFalsy();
    expect(JSON.stringify(me.structuredContent)).toContain("user_path");
    const tracked = await client.callTool({ name: "hackmd_list_notes", arguments: { source: "tracked" } });
    expect(JSON.stringify(tracked.structuredContent)).toContain(DEMO_NOTE_IDS.weeklySync);
    // The built main.js answers a 2026-07-28 client on the same URL, without a session.
    const modern = new ModernClient(
      { name: "smoke-modern", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await modern.connect(
      new ModernHttp(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    expect((await modern.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
      Object.keys(VALID_ARGUMENTS).sort(),
    );
    const modernMe = await modern.callTool({ name: "hackmd_get_me", arguments: {} });
    expect(JSON.stringify(modernMe.structuredContent)).toContain("user_path");
    await modern.close();

    plugin.unload();
    await waitFor(() => portIsFree(port));
    expect(plugin.statusBarItems).toHaveLength(0);
    await client.close().catch(() => undefined);
  });

  it("desktop with the endpoint off: loading, onload, a pull and a push evaluate nothing of the MCP stack, the schemas or the merge engine", async () => {
    (globalThis as { __hbEvaluated?: string[] }).__hbEvaluated = [];
    const loaded = loadBundle(bundle, false);
    const started = await startPlugin(loaded, emu, { mcpEnabled: false, mcpPort: await freePort() });
    try {
      expect(evaluated()).toEqual([]);
      await pullEditPush(started, emu, "Edited with the endpoint off.");
      expect(evaluated()).toEqual([]);
    } finally {
      started.plugin.unload();
    }
  });

  it("mobile: loads with every Node built-in throwing, registers the sync commands, and pulls and pushes", async () => {
    (globalThis as { __hbEvaluated?: string[] }).__hbEvaluated = [];
    const loaded = loadBundle(bundle, true);
    const started = await startPlugin(loaded, emu, { mcpEnabled: true, mcpPort: await freePort() });
    const { plugin } = started;
    expect(evaluated()).toEqual([]);
    expect(plugin.commands.map((c) => c.id)).toEqual(
      expect.arrayContaining(["pull-note", "pull-from-list", "sync-all", "push-file", "sync-file"]),
    );
    expect(plugin.settingTabs).toHaveLength(1);
    await pullEditPush(started, emu, "Edited in the mobile smoke test.");
    // The (synced) device switch is ignored quietly on mobile, and nothing asked for Node.
    expect(loaded.fake.Notice.shown.join("\n")).not.toContain("only in Obsidian on desktop");
    expect(started.app.secretStorage.getSecret("hackmd-bridge-mcp-token")).toBeNull();
    expect(loaded.refused).toEqual([]);
    plugin.unload();
  });
});
