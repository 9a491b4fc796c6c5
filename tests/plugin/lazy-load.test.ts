/**
 * Issue 13: the sync engine (core deps) and the use-cases are not loaded during onload. The core
 * deps load on an idle timer after layout ready (at once in the fake) or at the first use, once;
 * a command run before that loads them itself. Real plugin over the emulator.
 */
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { startPlugin, type PluginHarness } from "./helpers";

let h: PluginHarness;

afterEach(async () => {
  await h.close();
});

it("onload leaves the core deps unloaded; the idle timer loads them once, and nothing is requested", async () => {
  h = await startPlugin();
  const services = h.plugin.services;
  expect(services.loadedDeps).toBeUndefined();
  expect(() => services.deps).toThrow(/not loaded yet/);
  // The idle timer (after layout ready, which the fake reports at once) loads them.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const deps = services.loadedDeps;
  expect(deps).toBeDefined();
  expect(services.deps).toBe(deps);
  expect(await services.loadDeps()).toBe(deps);
  // Loading the engine made no request (the fake vault is not scanned either: nothing is tracked).
  expect(h.requestCount()).toBe(0);
});

it("a command run right after onload, before the idle timer, loads the use-cases and the engine and works", async () => {
  h = await startPlugin({ data: { defaultPullFolder: "HackMD" } });
  expect(h.plugin.services.loadedDeps).toBeUndefined();
  h.plugin.ui.askNoteRef = () => Promise.resolve(DEMO_NOTE_IDS.weeklySync);
  const notice = await h.run("pull-note");
  expect(h.plugin.services.loadedDeps).toBeDefined();
  expect(notice).toBe("Pulled “Weekly sync — Project Aurora” to HackMD/Weekly sync — Project Aurora.md.");
  expect(await h.app.vault.adapter.exists("HackMD/Weekly sync — Project Aurora.md")).toBe(true);
});
