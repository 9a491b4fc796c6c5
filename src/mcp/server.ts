import {
  CLIENT_INFO_META_KEY,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
  type StandardSchemaV1,
} from "@modelcontextprotocol/server";
import type { ChangeGuard, ProposedChange } from "../core/approval";
import type { RetryMeta } from "../core/errors";
import type { Logger } from "../core/ports";
import { decodeArguments, describeTool, type ToolDefinition } from "./define-tool";
import { ElicitationSchemaValidator } from "./elicitation-validator";
import { BridgeError } from "../core/errors";
import { scrubSecrets } from "../core/secrets";
import { runGated, SessionWrites, type MadeChange, type ToolGate } from "./gate";
import { errorResult, successResult, type ToolResult } from "./result";

/** What the MCP server needs from its host: the tools, their deps, and per-call bookkeeping. */
export interface McpHost<Deps, Call> {
  /** Server name and version reported at initialize. */
  name: string;
  version: string;
  tools: ReadonlyArray<ToolDefinition<Deps, Call, never>>;
  deps: Deps;
  /**
   * A fresh per-call context (retry counters live here, never in module state) carrying the gate's
   * guard and who calls: the client's name, the MCP session and the tool (the journal's actor).
   */
  newCall(guard: ChangeGuard, caller?: ToolCaller): Call;
  /** The call's `_meta.retry`, or undefined when nothing was retried or read back. */
  retryMeta(call: Call): RetryMeta | undefined;
  /** Secrets that must never leave in a result (the HackMD token). */
  secrets(): readonly string[];
  logger: Logger;
  /** Process-unique request ids for log lines. */
  nextRequestId(): string;
  /** Observes every completed call (the plugin's activity log); `change` holds the text before a write (never logged). */
  onCallCompleted?(event: ToolCallEvent, change?: ProposedChange): void;
  /** The per-tool policy and the user's approval (docs/tool-contract-extensions.md); absent: every tool allowed. */
  gate?: ToolGate;
  /**
   * Records a call that wrote (or may have written) in the sync journal, awaited before the result
   * goes back so the agent's next read of the journal shows it; `meta` is the result's `_meta`.
   */
  onWrite?(write: ToolWrite): Promise<void>;
}

/** Who makes a tool call. */
export interface ToolCaller {
  client: string;
  /** This MCP session's id (one server per session). */
  session: string;
  tool: string;
}

/** A tool call that changed something, or whose outcome is unknown. */
export interface ToolWrite {
  caller: ToolCaller;
  ok: boolean;
  errorKind?: string;
  made: MadeChange;
  /** The note the result or the change named (a created note's new id). */
  noteId?: string;
  meta?: Record<string, unknown>;
}

let sessions = 0;

/** One completed tool call, as logged and shown in the activity log (never bodies or tokens). */
export interface ToolCallEvent {
  request_id: string;
  tool: string;
  ok: boolean;
  error_kind?: string;
  duration_ms: number;
  note_id?: string;
  /** The MCP client's name from its initialize request. */
  client?: string;
  /** The workspace of the note, when the call was about to change one. */
  team_path?: string | null;
  /** The ROOT-relative file the call was about to change, when there was one. */
  local_path?: string;
  /** `body_hash` of the text before and after a text change (a note body or a working file). */
  body_hash_before?: string;
  body_hash_after?: string;
}

/**
 * tools/call's params as our handler reads them: exactly as they arrived. The SDK's own params
 * schema rebuilds `arguments` as a record, which drops an own `__proto__` key (rebuilding the
 * object assigns it, which sets the prototype) and throws on a `constructor` key, so the handler is
 * set with this pass-through schema instead (the SDK's three-argument `setRequestHandler`);
 * `decodeArguments` judges the untouched object and answers every odd name with an
 * `invalid_input` result (docs/tools.md §3.1).
 */
const rawCallParams: StandardSchemaV1<unknown, { name?: unknown; arguments?: unknown }> = {
  "~standard": {
    version: 1,
    vendor: "hackmd-bridge",
    validate: (value) =>
      value !== null && typeof value === "object" ? { value } : { issues: [{ message: "params must be an object" }] },
  },
};

/** The SDK's server that createMcpServer returns (its `McpServer`, whose handlers we set ourselves). */
export type McpProtocolServer = McpServer;

