/** The plugin's commands through the real plugin, the fake obsidian module and the HackMD emulator. */
import { Notice } from "../__mocks__/obsidian";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { recordKey } from "../../src/sync/store";
import { BridgeError } from "../../src/core/errors";
import { errorNoticeText } from "../../src/obsidian/notices";
import type { FileSyncState } from "../../src/obsidian/sync-status";
import { STATUS_CLICK, statusBarText } from "../../src/ui/status-bar";
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
/** Where this test's notices start in `Notice.shown`. */
let firstNotice = 0;

beforeEach(async () => {
  h = await startPlugin({ data: { defaultPullFolder: "HackMD" } });
  firstNotice = Notice.shown.length;
});

/**
 * The notices this test showed, in order. The tests assert what happened (files, HackMD's note,
 * requests); the wording of a flow is pinned by one snapshot of this list, so a wording change
 * updates `__snapshots__/commands.test.ts.snap` (`npx jest <file> -u`) instead of failing asserts.
 */
function notices(): string[] {
  return Notice.shown.slice(firstNotice);
}

/** Write requests (anything but GET) HackMD received so far. */
function writes(): number {
  return h.emu.requests().filter((entry) => entry.method !== "GET").length;
}

afterEach(async () => {
  await h.close();
});

/** Pulls the weekly sync note by id through the pull command; returns its path. */
async function pullWeekly(): Promise<string> {
  h.plugin.ui.askNoteRef = () => Promise.resolve(DEMO_NOTE_IDS.weeklySync);
  await h.run("pull-note");
  const path = "HackMD/Weekly sync — Project Aurora.md";
  expect(await h.read(path)).toContain("# Weekly sync — Project Aurora");
  return path;
}

