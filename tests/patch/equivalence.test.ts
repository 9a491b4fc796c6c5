import fc from "fast-check";
import { BridgeError } from "../../src/core/errors";
import { applyPatch, applyPatchAsync } from "../../src/patch";
import { applyPatchSteps } from "../../src/patch/apply";
import { runSteps, WorkMeter } from "../../src/patch/steps";
import * as reference from "./reference";
import { PATH } from "./helpers";

/** A result or a refusal, comparable with `toEqual`. */
type Outcome = { body: string; changed: boolean } | { rejected: string };

function outcome(apply: () => { body: string; changed: boolean }): Outcome {
  try {
    return apply();
  } catch (error) {
    if (error instanceof BridgeError && error.kind === "patch_rejected") return { rejected: error.message };
    throw error;
  }
}

async function asyncOutcome(apply: () => Promise<{ body: string; changed: boolean }>): Promise<Outcome> {
  try {
    return await apply();
  } catch (error) {
    if (error instanceof BridgeError && error.kind === "patch_rejected") return { rejected: error.message };
    throw error;
  }
}

/** Few distinct texts, so runs repeat, overlap and collide; includes blanks, padding and a lone `\r`. */
const text = fc.constantFrom("", "a", "b", "a ", " a", "## A", "## B", "- todo", "c\r", "x");

const body = fc
  .record({
    lines: fc.array(fc.tuple(text, fc.constantFrom("\n", "\r\n")), { maxLength: 14 }),
    finalNewline: fc.boolean(),
  })
  .map(({ lines, finalNewline }) => {
    const terminated = lines.map(([line, ending]) => line + ending).join("");
    return finalNewline ? terminated : terminated.replace(/\r?\n$/, "");
  });

interface HunkSpec {
  anchor: string | undefined;
  atEnd: boolean;
  lines: Array<{ kind: "context" | "remove" | "add"; text: string }>;
}

const hunkLine = fc.record({ kind: fc.constantFrom("context" as const, "remove" as const, "add" as const), text });

/** A hunk; its old side is usually a stretch of the body (the last lines for an at-end hunk), so that it matches. */
function hunk(bodyLines: readonly string[]): fc.Arbitrary<HunkSpec> {
  const anchors = [...new Set(bodyLines.map((line) => line.trim()).filter((line) => line !== ""))];
  const anchor = fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: anchors.length > 0 ? fc.constantFrom(...anchors) : fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom("## A", "x", "missing") },
  );
  const atEnd = fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });
  const kinds = fc.array(fc.constantFrom("context" as const, "context" as const, "remove" as const), {
    minLength: 5,
    maxLength: 5,
  });
  const added = fc.array(
    hunkLine.map((line) => ({ ...line, kind: "add" as const })),
    { maxLength: 2 },
  );
  const spec = fc.record({
    anchor,
    atEnd,
    fromBody: fc.nat(4).map((pick) => pick > 0 && bodyLines.length > 0),
    start: fc.nat(),
    length: fc.integer({ min: 1, max: 5 }),
    kinds,
    added,
    addAt: fc.nat(),
    random: fc.array(hunkLine, { minLength: 1, maxLength: 5 }),
  });
  return spec.map((hunk) => {
    if (!hunk.fromBody) return { anchor: hunk.anchor, atEnd: hunk.atEnd, lines: hunk.random };
    const from = hunk.atEnd ? Math.max(0, bodyLines.length - hunk.length) : hunk.start % bodyLines.length;
    const stretch = bodyLines
      .slice(from, from + hunk.length)
      .map((line, at) => ({ kind: hunk.kinds[at] ?? "context", text: line }));
    const cut = hunk.addAt % (stretch.length + 1);
    return {
      anchor: hunk.anchor,
      atEnd: hunk.atEnd,
      lines: [...stretch.slice(0, cut), ...hunk.added, ...stretch.slice(cut)],
    };
  });
}

function write(hunks: readonly HunkSpec[], bareBlanks: boolean): string {
  const out = ["*** Begin Patch", `*** Update File: ${PATH}`];
  for (const spec of hunks) {
    out.push(spec.anchor === undefined ? "@@" : `@@ ${spec.anchor}`);
    for (const line of spec.lines) {
      const prefix = line.kind === "context" ? " " : line.kind === "remove" ? "-" : "+";
      out.push(bareBlanks && line.kind === "context" && line.text === "" ? "" : prefix + line.text);
    }
    if (spec.atEnd && spec.lines.length > 0) out.push("*** End of File");
  }
  out.push("*** End Patch");
  return out.join("\n");
}

const bodyAndPatch = body.chain((note) =>
  fc
    .tuple(fc.array(hunk(reference.splitLines(note)), { minLength: 1, maxLength: 3 }), fc.boolean())
    .map(([hunks, bareBlanks]) => ({ body: note, patch: write(hunks, bareBlanks) })),
);

/** Patch lines that exercise the envelope and hunk refusals. */
const rawPatch = fc
  .array(
    fc.oneof(
      text.map((line) => ` ${line}`),
      text.map((line) => `-${line}`),
      text.map((line) => `+${line}`),
      fc.constantFrom(
        "@@",
        "@@ a",
        "@@ -1 +1 @@",
        "*** End of File",
        "",
        "x",
        `*** Update File: ${PATH}`,
        "*** Move to: y",
      ),
    ),
    { maxLength: 10 },
  )
  .map((lines) => ["*** Begin Patch", `*** Update File: ${PATH}`, ...lines, "*** End Patch"].join("\n"));

describe("the patch engine agrees with the reference engine (tests/patch/reference.ts)", () => {
  const settings = { seed: 0x5eed_0010, numRuns: 2500 };

  it("on bodies and patches built from their lines", () => {
    fc.assert(
      fc.property(bodyAndPatch, ({ body: note, patch }) => {
        const expected = outcome(() => reference.applyPatch({ body: note, patch, patchPath: PATH }));
        expect(outcome(() => applyPatch({ body: note, patch, patchPath: PATH }))).toEqual(expected);
      }),
      settings,
    );
  });

  it("on arbitrary patch lines, including malformed ones", () => {
    fc.assert(
      fc.property(body, rawPatch, (note, patch) => {
        const expected = outcome(() => reference.applyPatch({ body: note, patch, patchPath: PATH }));
        expect(outcome(() => applyPatch({ body: note, patch, patchPath: PATH }))).toEqual(expected);
      }),
      settings,
    );
  });

  it("whatever the slice size: yielding after every unit of work changes nothing", () => {
    fc.assert(
      fc.property(bodyAndPatch, fc.integer({ min: 1, max: 7 }), ({ body: note, patch }, slice) => {
        const expected = outcome(() => reference.applyPatch({ body: note, patch, patchPath: PATH }));
        expect(
          outcome(() => runSteps(applyPatchSteps({ body: note, patch, patchPath: PATH }, new WorkMeter(slice)))),
        ).toEqual(expected);
      }),
      { ...settings, numRuns: 300 },
    );
  });

  it("applyPatchAsync gives the same results and refusals", async () => {
    await fc.assert(
      fc.asyncProperty(bodyAndPatch, async ({ body: note, patch }) => {
        const expected = outcome(() => reference.applyPatch({ body: note, patch, patchPath: PATH }));
        expect(
          await asyncOutcome(() =>
            applyPatchAsync({ body: note, patch, patchPath: PATH, pause: () => Promise.resolve() }),
          ),
        ).toEqual(expected);
      }),
      { ...settings, numRuns: 300 },
    );
  });
});
