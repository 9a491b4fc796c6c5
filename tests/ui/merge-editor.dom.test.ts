/**
 * The merge editor and the diff view (src/ui/merge-editor-dom.ts) rendered with real CodeMirror on
 * jsdom: the panes, the per-conflict choices and what the result holds, typing and undo, the
 * guard on every whole-file button, navigation, drafts, and no innerHTML. The save path against
 * HackMD is in tests/plugin/merge-editor.dom.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { undo } from "@codemirror/commands";
import { EditorView } from "@codemirror/view";
import {
  buildConflictViewModel,
  linesWords,
  type ConflictChoice,
  type ConflictViewModel,
  type MergeQuestion,
} from "../../src/ui/conflict-view-model";
import {
  renderDiffView,
  renderMergeEditor,
  type MergeDraft,
  type MergeEditorHandle,
} from "../../src/ui/merge-editor-dom";

const lines = (n: number, change: Record<number, string> = {}): string =>
  Array.from({ length: n }, (_, i) => `${change[i + 1] ?? `L${i + 1}`}\n`).join("");

/**
 * Two conflicts (lines 3 and 7), a clean change of mine (line 1) and of theirs (line 5); theirs has
 * markup. Short, because without layout (jsdom) CodeMirror renders only about a dozen lines.
 */
function conflicted(): ConflictViewModel {
  return buildConflictViewModel({
    base: lines(8),
    local: lines(8, { 1: "mine 1", 3: "mine 3", 7: "mine 7" }),
    remote: lines(8, { 3: "theirs <b>3</b>", 5: "theirs 5", 7: "theirs 7" }),
    remoteHash: `sha256:${"b".repeat(64)}`,
    localPath: "Notes/plan.md",
    noteId: "note1",
  });
}

interface Mounted {
  parent: HTMLElement;
  editor: MergeEditorHandle;
  answers: ConflictChoice[];
  questions: MergeQuestion[];
  /** What the next question is answered (default: no). */
  reply: { value: boolean };
}

function mount(vm: ConflictViewModel, draft?: MergeDraft): Mounted {
  const parent = document.body.createDiv();
  const answers: ConflictChoice[] = [];
  const questions: MergeQuestion[] = [];
  const reply = { value: false };
  const editor = renderMergeEditor(parent, {
    viewModel: vm,
    draft,
    confirm: (question) => {
      questions.push(question);
      return Promise.resolve(reply.value);
    },
    onAnswer: (choice) => answers.push(choice),
  });
  return { parent, editor, answers, questions, reply };
}

const q = <T extends HTMLElement = HTMLElement>(parent: HTMLElement, selector: string): T => {
  const el = parent.querySelector<T>(selector);
  if (!el) throw new Error(`no ${selector}`);
  return el;
};
const action = (m: Mounted, name: string): HTMLButtonElement =>
  q<HTMLButtonElement>(m.parent, `.hackmd-bridge-merge-actions [data-action="${name}"]`);
const accept = (m: Mounted, conflict: number, choice: string): HTMLButtonElement =>
  q<HTMLButtonElement>(
    m.parent,
    `.hackmd-bridge-merge-conflict-bar[data-conflict="${conflict}"] [data-choice="${choice}"]`,
  );
const resultView = (m: Mounted): EditorView => {
  const view = EditorView.findFromDOM(q(m.parent, ".hackmd-bridge-merge-pane.mod-result .cm-editor"));
  if (!view) throw new Error("no result editor");
  return view;
};
const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

let mounted: Mounted[] = [];
const track = (m: Mounted): Mounted => {
  mounted.push(m);
  return m;
};
afterEach(() => {
  for (const m of mounted) m.editor.destroy();
  mounted = [];
  document.body.empty();
});

