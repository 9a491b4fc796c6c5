/** The plugin's commands through the real plugin, the fake obsidian module and the HackMD emulator. */
import { Notice } from "../__mocks__/obsidian";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { recordKey } from "../../src/sync/store";
import { startPlugin, waitFor, type PluginHarness } from "./helpers";

const FILE_COMMAND_IDS = [
  "push-file",
  "sync-file",
  "publish-file",
  "open-in-browser",
  "copy-link",
  "show-status",
  "untrack-file",
  "pull-without-conversion",
  "pull-with-conversion",
  "resolve-conflict",
  "show-changes-since-sync",
  "compare-with-hackmd",
];

let h: PluginHarness;

beforeEach(async () => {
  h = await startPlugin({ data: { defaultPullFolder: "HackMD" } });
});

afterEach(async () => {
  await h.close();
});

/** Pulls the weekly sync note by id through the pull command; returns its path. */
async function pullWeekly(): Promise<string> {
  h.plugin.ui.askNoteRef = () => Promise.resolve(DEMO_NOTE_IDS.weeklySync);
  const notice = await h.run("pull-note");
  expect(notice).toMatch(/^Pulled “Weekly sync — Project Aurora” to HackMD\/Weekly sync — Project Aurora\.md\.$/);
  return "HackMD/Weekly sync — Project Aurora.md";
}

describe("command registration", () => {
  it("registers stable ids, sentence-case names and no default hotkeys", () => {
    const ids = h.fake.commands.map((c) => c.id);
    expect(ids).toEqual([
      "pull-note",
      "pull-from-list",
      "sync-all",
      ...FILE_COMMAND_IDS,
      "next-conflict",
      "previous-conflict",
      "open-note-history",
      "open-comments",
      "show-queued-pushes",
      "toggle-mcp-endpoint",
      "copy-mcp-client-config",
      "open-mcp-activity-log",
    ]);
    for (const command of h.fake.commands) {
      expect(command.hotkeys).toBeUndefined();
      expect(command.id).not.toMatch(/command|hackmd-bridge/i);
      expect(command.name).not.toMatch(/command|HackMD Bridge/i);
      expect(command.name[0]).toBe(command.name[0]?.toUpperCase());
      // Sentence case; the brand keeps its capitals.
      expect(command.name.slice(1).replace(/HackMD/g, "")).not.toMatch(/\b[A-Z][a-z]/);
    }
  });

  it("offers the file commands only while a Markdown file is active", async () => {
    const push = h.fake.commands.find((c) => c.id === "push-file");
    expect(push?.checkCallback?.(true)).toBe(false);
    await h.write("a.md", "x\n");
    h.app.workspace.openPath("a.md");
    expect(push?.checkCallback?.(true)).toBe(true);
  });

  it("adds a ribbon icon and file-menu entries for Markdown files only", async () => {
    expect(h.fake.ribbonIcons.map((r) => r.title)).toEqual(["Sync with HackMD"]);
    const { Menu } = await import("../__mocks__/obsidian");
    await h.write("a.md", "x\n");
    await h.write("b.txt", "x\n");
    const md = new Menu();
    h.app.workspace.trigger("file-menu", md, h.app.vault.getFileByPath("a.md"), "file-explorer");
    expect(md.items.map((i) => i.title)).toEqual([
      "Sync with HackMD",
      "Push to HackMD",
      "Show changes since last sync",
      "Compare with HackMD",
      "Resolve conflict with HackMD",
      "Open in HackMD",
      "Copy HackMD link",
      "Publish to HackMD",
    ]);
    const txt = new Menu();
    h.app.workspace.trigger("file-menu", txt, h.app.vault.getFileByPath("b.txt"), "file-explorer");
    expect(txt.items).toHaveLength(0);
  });
});

