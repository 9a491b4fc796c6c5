/**
 * Versions and comments through the real plugin on the fake `obsidian` module and the emulator: the "Note
 * history" view shows the version a force push left, compares and restores it (an unpushed
 * change); the "Comments" view lists and resolves the demo note's threads and counts the open
 * ones in the status bar. Neither view requests anything before it is opened.
 */
import { Modal, Notice } from "../__mocks__/obsidian";
import { DEMO_COMMENT_IDS, DEMO_NOTE_IDS } from "../../src/emulator";
import { COMMENTS_VIEW_TYPE, type CommentsView } from "../../src/ui/comments-view";
import { HISTORY_VIEW_TYPE, type NoteHistoryView } from "../../src/ui/history-view";
import { MERGE_VIEW_TYPE, type MergeEditorView } from "../../src/ui/merge-editor-view";
import { localSyncState } from "../../src/obsidian/sync-status";
import { startPlugin, waitFor, type PluginHarness } from "./helpers";

const NOTE = DEMO_NOTE_IDS.weeklySync;
const PATH = "HackMD/Weekly sync — Project Aurora.md";
let h: PluginHarness;

const routes = (since: number): string[] =>
  h.emu
    .requests()
    .slice(since)
    .map((r) => r.route ?? r.path);
const open = (id: string): void => {
  void h.fake.commands.find((c) => c.id === id)!.callback!();
};
async function view<T>(type: string, ready: (v: T) => boolean): Promise<T> {
  let found: T | undefined;
  await waitFor(() => {
    found = h.app.workspace.getLeavesOfType(type)[0]?.view as T | undefined;
    return found !== undefined && ready(found);
  });
  return found!;
}
const items = (v: { contentEl: HTMLElement }): HTMLElement[] => [...v.contentEl.querySelectorAll<HTMLElement>("li")];
const button = (root: HTMLElement, action: string): HTMLButtonElement =>
  root.querySelector<HTMLButtonElement>(`button[data-action="${action}"]`)!;

beforeEach(async () => {
  h = await startPlugin({ data: { defaultPullFolder: "HackMD" } });
  Notice.shown.length = 0;
});
afterEach(async () => {
  for (const modal of [...Modal.opened]) modal.close();
  await h.close();
});

