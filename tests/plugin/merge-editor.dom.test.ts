/**
 * Issue 9 through the real plugin on the fake `obsidian` module (with real DOM and CodeMirror) and
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
import { startPlugin, waitFor, type PluginHarness } from "./helpers";

const NOTE = DEMO_NOTE_IDS.weeklySync;
const PATH = "HackMD/Weekly sync — Project Aurora.md";
const SNAPSHOT = "HackMD/Weekly sync — Project Aurora.remote.md";
/** Short bodies: without layout, CodeMirror renders only about a dozen lines. */
const edit = (change: Record<number, string> = {}): string => Array.from({ length: 8 }, (_, i) => `${change[i + 1] ?? `line ${i + 1}`}\n`).join("");
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
const accept = (view: MergeEditorView, conflict: number, choice: string): void => click(view, `.hackmd-bridge-merge-conflict-bar[data-conflict="${conflict}"] [data-choice="${choice}"]`);
const act = (view: MergeEditorView, action: string): void => click(view, `.hackmd-bridge-merge-actions [data-action="${action}"]`);
const tabs = (): number => h.app.workspace.getLeavesOfType(MERGE_VIEW_TYPE).length;

/** The open confirmation modal (the warning-styled one), once it is there. */
async function confirmation(): Promise<Modal> {
  await waitFor(() => Modal.opened.some((modal) => modal.contentEl.querySelector("button.mod-warning") !== null));
  return Modal.opened.find((modal) => modal.contentEl.querySelector("button.mod-warning") !== null)!;
}
const answer = (modal: Modal, yes: boolean): void => {
  const buttons = [...modal.contentEl.querySelectorAll("button")];
  (yes ? buttons.find((b) => b.classList.contains("mod-warning")) : buttons.find((b) => b.textContent === "Cancel"))!.click();
};

/** Waits for a notice that starts with `prefix`, returns it. */
async function notice(prefix: string): Promise<string> {
  await waitFor(() => Notice.shown.some((text) => text.startsWith(prefix)));
  return Notice.shown.filter((text) => text.startsWith(prefix)).at(-1)!;
}