describe("merge editor", () => {
  it("shows mine and theirs against the base over an editable result, with a bar per conflict and the actions below", () => {
    const m = track(mount(conflicted()));
    const panes = [...m.parent.querySelectorAll(".hackmd-bridge-merge-pane")].map((pane) =>
      pane.getAttribute("data-pane"),
    );
    expect(panes).toEqual(["mine", "theirs", "result"]);
    expect(q(m.parent, ".hackmd-bridge-merge-title").textContent).toContain("plan.md");
    const opened = q(m.parent, ".hackmd-bridge-merge-progress").textContent;
    expect(m.parent.querySelectorAll(".hackmd-bridge-merge-conflict-bar")).toHaveLength(2);
    // The read-only panes label where each conflict is on their side.
    const labels = [...m.parent.querySelectorAll(".mod-mine .hackmd-bridge-merge-pane-label")].map(
      (el) => el.textContent,
    );
    expect(labels).toHaveLength(2);
    expect(q(m.parent, ".mod-mine .cm-content").getAttribute("contenteditable")).toBe("false");
    expect(q(m.parent, ".mod-result .cm-content").getAttribute("contenteditable")).toBe("true");
    // The result starts with the settled lines and the base's lines where the conflicts are.
    expect(m.editor.resultText).toBeDefined();
    expect(resultView(m).state.doc.toString()).toBe(lines(8, { 1: "mine 1", 5: "theirs 5" }));
    // Clean changes are marked by origin; markup stays text.
    expect(q(m.parent, ".mod-result .cm-line[data-origin='mine']").textContent).toBe("mine 1");
    expect(q(m.parent, ".mod-result .cm-line[data-origin='theirs']").textContent).toBe("theirs 5");
    expect(m.parent.querySelector(".mod-theirs b")).toBeNull();
    expect(
      [...m.parent.querySelectorAll(".hackmd-bridge-merge-actions button")].map((b) => b.getAttribute("data-action")),
    ).toEqual(["merged", "keep-both", "keep-mine", "take-theirs", "cancel"]);
    expect(action(m, "keep-mine").classList.contains("mod-warning")).toBe(true);
    expect(action(m, "take-theirs").classList.contains("mod-warning")).toBe(true);
    const words = {
      title: q(m.parent, ".hackmd-bridge-merge-title").textContent,
      progress: opened,
      labels,
      buttons: [...m.parent.querySelectorAll(".hackmd-bridge-merge-actions button")].map((b) => b.textContent),
      bar: q(m.parent, ".hackmd-bridge-merge-conflict-bar").textContent,
    };
    expect(words).toMatchSnapshot();
  });

  it("saves only when every conflict is handled, and the result is the engine's resolution of the choices", () => {
    const vm = conflicted();
    const m = track(mount(vm));
    expect(action(m, "merged").disabled).toBe(true);
    accept(m, 0, "remote").click();
    expect(m.editor.statuses()).toEqual(["remote", "unresolved"]);
    expect(action(m, "merged").disabled).toBe(true);
    expect(accept(m, 0, "remote").getAttribute("aria-pressed")).toBe("true");
    accept(m, 1, "both").click();
    const progress = q(m.parent, ".hackmd-bridge-merge-progress").textContent;
    expect(progress).toContain("2");
    expect(progress).toMatchSnapshot();
    expect(action(m, "merged").disabled).toBe(false);
    // Changing a choice replaces that conflict's lines.
    accept(m, 0, "local").click();
    expect(resultView(m).state.doc.toString()).toBe(vm.result(["local", "both"]));
    action(m, "merged").click();
    expect(m.answers).toEqual([{ action: "merged", text: vm.result(["local", "both"]) }]);
    expect(action(m, "merged").disabled).toBe(true);
  });

  it("counts typing in a conflict as handling it, saves the text as typed, and undo brings the conflict back", () => {
    const vm = conflicted();
    const m = track(mount(vm));
    accept(m, 1, "local").click();
    const view = resultView(m);
    const line3 = view.state.doc.line(3);
    view.dispatch({ changes: { from: line3.from, to: line3.to, insert: "my own 3" } });
    expect(m.editor.statuses()).toEqual(["edited", "local"]);
    const edited = q(
      m.parent,
      ".hackmd-bridge-merge-conflict-bar[data-conflict='0'] .hackmd-bridge-merge-conflict-status",
    ).textContent;
    expect(edited).not.toBe(
      q(m.parent, ".hackmd-bridge-merge-conflict-bar[data-conflict='1'] .hackmd-bridge-merge-conflict-status")
        .textContent,
    );
    expect(edited).toMatchSnapshot();
    undo(view);
    expect(m.editor.statuses()).toEqual(["unresolved", "local"]);
    undo(view);
    expect(m.editor.statuses()).toEqual(["unresolved", "unresolved"]);
    accept(m, 0, "both").click();
    accept(m, 1, "remote").click();
    const last = view.state.doc.line(view.state.doc.lines - 1);
    view.dispatch({ changes: { from: last.to, insert: " (typed)" } });
    action(m, "merged").click();
    expect(m.answers).toEqual([{ action: "merged", text: view.state.doc.toString() }]);
    expect(view.state.doc.toString()).toContain("L8 (typed)\n");
  });

  it.each(["keep-mine", "take-theirs"] as const)(
    "%s always asks in the warning style, says what is lost and that a copy is kept, and acts only on yes",
    async (name) => {
      const m = track(mount(conflicted()));
      action(m, name).click();
      await flush();
      expect(m.questions).toHaveLength(1);
      expect(m.questions[0]).toMatchObject({ warning: true });
      // What is lost, counted, and where the copy goes.
      expect(m.questions[0]?.paragraphs.join(" ")).toContain("3 lines added, 3 removed");
      expect(m.questions[0]?.paragraphs.join(" ")).toContain(".trash");
      expect(m.questions[0]).toMatchSnapshot();
      expect(m.answers).toEqual([]);
      m.reply.value = true;
      action(m, name).click();
      await flush();
      expect(m.answers).toEqual([{ action: name }]);
    },
  );

  it("names the per-conflict choices a whole-file button would drop", async () => {
    const m = track(mount(conflicted()));
    accept(m, 0, "both").click();
    action(m, "take-theirs").click();
    await flush();
    expect(m.questions[0]?.paragraphs.at(-1)).toContain("1 of 2");
    expect(m.questions[0]?.paragraphs.at(-1)).toMatchSnapshot();
  });

  it("keep both and cancel answer at once when nothing is lost, and ask when choices would be dropped", async () => {
    const plain = track(mount(conflicted()));
    action(plain, "keep-both").click();
    await flush();
    expect(plain.questions).toEqual([]);
    expect(plain.answers).toEqual([{ action: "keep-both" }]);
    const cancelled = track(mount(conflicted()));
    action(cancelled, "cancel").click();
    await flush();
    expect(cancelled.answers).toEqual([{ action: "cancel" }]);

    for (const name of ["keep-both", "cancel"] as const) {
      const m = track(mount(conflicted()));
      accept(m, 1, "local").click();
      action(m, name).click();
      await flush();
      expect(m.questions.map((question) => question.title)).toEqual([
        name === "cancel" ? "Discard your merge?" : "Keep both versions and drop your merge?",
      ]);
      expect(m.answers).toEqual([]);
      m.reply.value = true;
      action(m, name).click();
      await flush();
      expect(m.answers).toEqual([{ action: name }]);
    }
  });

  it("moves between conflicts, wrapping, and marks the current one", () => {
    const m = track(mount(conflicted()));
    const current = (): string | null | undefined =>
      m.parent.querySelector(".hackmd-bridge-merge-conflict-bar.is-current")?.getAttribute("data-conflict");
    expect(current()).toBeUndefined();
    q<HTMLButtonElement>(m.parent, "[data-nav='next']").click();
    expect(current()).toBe("0");
    m.editor.nextConflict();
    expect(current()).toBe("1");
    m.editor.nextConflict();
    expect(current()).toBe("0");
    q<HTMLButtonElement>(m.parent, "[data-nav='previous']").click();
    expect(current()).toBe("1");
  });

  it("hands back a draft of unfinished work and restores it", () => {
    const vm = conflicted();
    const first = track(mount(vm));
    expect(first.editor.draft()).toBeUndefined();
    accept(first, 0, "remote").click();
    const draft = first.editor.draft();
    expect(draft).toBeDefined();
    const second = track(mount(vm, draft));
    expect(second.editor.statuses()).toEqual(["remote", "unresolved"]);
    expect(resultView(second).state.doc.toString()).toBe(resultView(first).state.doc.toString());
  });

  it("switches panes with its tabs (the narrow layout shows one at a time)", () => {
    const m = track(mount(conflicted()));
    const root = q(m.parent, ".hackmd-bridge-merge");
    expect(root.getAttribute("data-show")).toBe("result");
    q<HTMLButtonElement>(m.parent, ".hackmd-bridge-merge-tabs [data-pane='theirs']").click();
    expect(root.getAttribute("data-show")).toBe("theirs");
    expect(q(m.parent, ".hackmd-bridge-merge-tabs [data-pane='theirs']").getAttribute("aria-selected")).toBe("true");
  });

  it("offers a clean merge for saving at once", () => {
    const vm = buildConflictViewModel({
      base: lines(10),
      local: lines(10, { 1: "mine 1" }),
      remote: lines(10, { 9: "theirs 9" }),
      remoteHash: `sha256:${"c".repeat(64)}`,
      localPath: "plan.md",
      noteId: "n",
    });
    const m = track(mount(vm));
    expect(m.parent.querySelectorAll(".hackmd-bridge-merge-conflict-bar")).toHaveLength(0);
    expect(action(m, "merged").disabled).toBe(false);
    action(m, "merged").click();
    expect(m.answers).toEqual([{ action: "merged", text: vm.clean }]);
  });

  it("never uses innerHTML", () => {
    const setter = jest.spyOn(Element.prototype, "innerHTML", "set");
    const m = track(mount(conflicted()));
    accept(m, 0, "both").click();
    expect(setter).not.toHaveBeenCalled();
    setter.mockRestore();
    for (const file of ["merge-editor-dom.ts", "merge-conflicts.ts", "merge-editor-view.ts"]) {
      expect(readFileSync(join(__dirname, "../../src/ui", file), "utf8")).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML/,
      );
    }
  });
});

describe("diff view", () => {
  it("shows the file against the other version, read-only, with a summary and navigation", () => {
    const parent = document.body.createDiv();
    const handle = renderDiffView(parent, {
      title: "Changes in plan.md since the last sync",
      description: "What this file changed since it last matched HackMD.",
      original: lines(10),
      modified: lines(10, { 3: "new 3" }),
      originalLabel: "Only at the last sync",
      modifiedLabel: "Only in this file now",
    });
    // The description, then the count.
    expect(q(parent, ".hackmd-bridge-merge-progress").textContent).toBe(
      `What this file changed since it last matched HackMD. ${linesWords({ added: 1, removed: 1 })}.`,
    );
    expect(q(parent, ".cm-content").getAttribute("contenteditable")).toBe("false");
    expect(parent.querySelector(".cm-deletedChunk")?.textContent).toContain("L3");
    expect(() => {
      handle.nextChange();
      handle.previousChange();
    }).not.toThrow();
    handle.destroy();
    expect(parent.childElementCount).toBe(0);
  });
});
