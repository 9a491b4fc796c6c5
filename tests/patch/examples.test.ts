import { applyPatch } from "../../src/patch";
import { EXAMPLE_PATCH_PATH, PATCH_EXAMPLES } from "../../src/patch/examples";
import { rejection } from "./helpers";

describe("the worked examples of docs/tools.md §10.5", () => {
  it("cover every numbered example", () => {
    const numbers = new Set(PATCH_EXAMPLES.map((example) => example.name.split(".")[0]));
    expect([...numbers]).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9"]);
  });

  it.each(PATCH_EXAMPLES.map((example) => [example.name, example] as const))("%s", (_name, example) => {
    if (example.expectedError !== undefined) {
      expect(rejection(example.body, example.patch).message).toContain(example.expectedError);
      return;
    }
    const result = applyPatch({ body: example.body, patch: example.patch, patchPath: EXAMPLE_PATCH_PATH });
    expect(result.body).toBe(example.expected);
    expect(result.changed).toBe(example.expected !== example.body);
  });
});