describe("pull and push through the commands", () => {
  it("pulls by id into the default folder named after the title, then pushes an edit", async () => {
    const path = await pullWeekly();
    expect(h.app.workspace.opened).toEqual([path]);
    const pulled = await h.read(path);
    expect(pulled).toContain("# Weekly sync — Project Aurora");

    await h.write(path, `${pulled}- Pushed from Obsidian\n`);
    h.app.workspace.openPath(path);
    expect(await h.run("push-file")).toBe(`Pushed ${path} to HackMD.`);
    const note = await h.plugin.services.deps.client.getNote(h.plugin.services.newCall(), { teamPath: null, noteId: DEMO_NOTE_IDS.weeklySync });
    expect(note.content).toBe(`${pulled}- Pushed from Obsidian\n`);

    expect(await h.run("push-file")).toBe(`Nothing to push: the note already matches ${path}.`);
  });

  it("pulls a note picked from the list of personal and team notes", async () => {
    h.plugin.ui.pickNote = (notes) => Promise.resolve(notes.find((n) => n.noteId === DEMO_NOTE_IDS.spec));
    expect(await h.run("pull-from-list")).toBe("Pulled “Spec: offline sync for field notes” to HackMD/Spec offline sync for field notes.md.");
    const tracked = await h.plugin.services.deps.sync.listTracked();
    expect(tracked).toEqual([expect.objectContaining({ team_path: "sandbox-team", note_id: DEMO_NOTE_IDS.spec })]);
  });

  it("pulls a note that is already tracked into its own file, not a numbered copy", async () => {
    const path = await pullWeekly();
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: "# Weekly sync — Project Aurora\n\nNew agenda\n" }, { as: "ada" });
    h.plugin.ui.askNoteRef = () => Promise.resolve(`https://hackmd.io/${DEMO_NOTE_IDS.weeklySync}`);
    expect(await h.run("pull-note")).toBe(`Pulled “Weekly sync — Project Aurora” to ${path}.`);
    expect(await h.read(path)).toBe("# Weekly sync — Project Aurora\n\nNew agenda\n");
  });

  it("shows the auth notice when HackMD rejects the token", async () => {
    h.app.secretStorage.setSecret("hackmd-bridge-api-token", "wrong-token");
    h.plugin.ui.askNoteRef = () => Promise.resolve(DEMO_NOTE_IDS.weeklySync);
    expect(await h.run("pull-note")).toBe("HackMD rejected the token. Set it in HackMD Bridge settings.");
  });
});

