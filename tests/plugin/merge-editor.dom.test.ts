/**
 * Conflict resolution through the real plugin on the fake `obsidian` module (with real DOM and CodeMirror) and
 * the HackMD emulator: the merge editor tab's choices and its save path (the push carries the
 * remote hash the editor was opened with), the reopen when HackMD moved meanwhile (the result kept
 * as "mine"), the guard on every destructive button and the copy it keeps, the snapshot removed
 * after a resolution (and kept when the user edited it), drafts of a closed tab, the diff views,
 * the status bar's click and the navigation commands.
 */
import { EditorView } from "@codemirror/view";
import { Modal, Notice } from "../__mocks__/obsidian";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { bodyHash } from "../../src/core/hash";
import type { PushRequest } from "../../src/sync/types";
import { MERGE_VIEW_TYPE, type MergeEditorView } from "../../src/ui/merge-editor-view";
import { STATUS_CLICK, statusBarText } from "../../src/ui/status-bar";
import { startPlugin, waitFor, type PluginHarness } from "./helpers";

const NOTE = DEMO_NOTE_IDS.weeklySync;
const PATH = "HackMD/Weekly sync — Project Aurora.md";
const SNAPSHOT = "HackMD/Weekly sync — Project Aurora.remote.md";
/** Short bodies: without layout, CodeMirror renders only about a dozen lines. */
const edit = (change: Record<number, string> = {}): string =>
  Array.from({ length: 8 }, (_, i) => `${change[i + 1] ?? `line ${i + 1}`}\n`).join("");
const BASE = edit();
const MINE = edit({ 1: "mine 1", 6: "mine 6" });
const THEIRS = edit({ 3: "theirs 3", 6: "theirs 6" });

let h: PluginHarness;
let pushes: PushRequest[];

const remote = (): string | undefined => h.emu.inspect().notes.find((note) => note.id === NOTE)?.content;
const command = (id: string) => {
  const found = h.fake.commands.find((c) => c.id === id);
  if (!found) throw new Error(`no command ${id}`);
  return found;
};
/** Runs a file command on the active file without waiting for a notice. */
const start = (id: string): void => {
  const run = command(id);
  if (run.callback) run.callback();
  else expect(run.checkCallback?.(false)).toBe(true);
};

/** The merge tab's view once its editor is mounted (a new one when `after` is given). */
async function editorTab(after?: unknown): Promise<MergeEditorView> {
  let view: MergeEditorView | undefined;
  await waitFor(() => {
    view = h.app.workspace.getLeavesOfType(MERGE_VIEW_TYPE)[0]?.view as MergeEditorView | undefined;
    return view?.editor !== undefined && view.editor !== after;
  });
  return view!;
}
const el = (view: MergeEditorView, selector: string): HTMLElement => {
  const found = view.contentEl.querySelector<HTMLElement>(selector);
  if (!found) throw new Error(`no ${selector}`);
  return found;
};
const click = (view: MergeEditorView, selector: string): void => el(view, selector).click();
const accept = (view: MergeEditorView, conflict: number, choice: string): void =>
  click(view, `.hackmd-bridge-merge-conflict-bar[data-conflict="${conflict}"] [data-choice="${choice}"]`);
const act = (view: MergeEditorView, action: string): void =>
  click(view, `.hackmd-bridge-merge-actions [data-action="${action}"]`);
const tabs = (): number => h.app.workspace.getLeavesOfType(MERGE_VIEW_TYPE).length;

/** The open confirmation modal (the warning-styled one), once it is there. */
async function confirmation(): Promise<Modal> {
  await waitFor(() => Modal.opened.some((modal) => modal.contentEl.querySelector("button.mod-warning") !== null));
  return Modal.opened.find((modal) => modal.contentEl.querySelector("button.mod-warning") !== null)!;
}
const answer = (modal: Modal, yes: boolean): void => {
  const buttons = [...modal.contentEl.querySelectorAll("button")];
  (yes
    ? buttons.find((b) => b.classList.contains("mod-warning"))
    : buttons.find((b) => b.textContent === "Cancel"))!.click();
};

/** Waits for a notice that starts with `prefix`, returns it. */
async function notice(prefix: string): Promise<string> {
  await waitFor(() => Notice.shown.some((text) => text.startsWith(prefix)));
  return Notice.shown.filter((text) => text.startsWith(prefix)).at(-1)!;
}

