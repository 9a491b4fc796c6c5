/**
 * Rules for constructs the Obsidian help vault holds (docs/conversion-rules.md; measured in
 * bench/README.md, "Real vaults"): each goes to HackMD in a form it shows, and comes back byte
 * for byte.
 */
import { toLocal, toRemote } from "../../src/convert";
import { context } from "./fixtures";

/** Asserts both directions of one rule. */
function both(local: string, remote: string): void {
  expect(toRemote(local, context()).text).toBe(remote);
  expect(toLocal(remote, context()).text).toBe(local);
}

describe("wikilinks whose heading or alias holds a code span", () => {
  it("become titled links: the code stays in the link text, the title carries each backtick as &#96;", () => {
    both(
      "Matched by the [[Other note#hasTag|`hasTag`]] function.",
      'Matched by the [`hasTag`](https://hackmd.io/abc#hasTag "Other note#hasTag|&#96;hasTag&#96;") function.',
    );
    both(
      "See [[Other note#`wikilink`|wikilink]].",
      'See [wikilink](https://hackmd.io/abc#wikilink "Other note#&#96;wikilink&#96;|wikilink").',
    );
    both("Use [[#`move`|move]].", 'Use [move](#move "#&#96;move&#96;|move").');
    both("[[Other note#`x` y]]", '[Other note > `x` y](https://hackmd.io/abc#x-y "Other note#&#96;x&#96; y")');
  });

  it("are left as written where the code would not stay inside the link", () => {
    for (const text of [
      // A backtick before the link that no span closes would pair with the link's code.
      "a ` b [[Other note#`w`|x]] c",
      'a ` b [x](https://hackmd.io/abc#w "Other note#&#96;w&#96;|x") c',
      // A span across the alias separator, an unclosed span, a `&#96;` written as text.
      "[[Other note#`a|b`]]",
      "[[Other note|`x``]]",
      "[[Other note#H|a&#96;b]]",
    ]) {
      expect(toRemote(text, context()).text).toBe(text);
      expect(toLocal(text, context()).text).toBe(text);
    }
    // A collaborator's untitled link with code in its text is not one of ours: left alone.
    expect(toLocal("[`x`](https://hackmd.io/abc)", context()).text).toBe("[`x`](https://hackmd.io/abc)");
  });
});