describe("sync current file", () => {
  let path: string;
  let base: string;
  beforeEach(async () => {
    path = await pullWeekly();
    base = await h.read(path);
    h.app.workspace.openPath(path);
  });

  it("in sync: says so after one request", async () => {
    const before = h.requestCount();
    expect(await h.run("sync-file")).toBe(`${path} is in sync with HackMD.`);
    expect(h.requestCount() - before).toBe(1);
  });

  it("local changes: pushes", async () => {
    await h.write(path, `${base}local line\n`);
    expect(await h.run("sync-file")).toBe(`Pushed ${path} to HackMD.`);
  });

  it("remote changes: pulls", async () => {
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: `${base}remote line\n` }, { as: "ada" });
    expect(await h.run("sync-file")).toBe(`Pulled the latest version of ${path} from HackMD.`);
    expect(await h.read(path)).toBe(`${base}remote line\n`);
  });

  it("edits on both sides in different places: merged and pushed, no conflict; with the setting off, a conflict", async () => {
    h.plugin.ui.resolveConflict = undefined;
    await h.write(path, `${base}local line\n`);
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: `remote first line\n${base}` }, { as: "ada" });
    expect(await h.run("sync-file")).toBe(`Merged your edits of ${path} with HackMD's and pushed the result.`);
    const merged = `remote first line\n${base}local line\n`;
    expect(await h.read(path)).toBe(merged);
    expect(h.emu.inspect().notes.find((note) => note.id === DEMO_NOTE_IDS.weeklySync)?.content).toBe(merged);
    expect(await h.run("sync-file")).toBe(`${path} is in sync with HackMD.`);

    await h.plugin.saveSettings({ autoMerge: false });
    await h.write(path, `${merged}second local line\n`);
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: `second remote line\n${merged}` }, { as: "ada" });
    expect(await h.run("sync-file")).toMatch(/^Conflict: /);
  });

  it("conflict: writes the snapshot and names it; resolve pushes the confirmed merge", async () => {
    // The fallback without the conflict modal (its flow is tested in tests/ui/conflict-flow.test.ts).
    h.plugin.ui.resolveConflict = undefined;
    // Both sides add a line at the same place: the edits overlap, so nothing merges by itself.
    await h.write(path, `${base}local line\n`);
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: `${base}remote line\n` }, { as: "ada" });
    const snapshot = "HackMD/Weekly sync — Project Aurora.remote.md";
    expect(await h.run("sync-file")).toBe(
      `Conflict: ${path} and its note both changed; HackMD's version is in ${snapshot}. Merge the changes into the file, then run "Resolve conflict in current file".`,
    );
    expect(await h.read(snapshot)).toBe(`${base}remote line\n`);
    expect(await h.read(path)).toBe(`${base}local line\n`);

    await h.write(path, `${base}remote line\nlocal line\n`);
    const asked: string[] = [];
    h.plugin.ui.confirm = (dialog) => {
      asked.push(dialog.title);
      return Promise.resolve(true);
    };
    // The snapshot was ours and unedited: the resolution removes it (the fake's trash deletes).
    expect(await h.run("resolve-conflict")).toBe(`Pushed ${path} to HackMD. Removed ${snapshot}, the copy of HackMD's version it no longer needs.`);
    expect(asked).toEqual(["Push the merged file?"]);
    expect(await h.app.vault.adapter.exists(snapshot)).toBe(false);
  });

  it("writes a collaborator's :::info container as a callout, pushes it back as one, and the per-note switch turns that off and on", async () => {
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: `${base}\n:::info\nFrom HackMD.\n:::\n` }, { as: "ada" });
    expect(await h.run("sync-file")).toBe(`Pulled the latest version of ${path} from HackMD.`);
    const converted = await h.read(path);
    expect(converted).toContain("> [!info]\n> From HackMD.\n");
    expect(await h.run("show-status")).toBe(`${path}: in sync.`);
    expect(await h.run("pull-without-conversion")).toBe(`${path} now syncs byte for byte, exactly as HackMD stores it.`);
    expect(await h.read(path)).toContain(":::info\nFrom HackMD.\n:::\n");
    expect(await h.run("show-status")).toBe(`${path}: in sync.`);
    expect(await h.run("pull-with-conversion")).toBe(`${path} is written in Obsidian's syntax and converted when pushed.`);
    expect(await h.read(path)).toBe(converted);
    await h.write(path, `${converted}\nTyped in Obsidian.\n`);
    expect(await h.run("push-file")).toMatch(/^Pushed /);
    expect(h.emu.inspect().notes.find((note) => note.id === DEMO_NOTE_IDS.weeklySync)?.content).toBe(`${base}\n:::info\nFrom HackMD.\n:::\n\nTyped in Obsidian.\n`);
  });

  it("untracks after confirmation, keeping the file", async () => {
    h.plugin.ui.confirm = () => Promise.resolve(true);
    expect(await h.run("untrack-file")).toBe(`${path} is no longer linked to HackMD.`);
    expect(await h.plugin.services.store.findByPath(path)).toBeUndefined();
    expect(await h.read(path)).toBe(base);
    expect(await h.run("push-file")).toBe("This file is not linked to a HackMD note. Pull or publish it first.");
  });

  it("copies the link and opens the note with the default API URL only", async () => {
    expect(await h.run("copy-link")).toBe("Links need the default HackMD API URL; open the note from your HackMD server instead.");
    h.plugin.settings = { ...h.plugin.settings, apiUrl: "https://api.hackmd.io/v1" };
    const copied: string[] = [];
    h.plugin.ui.copyText = (text) => {
      copied.push(text);
      return Promise.resolve();
    };
    expect(await h.run("copy-link")).toBe("Copied the note link.");
    expect(copied).toEqual([`https://hackmd.io/${DEMO_NOTE_IDS.weeklySync}`]);
  });
});

