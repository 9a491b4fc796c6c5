/**
 * The bounded stdio transport of `hackmd-bridge mcp` (node/stdio-transport.ts) over in-process
 * streams: lines split across chunks, deep messages cut before parsing, and an answer for every
 * line it cannot hand on (the SDK's reader answered nothing, so the client waited for ever).
 */
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod/v4";
import { silentLogger } from "../../src/core/ports";
import { defineTool } from "../../src/mcp/define-tool";
import { createMcpServer } from "../../src/mcp/server";
import { BoundedStdioServerTransport } from "../../src/node/stdio-transport";

const echo = defineTool<Record<string, never>, Record<string, never>, z.ZodObject<{ text: z.ZodString }>>({
  name: "echo",
  title: "Echo",
  description: "Echoes text.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.object({ text: z.string() }).strict(),
  output: z.object({ echoed: z.string() }),
  create: () => (args) => Promise.resolve({ summary: "echoed", output: { echoed: args.text } }),
});

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

describe("serveStdio over the bounded transport: either revision, chosen by the opening message", () => {
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "stdio-modern", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };

  function served(): { input: PassThrough; answers: () => unknown[]; clients: string[]; close: () => Promise<void> } {
    const { input, answers, transport } = harness();
    const clients: string[] = [];
    const handle = serveStdio(
      () =>
        createMcpServer(
          {
            name: "test",
            version: "0.0.0",
            tools: [echo],
            deps: {},
            newCall: () => ({}),
            retryMeta: () => undefined,
            secrets: () => [],
            logger: silentLogger,
            nextRequestId: () => "r",
            onCallCompleted: (event) => clients.push(event.client ?? ""),
          },
          { clientName: () => transport.clientName },
        ),
      { transport },
    );
    return { input, answers, clients, close: () => handle.close() };
  }

  const until = async (check: () => boolean): Promise<void> => {
    while (!check()) await tick();
  };

  it("2026-07-28: server/discover, then a tools/call on its own, the client named by its envelope", async () => {
    const { input, answers, clients, close } = served();
    input.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: envelope } })}\n`,
    );
    await until(() => answers().length >= 1);
    expect(answers()[0]).toMatchObject({
      id: 1,
      result: { supportedVersions: expect.arrayContaining(["2026-07-28"]) },
    });
    input.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "hi" }, _meta: envelope } })}\n`,
    );
    await until(() => answers().length >= 2);
    expect(answers()[1]).toMatchObject({ id: 2, result: { structuredContent: { echoed: "hi" } } });
    expect(clients).toEqual(["stdio-modern"]);
    await close();
  });

  it("2025-11-25: initialize, then tools/call on the pinned connection, the client named by initialize", async () => {
    const { input, answers, clients, close } = served();
    input.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "stdio-legacy", version: "1" } } })}\n`,
    );
    await until(() => answers().length >= 1);
    expect(answers()[0]).toMatchObject({ id: 1, result: { protocolVersion: "2025-11-25" } });
    input.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    input.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "yo" } } })}\n`,
    );
    await until(() => answers().length >= 2);
    expect(answers()[1]).toMatchObject({ id: 2, result: { structuredContent: { echoed: "yo" } } });
    expect(clients).toEqual(["stdio-legacy"]);
    await close();
  });
});
