/**
 * The bounded stdio transport of `hackmd-bridge mcp` (node/stdio-transport.ts) over in-process
 * streams: lines split across chunks, deep messages cut before parsing, and an answer for every
 * line it cannot hand on (the SDK's reader answered nothing, so the client waited for ever).
 */
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { BoundedStdioServerTransport } from "../../src/node/stdio-transport";

function harness(maxLineBytes?: number): {
  input: PassThrough;
  received: JSONRPCMessage[];
  answers: () => unknown[];
  transport: BoundedStdioServerTransport;
} {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = "";
  output.on("data", (chunk: Buffer) => (written += chunk.toString("utf8")));
  const transport = new BoundedStdioServerTransport(input, output, maxLineBytes);
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  return {
    input,
    received,
    transport,
    answers: () =>
      written
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as unknown),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("BoundedStdioServerTransport", () => {
  it("reads messages split across chunks and several in one chunk", async () => {
    const { input, received, transport } = harness();
    await transport.start();
    input.write('{"jsonrpc":"2.0","id":1,"met');
    input.write(
      'hod":"ping"}\r\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n',
    );
    await tick();
    expect(received).toEqual([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ]);
    await transport.close();
  });

  it("hands on a tools/call with 50,000-deep arguments cut, and answers other deep, broken or foreign lines itself", async () => {
    const { input, received, answers, transport } = harness();
    await transport.start();
    const deep = `${"[".repeat(50_000)}${"]".repeat(50_000)}`;
    input.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"x":${deep}}}}\n`);
    input.write(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"x":${deep}}}}\n`);
    input.write(`{"jsonrpc":"2.0","id":3,"method":\n`);
    input.write(`{"id":4,"hello":true}\n`);
    await tick();
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ id: 1, method: "tools/call" });
    expect(answers()).toEqual([
      expect.objectContaining({ id: 2, error: expect.objectContaining({ code: -32600 }) as unknown }),
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32700 }) as unknown }),
      expect.objectContaining({ id: 4, error: expect.objectContaining({ code: -32600 }) as unknown }),
    ]);
    await transport.close();
  });

  it("skips a line longer than its cap with an error and reads the next one", async () => {
    const { input, received, answers, transport } = harness(64);
    await transport.start();
    input.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(40)}`);
    input.write(`${"y".repeat(40)}"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
    await tick();
    expect(received).toEqual([{ jsonrpc: "2.0", id: 2, method: "ping" }]);
    expect(answers()).toEqual([
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) as unknown }),
    ]);
    await transport.close();
  });

  it("reads a last line without a newline when the input ends", async () => {
    const { input, received, transport } = harness();
    await transport.start();
    input.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    await new Promise((resolve) => input.once("end", resolve));
    await tick();
    expect(received).toEqual([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    await transport.inputDone;
    await transport.close();
  });

  it("after the input ends, inputDone waits for every request read to be answered or cancelled", async () => {
    const { input, received, answers, transport } = harness();
    await transport.start();
    let done = false;
    void transport.inputDone.then(() => (done = true));
    input.write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}\n');
    input.write('{"jsonrpc":"2.0","id":"1","method":"ping"}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    input.end('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}\n');
    await new Promise((resolve) => input.once("end", resolve));
    await tick();
    expect(received).toHaveLength(4);
    expect(done).toBe(false);
    await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    await tick();
    // The string id "1" is another request than the number 1: still owed.
    expect(done).toBe(false);
    await transport.send({ jsonrpc: "2.0", id: "1", result: {} });
    await transport.inputDone;
    expect(done).toBe(true);
    expect(answers()).toEqual([expect.objectContaining({ id: 1 }), expect.objectContaining({ id: "1" })]);
    await transport.close();
  });
});
