/**
 * The stdio transport of `hackmd-bridge mcp`: newline-delimited JSON-RPC on stdin and stdout, as
 * the SDK's StdioServerTransport, but each line is read with `parseJsonBounded`
 * (mcp/json-depth.ts) before any parsing, so a message nested thousands of levels deep costs one
 * linear scan instead of stalling the process. The SDK's reader hands every line to JSON.parse
 * and its schema and, on a line it cannot read, reports an error to the server and answers
 * nothing, so the client waits for ever; this one answers such a line with a JSON-RPC error.
 */
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { messageTooDeepError, parseJsonBounded } from "../mcp/json-depth";

/** The longest line read, as the SDK's reader (10 MiB); a longer one is answered with an error and skipped. */
export const STDIO_MAX_LINE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

/** A JSON-RPC error answer (the id is null when the line did not give one). */
function errorAnswer(id: string | number | null, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage;
}

/** Newline-delimited JSON-RPC over a readable and a writable stream (stdin and stdout by default). */
export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** True while the rest of an over-long line is being skipped. */
  private skipping = false;
  private started = false;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly maxLineBytes: number = STDIO_MAX_LINE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer): void => {
    let rest = chunk;
    for (let newline = rest.indexOf(NEWLINE); newline >= 0; newline = rest.indexOf(NEWLINE)) {
      const tail = rest.subarray(0, newline);
      rest = rest.subarray(newline + 1);
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      if (this.size + tail.byteLength > this.maxLineBytes) {
        this.dropLine();
        continue;
      }
      const line = this.chunks.length === 0 ? tail : Buffer.concat([...this.chunks, tail]);
      this.chunks = [];
      this.size = 0;
      this.readLine(line.toString("utf8"));
    }
    if (rest.byteLength === 0 || this.skipping) return;
    if (this.size + rest.byteLength > this.maxLineBytes) {
      this.dropLine();
      this.skipping = true;
      return;
    }
    this.chunks.push(rest);
    this.size += rest.byteLength;
  };

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
  };

  start(): Promise<void> {
    if (this.started) return Promise.reject(new Error("The stdio transport is already started."));
    this.started = true;
    this.input.on("data", this.onData);
    this.input.on("error", this.onStreamError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once("drain", () => resolve());
    });
  }

  close(): Promise<void> {
    this.input.off("data", this.onData);
    this.input.off("error", this.onStreamError);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.chunks = [];
    this.size = 0;
    this.onclose?.();
    return Promise.resolve();
  }

  /** An over-long line: forget what was kept of it and say so (its id is not read). */
  private dropLine(): void {
    this.chunks = [];
    this.size = 0;
    this.answer(errorAnswer(null, -32600, `Invalid Request: a message longer than ${this.maxLineBytes} bytes was skipped.`));
  }

  private readLine(text: string): void {
    const line = text.endsWith("\r") ? text.slice(0, -1) : text;
    if (line.trim() === "") return;
    let parsed: { value: unknown; cut: boolean };
    try {
      parsed = parseJsonBounded(line);
    } catch {
      this.answer(errorAnswer(null, -32700, "Parse error: the message is not valid JSON."));
      return;
    }
    if (parsed.cut) {
      const refusal = messageTooDeepError(parsed.value);
      if (refusal !== undefined) {
        this.answer(refusal as unknown as JSONRPCMessage);
        return;
      }
    }
    const message = JSONRPCMessageSchema.safeParse(parsed.value);
    if (!message.success) {
      const value = parsed.value as { id?: unknown } | null;
      const id = typeof value?.id === "string" || typeof value?.id === "number" ? value.id : null;
      this.answer(errorAnswer(id, -32600, "Invalid Request: the message is not a JSON-RPC 2.0 request, notification or response."));
      return;
    }
    this.onmessage?.(message.data);
  }

  private answer(message: JSONRPCMessage): void {
    this.send(message).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }
}
