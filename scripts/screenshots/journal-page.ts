/**
 * The screenshot page of the sync journal's UI: the real "Sync history" view
 * (src/ui/sync-history-view.ts) over a journal of a morning's writes — the user's pull and push, an
 * automatic round's merge and conflict, an agent session of four writes — and the real approval
 * modal (src/ui/approval-modal.ts) with "Edit text" open. `obsidian` is scripts/screenshots/obsidian-shim.ts.
 * Built and shot by scripts/screenshots-journal.mjs; the query picks `theme` and `view`
 * (history|approval).
 */
import "../../node_modules/jest-environment-obsidian/dist/runtime/extensions.js";
import { entryTexts } from "../../src/app/journal";
import type { JournalEntry } from "../../src/sync/journal";
import { ApprovalModal, approvalViewModel } from "../../src/ui/approval-modal";
import { SyncHistoryView } from "../../src/ui/sync-history-view";

const params = new URLSearchParams(location.search);
document.body.addClass(params.get("theme") === "light" ? "theme-light" : "theme-dark");

const h = (n: number): string => `sha256:${n.toString(16).padStart(8, "0").repeat(8)}`;
const at = (minute: number): number => new Date(2026, 11, 3, 9, minute, 12).getTime();
const me = { kind: "user", door: "obsidian" } as const;
const agent = { kind: "agent", door: "mcp", client: "claude-code", session: "s-1" } as const;
const entries: JournalEntry[] = [
  {
    v: 1,
    id: "1",
    at: at(2),
    actor: me,
    kind: "pull",
    branch: "pull",
    file: "Meetings/Weekly sync.md",
    note: { team_path: null, note_id: "weekly", title: "Weekly sync" },
    local: { after: h(0xa1) },
    remote: { before: h(0xa1), after: h(0xa1) },
    outcome: "pulled",
  },
  {
    v: 1,
    id: "2",
    at: at(9),
    actor: me,
    kind: "push",
    branch: "S3",
    file: "Meetings/Weekly sync.md",
    note: { team_path: null, note_id: "weekly", title: "Weekly sync" },
    local: { before: h(0xb2), after: h(0xb2) },
    remote: { before: h(0xa1), after: h(0xb2) },
    replaced: [{ side: "remote", hash: h(0xa1), where: "journal", path: "journal/text/a1.md" }],
    outcome: "pushed",
  },
  {
    v: 1,
    id: "3",
    at: at(15),
    actor: { kind: "auto" },
    kind: "merge",
    branch: "G7",
    file: "Specs/Offline sync.md",
    note: { team_path: "aurora", note_id: "spec", title: "Offline sync" },
    local: { before: h(0xc3), after: h(0xc4) },
    remote: { before: h(0xc5), after: h(0xc4) },
    replaced: [
      { side: "local", hash: h(0xc3), where: "journal", path: "journal/text/c3.md" },
      { side: "remote", hash: h(0xc5), where: "journal", path: "journal/text/c5.md" },
    ],
    outcome: "pushed",
  },
  {
    v: 1,
    id: "4",
    at: at(16),
    actor: { kind: "auto" },
    kind: "conflict",
    branch: "S7",
    file: "Reading list.md",
    note: { team_path: null, note_id: "reading", title: "Reading list" },
    local: { before: h(0xd1), after: h(0xd1) },
    remote: { before: h(0xd2), after: h(0xd2) },
    replaced: [{ side: "remote", hash: h(0xd2), where: "remote_md", path: "Reading list.remote.md" }],
    outcome: "conflict",
  },
  {
    v: 1,
    id: "5",
    at: at(21),
    actor: { ...agent, tool: "hackmd_pull_note" },
    kind: "pull",
    branch: "pull",
    file: "Research/CS101 sorting.md",
    note: { team_path: null, note_id: "cs101", title: "CS101 sorting" },
    local: { after: h(0xe1) },
    remote: { before: h(0xe1), after: h(0xe1) },
    written: { hash: h(0xe1), path: "journal/text/e1.md" },
    outcome: "pulled",
  },
  {
    v: 1,
    id: "6",
    at: at(22),
    actor: { ...agent, tool: "hackmd_update_note" },
    kind: "update_note",
    branch: "edit_note",
    note: { team_path: null, note_id: "weekly", title: "Weekly sync" },
    remote: { before: h(0xb2), after: h(0xe2) },
    replaced: [{ side: "remote", hash: h(0xb2), where: "journal", path: "journal/text/b2.md" }],
    written: { hash: h(0xe2), path: "journal/text/e2.md" },
    outcome: "done",
  },
  {
    v: 1,
    id: "7",
    at: at(23),
    actor: { ...agent, tool: "hackmd_create_note" },
    kind: "create_note",
    branch: "create_note",
    note: { team_path: null, note_id: "summary", title: "Summary of the week" },
    remote: { after: h(0xe3) },
    outcome: "done",
  },
  {
    v: 1,
    id: "8",
    at: at(24),
    actor: { ...agent, tool: "hackmd_push_note" },
    kind: "force_push",
    branch: "O3",
    file: "Reading list.md",
    note: { team_path: null, note_id: "reading", title: "Reading list" },
    local: { before: h(0xd1), after: h(0xd1) },
    remote: { before: h(0xd2), after: h(0xd1) },
    replaced: [
      { side: "remote", hash: h(0xd2), where: "version", version_id: "0b5e7c1a" },
      { side: "remote", hash: h(0xd2), where: "journal", path: "journal/text/d2.md" },
    ],
    written: { hash: h(0xd1), path: "journal/text/d1.md" },
    outcome: "pushed",
  },
];

