/** The counter the real-vault bench and tests/acceptance/vault-corpus.test.ts report with (bench/lib/obsidian-syntax.ts). */
import { obsidianOnlySyntax } from "../../bench/lib/obsidian-syntax";

describe("obsidianOnlySyntax", () => {
  it("skips callout and wikilink examples in code blocks, also inside a callout or a list item", () => {
    const inCallout = ["> [!info] How to", "> ```md", "> > [!tip] Example", "> [[Example]]", "> ```", ""].join("\n");
    const inList = ["1. Type:", "    ```md", "    > [!tip] Example", "    ```", ""].join("\n");
    const plain = ["```md", "> [!tip] Example", "```", ""].join("\n");
    // The outer callout of the first text is real (the conversion would have made it a container).
    expect(obsidianOnlySyntax(inCallout)).toEqual(["callout"]);
    expect(obsidianOnlySyntax(inList)).toEqual([]);
    expect(obsidianOnlySyntax(plain)).toEqual([]);
  });

  it("counts what is outside code", () => {
    expect(obsidianOnlySyntax("> [!tip] Real\n> text\n\n[[Nowhere]]\n")).toEqual(["callout", "wikilink: plain"]);
  });
});
