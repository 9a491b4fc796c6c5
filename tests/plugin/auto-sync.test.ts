/**
 * Automatic sync in the plugin (docs/auto-sync.md): the real plugin on the fake `obsidian` module against
 * the emulator on loopback. The timings are shortened through `autoSyncTuning` (the plugin's only
 * test seam for them); the budget is "unlimited" where the month's pace (which depends on today's
 * date) would otherwise decide whether a push goes out on its own.
 */
import { Notice, Plugin } from "../__mocks__/obsidian";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import HackmdBridgePlugin from "../../src/main";
import { BUDGET_STORAGE_KEY, conflictNotice } from "../../src/obsidian/auto-sync";
import { statusBarText } from "../../src/ui/status-bar";
import { Outbox } from "../../src/sync/auto/outbox";
import type { AutoSyncTuning } from "../../src/obsidian/auto-sync";
import { startPlugin, waitFor, type PluginHarness } from "./helpers";

const NOTE = DEMO_NOTE_IDS.weeklySync;
const OTHER = DEMO_NOTE_IDS.spec;
const PATH = "HackMD/Weekly sync — Project Aurora.md";

/** Short timings: pushes 300 ms after the last change, the start-up round 50 ms after the layout. */
const FAST: Partial<AutoSyncTuning> = {
  debounceMs: 300,
  startupDelayMs: 50,
  resumeAfterHiddenMs: 0,
  firstRoundWithoutStartupMs: 60_000,
};

let h: PluginHarness;
/** Plugins loaded again by a test (a reload), unloaded after it. */
const reloaded: Plugin[] = [];

afterEach(async () => {
  for (const plugin of reloaded.splice(0)) plugin.unload();
  await h.close();
});

/** Loads the plugin again on the same app (a restart of Obsidian, or a plugin reload). */
async function reload(tuning: Partial<AutoSyncTuning> = FAST): Promise<HackmdBridgePlugin> {
  const again = new HackmdBridgePlugin(h.app as never, { id: "hackmd-bridge" } as never);
  again.autoSyncTuning = tuning;
  const fake = again as unknown as Plugin;
  fake.data = h.fake.data;
  reloaded.push(fake);
  await again.onload();
  return again;
}

function remote(id: string = NOTE): string | undefined {
  return h.emu.inspect().notes.find((note) => note.id === id)?.content;
}

/** Starts the plugin with automatic sync on (unless `data` says otherwise) and the short timings. */
async function start(
  data: Record<string, unknown> = {},
  tuning: Partial<AutoSyncTuning> = FAST,
): Promise<PluginHarness> {
  const harness = await startPlugin({
    data: { defaultPullFolder: "HackMD", autoSync: true, autoSyncBudget: "unlimited", ...data },
    beforeLoad: (_app, plugin) => {
      plugin.autoSyncTuning = tuning;
    },
  });
  await harness.plugin.autoSync.idle();
  return harness;
}

/** Pulls a demo note through the command, as the user would. */
async function pull(harness: PluginHarness, id: string): Promise<string> {
  harness.plugin.ui.askNoteRef = () => Promise.resolve(id);
  const notice = await harness.run("pull-note");
  expect(notice).toMatch(/^Pulled /);
  return notice;
}

/** Waits until no step of automatic sync is in progress. */
async function settle(harness: PluginHarness): Promise<void> {
  await waitFor(async () => {
    await harness.plugin.autoSync.idle();
    return !harness.plugin.autoSync.busy;
  }, 20_000);
}

/** The plugin's status-bar item. */
function statusItem(fake: Plugin) {
  const item = fake.statusBarItems[0];
  if (item === undefined) throw new Error("no status bar item");
  return item;
}