describe("command registration", () => {
  it("registers stable ids, sentence-case names and no default hotkeys", () => {
    const ids = h.fake.commands.map((c) => c.id);
    expect(ids).toEqual([
      "pull-note",
      "pull-from-list",
      "sync-all",
      "mirror-workspace",
      ...FILE_COMMAND_IDS,
      "next-conflict",
      "previous-conflict",
      "open-note-history",
      "open-comments",
      "open-sync-history",
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
    await h.run("push-file");
    const note = await h.plugin.services.deps.client.getNote(h.plugin.services.newCall(), {
      teamPath: null,
      noteId: DEMO_NOTE_IDS.weeklySync,
    });
    expect(note.content).toBe(`${pulled}- Pushed from Obsidian\n`);

    const written = writes();
    await h.run("push-file");
    expect(writes()).toBe(written);
    expect(notices()).toMatchSnapshot();
  });

  it("pulls a note picked from the list of personal and team notes", async () => {
    h.plugin.ui.pickNote = (notes) => Promise.resolve(notes.find((n) => n.noteId === DEMO_NOTE_IDS.spec));
    await h.run("pull-from-list");
    expect(await h.read("HackMD/Spec offline sync for field notes.md")).toContain("offline sync");
    const tracked = await h.plugin.services.deps.sync.listTracked();
    expect(tracked).toEqual([expect.objectContaining({ team_path: "sandbox-team", note_id: DEMO_NOTE_IDS.spec })]);
    expect(notices()).toMatchSnapshot();
  });

  it("pulls a note that is already tracked into its own file, not a numbered copy", async () => {
    const path = await pullWeekly();
    h.emu.collaboratorEdit(
      DEMO_NOTE_IDS.weeklySync,
      { content: "# Weekly sync — Project Aurora\n\nNew agenda\n" },
      { as: "ada" },
    );
    h.plugin.ui.askNoteRef = () => Promise.resolve(`https://hackmd.io/${DEMO_NOTE_IDS.weeklySync}`);
    await h.run("pull-note");
    expect(await h.read(path)).toBe("# Weekly sync — Project Aurora\n\nNew agenda\n");
    expect(h.app.vault.getFiles().map((file) => file.path)).toEqual([path]);
  });

  it("shows the auth notice when HackMD rejects the token", async () => {
    h.app.secretStorage.setSecret("hackmd-bridge-api-token", "wrong-token");
    h.plugin.ui.askNoteRef = () => Promise.resolve(DEMO_NOTE_IDS.weeklySync);
    const told = await h.run("pull-note");
    expect(h.emu.requests().at(-1)?.status).toBe(401);
    expect(h.app.vault.getFiles()).toEqual([]);
    // The notice for the "auth" error kind (its words: tests/plugin/lifecycle.test.ts's snapshot).
    expect(told).toBe(errorNoticeText(new BridgeError("auth", "x")));
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
    await h.run("sync-file");
    expect(h.requestCount() - before).toBe(1);
    expect(await h.read(path)).toBe(base);
    expect(notices()).toMatchSnapshot();
  });

  it("local changes: pushes", async () => {
    await h.write(path, `${base}local line\n`);
    await h.run("sync-file");
    expect(h.emu.inspect().notes.find((note) => note.id === DEMO_NOTE_IDS.weeklySync)?.content).toBe(
      `${base}local line\n`,
    );
    expect(notices()).toMatchSnapshot();
  });

  it("remote changes: pulls", async () => {
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: `${base}remote line\n` }, { as: "ada" });
    const written = writes();
    await h.run("sync-file");
    expect(await h.read(path)).toBe(`${base}remote line\n`);
    expect(writes()).toBe(written);
    expect(notices()).toMatchSnapshot();
  });

  it("edits on both sides in different places: merged and pushed, no conflict; with the setting off, a conflict", async () => {
    h.plugin.ui.resolveConflict = undefined;
    await h.write(path, `${base}local line\n`);
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: `remote first line\n${base}` }, { as: "ada" });
    await h.run("sync-file");
    const merged = `remote first line\n${base}local line\n`;
    expect(await h.read(path)).toBe(merged);
    expect(h.emu.inspect().notes.find((note) => note.id === DEMO_NOTE_IDS.weeklySync)?.content).toBe(merged);
    const written = writes();
    await h.run("sync-file");
    expect(writes()).toBe(written);

    await h.plugin.saveSettings({ autoMerge: false });
    await h.write(path, `${merged}second local line\n`);
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: `second remote line\n${merged}` }, { as: "ada" });
    await h.run("sync-file");
    expect(await h.read("HackMD/Weekly sync — Project Aurora.remote.md")).toBe(`second remote line\n${merged}`);
    expect(notices()).toMatchSnapshot();
  });

  it("conflict: writes the snapshot and names it; resolve pushes the confirmed merge", async () => {
    // The fallback without the conflict modal (its flow is tested in tests/ui/conflict-flow.test.ts).
    h.plugin.ui.resolveConflict = undefined;
    // Both sides add a line at the same place: the edits overlap, so nothing merges by itself.
    await h.write(path, `${base}local line\n`);
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: `${base}remote line\n` }, { as: "ada" });
    const snapshot = "HackMD/Weekly sync — Project Aurora.remote.md";
    const told = await h.run("sync-file");
    // The notice names the snapshot and the command that finishes the job.
    expect(told).toContain(snapshot);
    expect(told).toContain(`"${h.fake.commands.find((c) => c.id === "resolve-conflict")?.name}"`);
    expect(await h.read(snapshot)).toBe(`${base}remote line\n`);
    expect(await h.read(path)).toBe(`${base}local line\n`);

    await h.write(path, `${base}remote line\nlocal line\n`);
    const asked: string[] = [];
    h.plugin.ui.confirm = (dialog) => {
      asked.push(dialog.title);
      return Promise.resolve(true);
    };
    // The snapshot was ours and unedited: the resolution removes it (the fake's trash deletes).
    await h.run("resolve-conflict");
    expect(asked).toHaveLength(1);
    expect(await h.app.vault.adapter.exists(snapshot)).toBe(false);
    expect(h.emu.inspect().notes.find((note) => note.id === DEMO_NOTE_IDS.weeklySync)?.content).toBe(
      `${base}remote line\nlocal line\n`,
    );
    expect({ notices: notices(), asked }).toMatchSnapshot();
  });

  it("writes a collaborator's :::info container as a callout, pushes it back as one, and the per-note switch turns that off and on", async () => {
    h.emu.collaboratorEdit(
      DEMO_NOTE_IDS.weeklySync,
      { content: `${base}\n:::info\nFrom HackMD.\n:::\n` },
      { as: "ada" },
    );
    await h.run("sync-file");
    const converted = await h.read(path);
    expect(converted).toContain("> [!info]\n> From HackMD.\n");
    await h.run("show-status");
    await h.run("pull-without-conversion");
    expect(await h.read(path)).toContain(":::info\nFrom HackMD.\n:::\n");
    await h.run("show-status");
    await h.run("pull-with-conversion");
    expect(await h.read(path)).toBe(converted);
    await h.write(path, `${converted}\nTyped in Obsidian.\n`);
    await h.run("push-file");
    expect(h.emu.inspect().notes.find((note) => note.id === DEMO_NOTE_IDS.weeklySync)?.content).toBe(
      `${base}\n:::info\nFrom HackMD.\n:::\n\nTyped in Obsidian.\n`,
    );
    expect(notices()).toMatchSnapshot();
  });

  it("untracks after confirmation, keeping the file", async () => {
    h.plugin.ui.confirm = () => Promise.resolve(true);
    await h.run("untrack-file");
    expect(await h.plugin.services.store.findByPath(path)).toBeUndefined();
    expect(await h.read(path)).toBe(base);
    const written = writes();
    await h.run("push-file");
    expect(writes()).toBe(written);
    expect(notices()).toMatchSnapshot();
  });

  it("copies the link and opens the note with the default API URL only", async () => {
    const copied: string[] = [];
    h.plugin.ui.copyText = (text) => {
      copied.push(text);
      return Promise.resolve();
    };
    await h.run("copy-link");
    expect(copied).toEqual([]);
    h.plugin.settings = { ...h.plugin.settings, apiUrl: "https://api.hackmd.io/v1" };
    await h.run("copy-link");
    expect(copied).toEqual([`https://hackmd.io/${DEMO_NOTE_IDS.weeklySync}`]);
    expect(notices()).toMatchSnapshot();
  });
});

