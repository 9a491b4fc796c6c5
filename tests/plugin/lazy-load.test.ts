/**
 * The sync engine (core deps) is not built during onload: the first use builds it, once (its
 * modules are evaluated then, src/obsidian/plugin-services.ts `loadDeps`). Real plugin over the
 * emulator.
 */
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { startPlugin, type PluginHarness } from "./helpers";

let h: PluginHarness;

afterEach(async () => {
  await h.close();
});

it("onload leaves the core deps unloaded; the first use loads them once, and nothing is requested", async () => {
  h = await startPlugin();
  const services = h.plugin.services;
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(services.loadedDeps).toBeUndefined();
  expect(() => services.deps).toThrow(/not loaded yet/);
  const [deps, again] = await Promise.all([services.loadDeps(), services.loadDeps()]);
  expect(again).toBe(deps);
  expect(services.loadedDeps).toBe(deps);
  expect(services.deps).toBe(deps);
  expect(await services.loadDeps()).toBe(deps);
  // Loading the engine made no request (the fake vault is not scanned either: nothing is tracked).
  expect(h.requestCount()).toBe(0);
});

it("a command run right after onload loads the engine and works", async () => {
  h = await startPlugin({ data: { defaultPullFolder: "HackMD" } });
  expect(h.plugin.services.loadedDeps).toBeUndefined();
  h.plugin.ui.askNoteRef = () => Promise.resolve(DEMO_NOTE_IDS.weeklySync);
  const notice = await h.run("pull-note");
  expect(h.plugin.services.loadedDeps).toBeDefined();
  expect(notice).toContain("HackMD/Weekly sync — Project Aurora.md");
  expect(await h.app.vault.adapter.exists("HackMD/Weekly sync — Project Aurora.md")).toBe(true);
});
