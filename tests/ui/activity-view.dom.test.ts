/** The activity log view reads as sentences: what the agent did, which file, how it ended. */
import { App, WorkspaceLeaf } from "../__mocks__/obsidian";
import { ActivityLog } from "../../src/obsidian/activity-log";
import { ActivityView, outcomeWords } from "../../src/ui/activity-view";
import { NotePickerModal } from "../../src/ui/note-picker";

const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe("activity view", () => {
  it("shows what the agent did, the tracked file's name and a readable outcome; the tool name only as a tooltip", async () => {
    const log = new ActivityLog({ capacity: 10, now: () => 0 });
    log.record({
      request_id: "r1",
      tool: "hackmd_push_note",
      ok: false,
      error_kind: "conflict",
      duration_ms: 1500,
      note_id: "abcdefghijklmnop",
    });
    log.record({ request_id: "r2", tool: "hackmd_get_note", ok: true, duration_ms: 40, note_id: "zzzzzzzzzzzzzz" });
    const view = new ActivityView(new WorkspaceLeaf(new App()) as never, log, (id) =>
      Promise.resolve(id === "abcdefghijklmnop" ? "Notes/plan.md" : undefined),
    );
    view.render();
    await flush();
    const items = [...view.contentEl.querySelectorAll("li")];
    const tools = items.map((item) => item.querySelector(".hackmd-bridge-activity-tool")?.textContent);
    // Words, never the tool's name.
    expect(tools.join(" ")).not.toMatch(/hackmd_/);
    expect(items[1]?.querySelector(".hackmd-bridge-activity-tool")?.getAttribute("aria-label")).toBe(
      "hackmd_push_note",
    );
    expect(items[1]?.querySelector(".hackmd-bridge-activity-note")?.textContent).toBe("Notes/plan.md");
    // An untracked note shows a short id, never the whole one.
    const untracked = items[0]?.querySelector(".hackmd-bridge-activity-note")?.textContent;
    expect(untracked).toContain("zzzzzzzz");
    expect(untracked).not.toContain("zzzzzzzzzzzzzz");
    const details = items.map((item) => item.querySelector(".hackmd-bridge-activity-detail")?.textContent);
    expect(details[1]).toMatch(/1\.5 s$/);
    expect(details[0]).toMatch(/40 ms$/);
    expect({ tools, untracked, details }).toMatchSnapshot();
    expect(view.contentEl.textContent).not.toContain("abcdefghijklmnop");
  });

  it("keeps the brand's capitals in an outcome", () => {
    expect(outcomeWords({ ok: false, errorKind: "auth" })).toContain("HackMD");
    expect(outcomeWords({ ok: false, errorKind: "auth" }).startsWith(outcomeWords({ ok: false }))).toBe(true);
  });
});

describe("note picker", () => {
  it("shows titles and workspaces, and an id only to tell apart notes that share both", () => {
    const picker = new NotePickerModal(new App() as never, [
      { teamPath: null, noteId: "aaaaaaaaaaaa", title: "Plan" },
      { teamPath: null, noteId: "bbbbbbbbbbbb", title: "Plan" },
      { teamPath: "lab", noteId: "cccccccccccc", title: "Plan" },
      { teamPath: null, noteId: "dddddddddddd", title: "" },
    ]);
    expect(picker.getItems().map((note) => picker.getItemText(note))).toEqual([
      "Plan · Personal · aaaaaaaa",
      "Plan · Personal · bbbbbbbb",
      "Plan · Team lab",
      "Untitled note · Personal",
    ]);
  });
});
