import {
  buildConflictViewModel,
  linesWords,
  STABLE_CONTEXT_LINES,
  wholeFileQuestion,
  type ConflictInput,
  type ConflictSection,
  type StableSection,
} from "../../src/ui/conflict-view-model";

/** Numbered lines `L1`…`Ln`, each ended by a newline. */
function numbered(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `L${i + 1}`);
}
const text = (lines: readonly string[]): string => lines.map((line) => `${line}\n`).join("");
const replace = (lines: readonly string[], at: number, ...by: string[]): string[] => [
  ...lines.slice(0, at),
  ...by,
  ...lines.slice(at + 1),
];

function input(base: string, local: string, remote: string): ConflictInput {
  return { base, local, remote, remoteHash: `sha256:${"a".repeat(64)}`, localPath: "Notes/plan.md", noteId: "note1" };
}

describe("conflict view model", () => {
  const base = numbered(20);

  it("carries the identity of the conflict and the three bodies", () => {
    const vm = buildConflictViewModel(input("a\n", "b\n", "c\n"));
    expect(vm).toMatchObject({
      localPath: "Notes/plan.md",
      noteId: "note1",
      remoteHash: `sha256:${"a".repeat(64)}`,
      base: "a\n",
      mine: "b\n",
      theirs: "c\n",
    });
  });

  it("offers the clean merge when the edits do not overlap, with nothing to choose", () => {
    const local = replace(base, 1, "mine 2");
    const remote = replace(base, 17, "theirs 18");
    const vm = buildConflictViewModel(input(text(base), text(local), text(remote)));
    const merged = text(replace(local, 17, "theirs 18"));
    expect(vm.clean).toBe(merged);
    expect(vm.sections).toEqual([]);
    expect(vm.conflictCount).toBe(0);
    expect(vm.initialChoices()).toEqual([]);
    expect(vm.isComplete([])).toBe(true);
    expect(vm.result([])).toBe(merged);
    expect(vm.preview([])).toBe(merged);
  });

  it("treats the same change on both sides as clean (not a conflict)", () => {
    const both = text(replace(base, 4, "same"));
    const vm = buildConflictViewModel(input(text(base), both, both));
    expect(vm.clean).toBe(both);
    expect(vm.conflictCount).toBe(0);
  });

  describe("with one overlapping change and one clean remote change", () => {
    const local = replace(base, 9, "mine 10");
    const remote = replace(replace(base, 9, "theirs 10"), 0, "theirs 1");
    const vm = buildConflictViewModel(input(text(base), text(local), text(remote)));

    it("lists collapsed stable runs around a conflict carrying base, mine and theirs", () => {
      expect(vm.clean).toBeUndefined();
      expect(vm.conflictCount).toBe(1);
      expect(vm.sections.map((section) => section.kind)).toEqual(["stable", "conflict", "stable"]);
      const [before, conflict, after] = vm.sections as [StableSection, ConflictSection, StableSection];
      // Before the first conflict only the context before it shows; the clean remote change is hidden.
      expect(before).toEqual({ kind: "stable", head: [], hidden: 9 - STABLE_CONTEXT_LINES, tail: ["L7", "L8", "L9"] });
      expect(conflict).toEqual({ kind: "conflict", index: 0, base: ["L10"], mine: ["mine 10"], theirs: ["theirs 10"] });
      expect(after).toEqual({
        kind: "stable",
        head: ["L11", "L12", "L13"],
        hidden: 10 - STABLE_CONTEXT_LINES,
        tail: [],
      });
    });

    it("starts with no choice made, so no merged text exists yet", () => {
      expect(vm.initialChoices()).toEqual([undefined]);
      expect(vm.isComplete(vm.initialChoices())).toBe(false);
      expect(() => vm.result([undefined])).toThrow(RangeError);
      expect(() => vm.result([])).toThrow(RangeError);
    });

    it("previews an unchosen conflict with markers, and a chosen one resolved", () => {
      const open = vm.preview([undefined]);
      expect(open).toContain("<<<<<<< mine\nmine 10\n=======\ntheirs 10\n>>>>>>> theirs\n");
      expect(open.startsWith("theirs 1\n")).toBe(true);
      expect(vm.preview(["remote"])).toBe(vm.result(["remote"]));
    });

    it("renders mine, theirs and both, keeping the clean remote change every time", () => {
      expect(vm.result(["local"])).toBe(text(replace(local, 0, "theirs 1")));
      expect(vm.result(["remote"])).toBe(text(remote));
      expect(vm.result(["both"])).toBe(text(replace(replace(base, 9, "mine 10", "theirs 10"), 0, "theirs 1")));
    });
  });

  describe("with two conflicts", () => {
    const local = replace(replace(base, 3, "mine 4"), 15, "mine 16");
    const remote = replace(replace(base, 3, "theirs 4"), 15, "theirs 16");
    const vm = buildConflictViewModel(input(text(base), text(local), text(remote)));

    it("numbers the conflicts and collapses the run between them to context on both ends", () => {
      expect(vm.conflictCount).toBe(2);
      const conflicts = vm.sections.filter((section): section is ConflictSection => section.kind === "conflict");
      expect(conflicts.map((section) => [section.index, section.mine, section.theirs])).toEqual([
        [0, ["mine 4"], ["theirs 4"]],
        [1, ["mine 16"], ["theirs 16"]],
      ]);
      const middle = vm.sections[2] as StableSection;
      expect(middle).toEqual({
        kind: "stable",
        head: ["L5", "L6", "L7"],
        hidden: 11 - 2 * STABLE_CONTEXT_LINES,
        tail: ["L13", "L14", "L15"],
      });
      // A run too short to hide anything is shown whole.
      expect(vm.sections[0]).toEqual({ kind: "stable", head: ["L1", "L2", "L3"], hidden: 0, tail: [] });
    });

    it("applies each choice to its own conflict", () => {
      expect(vm.isComplete(["local", undefined])).toBe(false);
      expect(vm.isComplete(["local", "remote"])).toBe(true);
      expect(vm.result(["local", "remote"])).toBe(text(replace(replace(base, 3, "mine 4"), 15, "theirs 16")));
      expect(vm.result(["remote", "local"])).toBe(text(replace(replace(base, 3, "theirs 4"), 15, "mine 16")));
      const partial = vm.preview([undefined, "both"]);
      expect(partial).toContain("<<<<<<< mine\nmine 4\n=======\ntheirs 4\n>>>>>>> theirs\n");
      expect(partial).toContain("mine 16\ntheirs 16\n");
    });

    it("never changes its sections when choices are made (pure)", () => {
      const before = JSON.stringify(vm.sections);
      vm.result(["both", "both"]);
      vm.preview(["local", undefined]);
      expect(JSON.stringify(vm.sections)).toBe(before);
    });
  });

  it("keeps a region both sides inserted at the same place as a conflict with an empty base", () => {
    const vm = buildConflictViewModel(input("a\nb\n", "a\nmine\nb\n", "a\ntheirs\nb\n"));
    const conflict = vm.sections.find((section): section is ConflictSection => section.kind === "conflict");
    expect(conflict).toMatchObject({ base: [], mine: ["mine"], theirs: ["theirs"] });
    expect(vm.result(["both"])).toBe("a\nmine\ntheirs\nb\n");
  });
});