test("loading the plugin requests nothing; the history view shows the version a force push left, compares it and restores it as an unpushed change", async () => {
  expect(h.requestCount()).toBe(0);
  h.plugin.ui.askNoteRef = () => Promise.resolve(NOTE);
  await h.run("pull-note");
  h.emu.collaboratorEdit(NOTE, { content: "theirs\n" }, { as: "ada" });
  await h.write(PATH, "mine\n");
  const forced = await h.plugin.services.deps.sync.push({
    localPath: PATH,
    strategy: "overwrite",
    confirm: true,
    confirmLargeFile: false,
    call: h.plugin.services.newCall(),
  });
  expect(forced.kind === "pushed" && forced.safety?.version?.made).toBe(true);
  h.app.workspace.openPath(PATH);

  const before = h.requestCount();
  open("open-note-history");
  const history = await view<NoteHistoryView>(HISTORY_VIEW_TYPE, (v) => items(v).length > 0);
  expect(routes(before)).toEqual(["GET /notes/:noteId/versions"]);
  const named = items(history).find((item) => item.classList.contains("hackmd-bridge-history-named"))!;
  expect(named.querySelector(".hackmd-bridge-history-name")?.textContent).toMatch(
    /^Before push from Obsidian, \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/,
  );
  // HackMD named the version of Ada's edit in place: it is her text, by her.
  expect(named.querySelector(".hackmd-bridge-history-detail")?.textContent).toContain("Ada Collaborator");

  // Compare with the file: the merge editor's diff tab, the version against the file.
  button(named, "compare-file").click();
  const diff = await view<MergeEditorView>(
    MERGE_VIEW_TYPE,
    (v) => v.getDisplayText().endsWith("compared with the file") && (v.contentEl.textContent ?? "").includes("theirs"),
  );
  expect(diff.contentEl.textContent).toContain("mine");
  expect(button(named, "compare-newer")).not.toBeNull();

  // Restore: asks, then writes the old text into the file; HackMD keeps ours, so it is an unpushed change.
  const restoring = h.requestCount();
  button(named, "restore").click();
  const asks = (modal: Modal): boolean => (modal.contentEl.textContent ?? "").includes("It becomes an unpushed change");
  await waitFor(() => Modal.opened.some(asks));
  const confirm = Modal.opened.find(asks)!;
  [...confirm.contentEl.querySelectorAll("button")].find((b) => b.textContent === "Restore")!.click();
  await waitFor(() => Notice.shown.some((text) => text.startsWith("Restored ")));
  expect(await h.read(PATH)).toBe("theirs\n");
  expect(h.emu.inspect().notes.find((note) => note.id === NOTE)?.content).toBe("mine\n");
  expect(routes(restoring)).toEqual(["GET /notes/:noteId/versions/:versionId", "POST /notes/:noteId/versions"]);
  expect(Notice.shown.at(-1)).toMatch(/HackMD's previous text is kept as version "Before restore from Obsidian, /);
  const services = h.plugin.services;
  expect(
    await localSyncState(
      { files: services.files, store: services.store, hashCache: services.hashCache, memory: services.status },
      PATH,
    ),
  ).toBe("local_changes");
});

test("the comments view lists the demo note's open threads, resolves one, and the status bar counts them", async () => {
  h.plugin.ui.askNoteRef = () => Promise.resolve(NOTE);
  await h.run("pull-note");
  h.app.workspace.openPath(PATH);
  const item = h.fake.statusBarItems[0]!;
  expect(item.text).not.toContain("open thread");

  const before = h.requestCount();
  open("open-comments");
  const comments = await view<CommentsView>(COMMENTS_VIEW_TYPE, (v) => items(v).length > 0);
  expect(routes(before)).toEqual(["GET /notes/:noteId/comments"]);
  expect(
    items(comments)
      .map((li) => li.dataset.commentId)
      .sort(),
  ).toEqual([DEMO_COMMENT_IDS.checklist, DEMO_COMMENT_IDS.headings].sort());
  const checklist = items(comments).find((li) => li.dataset.commentId === DEMO_COMMENT_IDS.checklist)!;
  expect(checklist.querySelector(".hackmd-bridge-comment-excerpt")?.textContent).toBe("Draft the field-test checklist");
  expect(checklist.textContent).toContain("Ada Collaborator");
  expect(checklist.textContent).toMatch(/\b1 reply\b/);
  await waitFor(() => item.text.includes("2 open threads"));

  const headings = items(comments).find((li) => li.dataset.commentId === DEMO_COMMENT_IDS.headings)!;
  button(headings, "resolve").click();
  await waitFor(() => items(comments).length === 1);
  await waitFor(() => item.text.includes("1 open thread"));
  expect(h.emu.inspect().comments.find((c) => c.id === DEMO_COMMENT_IDS.headings)?.threadState?.status).toBe("hidden");

  // Resolved threads on request, and reopened from there.
  button(comments.contentEl, "toggle-resolved").click();
  await waitFor(() => items(comments).length === 3);
  button(
    items(comments).find((li) => li.dataset.commentId === DEMO_COMMENT_IDS.headings)!,
    "reopen",
  ).click();
  await waitFor(() => item.text.includes("2 open threads"));
  // The list is fetched again after the change; wait for it, so nothing is in flight at the end.
  await waitFor(() =>
    items(comments).some((li) => li.dataset.commentId === DEMO_COMMENT_IDS.headings && button(li, "resolve") !== null),
  );
});

test("switching files only offers the other file's history; nothing is fetched until asked", async () => {
  h.plugin.ui.askNoteRef = () => Promise.resolve(NOTE);
  await h.run("pull-note");
  h.app.workspace.openPath(PATH);
  open("open-note-history");
  const history = await view<NoteHistoryView>(HISTORY_VIEW_TYPE, (v) => items(v).length > 0);
  await h.write("Loose.md", "# Loose\n");
  const before = h.requestCount();
  h.app.workspace.openPath("Loose.md");
  const offer = [...history.contentEl.querySelectorAll("button")].find(
    (b) => b.textContent === "Show history of Loose.md",
  )!;
  expect(offer).toBeDefined();
  expect(h.requestCount()).toBe(before);
  offer.click();
  await waitFor(() => history.contentEl.textContent?.includes("Loose.md is not linked to a HackMD note") === true);
  expect(h.requestCount()).toBe(before);
});
