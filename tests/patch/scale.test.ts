/**
 * The engine's fast paths on inputs large enough to reach them (many hunks, frequent lines that
 * force the KMP scan, thousands of insertions at one place), each checked against the reference
 * engine. Speed is measured by bench/patch.bench.ts, never here.
 */

import { BridgeError } from "../../src/core/errors";
import { applyPatch, applyPatchAsync } from "../../src/patch";
import { envelope, PATH } from "./helpers";
import * as reference from "./reference";

const repeat = (lines: readonly string[], times: number): string[] => Array.from({ length: times }, () => lines).flat();
const text = (lines: readonly string[]): string => lines.map((line) => `${line}\n`).join("");

/** The outcome of both engines: a result, or the refusal message. */
function both(body: string, patch: string): { actual: unknown; expected: unknown } {
  const run = (apply: typeof applyPatch): unknown => {
    try {
      return apply({ body, patch, patchPath: PATH });
    } catch (error) {
      if (error instanceof BridgeError) return { rejected: error.message };
      throw error;
    }
  };
  return { actual: run(applyPatch), expected: run(reference.applyPatch) };
}

function expectSameAsReference(body: string, patch: string): unknown {
  const { actual, expected } = both(body, patch);
  expect(actual).toEqual(expected);
  return actual;
}

describe("hunks whose lines are all frequent (the KMP scan)", () => {
  it("finds the one run at the end of a long repeating stretch", () => {
    const body = text([...repeat(["a", "b"], 500), "a", "a"]);
    const patch = envelope("@@", ...repeat([" a", " b"], 20), " a", "-a", "+z");
    const result = expectSameAsReference(body, patch) as { body: string };
    expect(result.body.endsWith("a\nb\na\nz\n")).toBe(true);
  });

  it("counts every overlapping copy when refusing an ambiguous hunk", () => {
    const body = text(repeat(["a"], 3000));
    const patch = envelope("@@", ...repeat([" a"], 49), "-a", "+b");
    const result = expectSameAsReference(body, patch);
    expect(result).toEqual({ rejected: expect.stringContaining("occur in 2951 places") });
  });

  it("ignores a copy above the anchor", () => {
    const stretch = [...repeat(["a", "b"], 200), "a", "a"];
    const body = text([...stretch, "## Here", ...stretch]);
    const patch = envelope("@@ ## Here", ...repeat([" a", " b"], 20), " a", "-a", "+z");
    const result = expectSameAsReference(body, patch) as { body: string };
    expect(result.body.split("\n").filter((line) => line === "z")).toHaveLength(1);
    expect(result.body.endsWith("a\nz\n")).toBe(true);
  });
});

describe("many edits", () => {
  const note = Array.from({ length: 4000 }, (_, index) =>
    index % 3 === 0 ? `line ${index}` : index % 3 === 1 ? "" : "- item",
  );

  it("applies hundreds of hunks in order, each to the result of the previous", () => {
    const hunks: string[] = [];
    for (let first = 0; first + 6 < note.length; first += 13) {
      hunks.push(
        "@@",
        ` ${note[first]}`,
        ` ${note[first + 1]}`,
        `-${note[first + 2]}`,
        `+edited ${first}`,
        ` ${note[first + 3]}`,
      );
    }
    // A later hunk edits a line an earlier one added.
    hunks.push("@@", "-edited 13", "+edited twice");
    expect(hunks.filter((line) => line === "@@").length).toBeGreaterThan(300);
    const result = expectSameAsReference(text(note), envelope(...hunks)) as { body: string; changed: boolean };
    expect(result.changed).toBe(true);
    expect(result.body).toContain("\nedited twice\n");
  });

  it("keeps thousands of insertions at one place in order", () => {
    const body = text(["# Top", ...note.slice(0, 50), "## Here", ...note.slice(50, 100)]);
    const oneHunk = envelope("@@ ## Here", ...Array.from({ length: 5000 }, (_, index) => `+added ${index}`));
    expectSameAsReference(body, oneHunk);
    // Each hunk inserts right under the anchor, above the lines the previous hunks added.
    const manyHunks = envelope(
      ...Array.from({ length: 400 }, (_, index) => [`@@ ## Here`, `+pushed down ${index}`]).flat(),
    );
    const result = expectSameAsReference(body, manyHunks) as { body: string };
    expect(result.body).toContain("## Here\npushed down 399\npushed down 398\n");
  });

  it("removes and re-adds the same lines: unchanged, the original body returned", () => {
    const body = note.join("\r\n").concat("\n");
    const hunks = note
      .slice(0, 300)
      .flatMap((line, index) =>
        line.startsWith("line ") ? ["@@", `-${line}`, `+${line}`, ` ${note[index + 1]}`] : [],
      );
    expect(expectSameAsReference(body, envelope(...hunks))).toEqual({ body, changed: false });
  });
});

describe("applyPatchAsync", () => {
  const lines = Array.from({ length: 60_000 }, (_, index) => `line ${index}`);
  const body = text(lines);
  const patch = envelope(
    ...lines.filter((_, index) => index % 500 === 250).flatMap((line) => ["@@", `-${line}`, `+${line} edited`]),
  );

  it("pauses between slices of a large patch and gives the same result as applyPatch", async () => {
    let pauses = 0;
    const result = await applyPatchAsync({
      body,
      patch,
      patchPath: PATH,
      pause: async () => {
        pauses++;
      },
    });
    expect(result).toEqual(applyPatch({ body, patch, patchPath: PATH }));
    expect(result.body).toContain("line 250 edited\n");
    expect(pauses).toBeGreaterThan(5);
  });

  it("lets other work run while it pauses", async () => {
    const events: string[] = [];
    const other = new Promise<void>((resolve) =>
      setImmediate(() => {
        events.push("other work");
        resolve();
      }),
    );
    const patched = applyPatchAsync({
      body,
      patch,
      patchPath: PATH,
      pause: () => new Promise((resolve) => setImmediate(resolve)),
    }).then(() => {
      events.push("patched");
    });
    await Promise.all([other, patched]);
    expect(events).toEqual(["other work", "patched"]);
  });

  it("rejects with the refusal applyPatch throws", async () => {
    const missing = envelope("@@", "-line 7", "+x", "@@", "- missing", "+z");
    await expect(
      applyPatchAsync({ body, patch: missing, patchPath: PATH, pause: () => Promise.resolve() }),
    ).rejects.toMatchObject({
      kind: "patch_rejected",
      message: expect.stringContaining("hunk 2: context not found"),
    });
  });
});
