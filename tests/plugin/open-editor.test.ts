/**
 * The editor's unsaved text: Obsidian saves an edited file about two seconds after
 * typing stops, so push and pull must make an open editor and the disk agree before they read or
 * write. Driven through the plugin's commands against the emulator; the fake editor (tests/__mocks__/
 * obsidian.ts) keeps typing off the disk until its delayed save runs on `workspace.timers`.
 */
import { Notice, type MarkdownView } from "../__mocks__/obsidian";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { ERROR_NOTICES } from "../../src/obsidian/notices";
import { startPlugin, waitFor, type PluginHarness } from "./helpers";

const NOTE = DEMO_NOTE_IDS.weeklySync;
const PATH = "HackMD/Weekly sync — Project Aurora.md";

let h: PluginHarness;
let base: string;
let view: MarkdownView;
/** Where this test's notices start; each flow's words are one snapshot (`notices()`). */
let firstNotice = 0;
const notices = (): string[] => Notice.shown.slice(firstNotice);
const writes = (): number => h.emu.requests().filter((entry) => entry.method !== "GET").length;

/** The note's body on the emulator, as HackMD shows it. */
function remote(): string | undefined {
  return h.emu.inspect().notes.find((note) => note.id === NOTE)?.content;
}

beforeEach(async () => {
  h = await startPlugin({ data: { defaultPullFolder: "HackMD" } });
  h.plugin.ui.askNoteRef = () => Promise.resolve(NOTE);
  firstNotice = Notice.shown.length;
  await h.run("pull-note");
  base = await h.read(PATH);
  // The pull opened the file in the editor (ObsidianUi.openFile → the active leaf).
  const leaf = h.app.workspace.getLeavesOfType("markdown")[0];
  view = leaf?.view as MarkdownView;
  expect(view.file?.path).toBe(PATH);
  expect(view.editor.getValue()).toBe(base);
});

afterEach(async () => {
  await h.close();
});

describe("an open editor with unsaved typing", () => {
  it("push sends the typed text, not the older text on disk", async () => {
    view.editor.setValue(`${base}- typed a moment ago\n`);
    // Obsidian has not saved yet: the disk still holds the pulled text, a save waits 2 s.
    expect(await h.read(PATH)).toBe(base);
    expect(h.app.workspace.timers.pending).toBe(1);

    await h.run("push-file");
    expect(remote()).toBe(`${base}- typed a moment ago\n`);
    expect(await h.read(PATH)).toBe(`${base}- typed a moment ago\n`);

    // The delayed save finds nothing left to write; the note and the file stay in step.
    await h.app.workspace.timers.advance(2000);
    const written = writes();
    await h.run("push-file");
    expect(writes()).toBe(written);
    expect(notices()).toMatchSnapshot();
  });

  it("a pull with overwrite refuses (unpushed edits), and the later delayed save reverts nothing", async () => {
    h.emu.collaboratorEdit(NOTE, { content: `${base}- remote line\n` }, { as: "ada" });
    view.editor.setValue(`${base}- typed, not saved\n`);

    // The note is tracked, so the pull command pulls with overwrite_local into its file.
    expect(await h.run("pull-note")).toBe(ERROR_NOTICES.unpushed_changes);
    // The editor was saved first, so the refusal saw the typing; nothing of it was lost.
    expect(await h.read(PATH)).toBe(`${base}- typed, not saved\n`);

    await h.app.workspace.timers.advance(2000);
    expect(view.editor.getValue()).toBe(`${base}- typed, not saved\n`);
    expect(await h.read(PATH)).toBe(`${base}- typed, not saved\n`);
    expect(remote()).toBe(`${base}- remote line\n`);

    // Both sides changed: a push reports the conflict instead of overwriting the remote line.
    h.plugin.ui.resolveConflict = undefined;
    await h.run("push-file");
    expect(remote()).toBe(`${base}- remote line\n`);
    expect(notices()).toMatchSnapshot();
  });
});

describe("an open editor without unsaved typing", () => {
  it("a pull shows the pulled text in the editor, and a later save does not revert it", async () => {
    // Typing that was saved (the delayed save ran) and pushed: the editor is clean.
    view.editor.setValue(`${base}- saved and pushed\n`);
    await h.app.workspace.timers.advance(2000);
    await h.run("push-file");
    expect(remote()).toBe(`${base}- saved and pushed\n`);

    h.emu.collaboratorEdit(NOTE, { content: `${base}- saved and pushed\n- remote line\n` }, { as: "ada" });
    await h.run("pull-note");
    const pulled = `${base}- saved and pushed\n- remote line\n`;
    expect(await h.read(PATH)).toBe(pulled);
    // The write went through the vault, so the editor reloaded it (never behind its back).
    await waitFor(() => view.editor.getValue() === pulled);

    await h.app.workspace.timers.advance(2000);
    await view.save();
    expect(await h.read(PATH)).toBe(pulled);
    expect(remote()).toBe(pulled);
    const written = writes();
    await h.run("sync-file");
    expect(writes()).toBe(written);
    expect(notices()).toMatchSnapshot();
  });
});