beforeEach(async () => {
  h = await startPlugin({ data: { defaultPullFolder: "HackMD" } });
  Notice.shown.length = 0;
  h.emu.collaboratorEdit(NOTE, { content: BASE }, { as: "ada" });
  h.plugin.ui.askNoteRef = () => Promise.resolve(NOTE);
  expect(await h.run("pull-note")).toBe(`Pulled “Weekly sync — Project Aurora” to ${PATH}.`);
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
    expect(view.getDisplayText()).toBe("Merge Weekly sync — Project Aurora.md");
    expect(el(view, ".hackmd-bridge-merge-progress").textContent).toBe("1 conflict: 1 left to choose.");
    // The auto-merge tried first and found the overlap; nothing was sent.
    expect(remote()).toBe(THEIRS);
    accept(view, 0, "both");
    expect((el(view, '[data-action="merged"]') as HTMLButtonElement).disabled).toBe(false);
    pushes.length = 0;
    act(view, "merged");

    const merged = edit({ 1: "mine 1", 3: "theirs 3", 6: "mine 6\ntheirs 6" });
    // The auto-merge attempt left the conflict's snapshot; the resolution removes it.
    expect(await notice("Merged ")).toBe(`Merged ${PATH} and pushed it to HackMD. Removed ${SNAPSHOT}, the copy of HackMD's version it no longer needs.`);
    expect(await h.app.vault.adapter.exists(SNAPSHOT)).toBe(false);
    expect(remote()).toBe(merged);
    expect(await h.read(PATH)).toBe(merged);
    expect(pushes.map((push) => [push.strategy, push.expectedRemoteHash])).toEqual([["safe", await bodyHash(THEIRS)]]);
    await waitFor(() => tabs() === 0);
    expect(await h.run("sync-file")).toBe(`${PATH} is in sync with HackMD.`);
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
    expect(await notice("Your merged text is saved")).toBe(
      `Your merged text is saved in the file and shown as yours. The note of ${PATH} changed on HackMD again; nothing was sent. Showing its new version.`,
    );
    expect(h.emu.requests().filter((r) => r.route === "PATCH /notes/:noteId").length).toBe(patchesBefore);
    expect(await h.read(PATH)).toBe(result);
    const panes = (name: string): string => EditorView.findFromDOM(el(second, `.hackmd-bridge-merge-pane.mod-${name} .cm-editor`))!.state.doc.toString();
    expect(panes("mine")).toBe(result);
    expect(panes("theirs")).toBe(newer);
    expect(tabs()).toBe(1);
    accept(second, 0, "local");
    act(second, "merged");
    expect(await notice("Merged ")).toBe(`Merged ${PATH} and pushed it to HackMD.`);
    expect(remote()).toBe(edit({ 1: "mine 1", 3: "theirs 3", 6: "mine 6", 8: "theirs 8" }));
    expect(pushes.at(-1)?.expectedRemoteHash).toBe(await bodyHash(newer));
  });

  it("take theirs asks in the warning style, writes nothing on no, and on yes keeps a copy of the file in .trash", async () => {
    await conflict();
    start("resolve-conflict");
    const view = await editorTab();
    act(view, "take-theirs");
    const modal = await confirmation();
    expect(modal.titleEl.textContent).toBe("Replace your file with HackMD's version?");
    expect(modal.contentEl.textContent).toContain("Your edits since the last sync (2 lines added, 2 removed) are dropped from the file.");
    answer(modal, false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await h.read(PATH)).toBe(MINE);
    expect(tabs()).toBe(1);

    act(view, "take-theirs");
    answer(await confirmation(), true);
    const told = await notice("Replaced ");
    expect(told).toMatch(/^Replaced .* with HackMD's version\. A copy of your version is kept in the vault's \.trash folder as "Weekly sync — Project Aurora \(my version [\d-]+ [\d.]+\)\.md"\.$/);
    expect(await h.read(PATH)).toBe(THEIRS);
    const kept = (await h.app.vault.adapter.list(".trash")).files;
    expect(kept).toHaveLength(1);
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
    expect(modal.titleEl.textContent).toBe("Overwrite HackMD's version with yours?");
    expect(remote()).toBe(THEIRS);
    answer(modal, true);
    expect(await notice("Pushed ")).toMatch(/^Pushed .* to HackMD, replacing the version shown\. HackMD's previous text is kept as version "Before keep mine from Obsidian, \d{4}-\d{2}-\d{2} \d{2}:\d{2}" \([0-9a-f-]{36}\)\. A copy of HackMD's version is kept in the vault's \.trash folder as ".*\(HackMD version .*\)\.md"\.$/);
    expect(remote()).toBe(MINE);
    const kept = (await h.app.vault.adapter.list(".trash")).files;
    expect(await h.read(kept[0]!)).toBe(THEIRS);
  });

  it("a whole-file choice after per-conflict choices says they are dropped; cancel with work asks too", async () => {
    await conflict();
    start("resolve-conflict");
    const view = await editorTab();
    accept(view, 0, "remote");
    act(view, "keep-both");
    const modal = await confirmation();
    expect(modal.contentEl.textContent).toContain("Your choices for 1 of 1 conflict are dropped.");
    answer(modal, false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    act(view, "cancel");
    const discard = await confirmation();
    expect(discard.titleEl.textContent).toBe("Discard your merge?");
    answer(discard, true);
    await waitFor(() => tabs() === 0);
    expect(await h.read(PATH)).toBe(MINE);
    expect(remote()).toBe(THEIRS);
  });

  it("closing the tab keeps the unfinished merge, and resolving again restores it", async () => {
    await conflict();
    start("resolve-conflict");
    const view = await editorTab();
    accept(view, 0, "both");
    h.app.workspace.getLeavesOfType(MERGE_VIEW_TYPE)[0]!.detach();
    expect(await notice("Your unfinished merge")).toBe(`Your unfinished merge of ${PATH} is kept until Obsidian closes. Resolve the file again to continue.`);
    start("resolve-conflict");
    const again = await editorTab();
    expect(again.editor?.statuses()).toEqual(["both"]);
    expect(await notice("Restored")).toBe(`Restored your unfinished merge of ${PATH}.`);
  });
});

