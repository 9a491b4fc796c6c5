/**
 * The screenshot page: mounts the real merge editor (src/ui/merge-editor-dom.ts) and diff view
 * outside Obsidian, on Obsidian's DOM helpers (jest-environment-obsidian's copy of them) and with
 * theme variables close to Obsidian's default theme (obsidian-theme.css). Built and shot by
 * scripts/screenshots.mjs; the query string picks `theme` (light|dark) and `view`
 * (merge|diff|confirm).
 */
// Obsidian's DOM helpers (createDiv, setText…), as the dom tests get them; the package exports no such path.
import "../../node_modules/jest-environment-obsidian/dist/runtime/extensions.js";
import { buildConflictViewModel, wholeFileQuestion } from "../../src/ui/conflict-view-model";
import { renderDiffView, renderMergeEditor } from "../../src/ui/merge-editor-dom";

const params = new URLSearchParams(location.search);
document.body.addClass(params.get("theme") === "light" ? "theme-light" : "theme-dark");

const BASE = `# Weekly sync — Project Aurora

## Attendees
- Ada
- Grace
- Linus

## Agenda
1. Field notes: offline sync
2. Release plan for 0.4
3. Open questions

## Decisions
- Ship the offline cache behind a flag.
- Review the sync spec on Thursday.

## Action items
- [ ] Ada: draft the migration guide
- [ ] Grace: benchmark the new cache
- [ ] Linus: triage the import bugs

## Notes
The cache keeps the last 200 notes on the device.
Conflicts are rare, but they must never lose text.
We meet again next Tuesday at 10:00.
`;

/** Mine: a new attendee, a changed decision, a new action item. */
const MINE = BASE.replace("- Linus\n", "- Linus\n- Margaret\n")
  .replace("- Review the sync spec on Thursday.", "- Review the sync spec on Wednesday, with the field team.")
  .replace(
    "- [ ] Linus: triage the import bugs\n",
    "- [ ] Linus: triage the import bugs\n- [ ] Margaret: write the release notes\n",
  );

/** Theirs: a reworded agenda item, the same decision changed otherwise, the same place appended to. */
const THEIRS = BASE.replace("2. Release plan for 0.4", "2. Release plan for 0.4 (date moved to May 12)")
  .replace("- Review the sync spec on Thursday.", "- Review the sync spec on Friday.")
  .replace(
    "- [ ] Linus: triage the import bugs\n",
    "- [ ] Linus: triage the import bugs\n- [ ] Grace: book the room for the demo\n",
  )
  .replace("We meet again next Tuesday at 10:00.", "We meet again next Tuesday at 10:30.");

const vm = buildConflictViewModel({
  base: BASE,
  local: MINE,
  remote: THEIRS,
  remoteHash: `sha256:${"0".repeat(64)}`,
  localPath: "Meetings/Weekly sync.md",
  noteId: "aurora",
});

const root = document.body.createDiv({ cls: "workspace-leaf-content" });
const header = root.createDiv({ cls: "view-header" });
const content = root.createDiv({ cls: ["view-content", "hackmd-bridge-merge-view"] });

const view = params.get("view") ?? "merge";
if (view === "diff") {
  header.createDiv({ cls: "view-header-title", text: "Weekly sync compared with HackMD" });
  renderDiffView(content, {
    title: "Weekly sync.md compared with HackMD",
    description: "Your file against the note on HackMD as it is now.",
    original: THEIRS,
    modified: MINE,
    originalLabel: "Only on HackMD",
    modifiedLabel: "Only in this file",
  });
} else {
  header.createDiv({ cls: "view-header-title", text: "Merge Weekly sync.md" });
  const editor = renderMergeEditor(content, {
    viewModel: vm,
    confirm: () => Promise.resolve(false),
    onAnswer: () => undefined,
  });
  // Half way through: the first conflict taken "both" and in view, the second still open.
  editor.pick(0, "both");
  editor.nextConflict();
  editor.previousConflict();
  if (params.get("pane") !== null) editor.showPane(params.get("pane") as "mine" | "theirs" | "result");
  if (view === "confirm") showConfirm();
}

/** Obsidian's confirmation modal, drawn with its own classes, asking before "Take theirs". */
function showConfirm(): void {
  const question = wholeFileQuestion(vm, "take-theirs", { chosen: 1, edited: false });
  if (!question) return;
  const container = document.body.createDiv({ cls: "modal-container" });
  container.createDiv({ cls: "modal-bg" });
  const modal = container.createDiv({ cls: "modal" });
  modal.createDiv({ cls: "modal-title", text: question.title });
  const body = modal.createDiv({ cls: "modal-content" });
  for (const paragraph of question.paragraphs) body.createEl("p", { text: paragraph });
  const buttons = modal.createDiv({ cls: "modal-button-container" });
  buttons.createEl("button", { text: "Cancel" });
  buttons.createEl("button", { cls: "mod-warning", text: question.confirmText });
}

document.body.setAttr("data-ready", "true");