describe("automatic sync in the plugin", () => {
  it("is off by default: no runner, no timer and no request at load", async () => {
    h = await startPlugin({
      data: { defaultPullFolder: "HackMD" },
      beforeLoad: (_app, plugin) => void (plugin.autoSyncTuning = FAST),
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.plugin.autoSync.running).toBe(false);
    expect(h.plugin.autoSync.scheduled).toBe(false);
    expect(h.requestCount()).toBe(0);
    // Tracked edits are not pushed either.
    await pull(h, NOTE);
    const before = h.requestCount();
    await h.write(PATH, `${await h.read(PATH)}- local line\n`);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(h.requestCount()).toBe(before);
  });

  it("makes no request at load when on, only at the first scheduled step", async () => {
    h = await startPlugin({
      data: { autoSync: true, autoSyncBudget: "unlimited" },
      beforeLoad: (_app, plugin) => void (plugin.autoSyncTuning = { ...FAST, startupDelayMs: 400 }),
    });
    expect(h.requestCount()).toBe(0);
    await h.plugin.autoSync.idle();
    expect(h.plugin.autoSync.running).toBe(true);
    expect(h.plugin.autoSync.scheduled).toBe(true);
    expect(h.requestCount()).toBe(0);
  });

  it("pushes an edit of a tracked file after the quiet time, and pulls a collaborator's edit in a round", async () => {
    h = await start();
    await pull(h, NOTE);
    const base = await h.read(PATH);
    await h.write(PATH, `${base}- typed in Obsidian\n`);
    // Not at once: the push waits for the quiet time.
    expect(remote()).toBe(base);
    await waitFor(() => remote() === `${base}- typed in Obsidian\n`);

    // The push's read-back still runs once HackMD holds the text; a collaborator's edit before it
    // ends would make its outcome unknown (readback), which is not what this test is about.
    await settle(h);
    // A collaborator's edit comes in with the next round (asked for by coming back to Obsidian).
    h.emu.collaboratorEdit(NOTE, { content: `${base}- typed in Obsidian\n- from HackMD\n` }, { as: "ada" });
    h.plugin.autoSync.visibilityChanged(true);
    h.plugin.autoSync.visibilityChanged(false);
    await waitFor(async () => (await h.read(PATH)) === `${base}- typed in Obsidian\n- from HackMD\n`, 20_000);
  });

  it("leaves a file alone while it is being typed in", async () => {
    // A quiet time long enough that the round below surely falls inside it.
    h = await start({}, { ...FAST, debounceMs: 10_000 });
    await pull(h, NOTE);
    const base = await h.read(PATH);
    const view = h.app.workspace.getLeavesOfType("markdown")[0]?.view as unknown as
      { editor: { setValue(text: string): void } } | undefined;
    if (view === undefined) throw new Error("the pulled note is not open");
    view.editor.setValue(`${base}- typing\n`);
    expect(h.plugin.autoSync.isEditing(PATH)).toBe(true);
    expect(h.plugin.autoSync.isEditing("HackMD/other.md")).toBe(false);
    // A round while the user types does not pull into the file, even with a collaborator's edit.
    h.emu.collaboratorEdit(NOTE, { content: `${base}- from HackMD\n` }, { as: "ada" });
    const lists = (): number => h.emu.requests().filter((entry) => entry.route === "GET /notes").length;
    const before = lists();
    h.plugin.autoSync.visibilityChanged(true);
    h.plugin.autoSync.visibilityChanged(false);
    await waitFor(() => lists() > before);
    await h.plugin.autoSync.idle();
    expect(await h.read(PATH)).not.toContain("from HackMD");
    expect(remote()).toBe(`${base}- from HackMD\n`);
  });

  it("queues a push while HackMD is unreachable, shows it in the status bar, keeps it across a reload and sends it when back", async () => {
    h = await start();
    await pull(h, NOTE);
    const base = await h.read(PATH);
    const offline = h.emu.injectFault({ match: {}, action: { drop: true }, times: 1_000_000 });
    await h.write(PATH, `${base}- written offline\n`);
    const outbox = new Outbox(h.plugin.services.files.state);
    await waitFor(async () => (await outbox.list()).length === 1, 20_000);
    const [entry] = await outbox.list();
    expect(entry).toMatchObject({ local_path: PATH, last_error_kind: "network", attempts: 1 });
    await waitFor(() => statusItem(h.fake).text.includes("1 queued"));
    expect(statusItem(h.fake).attrs.get("aria-label")).toMatch(/\b1 push queued$/);

    // A reload: the queued push is still there, and goes out once HackMD answers again.
    h.fake.unload();
    await h.plugin.autoSync.idle();
    expect(h.plugin.autoSync.scheduled).toBe(false);
    expect(await outbox.list()).toHaveLength(1);
    offline.remove();
    await reload();
    await waitFor(() => remote() === `${base}- written offline\n`, 20_000);
    await waitFor(async () => (await outbox.list()).length === 0);
    expect(await h.read(PATH)).toBe(`${base}- written offline\n`);
  });

  it("keeps the month's count on this device across a reload", async () => {
    h = await start({ autoSyncBudget: 5000 });
    await pull(h, NOTE);
    await h.plugin.autoSync.idle();
    // Every request the plugin sent since automatic sync started is counted.
    await waitFor(() => h.plugin.autoSync.usage().used === h.requestCount());
    const used = h.requestCount();
    expect(used).toBeGreaterThan(0);
    expect(h.plugin.autoSync.usage()).toEqual({ used, monthly: 5000 });
    h.fake.unload();
    await h.plugin.autoSync.idle();
    expect(typeof h.app.loadLocalStorage(BUDGET_STORAGE_KEY)).toBe("string");
    // The count lives in local storage, not in data.json (which syncs to other devices).
    expect(JSON.stringify(h.fake.data)).not.toContain(`"used"`);
    const again = await reload({ ...FAST, startupDelayMs: 60_000 });
    await again.autoSync.idle();
    expect(again.autoSync.usage()).toEqual({ used, monthly: 5000 });
    expect(again.autoSync.summary()).toEqual({ used, monthly: 5000, queued: 0 });
  });

  it("drops one queued push on the command, after asking, and keeps the file and its record", async () => {
    h = await start({ autoSync: false });
    await pull(h, NOTE);
    await pull(h, OTHER);
    const tracked = await h.plugin.services.deps.sync.listTracked();
    const outbox = new Outbox(h.plugin.services.files.state);
    for (const note of tracked)
      await outbox.add({
        team_path: note.team_path,
        note_id: note.note_id,
        local_path: note.local_path,
        last_error_kind: "network",
        at: Date.now(),
      });
    let offered: string[] = [];
    h.plugin.ui.pickQueuedPush = (choices) => {
      offered = choices.map((choice) => choice.label);
      return Promise.resolve(choices.find((choice) => choice.value.local_path === PATH)?.value);
    };
    let asked = "";
    h.plugin.ui.confirm = (dialog) => {
      asked = dialog.message;
      return Promise.resolve(true);
    };
    const dropped = await h.run("show-queued-pushes");
    expect(dropped).toContain(PATH);
    expect(offered).toHaveLength(2);
    // Each choice says why it waits and how often it was tried.
    expect(offered.find((label) => label.startsWith(PATH))).toContain("(1 try)");
    expect({ dropped, asked }).toMatchSnapshot();
    expect(asked).toContain(PATH);
    const left = await outbox.list();
    expect(left.map((entry) => entry.local_path)).toEqual(
      tracked.filter((note) => note.local_path !== PATH).map((note) => note.local_path),
    );
    expect(await h.plugin.services.deps.sync.listTracked()).toHaveLength(2);
    expect(await h.read(PATH)).toContain("Weekly sync");

    // Declined: nothing is dropped.
    h.plugin.ui.pickQueuedPush = (choices) => Promise.resolve(choices[0]?.value);
    h.plugin.ui.confirm = () => Promise.resolve(false);
    const before = Notice.shown.length;
    const command = h.fake.commands.find((c) => c.id === "show-queued-pushes");
    command?.callback?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(Notice.shown.length).toBe(before);
    expect(await outbox.list()).toHaveLength(1);
    expect(command?.hotkeys).toBeUndefined();
  });

  it("leaves no timer and sends nothing after unload", async () => {
    h = await start();
    await pull(h, NOTE);
    await h.plugin.autoSync.idle();
    const base = await h.read(PATH);
    await h.write(PATH, `${base}- edited right before closing\n`);
    h.fake.unload();
    await h.plugin.autoSync.idle();
    expect(h.plugin.autoSync.scheduled).toBe(false);
    expect(h.plugin.autoSync.running).toBe(false);
    const sent = h.requestCount();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(h.requestCount()).toBe(sent);
    expect(remote()).toBe(base);
  });

  it("tells once that HackMD refused the token, not at every round", async () => {
    h = await start();
    await pull(h, NOTE);
    await h.plugin.autoSync.idle();
    h.emu.injectFault({ match: {}, action: { status: 401, body: { error: "Unauthorized" } }, times: 1_000_000 });
    const told = (): string[] =>
      Notice.shown.filter((text) => text.startsWith("Automatic sync: HackMD rejected the token"));
    const before = told().length;
    const round = async (): Promise<void> => {
      const lists = h.emu.requests().length;
      h.plugin.autoSync.visibilityChanged(true);
      h.plugin.autoSync.visibilityChanged(false);
      await waitFor(() => h.emu.requests().length > lists);
      await settle(h);
    };
    await round();
    expect(told().length).toBe(before + 1);
    await round();
    expect(told().length).toBe(before + 1);
  });

  it("leaves real conflicts for the user: one notice for the round, not one per file nor per round, and the status bar", async () => {
    h = await start({ autoSync: false });
    await pull(h, NOTE);
    await pull(h, OTHER);
    const tracked = await h.plugin.services.deps.sync.listTracked();
    expect(tracked).toHaveLength(2);
    for (const note of tracked) {
      const text = await h.read(note.local_path);
      const [first, ...rest] = text.split("\n");
      await h.write(note.local_path, [`${first ?? ""} (mine)`, ...rest].join("\n"));
      h.emu.collaboratorEdit(note.note_id, { content: [`${first ?? ""} (theirs)`, ...rest].join("\n") }, { as: "ada" });
    }
    const told = (): string[] => Notice.shown.filter((text) => text.startsWith("Automatic sync: "));
    const before = told().length;
    // Switched on in the settings: a round soon, which finds both conflicts.
    await h.plugin.saveSettings({ autoSync: true });
    await waitFor(() => told().length > before, 20_000);
    await settle(h);
    expect(told().slice(before)).toHaveLength(1);
    expect(told().at(-1)).toContain("2 notes");
    for (const note of tracked) expect(told().at(-1)).toContain(note.local_path);
    // The active file (the last pulled) shows its conflict.
    await waitFor(
      () => statusItem(h.fake).text === statusBarText({ state: "conflict", quota: null, showUntracked: false }),
    );
    // The next round finds the same conflicts and says nothing new.
    const requests = h.requestCount();
    h.plugin.autoSync.visibilityChanged(true);
    h.plugin.autoSync.visibilityChanged(false);
    await waitFor(() => h.requestCount() > requests);
    await settle(h);
    expect(told().slice(before)).toHaveLength(1);
    // Nothing was overwritten on either side.
    for (const note of tracked) {
      expect(await h.read(note.local_path)).toContain("(mine)");
      expect(remote(note.note_id)).toContain("(theirs)");
    }
  });

  it("says one notice for a step's conflicts, not one per file", () => {
    const one = conflictNotice(["a.md"]);
    const five = conflictNotice(["a.md", "b.md", "c.md", "d.md", "e.md"]);
    expect(one).toContain("a.md");
    // Three names, then a count of the rest.
    expect(five).toContain("a.md, b.md, c.md");
    expect(five).not.toContain("d.md");
    expect(five).toContain("2 more");
    expect({ one, five }).toMatchSnapshot();
  });
});