/**
 * Where "allow this tool for this session" is kept and who the client is, when the transport
 * knows better than one server instance: over HTTP a 2026-07-28 client gets a fresh server per
 * request (no session), so the listener keeps the set per client name for its lifetime; a
 * 2025-11-25 session and a stdio connection get one server each and need no scope.
 */
export interface ServerScope {
  /** The tools the user allowed for `client` (the set is kept and changed by the gate). */
  allowed?(client: string): Set<string>;
  /** The client's name from its 2025-11-25 `initialize`, which the transport saw. */
  clientName?(): string | undefined;
  /** The session a client's calls belong to in the journal and the bulk guard, kept per client name. */
  session?(client: string): { id: string; writes: SessionWrites };
}

/** A name for one agent session in the journal (docs/sync-journal.md). */
export function newSessionId(): string {
  sessions += 1;
  return `s-${Date.now().toString(36)}-${sessions.toString(36)}`;
}

/**
 * The tools/list answer of a tool set, built once per set (docs/architecture.md §5): converting 19 zod schemas
 * to JSON Schema for every session was the largest allocation of a session open. The listing is
 * never handed out for mutation (the SDK serialises it), so every session shares it.
 */
const listings = new WeakMap<ReadonlyArray<ToolDefinition<never, never, never>>, ReturnType<typeof describeTool>[]>();

function listingOf(tools: ReadonlyArray<ToolDefinition<never, never, never>>): ReturnType<typeof describeTool>[] {
  let listing = listings.get(tools);
  if (listing === undefined) {
    listing = tools.map((tool) => describeTool(tool));
    listings.set(tools, listing);
  }
  return listing;
}

/**
 * The SDK's server validates only elicitation answers with its JSON-schema validator. One per
 * process, shared by every session's server (docs/architecture.md §5): over HTTP a validator per session was
 * held as long as the session.
 */
let sharedValidator: ElicitationSchemaValidator | undefined;

/** How long a 2026-07-28 client may keep the tools/list answer, and for whom. */
export const TOOLS_LIST_CACHE = { ttlMs: 60_000, cacheScope: "private" } as const;

/**
 * Builds an MCP server that declares only the tools capability and answers tools/list and
 * tools/call from tool definitions. The handlers are set on the SDK's protocol `Server` directly,
 * not through McpServer's `registerTool`, because our contract needs argument failures as
 * `invalid_input` results, hidden aliases, and advertised schemas that differ from the decoding
 * ones (docs/tools.md §3.1).
 */
