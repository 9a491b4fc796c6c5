/**
 * A push or merge whose outcome is unknown — HackMD accepted the PATCH but no read-back showed the
 * body (src/hackmd/write-body.ts) — adds a journal entry with outcome `unconfirmed (readback)`:
 * the text it replaced and the text it sent are kept, and the baseline is recorded as not advanced
 * (docs/sync-journal.md). The emulator hides every write from reads (its visibility delay).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { undoJournalEntry } from "../../src/app/journal-undo";
import { bodyHash } from "../../src/core/hash";
import { errorKind, ok, startBridge, type TestBridge } from "../helpers/bridge";

const READING = DEMO_NOTE_IDS.readingList;

describe("the journal records pushes and merges whose outcome is unknown", () => {
  let bridge: TestBridge;
  beforeEach(async () => {
    bridge = await startBridge({ cacheTtlMs: 0 });
    ok(await bridge.call("hackmd_pull_note", { note_ref: READING, local_path: "reading.md" }));
  });
  afterEach(async () => {
    await bridge.close();
  });
  const remote = (): string => bridge.emu.inspect().notes.find((note) => note.id === READING)?.content ?? "";

  it("a push whose read-back never showed it: outcome unconfirmed, the texts kept, the baseline not advanced", async () => {
    const before = remote();
    const record = (await bridge.core.deps.sync.listTracked())[0];
    const baseline = (await bridge.core.deps.journal.read({ kind: "pull" })).at(-1)?.baseline?.after;
    const text = `${before}\nA line pushed while HackMD hid its writes.\n`;
    await writeFile(join(bridge.root, "reading.md"), text);
    bridge.emu.setQuirks({ visibilityDelayMs: 600_000 });
    expect(errorKind(await bridge.call("hackmd_push_note", { local_path: "reading.md" }))).toBe("readback");

    const entry = (await bridge.core.deps.journal.read()).at(-1);
    expect(entry).toMatchObject({
      kind: "push",
      outcome: "unconfirmed (readback)",
      file: "reading.md",
      note: { note_id: READING },
      remote: { before: await bodyHash(before), after: await bodyHash(text) },
      baseline: { before: baseline, after: baseline },
    });
    expect(record?.local_path).toBe("reading.md");
    const { journal } = bridge.core.deps;
    expect(await journal.keptText(entry?.written?.hash ?? "")).toBe(text);
    const replaced = entry?.replaced?.find((place) => place.where === "journal");
    expect(await journal.keptText(replaced?.hash ?? "")).toBe(before);
  }, 20_000);

  it("a merge whose read-back never showed it: outcome unconfirmed, the file's text from before kept", async () => {
    const original = remote();
    const mine = `${original}\nMy line at the end.\n`;
    await writeFile(join(bridge.root, "reading.md"), mine);
    bridge.emu.collaboratorEdit(READING, { content: `Ada's line at the top.\n\n${original}` }, { as: "ada" });
    bridge.emu.setQuirks({ visibilityDelayMs: 600_000 });
    expect(errorKind(await bridge.call("hackmd_push_note", { local_path: "reading.md", strategy: "merge" }))).toBe(
      "readback",
    );

    const entry = (await bridge.core.deps.journal.read()).at(-1);
    expect(entry).toMatchObject({ kind: "merge", outcome: "unconfirmed (readback)", file: "reading.md" });
    const merged = await readFile(join(bridge.root, "reading.md"), "utf8");
    expect(merged).toContain("Ada's line at the top.");
    expect(merged).toContain("My line at the end.");
    expect(entry?.local).toEqual({ before: await bodyHash(mine), after: await bodyHash(merged) });
    const kept = entry?.replaced?.find((place) => place.side === "local" && place.where === "journal");
    expect(await bridge.core.deps.journal.keptText(kept?.hash ?? "")).toBe(mine);
    expect(entry?.baseline?.after).toBe(entry?.baseline?.before);
  }, 20_000);

  it("an undo of an unconfirmed push writes nothing while HackMD does not show the sent text, and restores once it does", async () => {
    const before = remote();
    await writeFile(join(bridge.root, "reading.md"), `${before}\nSent unseen.\n`);
    bridge.emu.setQuirks({ visibilityDelayMs: 600_000 });
    expect(errorKind(await bridge.call("hackmd_push_note", { local_path: "reading.md" }))).toBe("readback");
    const entry = (await bridge.core.deps.journal.read()).at(-1);
    if (entry === undefined) throw new Error("no entry");
    bridge.mark();
    const refused = await undoJournalEntry(bridge.core.deps, entry);
    expect(refused.undone).toBe(false);
    expect(bridge.requestsSinceMark().some((route) => route.startsWith("PATCH"))).toBe(false);

    // The write shows now: the undo puts HackMD's text from before back.
    bridge.emu.setQuirks({ visibilityDelayMs: 0 });
    bridge.emu.flushPending();
    const result = await undoJournalEntry(bridge.core.deps, entry);
    expect(result.undone).toBe(true);
    expect(remote()).toBe(before);
  }, 20_000);
});
