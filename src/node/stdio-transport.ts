/**
 * The stdio transport of `hackmd-bridge mcp`: newline-delimited JSON-RPC on stdin and stdout, as
 * the SDK's StdioServerTransport, but each line is read with `parseJsonBounded`
 * (mcp/json-depth.ts) before any parsing, so a message nested thousands of levels deep costs one
 * linear scan instead of stalling the process. The SDK's reader hands every line to JSON.parse
 * and its schema and, on a line it cannot read, reports an error to the server and answers
 * nothing, so the client waits for ever; this one answers such a line with a JSON-RPC error.
 *
 * It serves both protocol revisions: `serveStdio` (the SDK's v2 stdio entry, node/serve.ts) reads the
 * opening message and pins the connection to 2026-07-28 or 2025-11-25; this transport only
 * remembers the client's name from a 2025-11-25 `initialize` (a 2026-07-28 request carries it in
 * its envelope), for the approval question and the activity log.
 *
 * When the input ends (the client closed stdin, or a script piped its requests in), a last line
 * without a newline is still read, and `inputDone` resolves only once every request read has been
 * answered (or cancelled by the client): the process then exits without dropping the answers of
 * requests still in flight.
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import { parseJSONRPCMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/server";
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
  /** Ids (typed, e.g. `n:1`, `s:a`) of requests read and not answered yet. */
  private readonly unanswered = new Set<string>();
  private ended = false;
  /** The client's name from its `initialize` request (2025-11-25), once one was read. */
  clientName: string | undefined;
  private resolveClosed: (() => void) | undefined;
  /** Resolves once the transport is closed (by the client, the entry or a signal). */
  readonly closed: Promise<void> = new Promise((resolve) => {
    this.resolveClosed = resolve;
  });
  private resolveInputDone: (() => void) | undefined;
  /** Resolves once the input has ended and every request read from it has been answered. */
  readonly inputDone: Promise<void> = new Promise((resolve) => {
    this.resolveInputDone = resolve;
  });

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

  /** The input ended: read what is left of a last line, then wait for the answers still owed. */
  private readonly onEnd = (): void => {
    if (!this.skipping && this.chunks.length > 0) {
      const line = Buffer.concat(this.chunks);
      this.chunks = [];
      this.size = 0;
      this.readLine(line.toString("utf8"));
    }
    this.ended = true;
    this.settleIfDone();
  };

  private settleIfDone(): void {
    if (this.ended && this.unanswered.size === 0) this.resolveInputDone?.();
  }

  start(): Promise<void> {
    if (this.started) return Promise.reject(new Error("The stdio transport is already started."));
    this.started = true;
    this.input.on("data", this.onData);
    this.input.on("error", this.onStreamError);
    this.input.once("end", this.onEnd);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const answered = answeredId(message);
    return new Promise<void>((resolve) => {
      // Resolved once written out, so an answer is never counted as given before it left.
      this.output.write(`${JSON.stringify(message)}\n`, () => resolve());
    }).finally(() => {
      if (answered !== undefined && this.unanswered.delete(answered)) this.settleIfDone();
    });
  }

  close(): Promise<void> {
    this.input.off("data", this.onData);
    this.input.off("error", this.onStreamError);
    this.input.off("end", this.onEnd);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.chunks = [];
    this.size = 0;
    this.unanswered.clear();
    this.onclose?.();
    this.resolveClosed?.();
    return Promise.resolve();
  }

  /** An over-long line: forget what was kept of it and say so (its id is not read). */
  private dropLine(): void {
    this.chunks = [];
    this.size = 0;
    this.answer(
      errorAnswer(null, -32600, `Invalid Request: a message longer than ${this.maxLineBytes} bytes was skipped.`),
    );
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
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(parsed.value);
    } catch {
      const value = parsed.value as { id?: unknown } | null;
      const id = typeof value?.id === "string" || typeof value?.id === "number" ? value.id : null;
      this.answer(
        errorAnswer(
          id,
          -32600,
          "Invalid Request: the message is not a JSON-RPC 2.0 request, notification or response.",
        ),
      );
      return;
    }
    const data = message as {
      id?: unknown;
      method?: unknown;
      params?: { requestId?: unknown; clientInfo?: { name?: unknown } };
    };
    if (data.method === "initialize" && typeof data.params?.clientInfo?.name === "string")
      this.clientName = data.params.clientInfo.name;
    // A request is owed an answer; a cancelled one is not answered by the SDK, so it is owed none.
    if (typeof data.method === "string" && data.id !== undefined) this.unanswered.add(idKey(data.id));
    if (data.method === "notifications/cancelled" && data.params?.requestId !== undefined) {
      this.unanswered.delete(idKey(data.params.requestId));
      this.settleIfDone();
    }
    this.onmessage?.(message);
  }

  private answer(message: JSONRPCMessage): void {
    this.send(message).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }
}

/** A JSON-RPC id as a key that keeps `1` and `"1"` apart. */
function idKey(id: unknown): string {
  return `${typeof id === "number" ? "n" : "s"}:${String(id)}`;
}

/** The id a message answers (a response or an error with an id), else undefined. */
function answeredId(message: JSONRPCMessage): string | undefined {
  const value = message as { id?: unknown; method?: unknown };
  if (value.method !== undefined || value.id === undefined || value.id === null) return undefined;
  return idKey(value.id);
}
