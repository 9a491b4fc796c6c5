/**
 * `entryTexts` (src/app/journal.ts): the two texts the Sync history view diffs, or the sentence it
 * shows instead. The journal here is a map of kept texts; the texts of real writes are covered
 * through the emulator in tests/ui/sync-history-view.dom.test.ts.
 */
import { entryTexts } from "../../src/app/journal";
import type { JournalEntry } from "../../src/sync/journal";

const journal = (texts: Record<string, string>) => ({
  keptText: (hash: string) => Promise.resolve(texts[hash]),
});
const entry = (fields: Partial<JournalEntry>): JournalEntry => ({
  v: 1,
  id: "1",
  at: 0,
  actor: { kind: "agent", session: "s" },
  kind: "pull",
  ...fields,
});

describe("entryTexts", () => {
  it("says a pull that left the file as it was changed nothing, rather than that a text is missing", async () => {
    const pull = entry({ kind: "pull", file: "a.md", local: { before: "sha256:aa", after: "sha256:aa" } });
    expect(await entryTexts(journal({}), pull)).toEqual({ missing: "This pull left the file's text as it was." });
  });

  it("gives a pull's file texts, and HackMD's for a push", async () => {
    const texts = journal({ "sha256:b": "before\n", "sha256:a": "after\n" });
    const replaced = (side: "local" | "remote") => [{ side, hash: "sha256:b", where: "journal" as const }];
    const written = { hash: "sha256:a", path: "journal/text/a.md" };
    expect(
      await entryTexts(
        texts,
        entry({ kind: "pull", local: { before: "sha256:b", after: "sha256:a" }, replaced: replaced("local"), written }),
      ),
    ).toEqual({ side: "file", before: "before\n", after: "after\n" });
    expect(await entryTexts(texts, entry({ kind: "push", replaced: replaced("remote"), written }))).toEqual({
      side: "HackMD",
      before: "before\n",
      after: "after\n",
    });
  });

  it("keeps no text for other kinds of writes", async () => {
    expect(await entryTexts(journal({}), entry({ kind: "create_note" }))).toEqual({
      missing: "The journal keeps no text for this kind of write.",
    });
  });
});
