/**
 * Sending arguments nested tens of thousands of levels deep through the SDK's real client. The
 * SDK's client transports serialise with JSON.stringify, which recurses and overflows the stack
 * long before 50,000 levels; an agent written in another language sends such text without
 * trouble. So: an iterative serialiser, a newline-delimited client transport over a child
 * process's pipes that uses it (stdio), and a wrapper of the Streamable HTTP client transport
 * that swaps the arguments for a placeholder and puts the serialised text back into the body in
 * its fetch (HTTP). Everything else (initialize, request ids, answers) is the SDK client's own.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

type Frame = { items: unknown[]; index: number } | { entries: Array<[string, unknown]>; index: number };

/** JSON text of plain data (arrays, objects, strings, numbers, booleans, null) without recursion. */
export function stringifyIterative(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (item: unknown): void => {
    if (Array.isArray(item)) {
      out.push("[");
      stack.push({ items: item as unknown[], index: 0 });
    } else if (typeof item === "object" && item !== null) {
      out.push("{");
      // As JSON.stringify: properties whose value is undefined are left out.
      stack.push({ entries: Object.entries(item).filter(([, entry]) => entry !== undefined), index: 0 });
    } else {
      out.push(JSON.stringify(item) ?? "null");
    }
  };
  open(value);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if ("items" in top) {
      if (top.index < top.items.length) {
        if (top.index > 0) out.push(",");
        open(top.items[top.index++]);
      } else {
        out.push("]");
        stack.pop();
      }
    } else if (top.index < top.entries.length) {
      const [key, item] = top.entries[top.index]!;
      out.push(`${top.index > 0 ? "," : ""}${JSON.stringify(key)}:`);
      top.index += 1;
      open(item);
    } else {
      out.push("}");
      stack.pop();
    }
  }
  return out.join("");
}

/** Newline-delimited JSON-RPC with a spawned `hackmd-bridge mcp`, serialising iteratively. */
export class LineClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private pending = "";

  constructor(private readonly child: ChildProcessWithoutNullStreams) {}

  start(): Promise<void> {
    this.child.stdout.on("data", (chunk: Buffer) => {
      this.pending += chunk.toString("utf8");
      for (let newline = this.pending.indexOf("\n"); newline >= 0; newline = this.pending.indexOf("\n")) {
        const line = this.pending.slice(0, newline);
        this.pending = this.pending.slice(newline + 1);
        if (line.trim() !== "") this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
      }
    });
    this.child.once("exit", () => this.onclose?.());
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.writeLine(stringifyIterative(message));
  }

  /** Writes one line as given (a message the SDK client would not send). */
  writeLine(text: string): Promise<void> {
    return new Promise((resolve, reject) =>
      this.child.stdin.write(`${text}\n`, (error) => (error ? reject(error) : resolve())),
    );
  }

  close(): Promise<void> {
    this.child.stdin.end();
    return Promise.resolve();
  }
}

/**
 * A Streamable HTTP client transport whose tools/call arguments are serialised iteratively: the
 * arguments travel through the SDK as a placeholder string, replaced in the body by `fetch`.
 */
export function deepSafeHttpTransport(
  url: URL,
  token: string,
): Transport & { readonly inner: StreamableHTTPClientTransport } {
  const stash = new Map<string, string>();
  let counter = 0;
  const inner = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: (input, init) => {
      let body = init?.body;
      if (typeof body === "string") {
        for (const [placeholder, text] of stash) {
          if (!body.includes(placeholder)) continue;
          body = body.replace(placeholder, () => text);
          stash.delete(placeholder);
        }
      }
      return fetch(input, { ...init, body });
    },
  });
  const wrapper: Transport & { readonly inner: StreamableHTTPClientTransport } = {
    inner,
    start: () => inner.start(),
    close: () => inner.close(),
    send: (message: JSONRPCMessage, options?: TransportSendOptions) => {
      const request = message as { method?: string; params?: { arguments?: unknown } };
      if (request.method !== "tools/call" || request.params?.arguments === undefined)
        return inner.send(message, options);
      counter += 1;
      const placeholder = `deep-arguments-${counter}`;
      stash.set(JSON.stringify(placeholder), stringifyIterative(request.params.arguments));
      return inner.send({ ...message, params: { ...request.params, arguments: placeholder } }, options);
    },
    get sessionId() {
      return inner.sessionId;
    },
    setProtocolVersion: (version: string) => inner.setProtocolVersion(version),
  };
  inner.onmessage = (message) => wrapper.onmessage?.(message);
  inner.onerror = (error) => wrapper.onerror?.(error);
  inner.onclose = () => wrapper.onclose?.();
  return wrapper;
}
