import { IdSource, seededRandom } from "../../src/emulator/ids";
import { deriveTitle, normalizeEol, partiallyApplied } from "../../src/emulator/text";

describe("emulator text rules", () => {
  test("normalizeEol", () => {
    expect(normalizeEol("a\r\nb\rc\n")).toBe("a\nb\nc\n");
    expect(normalizeEol("\r\r\n")).toBe("\n\n");
  });

  test.each([
    ["---\ntitle: 'Quoted'\n---\n# H1", "Quoted"],
    ["---\ntags: [a]\n---\n# After front matter", "After front matter"],
    ["\uFEFF# With BOM", "With BOM"],
    ["## Not H1\n#NoSpace\n# Yes #", "Yes"],
    ["~~~\n# fenced\n~~~\n", "Untitled"],
    ["", "Untitled"],
  ])("deriveTitle(%j) = %j", (content, title) => {
    expect(deriveTitle(content)).toBe(title);
  });

  test("partiallyApplied keeps the last changed line old", () => {
    expect(partiallyApplied("a\nb\nc", "a\nX\nY")).toBe("a\nX\nc");
    expect(partiallyApplied("a\nb", "a\nb\nnew1\nnew2")).toBe("a\nb\nnew1");
    expect(partiallyApplied("a\nb\nc", "a")).toBe("a\nc");
    expect(partiallyApplied("same", "same")).toBe("same");
  });
});

describe("emulator ids", () => {
  test("shapes, determinism and uniqueness", () => {
    const a = new IdSource(seededRandom(1));
    const b = new IdSource(seededRandom(1));
    const id = a.noteId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(b.noteId()).toBe(id);
    expect(a.shortId()).toMatch(/^[A-Za-z0-9_-]{9}$/);
    expect(a.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.token()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const c = new IdSource(seededRandom(1));
    expect(c.noteId((candidate) => candidate === id)).not.toBe(id);
  });
});