/**
 * This test's notices, times and ids masked. The tests assert what happened (files, HackMD's note,
 * pushes, tabs); the words of each flow are pinned by one snapshot (`npx jest <file> -u` after a
 * deliberate wording change).
 */
function told(): string[] {
  return Notice.shown.map((text) =>
    text
      .replace(/\d{4}-\d{2}-\d{2} \d{2}[:.]\d{2}([:.]\d{2})?/g, "<time>")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>"),
  );
}

/** A modal's title and text, for a snapshot. */
const words = (modal: Modal): { title: string | null; text: string | null } => ({
  title: modal.titleEl.textContent,
  text: modal.contentEl.textContent,
});

beforeEach(async () => {
  h = await startPlugin({ data: { defaultPullFolder: "HackMD" } });
  Notice.shown.length = 0;
  h.emu.collaboratorEdit(NOTE, { content: BASE }, { as: "ada" });
  h.plugin.ui.askNoteRef = () => Promise.resolve(NOTE);
  await h.run("pull-note");
  expect(await h.read(PATH)).toBe(BASE);
  pushes = [];
  const sync = h.plugin.services.deps.sync;
  const push = sync.push.bind(sync);
  jest.spyOn(sync, "push").mockImplementation((request) => {
    pushes.push(request);
    return push(request);
  });
});

afterEach(async () => {
  for (const modal of [...Modal.opened]) modal.close();
  await h.close();
});

/** Edits the file and the note so that they conflict at line 6 (and merge cleanly at 1 and 3). */
async function conflict(mine = MINE, theirs = THEIRS): Promise<void> {
  await h.write(PATH, mine);
  h.emu.collaboratorEdit(NOTE, { content: theirs }, { as: "ada" });
  h.app.workspace.openPath(PATH);
}

