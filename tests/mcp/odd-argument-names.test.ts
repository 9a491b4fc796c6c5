/**
 * Argument names that collide with Object.prototype (`__proto__`, `constructor`,
 * `toString`, …) are refused like any other unknown property: an `invalid_input` tool result that
 * names the property, never a silent drop and never a JSON-RPC error. Checked through the SDK's
 * real client, and at the JSON-RPC level with messages decoded the way the stdio transport does
 * (JSON.parse, which keeps `__proto__` as an own property, then the SDK's message schema).
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { createMcpServer } from "../../src/mcp/server";
import { errorKind, ok, startBridge, type CallResult, type TestBridge } from "../helpers/bridge";

const READING = DEMO_NOTE_IDS.readingList;
const ODD_NAMES = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "prototype",
  "valueOf",
  "isPrototypeOf",
  "__defineGetter__",
];
/** Values that matter for `__proto__`: an object would become the prototype if assigned. */
const ODD_VALUES = ["1", '{"polluted":true}', "null", '"x"'];

/** Arguments as an agent's JSON would arrive: `__proto__` stays an own property. */
function jsonArgs(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}

/** The tool result inside a JSON-RPC answer; fails the test on a JSON-RPC error. */
function resultOf(answer: JSONRPCMessage | undefined): CallResult {
  expect(answer).toBeDefined();
  expect(answer).not.toHaveProperty("error");
  expect(answer).toHaveProperty("result");
  return (answer as unknown as { result: CallResult }).result;
}

function expectRefusal(result: CallResult, property: string): void {
  expect(result.isError).toBe(true);
  expect(errorKind(result)).toBe("invalid_input");
  expect(result.content[0]?.text).toContain(JSON.stringify(property));
}

describe("odd argument names through the SDK's real client", () => {
  let bridge: TestBridge;

  beforeEach(async () => {
    bridge = await startBridge();
    bridge.mark();
  });
  afterEach(async () => {
    await bridge.close();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("the client sends an own __proto__ property unchanged (so the server must judge it)", () => {
    const args = jsonArgs(`{"note_ref":"${READING}","__proto__":{"polluted":true}}`);
    expect(Object.keys(args)).toEqual(["note_ref", "__proto__"]);
    expect(JSON.stringify({ arguments: args })).toContain('"__proto__":{"polluted":true}');
  });

  it.each(ODD_NAMES)(
    "refuses an unknown top-level %s with invalid_input naming it, before any request",
    async (name) => {
      for (const value of ODD_VALUES) {
        const result = await bridge.call(
          "hackmd_get_note",
          jsonArgs(`{"note_ref":"${READING}",${JSON.stringify(name)}:${value}}`),
        );
        expectRefusal(result, name);
      }
      expect(bridge.requestsSinceMark()).toEqual([]);
    },
  );

  it("refuses them for a tool that takes no arguments at all", async () => {
    for (const name of ODD_NAMES)
      expectRefusal(await bridge.call("hackmd_get_me", jsonArgs(`{${JSON.stringify(name)}:{}}`)), name);
    expect(bridge.requestsSinceMark()).toEqual([]);
  });

  it("refuses __proto__, constructor and prototype as keys inside the free-form note_features object, naming where", async () => {
    for (const name of ["__proto__", "constructor", "prototype"]) {
      const result = await bridge.call(
        "hackmd_create_note",
        jsonArgs(`{"title":"Odd","note_features":{"yamlMetadata":true,${JSON.stringify(name)}:{"polluted":true}}}`),
      );
      expectRefusal(result, name);
      expect(result.content[0]?.text).toContain("note_features");
    }
    expect(bridge.requestsSinceMark()).toEqual([]);
    expect(bridge.emu.inspect().notes.some((note) => note.title === "Odd")).toBe(false);
  });

  it("still accepts ordinary arguments and ordinary note_features keys", async () => {
    ok(await bridge.call("hackmd_get_note", jsonArgs(`{"note_ref":"${READING}"}`)));
    ok(await bridge.call("hackmd_create_note", jsonArgs(`{"title":"Fine","note_features":{"citation":"disabled"}}`)));
    // Other odd-but-harmless keys in the free-form object reach HackMD, which judges them.
    bridge.mark();
    const sent = await bridge.call(
      "hackmd_create_note",
      jsonArgs(`{"title":"Odd keys","note_features":{"toString":1}}`),
    );
    expect(bridge.requestsSinceMark()).toEqual(["POST /notes"]);
    expect(sent.content[0]?.text).toContain("unknown feature toString");
  });
});

describe("odd argument names at the JSON-RPC level (stdio decoding)", () => {
  let bridge: TestBridge;
  let raw: InMemoryTransport;
  const waiting = new Map<number, (answer: JSONRPCMessage) => void>();
  let nextId = 1;

  /** Sends one JSON-RPC line as the stdio transport would decode it and waits for its answer. */
  async function send(line: string): Promise<JSONRPCMessage | undefined> {
    const message = deserializeMessage(line);
    if (!("id" in message)) {
      await raw.send(message);
      return undefined;
    }
    const answer = new Promise<JSONRPCMessage>((resolve) => waiting.set(Number(message.id), resolve));
    await raw.send(message);
    return answer;
  }

  async function callTool(name: string, argumentsJson: string): Promise<JSONRPCMessage | undefined> {
    const id = nextId++;
    return send(
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argumentsJson}}}`,
    );
  }

  beforeEach(async () => {
    bridge = await startBridge();
    const server = createMcpServer(
      bridge.core.mcpHost({ name: "hackmd-bridge", version: "test", secrets: () => [bridge.emu.token] }),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    raw = clientSide;
    raw.onmessage = (message) => {
      if ("id" in message && ("result" in message || "error" in message)) waiting.get(Number(message.id))?.(message);
    };
    await server.connect(serverSide);
    await raw.start();
    const id = nextId++;
    await send(
      `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
    );
    await send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    bridge.mark();
  });
  afterEach(async () => {
    await raw.close();
    await bridge.close();
  });

  it.each(ODD_NAMES)("answers %s with an invalid_input tool result, not a JSON-RPC error", async (name) => {
    const answer = await callTool(
      "hackmd_get_note",
      `{"note_ref":"${READING}",${JSON.stringify(name)}:{"polluted":true}}`,
    );
    expectRefusal(resultOf(answer), name);
    expect(bridge.requestsSinceMark()).toEqual([]);
  });

  it("answers a nested __proto__ in note_features with an invalid_input tool result", async () => {
    const answer = await callTool(
      "hackmd_create_note",
      '{"title":"Odd","note_features":{"__proto__":{"polluted":true}}}',
    );
    expectRefusal(resultOf(answer), "__proto__");
    expect(resultOf(answer).content[0]?.text).toContain("note_features");
    expect(bridge.requestsSinceMark()).toEqual([]);
  });

  it("still answers a well-formed call normally", async () => {
    const answer = await callTool("hackmd_get_note", `{"note_ref":"${READING}"}`);
    expect(resultOf(answer).isError).toBeFalsy();
  });
});