export function createMcpServer<Deps, Call>(host: McpHost<Deps, Call>, scope: ServerScope = {}): McpProtocolServer {
  // McpServer, whose registerTool (never used here) would validate arguments its own way; its
  // handlers for tools are set on its protocol server directly. Our own small validator replaces
  // ajv (docs/architecture.md §5). The capabilities are what McpServer declared for us before
  // (`listChanged: true`), unchanged.
  sharedValidator ??= new ElicitationSchemaValidator();
  const mcp = new McpServer(
    { name: host.name, version: host.version },
    {
      capabilities: { tools: { listChanged: true } },
      jsonSchemaValidator: sharedValidator,
      // 2026-07-28 makes tool lists cacheable: ours is fixed for the life of the process (or plugin
      // load), so a client may keep it a minute, for itself only (2025-11-25 answers are unaffected).
      cacheHints: { "tools/list": TOOLS_LIST_CACHE },
    },
  );
  const server = mcp.server;
  const listing = listingOf(host.tools);
  const handlers = new Map(host.tools.map((tool) => [tool.name, { tool, run: tool.create(host.deps) }]));
  // "Allow this tool for this session", the bulk guard's count of the session's writes
  // (docs/tool-contract-extensions.md) and the session's name in the journal: one server serves
  // one 2025-11-25 session or one stdio connection; a 2026-07-28 client has no session, and the
  // scope keeps these per client name instead.
  const ownAllowed = new Set<string>();
  const ownWrites = new SessionWrites();
  const ownSession = newSessionId();

  // The listing is our own JSON Schema (docs/tools.md §3), typed more loosely than the SDK's.
  server.setRequestHandler("tools/list", () => ({ tools: listing as never }));
  server.setRequestHandler("tools/call", { params: rawCallParams }, async (params, ctx): Promise<ToolResult> => {
    const entry = typeof params.name === "string" ? handlers.get(params.name) : undefined;
    if (!entry)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool ${JSON.stringify(params.name)}; call tools/list for the available tools.`,
      );
    const rawArguments = params.arguments;
    const requestId = host.nextRequestId();
    const started = Date.now();
    const client = clientNameOf(ctx) ?? scope.clientName?.() ?? "unknown client";
    const sessionAllowed = scope.allowed?.(client) ?? ownAllowed;
    const shared = scope.session?.(client);
    const sessionWrites = shared?.writes ?? ownWrites;
    const caller: ToolCaller = { client, session: shared?.id ?? ownSession, tool: entry.tool.name };
    let call = host.newCall(() => Promise.resolve(), caller);
    let made: MadeChange | undefined;
    host.logger.info("tool_call_started", { request_id: requestId, tool: entry.tool.name });
    let result: ToolResult;
    try {
      // The policy comes first: a denied tool is refused whatever its arguments.
      const success = await runGated({
        gate: host.gate,
        tool: entry.tool.name,
        readsOnly: entry.tool.annotations.readOnlyHint,
        client,
        sessionAllowed,
        sessionWrites,
        rawArguments,
        onChange: (change) => {
          made = change;
        },
        run: (guard) => {
          const args = decodeArguments(
            entry.tool.decodeInput ?? entry.tool.input,
            entry.tool.aliases,
            rawArguments,
          ) as never;
          call = host.newCall(guard, caller);
          return entry.run(args, call);
        },
      });
      result = successResult(success, host.retryMeta(call));
    } catch (error) {
      result = errorResult(error, host.retryMeta(call), host.secrets());
      if (!(error instanceof BridgeError)) {
        // The user is told to report this log line, so it must say what failed (scrubbed).
        const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        host.logger.error("tool_call_internal_error", {
          request_id: requestId,
          tool: entry.tool.name,
          error: scrubSecrets(detail, host.secrets()),
        });
      }
    }
    const event: ToolCallEvent = {
      request_id: requestId,
      tool: entry.tool.name,
      ok: !result.isError,
      duration_ms: Date.now() - started,
      client,
    };
    if (result._meta?.error_kind) event.error_kind = result._meta.error_kind;
    const noteId = noteIdOf(result.structuredContent) ?? made?.change.note?.noteId;
    if (noteId) event.note_id = noteId;
    addChange(event, made);
    host.logger.info("tool_call_completed", { ...event });
    const written: MadeChange | undefined = made;
    if (
      host.onWrite !== undefined &&
      written !== undefined &&
      (!result.isError || UNKNOWN_OUTCOME.has(event.error_kind ?? ""))
    ) {
      await host.onWrite({
        caller,
        ok: !result.isError,
        ...(event.error_kind === undefined ? {} : { errorKind: event.error_kind }),
        made: written,
        ...(event.note_id === undefined ? {} : { noteId: event.note_id }),
        ...(result._meta === undefined ? {} : { meta: result._meta }),
      });
    }
    host.onCallCompleted?.(event, made?.change);
    return result;
  });
  return mcp;
}

/** The client's name from a 2026-07-28 request's `_meta` envelope (absent under 2025-11-25). */
function clientNameOf(ctx: ServerContext): string | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const info = envelope?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined;
  return typeof info?.name === "string" && info.name !== "" ? info.name : undefined;
}

/** Errors after which a write may have landed: journaled as unconfirmed. */
const UNKNOWN_OUTCOME: ReadonlySet<string> = new Set(["readback", "partial_write"]);

/** What the event says about the change a call made or was about to make (hashes only, never text). */
function addChange(event: ToolCallEvent, made: MadeChange | undefined): void {
  if (made === undefined) return;
  const { change } = made;
  if (change.note !== undefined) event.team_path = change.note.teamPath;
  if (change.localPath !== undefined) event.local_path = change.localPath;
  if (made.hashBefore !== undefined) event.body_hash_before = made.hashBefore;
  if (made.hashAfter !== undefined) event.body_hash_after = made.hashAfter;
}

function noteIdOf(output: Record<string, unknown> | undefined): string | undefined {
  if (!output) return undefined;
  if (typeof output.note_id === "string") return output.note_id;
  const note = output.note;
  if (note && typeof note === "object" && typeof (note as Record<string, unknown>).id === "string") {
    return (note as Record<string, unknown>).id as string;
  }
  return typeof output.id === "string" && output.mode === "note" ? output.id : undefined;
}