describe("the merge editor tab", () => {
  it("opens on an overlapping edit from Sync file; saving pushes the result with the remote hash it was opened with", async () => {
    await conflict();
    start("sync-file");
    const view = await editorTab();
    const opened = { tab: view.getDisplayText(), progress: el(view, ".hackmd-bridge-merge-progress").textContent };
    expect(opened.tab).toContain("Weekly sync — Project Aurora.md");
    expect(view.editor?.statuses()).toHaveLength(1);
    // The auto-merge tried first and found the overlap; nothing was sent.
    expect(remote()).toBe(THEIRS);
    accept(view, 0, "both");
    expect((el(view, '[data-action="merged"]') as HTMLButtonElement).disabled).toBe(false);
    pushes.length = 0;
    act(view, "merged");

    const merged = edit({ 1: "mine 1", 3: "theirs 3", 6: "mine 6\ntheirs 6" });
    // The auto-merge attempt left the conflict's snapshot; the resolution removes it.
    await notice("Merged ");
    expect(await h.app.vault.adapter.exists(SNAPSHOT)).toBe(false);
    expect(remote()).toBe(merged);
    expect(await h.read(PATH)).toBe(merged);
    expect(pushes.map((push) => [push.strategy, push.expectedRemoteHash])).toEqual([["safe", await bodyHash(THEIRS)]]);
    await waitFor(() => tabs() === 0);
    const before = h.requestCount();
    await h.run("sync-file");
    expect(h.requestCount() - before).toBe(1);
    expect({ ...opened, notices: told() }).toMatchSnapshot();
  });

  it("when HackMD moved meanwhile, sends nothing and reopens on the new remote with the result kept as mine", async () => {
    await conflict();
    start("resolve-conflict");
    const first = await editorTab();
    accept(first, 0, "local");
    const result = edit({ 1: "mine 1", 3: "theirs 3", 6: "mine 6" });
    const newer = edit({ 3: "theirs 3", 6: "theirs 6 again", 8: "theirs 8" });
    h.emu.collaboratorEdit(NOTE, { content: newer }, { as: "ada" });
    const patchesBefore = h.emu.requests().filter((r) => r.route === "PATCH /notes/:noteId").length;
    act(first, "merged");

    const second = await editorTab(first.editor);
    await notice("Your merged text is saved");
    expect(h.emu.requests().filter((r) => r.route === "PATCH /notes/:noteId").length).toBe(patchesBefore);
    expect(await h.read(PATH)).toBe(result);
    const panes = (name: string): string =>
      EditorView.findFromDOM(el(second, `.hackmd-bridge-merge-pane.mod-${name} .cm-editor`))!.state.doc.toString();
    expect(panes("mine")).toBe(result);
    expect(panes("theirs")).toBe(newer);
    expect(tabs()).toBe(1);
    accept(second, 0, "local");
    act(second, "merged");
    await notice("Merged ");
    expect(remote()).toBe(edit({ 1: "mine 1", 3: "theirs 3", 6: "mine 6", 8: "theirs 8" }));
    expect(pushes.at(-1)?.expectedRemoteHash).toBe(await bodyHash(newer));
    expect(told()).toMatchSnapshot();
  });

  it("take theirs asks in the warning style, writes nothing on no, and on yes keeps a copy of the file in .trash", async () => {
    await conflict();
    start("resolve-conflict");
    const view = await editorTab();
    act(view, "take-theirs");
    const modal = await confirmation();
    const asked = words(modal);
    // The question counts what is lost.
    expect(asked.text).toContain("2 lines added, 2 removed");
    answer(modal, false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await h.read(PATH)).toBe(MINE);
    expect(tabs()).toBe(1);

    act(view, "take-theirs");
    answer(await confirmation(), true);
    const replaced = await notice("Replaced ");
    expect(await h.read(PATH)).toBe(THEIRS);
    const kept = (await h.app.vault.adapter.list(".trash")).files;
    expect(kept).toHaveLength(1);
    // The notice names the kept copy.
    expect(replaced).toContain(kept[0]!.slice(".trash/".length));
    expect({ asked, notices: told() }).toMatchSnapshot();
    expect(await h.read(kept[0]!)).toBe(MINE);
    // The copy is in Obsidian's local trash: not indexed, so no duplicate note.
    expect(h.app.vault.getFileByPath(kept[0]!)).toBeNull();
  });

  it("keep mine asks, then overwrites HackMD only after keeping HackMD's version in .trash", async () => {
    await conflict();
    start("resolve-conflict");
    const view = await editorTab();
    act(view, "keep-mine");
    const modal = await confirmation();
    const asked = words(modal);
    expect(remote()).toBe(THEIRS);
    answer(modal, true);
    const pushed = await notice("Pushed ");
    expect(remote()).toBe(MINE);
    const kept = (await h.app.vault.adapter.list(".trash")).files;
    expect(await h.read(kept[0]!)).toBe(THEIRS);
    // The notice names the version HackMD keeps and the copy in .trash.
    const version = h.emu.inspect().versions.find((v) => v.content === THEIRS);
    expect(version).toBeDefined();
    expect(pushed).toContain(`(${version?.id ?? ""})`);
    expect(pushed).toContain(kept[0]!.slice(".trash/".length));
    expect({ asked, notices: told() }).toMatchSnapshot();
  });

  it("a whole-file choice after per-conflict choices says they are dropped; cancel with work asks too", async () => {
    await conflict();
    start("resolve-conflict");
    const view = await editorTab();
    accept(view, 0, "remote");
    act(view, "keep-both");
    const modal = await confirmation();
    const dropped = words(modal);
    expect(dropped.text).toContain("1 of 1");
    answer(modal, false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    act(view, "cancel");
    const discard = await confirmation();
    const discarding = words(discard);
    answer(discard, true);
    await waitFor(() => tabs() === 0);
    expect(await h.read(PATH)).toBe(MINE);
    expect(remote()).toBe(THEIRS);
    expect({ dropped, discarding }).toMatchSnapshot();
  });

  it("closing the tab keeps the unfinished merge, and resolving again restores it", async () => {
    await conflict();
    start("resolve-conflict");
    const view = await editorTab();
    accept(view, 0, "both");
    h.app.workspace.getLeavesOfType(MERGE_VIEW_TYPE)[0]!.detach();
    await notice("Your unfinished merge");
    start("resolve-conflict");
    const again = await editorTab();
    expect(again.editor?.statuses()).toEqual(["both"]);
    await notice("Restored");
    expect(told()).toMatchSnapshot();
  });
});

describe("the .remote.md snapshot", () => {
  it("is removed after the resolution when it is ours and unedited", async () => {
    await conflict();
    start("resolve-conflict");
    act(await editorTab(), "keep-both");
    await notice("Kept both");
    expect(await h.read(SNAPSHOT)).toBe(THEIRS);
    await waitFor(() => tabs() === 0);

    start("resolve-conflict");
    const view = await editorTab();
    accept(view, 0, "remote");
    act(view, "merged");
    await notice("Merged ");
    expect(await h.app.vault.adapter.exists(SNAPSHOT)).toBe(false);
    expect(told()).toMatchSnapshot();
  });

  it("is kept, and the user told where, when the user edited it", async () => {
    await conflict();
    start("resolve-conflict");
    act(await editorTab(), "keep-both");
    await notice("Kept both");
    await waitFor(() => tabs() === 0);
    await h.write(SNAPSHOT, `${THEIRS}my notes on HackMD's version\n`);

    start("resolve-conflict");
    const view = await editorTab();
    accept(view, 0, "local");
    act(view, "merged");
    // The notice names the snapshot it kept.
    expect(await notice("Merged ")).toContain(SNAPSHOT);
    expect(told()).toMatchSnapshot();
    expect(await h.read(SNAPSHOT)).toBe(`${THEIRS}my notes on HackMD's version\n`);
  });
});

describe("diff views, the status bar and the navigation commands", () => {
  it("shows the changes since the last sync without a request, and compares with HackMD in one GET", async () => {
    await h.write(PATH, MINE);
    h.app.workspace.openPath(PATH);
    const before = h.requestCount();
    start("show-changes-since-sync");
    let view = await diffTab();
    const sinceSync = view.getDisplayText();
    expect(h.requestCount()).toBe(before);
    h.app.workspace.getLeavesOfType(MERGE_VIEW_TYPE)[0]!.detach();

    h.emu.collaboratorEdit(NOTE, { content: THEIRS }, { as: "ada" });
    start("compare-with-hackmd");
    view = await diffTab();
    expect({ sinceSync, compared: view.getDisplayText() }).toMatchSnapshot();
    expect(
      h.emu
        .requests()
        .slice(before)
        .map((r) => r.route),
    ).toEqual(["GET /notes/:noteId"]);
    expect(
      [...view.contentEl.querySelectorAll(".cm-deletedChunk")].map((chunk) => chunk.textContent).join("|"),
    ).toContain("theirs 3");
    // The navigation commands work while a merge or diff tab is active.
    expect(command("next-conflict").checkCallback?.(true)).toBe(true);
    expect(command("previous-conflict").checkCallback?.(false)).toBe(true);
  });

  it("says so instead of opening an empty diff", async () => {
    h.app.workspace.openPath(PATH);
    await h.run("show-changes-since-sync");
    await h.run("compare-with-hackmd");
    expect(tabs()).toBe(0);
    expect(told().slice(-2)).toMatchSnapshot();
    expect(command("next-conflict").checkCallback?.(true)).toBe(false);
  });

  it("the status item opens the merge editor on a conflict and the diff on local changes", async () => {
    const item = h.fake.statusBarItems[0]!;
    await h.write(PATH, MINE);
    h.app.workspace.openPath(PATH);
    await waitFor(() => item.text === statusBarText({ state: "local_changes", quota: null, showUntracked: false }));
    expect(item.attrs.get("aria-label")).toBe(STATUS_CLICK.local_changes?.tip);
    item.click();
    await diffTab();
    h.app.workspace.getLeavesOfType(MERGE_VIEW_TYPE)[0]!.detach();

    h.emu.collaboratorEdit(NOTE, { content: THEIRS }, { as: "ada" });
    await h.run("show-status");
    await waitFor(() => item.text === statusBarText({ state: "conflict", quota: null, showUntracked: false }));
    expect(item.attrs.get("aria-label")).toBe(STATUS_CLICK.conflict?.tip);
    item.click();
    const view = await editorTab();
    expect(view.editor?.statuses()).toHaveLength(1);
  });
});

/** The diff tab's view once it shows its diff. */
async function diffTab(): Promise<MergeEditorView> {
  let view: MergeEditorView | undefined;
  await waitFor(() => {
    view = h.app.workspace.getLeavesOfType(MERGE_VIEW_TYPE)[0]?.view as MergeEditorView | undefined;
    return view?.contentEl.querySelector(".hackmd-bridge-diff .cm-editor") != null;
  });
  return view!;
}
