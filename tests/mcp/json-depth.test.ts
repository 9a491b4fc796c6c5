/** The linear nesting checks of mcp/json-depth.ts, on text and on parsed values. */
import { MESSAGE_DEPTH_LIMIT, messageTooDeepError, nestsDeeperThan, parseJsonBounded } from "../../src/mcp/json-depth";

function nested(levels: number, inner = "1"): string {
  return `${"[".repeat(levels)}${inner}${"]".repeat(levels)}`;
}

describe("parseJsonBounded", () => {
  it("hands text within the limit to JSON.parse unchanged", () => {
    const text = `{"a":${nested(4)},"s":"[[[{{{","e":"\\"]]]\\\\","u":"ключ🙂"}`;
    expect(parseJsonBounded(text, 5)).toEqual({ value: JSON.parse(text), cut: false });
  });

  it("cuts every container opened deeper than the limit, brackets inside strings not counted", () => {
    expect(parseJsonBounded(nested(3), 2)).toEqual({ value: [[null]], cut: true });
    expect(parseJsonBounded(`{"a":[{"b":"]]]"},[["x\\"]"]]],"c":2}`, 2)).toEqual({
      value: { a: [null, null], c: 2 },
      cut: true,
    });
    const deep = parseJsonBounded(`{"id":1,"x":${nested(200_000)},"y":${nested(10)}}`, MESSAGE_DEPTH_LIMIT);
    expect(deep.cut).toBe(true);
    expect((deep.value as { id: number }).id).toBe(1);
    expect(nestsDeeperThan(deep.value, MESSAGE_DEPTH_LIMIT)).toBe(false);
    expect(nestsDeeperThan(deep.value, MESSAGE_DEPTH_LIMIT - 1)).toBe(true);
  });

  it("throws SyntaxError for text that is not JSON, an unclosed deep container or string included", () => {
    for (const text of [`{"a":`, `"abc`, `{"a":"\\"}`, `[${"[".repeat(300)}`, `{"a":1}}`]) {
      expect(() => parseJsonBounded(text, 100)).toThrow(SyntaxError);
    }
  });
});

describe("nestsDeeperThan", () => {
  it("counts the value itself as level 1 and ignores scalars", () => {
    expect(nestsDeeperThan("x", 0)).toBe(false);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan({ a: [] }, 1)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: 2 }] }, 2)).toBe(true);
  });
});

describe("messageTooDeepError", () => {
  it("lets a tools/call with too-deep arguments through and answers anything else with its id", () => {
    const deepArgs = JSON.parse(`{"x":${nested(100)}}`) as unknown;
    expect(
      messageTooDeepError({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "t", arguments: deepArgs } }),
    ).toBeUndefined();
    expect(
      messageTooDeepError({ jsonrpc: "2.0", id: "a", method: "tools/list", params: { _meta: deepArgs } }),
    ).toMatchObject({ id: "a", error: { code: -32600 } });
    expect(
      messageTooDeepError({ jsonrpc: "2.0", method: "tools/call", params: { arguments: deepArgs } }),
    ).toMatchObject({ id: null });
    expect(messageTooDeepError([{ id: 1 }])).toMatchObject({ id: null, error: { code: -32600 } });
  });
});