describe("sync all and publish", () => {
  it("syncs every tracked note with a progress notice, then a summary", async () => {
    const path = await pullWeekly();
    await h.write(path, `${await h.read(path)}more\n`);
    const before = Notice.shown.length;
    const result = await h.plugin.actions.syncAllTracked();
    expect(result?.counts.pushed).toBe(1);
    const shown = Notice.shown.slice(before);
    expect(shown[0]).toBe("Syncing tracked notes…");
    expect(shown.at(-1)).toBe("Synced 1 notes: 0 in sync, 0 pulled, 1 pushed.");
  });

  it("sync all counts the .remote.md snapshots the engine removed after resolving their conflicts", async () => {
    h.plugin.ui.resolveConflict = undefined;
    await h.plugin.saveSettings({ autoMerge: false });
    const path = await pullWeekly();
    const base = await h.read(path);
    const snapshot = "HackMD/Weekly sync — Project Aurora.remote.md";
    await h.write(path, `${base}local line\n`);
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: `${base}remote line\n` }, { as: "ada" });
    expect(await h.run("sync-file")).toMatch(/^Conflict: /);
    expect(await h.app.vault.adapter.exists(snapshot)).toBe(true);
    // Merged by hand into exactly HackMD's text: sync-all advances the baseline, and the snapshot goes.
    await h.write(path, `${base}remote line\n`);
    const result = await h.plugin.actions.syncAllTracked();
    expect(result?.items[0]?.snapshot_cleanup).toEqual({ kind: "removed", path: snapshot });
    expect(Notice.shown.at(-1)).toBe("Synced 1 notes: 1 in sync, 0 pulled, 0 pushed. Removed 1 .remote.md snapshot of resolved conflicts.");
    expect(await h.app.vault.adapter.exists(snapshot)).toBe(false);
  });

  it("publishes an untracked file as a private note and tracks it", async () => {
    await h.write("Drafts/idea.md", "# My idea\n\nText\n");
    h.app.workspace.openPath("Drafts/idea.md");
    let offered: unknown;
    h.plugin.ui.choosePublish = (dialog) => {
      offered = dialog.defaults;
      return Promise.resolve(dialog.defaults);
    };
    expect(await h.run("publish-file")).toBe("Published Drafts/idea.md as a new HackMD note.");
    expect(offered).toEqual({ teamPath: null, readPermission: "owner", writePermission: "owner" });
    const found = await h.plugin.services.store.findByPath("Drafts/idea.md");
    expect(found).toBeDefined();
    const note = await h.plugin.services.deps.client.getNote(h.plugin.services.newCall(), { teamPath: null, noteId: found!.record.internal_id });
    expect(note).toMatchObject({ title: "My idea", content: "# My idea\n\nText\n", read_permission: "owner" });
    expect(found!.key).toBe(recordKey(null, note.id));
    expect(await h.read("Drafts/idea.md")).toBe("# My idea\n\nText\n");
    expect(await h.run("sync-file")).toBe("Drafts/idea.md is in sync with HackMD.");
    expect(await h.run("publish-file")).toBe("Drafts/idea.md is already linked to a HackMD note. Push it instead.");
  });
});

describe("status bar", () => {
  it("shows untracked, in sync and local changes without any request", async () => {
    const path = await pullWeekly();
    await h.write("plain.md", "x\n");
    const item = h.fake.statusBarItems[0]!;
    const before = h.requestCount();

    // Untracked files say nothing, unless the user asks for it.
    h.app.workspace.openPath(path);
    await waitFor(() => item.text === "HackMD: in sync");
    h.app.workspace.openPath("plain.md");
    await waitFor(() => item.text === "");
    expect(item.hasClass("mod-clickable")).toBe(false);
    await h.plugin.saveSettings({ showUntrackedInStatusBar: true });
    await waitFor(() => item.text === "HackMD: untracked");
    h.app.workspace.openPath(path);
    await waitFor(() => item.text === "HackMD: in sync");
    expect(item.attrs.get("aria-label")).toBe("Compare with HackMD");
    expect(item.hasClass("mod-clickable")).toBe(true);
    await h.write(path, `${await h.read(path)}edit\n`);
    await waitFor(() => item.text === "HackMD: local changes");
    h.app.workspace.openPath(null);
    await waitFor(() => item.text === "");
    expect(h.requestCount()).toBe(before);
  });

  it("shows remote changes from the last check, and the quota when HackMD sent one", async () => {
    const path = await pullWeekly();
    h.app.workspace.openPath(path);
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: "changed\n" }, { as: "ada" });
    expect(await h.run("show-status")).toBe(`${path}: remote changes.`);
    const item = h.fake.statusBarItems[0]!;
    await waitFor(() => item.text.startsWith("HackMD: remote changes"));
  });
});
