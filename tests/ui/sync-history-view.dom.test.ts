/**
 * The "Sync history" view over a real journal (writes made through the agent tools and the
 * command's door against the emulator): entries read as sentences with who wrote and where the
 * replaced text lives, filters by note, actor and kind, an agent session grouped with "Undo
 * session", and Restore — both doing exactly what src/app/journal-undo.ts does.
 */
import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { entryTexts } from "../../src/app/journal";
import { App, WorkspaceLeaf } from "../__mocks__/obsidian";
import { undoJournalEntry, undoSession } from "../../src/app/journal-undo";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { textFile, type JournalEntry } from "../../src/sync/journal";
import { SyncHistoryView, type SyncHistorySource } from "../../src/ui/sync-history-view";
import { errorKind, ok, startBridge, type TestBridge } from "../helpers/bridge";

const A = DEMO_NOTE_IDS.readingList;
const C = DEMO_NOTE_IDS.weeklySync;

describe("sync history view", () => {
  let bridge: TestBridge;
  afterEach(async () => {
    await bridge.close();
  });

  it("groups an agent session, filters, and undoes the session and one write from its buttons", async () => {
    bridge = await startBridge({ cacheTtlMs: 0 });
    const { journal } = bridge.core.deps;
    const body = (id: string) => bridge.emu.inspect().notes.find((note) => note.id === id)?.content;
    const beforeC = body(C);
    ok(await bridge.call("hackmd_pull_note", { note_ref: A, local_path: "a.md" }));
    const hash = ok(await bridge.call("hackmd_get_note", { note_ref: C })).body_hash;
    ok(
      await bridge.call("hackmd_update_note", {
        note_ref: C,
        content: "# Changed by the agent\n",
        expected_hash: hash,
      }),
    );
    const undone: string[] = [];
    const source: SyncHistorySource = {
      read: () => journal.read(),
      subscribe: (listener) => journal.subscribe(listener),
      openOtherSide: () => Promise.resolve(),
      restore: async (entry: JournalEntry) => {
        undone.push((await undoJournalEntry(bridge.core.deps, entry)).message);
      },
      undoSession: async (session) => {
        for (const result of await undoSession(bridge.core.deps, session)) undone.push(result.message);
      },
    };
    const view = new SyncHistoryView(new WorkspaceLeaf(new App()) as never, source);
    await view.refresh();
    const text = (selector: string) =>
      [...view.contentEl.querySelectorAll(selector)].map((element) => element.textContent ?? "");
    expect(text(".hackmd-bridge-sync-history-session")).toEqual(["test: 2 writes in one sessionUndo session"]);
    expect(text(".hackmd-bridge-activity-tool")).toEqual(["Changed a note", "Pulled into the vault"]);
    expect(text(".hackmd-bridge-activity-client")).toEqual(["test (agent)", "test (agent)"]);
    expect(text(".hackmd-bridge-sync-history-replaced")[0]).toBe("Replaced: HackMD text kept in the journal");
    expect(view.contentEl.textContent).not.toContain(bridge.emu.token);

    view.setFilter({ kind: "pull" });
    expect(text(".hackmd-bridge-activity-tool")).toEqual(["Pulled into the vault"]);
    view.setFilter({ kind: "", actor: "user" });
    expect(view.contentEl.textContent).toContain("No writes match these filters.");
    view.setFilter({ actor: "", note: "a.md" });
    expect(text(".hackmd-bridge-activity-note")).toEqual(["a.md"]);
    view.setFilter({ note: "" });

    // Restore the note edit alone, then undo what is left of the session.
    const restore = view.contentEl.querySelector<HTMLButtonElement>(".hackmd-bridge-sync-history-restore");
    restore?.click();
    // The button starts the restore; wait for its outcome (no fixed time).
    for (let i = 0; i < 200 && undone.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(body(C)).toBe(beforeC);
    await view.refresh();
    expect(text(".hackmd-bridge-activity-undone")).toHaveLength(1);
    view.contentEl.querySelector<HTMLButtonElement>(".hackmd-bridge-sync-history-undo-session")?.click();
    for (let i = 0; i < 200 && undone.length < 3; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(existsSync(join(bridge.root, "a.md"))).toBe(false);
    expect(undone.some((message) => message.includes("already undone"))).toBe(true);
  });

  it("shows each agent write's change as a line diff from the kept texts, and says plainly when the journal lacks them", async () => {
    bridge = await startBridge({ cacheTtlMs: 0 });
    const { journal } = bridge.core.deps;
    ok(await bridge.call("hackmd_pull_note", { note_ref: A, local_path: "a.md" }));
    await writeFile(join(bridge.root, "a.md"), "# Reading list\n\nA line the agent added\n");
    ok(await bridge.call("hackmd_push_note", { local_path: "a.md" }));
    const hash = ok(await bridge.call("hackmd_get_note", { note_ref: C })).body_hash;
    ok(
      await bridge.call("hackmd_update_note", {
        note_ref: C,
        content: "# Changed by the agent\n",
        expected_hash: hash,
      }),
    );
    const source: SyncHistorySource = {
      read: () => journal.read(),
      subscribe: (listener) => journal.subscribe(listener),
      texts: (entry) => entryTexts(journal, entry),
    };
    const view = new SyncHistoryView(new WorkspaceLeaf(new App()) as never, source);
    await view.refresh();
    const diffs = () =>
      [...view.contentEl.querySelectorAll(".hackmd-bridge-sync-history-entry")].map((item) => ({
        label: item.querySelector(".hackmd-bridge-sync-history-diff-label")?.textContent,
        added: [...item.querySelectorAll(".hackmd-bridge-diff-added")].map((line) => line.textContent),
        removed: [...item.querySelectorAll(".hackmd-bridge-diff-removed")].map((line) => line.textContent).length,
        none: item.querySelector(".hackmd-bridge-sync-history-no-diff")?.textContent,
      }));
    const [update, push, pull] = diffs();
    expect(update).toMatchObject({ label: "Changes to the HackMD text", added: ["+# Changed by the agent"] });
    expect(update?.removed).toBeGreaterThan(0);
    expect(push?.label).toBe("Changes to the HackMD text");
    expect(push?.added).toContain("+A line the agent added");
    // The pull created a.md: every line is new.
    expect(pull?.label).toBe("Changes to the file text");
    expect(pull?.added[0]).toBe("+# Reading list");
    expect(pull?.removed).toBe(0);

    // A kept text the journal no longer holds: no diff, and a sentence that says so.
    const entries = await journal.read();
    const updated = entries.at(-1);
    if (updated?.written === undefined) throw new Error("no written text");
    // The state folder of a root that is not a vault (docs/sync-journal.md "On disk").
    await rm(join(bridge.root, ".hackmd-bridge/sync", textFile(updated.written.hash)));
    await view.refresh();
    expect(diffs()[0]).toMatchObject({
      label: undefined,
      added: [],
      none: "The journal does not hold the HackMD text from after this write (not kept, or dropped with older entries), so no diff can be shown.",
    });
  });

  it("says plainly that a push whose read-back never showed it is not confirmed", async () => {
    bridge = await startBridge({ cacheTtlMs: 0 });
    const { journal } = bridge.core.deps;
    ok(await bridge.call("hackmd_pull_note", { note_ref: A, local_path: "a.md" }));
    await writeFile(join(bridge.root, "a.md"), "# Reading list\n\nSent while HackMD hid its writes\n");
    bridge.emu.setQuirks({ visibilityDelayMs: 600_000 });
    expect(errorKind(await bridge.call("hackmd_push_note", { local_path: "a.md" }))).toBe("readback");
    const view = new SyncHistoryView(new WorkspaceLeaf(new App()) as never, {
      read: () => journal.read(),
      subscribe: (listener) => journal.subscribe(listener),
    });
    await view.refresh();
    const items = [...view.contentEl.querySelectorAll(".hackmd-bridge-sync-history-entry")];
    expect(items[0]?.querySelector(".hackmd-bridge-activity-tool")?.textContent).toBe("Pushed to HackMD");
    expect(items[0]?.querySelector(".hackmd-bridge-sync-history-unconfirmed")?.textContent).toBe(
      "Not confirmed: HackMD was sent this write but never showed it. Check the note before writing again.",
    );
    expect(items[1]?.querySelector(".hackmd-bridge-sync-history-unconfirmed")).toBeNull();
  }, 20_000);
});
