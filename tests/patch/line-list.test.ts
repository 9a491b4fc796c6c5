import fc from "fast-check";
import { LineList, type LineNode } from "../../src/patch/line-list";
import { runSteps, WorkMeter } from "../../src/patch/steps";

function build(lines: readonly string[]): LineList {
  return runSteps(LineList.of(lines, new WorkMeter()));
}

function nodes(list: LineList): LineNode[] {
  const all: LineNode[] = [];
  for (let node = list.first; node !== list.tail; node = node.next) all.push(node);
  return all;
}

/** Labels strictly increase from the head sentinel through every line to the tail sentinel. */
function expectOrdered(list: LineList): void {
  const labels = [list.head, ...nodes(list), list.tail].map((node) => node.label);
  const disorder = labels.findIndex((label, at) => at > 0 && !(label > labels[at - 1]!));
  expect(disorder).toBe(-1);
}

describe("the line list", () => {
  it("keeps strictly increasing labels through 20,000 insertions at one place", () => {
    const list = build(["top", "bottom"]);
    const bottom = list.tail.prev;
    // Every insertion lands right under "top", halving the same gap each time.
    for (let index = 0; index < 20_000; index++) list.insertBefore(list.first.next, `added ${index}`);
    expectOrdered(list);
    const texts = nodes(list).map((node) => node.text);
    expect(texts.slice(0, 3)).toEqual(["top", "added 19999", "added 19998"]);
    expect(texts.at(-1)).toBe(bottom.text);
    expect(list.size).toBe(20_002);
  });

  it("matches an array after random insertions and removals, with exact counts per text", () => {
    const operation = fc.record({ insert: fc.boolean(), at: fc.nat(), text: fc.constantFrom("a", "b", " a ", "") });
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", ""), { maxLength: 6 }),
        fc.array(operation, { maxLength: 300 }),
        fc.nat(3),
        (initial, operations, hotSpot) => {
          const list = build(initial);
          const model: string[] = [...initial];
          for (const { insert, at, text } of operations) {
            const current = nodes(list);
            // Half the insertions go to one spot, so gaps run out and ranges get relabelled.
            const position = at % 2 === 0 ? Math.min(hotSpot, current.length) : at % (current.length + 1);
            if (insert || current.length === 0) {
              list.insertBefore(current[position] ?? list.tail, text);
              model.splice(position, 0, text);
            } else {
              const index = position % current.length;
              list.remove(current[index]!);
              model.splice(index, 1);
            }
          }
          expect(nodes(list).map((node) => node.text)).toEqual(model);
          expect(list.size).toBe(model.length);
          expectOrdered(list);
          for (const text of ["a", "b", " a ", ""]) {
            expect(list.count(text)).toBe(model.filter((line) => line === text).length);
            expect(new Set(list.withText(text))).toEqual(new Set(nodes(list).filter((node) => node.text === text)));
          }
        },
      ),
      { seed: 0x5eed_0011, numRuns: 300 },
    );
  });

  it("indexes trimmed text from the first lookup on, through later edits", () => {
    const list = build(["  ## A ", "b", "## A"]);
    const meter = new WorkMeter();
    expect(runSteps(list.withTrimmedText("## A", meter)).count).toBe(2);
    list.remove(list.first);
    list.insertBefore(list.tail, "\t## A");
    list.insertBefore(list.tail, "## B");
    const found = runSteps(list.withTrimmedText("## A", meter));
    expect(found.count).toBe(2);
    expect([...found.nodes].map((node) => node.text).sort()).toEqual(["\t## A", "## A"]);
    expect(runSteps(list.withTrimmedText("## B", meter)).count).toBe(1);
  });
});
