/**
 * Real vaults through HackMD and back (bench/lib/vault-roundtrip.ts; the bench runs the same on
 * any vault with `npm run bench -- convert --vault <dir>`): every note of the vault is published
 * with the sync engine against the emulator on loopback, then pulled into fresh vaults (holding
 * the vault's other files) in three seeded random orders. Every file must come back byte for
 * byte (comments excepted: they stay in the publishing vault by design), no image may be
 * downloaded a second time, and what HackMD still shows as Obsidian-only syntax is listed by
 * construct. Corpora: tests/fixtures/vaults/ (a real MIT-licensed vault, and our own vault with
 * every construct of docs/conversion-rules.md).
 */
import { join } from "node:path";
import { roundTripVault, type VaultReport } from "../../bench/lib/vault-roundtrip";

const SEEDS = [11, 22, 33];
const FIXTURES = join(__dirname, "..", "fixtures", "vaults");

function expectRoundTrip(report: VaultReport): void {
  expect(report.failures).toEqual([]);
  expect(report.published).toBe(report.notes);
  for (const order of report.orders) {
    expect({ seed: order.seed, differing: Object.fromEntries(order.firstDifference) }).toEqual({
      seed: order.seed,
      differing: {},
    });
    expect(order.identical + order.identicalButComments).toBe(report.notes);
  }
  expect(report.addedFiles).toEqual([]);
}

describe("real vaults: publish all, pull all in random orders, byte for byte", () => {
  it("Steph Ango's vault (kepano/kepano-obsidian, MIT): every note identical in three orders; the Obsidian syntax left on HackMD is the listed rest", async () => {
    const report = await roundTripVault(join(FIXTURES, "kepano-obsidian"), { seeds: SEEDS });
    expectRoundTrip(report);
    expect(report.notes).toBeGreaterThan(100);
    // Left as written (docs/conversion-rules.md, "Left unconverted"): links to notes the vault
    // does not have (a template's `[[Map]]`, …).
    expect(Object.fromEntries(report.constructs)).toEqual({
      "wikilink: alias": 1,
      "wikilink: plain": 2,
    });
  }, 240_000);

  it("our vault with every construct: identical in three orders; what HackMD still shows as Obsidian syntax is exactly the listed rest", async () => {
    const report = await roundTripVault(join(FIXTURES, "constructs"), { seeds: SEEDS });
    expectRoundTrip(report);
    // Comments never reach HackMD readable.
    const everything = report.remote.get("Guides/Everything.md") ?? "";
    expect(everything).not.toContain("not for HackMD");
    expect(everything).not.toContain("A block comment.");
    // Left as written (docs/conversion-rules.md, "Left unconverted"): a note that does not exist
    // and a name two notes share (`[[Nowhere]]`, `[[Security and privacy]]` from a folder that has
    // neither). `Obsidian Sync/Set up Obsidian Sync.md` has the help vault's second-round cases, all
    // converted: the shared name beside its note, nested heading links, a name ending in a space,
    // an image path with a `#fragment`, a callout ending in a blank line. `Guides/Help vault
    // forms.md` has the third round's, all converted too.
    expect(Object.fromEntries(report.constructs)).toEqual({
      "wikilink: plain": 1,
    });
    expect(report.leftIn.get("Guides/Help vault forms.md")).toBeUndefined();
    const forms = report.remote.get("Guides/Help vault forms.md") ?? "";
    // Code spans in wikilinks, a same-note block link, a heading in another case.
    expect(forms).toContain('"Functions#Examples|&#96;hasTag&#96;")');
    expect(forms).toContain('(#move "#&#96;move&#96;|move")');
    expect(forms).toContain('(#obsidian-block "#^forms-block|the block")');
    expect(forms).toContain('#Default-sort-order "Sorting#DEFAULT SORT ORDER|sorting")');
    expect(everything).toMatch(/\(\S+#Default-sort-order\)/);
    expect(forms).toContain('[code in links](#Code-in-links "#code in links")');
    // Callout edge forms, and relative images, uploaded.
    expect(forms).toContain(" :::info todo-\n");
    expect(forms).toContain(":::info example\n **A title after two spaces**\n");
    expect(forms).toContain(":::info abstract\n\u00a0__**Further reading**: [Functions](");
    expect(forms).toContain(":::info info- ~3\n");
    expect(forms).toContain(":::warning ~4\n");
    expect(forms).toMatch(/!\[Photo\]\(\S+#\.\.\/images\/photo\.png\)/);
    expect(everything).toMatch(/!\[Sized\]\(\S+#\.\.\/images\/photo\.png =200x\)/);
    expect(everything).toContain("[Bases syntax](");
    expect(everything).toContain(":::success tip");
    expect(everything).toContain(":::info info+");
    expect(everything).toContain("<!--^local-block-->");
    expect(everything).toContain('"!lucide-cog.svg#icon")');
    const setUp = report.remote.get("Obsidian Sync/Set up Obsidian Sync.md") ?? "";
    expect(report.leftIn.get("Obsidian Sync/Set up Obsidian Sync.md")).toBeUndefined();
    expect(setUp).toContain("[see the examples](");
    expect(setUp).toContain(":::warning >");
  }, 120_000);
});
