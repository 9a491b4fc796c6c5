import fc from "fast-check";
import {
  buildConversionContext,
  contextFromDependencies,
  dependenciesHold,
  toLocal,
  toRemote,
} from "../../src/convert";
import { closedProse, codeBody, context, documentText, INPUT, partialInput, RUNS, spanBody } from "./fixtures";

/** Seeded, as every property test here (tests/README.md): a failure reproduces on the next run. */
const SEEDED = { seed: Number(process.env.HB_CONVERT_SEED ?? 0x5eed_0011), numRuns: RUNS };

describe("conversion properties (seeded, HB_CONVERT_RUNS runs each)", () => {
  it("toLocal(toRemote(x)) === x for vault text, given the comments toRemote hid", () => {
    fc.assert(
      fc.property(documentText, (x) => {
        const remote = toRemote(x, context());
        expect(toLocal(remote.text, context(remote.dependencies.comments)).text).toBe(x);
      }),
      SEEDED,
    );
  });

  it("toRemote(toLocal(y)) === y for HackMD text", () => {
    fc.assert(
      fc.property(documentText, (y) => {
        const ctx = context();
        expect(toRemote(toLocal(y, ctx).text, ctx).text).toBe(y);
      }),
      SEEDED,
    );
  });

  it("both round trips hold in a random part of the vault", () => {
    fc.assert(
      fc.property(documentText, partialInput, (x, input) => {
        const remote = toRemote(x, context([], input));
        expect(toLocal(remote.text, context(remote.dependencies.comments, input)).text).toBe(x);
        expect(toRemote(toLocal(x, context([], input)).text, context([], input)).text).toBe(x);
      }),
      SEEDED,
    );
  });

  it("escape chains of any depth stay reversible (a converted text converted again, three times over)", () => {
    fc.assert(
      fc.property(documentText, (x) => {
        // Each level is decoded with the comments known when it was encoded plus the ones it wrote.
        let comments: Array<readonly [string, string]> = [];
        const remote: string[] = [x];
        const known: Array<Array<readonly [string, string]>> = [];
        for (let depth = 0; depth < 3; depth++) {
          const result = toRemote(remote[depth] as string, context(comments));
          comments = [...comments, ...result.dependencies.comments];
          known.push(comments);
          remote.push(result.text);
        }
        for (let depth = 3; depth > 0; depth--)
          expect(toLocal(remote[depth] as string, context(known[depth - 1])).text).toBe(remote[depth - 1]);
        let local = x;
        for (let depth = 0; depth < 3; depth++) {
          const next = toLocal(local, context()).text;
          expect(toRemote(next, context()).text).toBe(local);
          local = next;
        }
      }),
      SEEDED,
    );
  });

  it("never converts fenced code, indented code or inline code", () => {
    fc.assert(
      fc.property(closedProse, codeBody, spanBody, closedProse, (before, code, span, after) => {
        const fenced = `\n\n\`\`\`\n${code}\n\`\`\`\n\n`;
        const indented = `\n\nText\n\n${code
          .split("\n")
          .map((line) => `    ${line}`)
          .join("\n")}\n\n`;
        const inline = `\n\nSee \`${span}\` here\n\n`;
        const text = before + fenced + indented + inline + after;
        for (const converted of [toRemote(text, context()).text, toLocal(text, context()).text]) {
          expect(converted).toContain(fenced.trim());
          expect(converted).toContain(indented.trim());
          expect(converted).toContain(`\`${span}\``);
        }
      }),
      SEEDED,
    );
  });

  it("a changed context never changes an unedited text's remote form as judged by its recorded dependencies", () => {
    fc.assert(
      fc.property(documentText, partialInput, partialInput, (x, first, second) => {
        const before = toRemote(x, context([], first));
        const now = context([], second);
        const pinned = contextFromDependencies(before.dependencies, now);
        expect(toRemote(x, pinned).text).toBe(before.text);
        if (dependenciesHold(before.dependencies, now)) expect(toRemote(x, now).text).toBe(before.text);
        // What pull wrote converts back to exactly the baseline under the recorded answers.
        const local = toLocal(before.text, context(before.dependencies.comments, first));
        expect(toLocal(before.text, contextFromDependencies({ ...local.dependencies }, now)).text).toBe(x);
      }),
      SEEDED,
    );
  });

  it("an edited text is always told apart from the baseline under the recorded dependencies", () => {
    fc.assert(
      fc.property(documentText, documentText, partialInput, (x, edited, input) => {
        fc.pre(edited !== x);
        const before = toRemote(x, context([], input));
        const pinned = contextFromDependencies(before.dependencies, buildConversionContext(INPUT));
        expect(toRemote(edited, pinned).text).not.toBe(before.text);
      }),
      SEEDED,
    );
  });
});