describe("the merge editor's document", () => {
  const base = numbered(12);
  // Mine: line 2 (clean) and line 6 (conflict); theirs: line 6 (conflict), line 10 (clean), one line inserted after 11.
  const local = replace(replace(base, 1, "mine 2"), 5, "mine 6");
  const remote = replace(replace(replace(base, 5, "theirs 6"), 9, "theirs 10"), 10, "L11", "theirs new");
  const vm = buildConflictViewModel(input(text(base), text(local), text(remote)));

  it("starts the result with every settled line and the base's lines where the conflict is", () => {
    expect(vm.conflictCount).toBe(1);
    expect(vm.document.text).toBe(
      text(replace(replace(replace(base, 1, "mine 2"), 9, "theirs 10"), 10, "L11", "theirs new")),
    );
    expect(vm.document.regions).toEqual([
      { index: 0, lines: { from: 5, to: 6 }, mineLines: { from: 5, to: 6 }, theirsLines: { from: 5, to: 6 } },
    ]);
  });

  it("marks which side each settled change came from", () => {
    expect(vm.document.origins).toEqual([
      { line: 1, side: "mine" },
      { line: 9, side: "theirs" },
      { line: 11, side: "theirs" },
    ]);
  });

  it("gives each choice's lines for a region, and the result of picking them equals resolveHunks", () => {
    expect(vm.regionText(0, "base")).toBe("L6\n");
    expect(vm.regionText(0, "local")).toBe("mine 6\n");
    expect(vm.regionText(0, "remote")).toBe("theirs 6\n");
    expect(vm.regionText(0, "both")).toBe("mine 6\ntheirs 6\n");
    const doc = vm.document.text;
    const region = vm.document.regions[0]!;
    const at = (line: number): number => doc.split("\n").slice(0, line).join("\n").length + (line > 0 ? 1 : 0);
    for (const choice of ["local", "remote", "both"] as const) {
      expect(doc.slice(0, at(region.lines.from)) + vm.regionText(0, choice) + doc.slice(at(region.lines.to))).toBe(
        vm.result([choice]),
      );
    }
    expect(() => vm.regionText(1, "local")).toThrow(RangeError);
  });

  it("counts what each side changed, for the whole-file questions", () => {
    expect(vm.changes).toEqual({ mine: { added: 2, removed: 2 }, theirs: { added: 3, removed: 2 } });
  });

  it("words the question before each whole-file choice: what is lost, that a copy is kept, what choices go", () => {
    const none = { chosen: 0, edited: false };
    const keepMine = wholeFileQuestion(vm, "keep-mine", none);
    expect(keepMine).toMatchObject({ warning: true });
    // It names the file and counts HackMD's edits that are dropped.
    expect(keepMine?.paragraphs.join(" ")).toContain("plan.md");
    expect(keepMine?.paragraphs.join(" ")).toContain(linesWords({ added: 3, removed: 2 }));
    const dropped = wholeFileQuestion(vm, "take-theirs", { chosen: 1, edited: true })?.paragraphs.at(-1);
    expect(dropped).toContain("1 of 1");
    expect(wholeFileQuestion(vm, "keep-both", none)).toBeUndefined();
    expect(wholeFileQuestion(vm, "cancel", none)).toBeUndefined();
    const discard = wholeFileQuestion(vm, "cancel", { chosen: 0, edited: true });
    expect(discard).toBeDefined();
    expect({ keepMine, dropped, discard }).toMatchSnapshot();
    expect(linesWords({ added: 1, removed: 0 })).toBe("1 line added");
    expect(linesWords({ added: 0, removed: 2 })).toBe("2 lines removed");
  });
});