describe("the .remote.md snapshot", () => {
  it("is removed after the resolution when it is ours and unedited", async () => {
    await conflict();
    start("resolve-conflict");
    act(await editorTab(), "keep-both");
    expect(await notice("Kept both")).toBe(`Kept both versions: ${PATH} holds yours, ${SNAPSHOT} holds HackMD's.`);
    expect(await h.read(SNAPSHOT)).toBe(THEIRS);
    await waitFor(() => tabs() === 0);

    start("resolve-conflict");
    const view = await editorTab();
    accept(view, 0, "remote");
    act(view, "merged");
    expect(await notice("Merged ")).toBe(`Merged ${PATH} and pushed it to HackMD. Removed ${SNAPSHOT}, the copy of HackMD's version it no longer needs.`);
    expect(await h.app.vault.adapter.exists(SNAPSHOT)).toBe(false);
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
    expect(await notice("Merged ")).toBe(`Merged ${PATH} and pushed it to HackMD. ${SNAPSHOT} was kept: you edited it, so delete it yourself when you no longer need it.`);
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
    expect(view.getDisplayText()).toBe("Changes in Weekly sync — Project Aurora.md since the last sync");
    expect(h.requestCount()).toBe(before);
    h.app.workspace.getLeavesOfType(MERGE_VIEW_TYPE)[0]!.detach();

    h.emu.collaboratorEdit(NOTE, { content: THEIRS }, { as: "ada" });
    start("compare-with-hackmd");
    view = await diffTab();
    expect(view.getDisplayText()).toBe("Weekly sync — Project Aurora.md compared with HackMD");
    expect(h.emu.requests().slice(before).map((r) => r.route)).toEqual(["GET /notes/:noteId"]);
    expect([...view.contentEl.querySelectorAll(".cm-deletedChunk")].map((chunk) => chunk.textContent).join("|")).toContain("theirs 3");
    // The navigation commands work while a merge or diff tab is active.
    expect(command("next-conflict").checkCallback?.(true)).toBe(true);
    expect(command("previous-conflict").checkCallback?.(false)).toBe(true);
  });

  it("says so instead of opening an empty diff", async () => {
    h.app.workspace.openPath(PATH);
    expect(await h.run("show-changes-since-sync")).toBe(`${PATH} has not changed since the last sync.`);
    expect(await h.run("compare-with-hackmd")).toBe(`${PATH} matches its note on HackMD.`);
    expect(tabs()).toBe(0);
    expect(command("next-conflict").checkCallback?.(true)).toBe(false);
  });

  it("the status item opens the merge editor on a conflict and the diff on local changes", async () => {
    const item = h.fake.statusBarItems[0]!;
    await h.write(PATH, MINE);
    h.app.workspace.openPath(PATH);
    await waitFor(() => item.text === "HackMD: local changes");
    expect(item.attrs.get("aria-label")).toBe("Show changes since last sync");
    item.click();
    await diffTab();
    h.app.workspace.getLeavesOfType(MERGE_VIEW_TYPE)[0]!.detach();

    h.emu.collaboratorEdit(NOTE, { content: THEIRS }, { as: "ada" });
    expect(await h.run("show-status")).toBe(`${PATH}: conflict.`);
    await waitFor(() => item.text === "HackMD: conflict");
    expect(item.attrs.get("aria-label")).toBe("Open the merge editor");
    item.click();
    const view = await editorTab();
    expect(view.getDisplayText()).toBe("Merge Weekly sync — Project Aurora.md");
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