/** The texts the journal kept (journal/text/), by hash; the agent's force push's "before" is gone. */
const weekly =
  "# Weekly sync\n\n## Decisions\n- Ship the offline cache behind a flag.\n- Review the sync spec on Thursday.\n";
const kept = new Map<string, string>([
  [h(0xe1), "# CS101 sorting\n\n- Insertion sort\n- Merge sort\n"],
  [h(0xb2), weekly],
  [h(0xe2), weekly.replace("on Thursday.", "on Wednesday, with the field team.")],
  [h(0xd1), "# Reading list\n\n- Designing Data-Intensive Applications\n"],
]);
const journal = { keptText: (hash: string) => Promise.resolve(kept.get(hash)) };

const view = params.get("view") ?? "history";
if (view === "history") {
  const root = document.body.createDiv({ cls: "workspace-leaf-content" });
  root.createDiv({ cls: "view-header" }).createDiv({ cls: "view-header-title", text: "Sync history" });
  const history = new SyncHistoryView({ containerEl: root } as never, {
    read: () => Promise.resolve(entries),
    subscribe: () => () => undefined,
    openOtherSide: () => Promise.resolve(),
    restore: () => Promise.resolve(),
    undoSession: () => Promise.resolve(),
    texts: (entry) => entryTexts(journal, entry),
  });
  void history.refresh().then(() => document.body.setAttr("data-ready", "true"));
} else {
  const before =
    "# Weekly sync\n\n## Decisions\n- Ship the offline cache behind a flag.\n- Review the sync spec on Thursday.\n";
  const after = before.replace("on Thursday.", "on Wednesday, with the field team.");
  const modal = new ApprovalModal(
    {} as never,
    approvalViewModel(
      {
        client: "claude-code",
        tool: "hackmd_update_note",
        change: {
          action: "edit_note",
          note: { teamPath: null, noteId: "weekly", title: "Weekly sync" },
          body: { where: "note", before, after },
        },
      },
      "Meetings/Weekly sync.md",
    ),
  );
  modal.open();
  [...modal.contentEl.querySelectorAll("button")].find((button) => button.textContent === "Edit text")?.click();
  const editor = modal.contentEl.querySelector("textarea");
  if (editor) editor.value = after.replace("with the field team", "with Ada and the field team");
  document.body.setAttr("data-ready", "true");
}