describe("sync all and publish", () => {
  it("syncs every tracked note with a progress notice, then a summary", async () => {
    const path = await pullWeekly();
    await h.write(path, `${await h.read(path)}more\n`);
    const before = Notice.shown.length;
    const result = await h.plugin.actions.syncAllTracked();
    expect(result?.counts.pushed).toBe(1);
    // A progress notice, then the summary.
    expect(Notice.shown.slice(before)).toMatchSnapshot();
  });

  it("sync all counts the .remote.md snapshots the engine removed after resolving their conflicts", async () => {
    h.plugin.ui.resolveConflict = undefined;
    await h.plugin.saveSettings({ autoMerge: false });
    const path = await pullWeekly();
    const base = await h.read(path);
    const snapshot = "HackMD/Weekly sync — Project Aurora.remote.md";
    await h.write(path, `${base}local line\n`);
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: `${base}remote line\n` }, { as: "ada" });
    await h.run("sync-file");
    expect(await h.app.vault.adapter.exists(snapshot)).toBe(true);
    // Merged by hand into exactly HackMD's text: sync-all advances the baseline, and the snapshot goes.
    await h.write(path, `${base}remote line\n`);
    const result = await h.plugin.actions.syncAllTracked();
    expect(result?.items[0]?.snapshot_cleanup).toEqual({ kind: "removed", path: snapshot });
    expect(await h.app.vault.adapter.exists(snapshot)).toBe(false);
    expect(Notice.shown.at(-1)).toMatchSnapshot();
  });

  it("publishes an untracked file as a private note and tracks it", async () => {
    await h.write("Drafts/idea.md", "# My idea\n\nText\n");
    h.app.workspace.openPath("Drafts/idea.md");
    let offered: unknown;
    h.plugin.ui.choosePublish = (dialog) => {
      offered = dialog.defaults;
      return Promise.resolve(dialog.defaults);
    };
    await h.run("publish-file");
    expect(offered).toEqual({ teamPath: null, readPermission: "owner", writePermission: "owner" });
    const found = await h.plugin.services.store.findByPath("Drafts/idea.md");
    expect(found).toBeDefined();
    const note = await h.plugin.services.deps.client.getNote(h.plugin.services.newCall(), {
      teamPath: null,
      noteId: found!.record.internal_id,
    });
    expect(note).toMatchObject({ title: "My idea", content: "# My idea\n\nText\n", read_permission: "owner" });
    expect(found!.key).toBe(recordKey(null, note.id));
    expect(await h.read("Drafts/idea.md")).toBe("# My idea\n\nText\n");
    const notes = h.emu.inspect().notes.length;
    await h.run("sync-file");
    await h.run("publish-file");
    expect(h.emu.inspect().notes).toHaveLength(notes);
    expect(notices()).toMatchSnapshot();
  });
});

describe("status bar", () => {
  /** The status bar's text for a state, quota not shown (the words: tests/ui/status-bar.test.ts). */
  const bar = (state: FileSyncState): string => statusBarText({ state, quota: null, showUntracked: true });

  it("shows untracked, in sync and local changes without any request", async () => {
    const path = await pullWeekly();
    await h.write("plain.md", "x\n");
    const item = h.fake.statusBarItems[0]!;
    const before = h.requestCount();

    // Untracked files say nothing, unless the user asks for it.
    h.app.workspace.openPath(path);
    await waitFor(() => item.text === bar("in_sync"));
    h.app.workspace.openPath("plain.md");
    await waitFor(() => item.text === "");
    expect(item.hasClass("mod-clickable")).toBe(false);
    await h.plugin.saveSettings({ showUntrackedInStatusBar: true });
    await waitFor(() => item.text === bar("untracked"));
    h.app.workspace.openPath(path);
    await waitFor(() => item.text === bar("in_sync"));
    expect(item.attrs.get("aria-label")).toBe(STATUS_CLICK.in_sync?.tip);
    expect(item.hasClass("mod-clickable")).toBe(true);
    await h.write(path, `${await h.read(path)}edit\n`);
    await waitFor(() => item.text === bar("local_changes"));
    h.app.workspace.openPath(null);
    await waitFor(() => item.text === "");
    expect(h.requestCount()).toBe(before);
  });

  it("shows remote changes from the last check, and the quota when HackMD sent one", async () => {
    const path = await pullWeekly();
    h.app.workspace.openPath(path);
    h.emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: "changed\n" }, { as: "ada" });
    await h.run("show-status");
    const item = h.fake.statusBarItems[0]!;
    await waitFor(() => item.text.startsWith(bar("remote_changes")));
    expect({ notice: notices().at(-1), statusBar: item.text }).toMatchSnapshot();
  });
});
