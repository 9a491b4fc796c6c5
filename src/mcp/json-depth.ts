/**
 * Nesting limits for what agents send (docs/tool-contract-extensions.md, "Nesting limits"), and
 * the linear checks that enforce them. Every check here is one pass with an explicit counter or
 * stack: no recursion (a deep value cannot overflow the call stack) and no per-level copying (a
 * deep value cannot make the work quadratic).
 *
 * - Tool arguments: the arguments object is level 1; anything nested deeper than
 *   `ARGUMENT_DEPTH_LIMIT`, or an array longer than `ARGUMENT_ARRAY_LIMIT`, is refused by
 *   `decodeArguments` with `invalid_input`.
 * - A whole JSON-RPC message on the wire: the transports (`mcp/http/listener.ts`,
 *   `node/stdio-transport.ts`) read it with `parseJsonBounded`, which scans the text before
 *   `JSON.parse` and cuts every container nested deeper than `MESSAGE_DEPTH_LIMIT`, so neither
 *   `JSON.parse` nor the SDK ever sees a deep value. A `tools/call` whose arguments were cut still
 *   reaches the tools/call handler, which answers `invalid_input` for its request id (the cut
 *   arguments are still deeper than the argument limit); any other cut message is answered with
 *   a JSON-RPC "Invalid Request" error (`messageTooDeepError`).
 */

/** Deepest nesting of tool arguments (the arguments object itself is level 1). */
export const ARGUMENT_DEPTH_LIMIT = 64;

/**
 * Most entries of one array in tool arguments. No tool takes more (tags, child_order), and a
 * wrong array of millions of entries would otherwise be judged entry by entry.
 */
export const ARGUMENT_ARRAY_LIMIT = 10_000;

/**
 * Deepest nesting of a whole JSON-RPC message. Tool arguments sit at level 3 of a request
 * (message → params → arguments), so arguments cut at this level are always past
 * `ARGUMENT_DEPTH_LIMIT`.
 */
export const MESSAGE_DEPTH_LIMIT = 128;

/** What replaces a container nested deeper than the limit in a cut message. */
const CUT = "null";

/** A message read by `parseJsonBounded`. */
export interface BoundedJson {
  value: unknown;
  /** True when some container was nested deeper than the limit and was cut. */
  cut: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Parses JSON text whose containers nest at most `maxDepth` deep; every container opened deeper is
 * replaced by `null` before parsing (the result says so). One linear scan over the text counts
 * brackets outside strings; text within the limit is handed to `JSON.parse` unchanged. Throws
 * `SyntaxError` for text that is not JSON (an unclosed container included).
 */
export function parseJsonBounded(text: string, maxDepth: number = MESSAGE_DEPTH_LIMIT): BoundedJson {
  let depth = 0;
  let pieces: string[] | undefined;
  let kept = 0;
  const length = text.length;
  for (let index = 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = endOfString(text, index);
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth += 1;
      if (depth > maxDepth) {
        const end = endOfContainer(text, index);
        pieces ??= [];
        pieces.push(text.slice(kept, index), CUT);
        kept = end + 1;
        index = end;
        depth -= 1;
      }
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth -= 1;
    }
  }
  if (pieces === undefined) return { value: JSON.parse(text) as unknown, cut: false };
  pieces.push(text.slice(kept));
  return { value: JSON.parse(pieces.join("")) as unknown, cut: true };
}

/** The index of the quote closing the string that opens at `start`. */
function endOfString(text: string, start: number): number {
  let at = start;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) throw new SyntaxError("Unterminated string in JSON");
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
}

/** The index of the bracket closing the container that opens at `start`. */
function endOfContainer(text: string, start: number): number {
  let depth = 0;
  for (let index = start; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) index = endOfString(text, index);
    else if (code === OPEN_ARRAY || code === OPEN_OBJECT) depth += 1;
    else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  throw new SyntaxError("Unterminated array or object in JSON");
}

/**
 * Whether a parsed value nests deeper than `limit` (the value itself is level 1 when it is an
 * array or object). Iterative, and stops at the first level past the limit, so the work is at
 * most linear in the value's size.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== "object" || next.value === null) continue;
    if (next.depth > limit) return true;
    const children = Array.isArray(next.value) ? (next.value as unknown[]) : Object.values(next.value);
    for (const child of children) {
      if (typeof child === "object" && child !== null) pending.push({ value: child, depth: next.depth + 1 });
    }
  }
  return false;
}

/**
 * For a message `parseJsonBounded` had to cut: undefined when it is a `tools/call` request whose
 * arguments are past the argument limit (the tools/call handler answers it with `invalid_input`
 * for its id), otherwise the JSON-RPC error to answer instead, with the message's id when it has
 * one.
 */
export function messageTooDeepError(
  message: unknown,
): { jsonrpc: "2.0"; id: string | number | null; error: { code: number; message: string } } | undefined {
  const record =
    typeof message === "object" && message !== null && !Array.isArray(message)
      ? (message as Record<string, unknown>)
      : undefined;
  const id = typeof record?.id === "string" || typeof record?.id === "number" ? record.id : null;
  const params = record?.params;
  if (
    id !== null &&
    record?.method === "tools/call" &&
    typeof params === "object" &&
    params !== null &&
    nestsDeeperThan((params as Record<string, unknown>).arguments, ARGUMENT_DEPTH_LIMIT)
  ) {
    return undefined;
  }
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: -32600,
      message: `Invalid Request: the message nests arrays and objects deeper than ${MESSAGE_DEPTH_LIMIT} levels; no MCP request needs that. Send a flatter message.`,
    },
  };
}
