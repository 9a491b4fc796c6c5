/**
 * The tool gate (docs/tool-contract-extensions.md, docs/adr/0005-ask-by-rerun.md): decides before a tool writes whether it may.
 * `deny` refuses the call before the handler runs. `ask` runs the handler until the point where it
 * is about to change something (`CallContext.beforeChange`), stops it there with nothing written,
 * puts the proposed change to the user (outside every queue, so nothing waits on the question),
 * and on approval runs the handler again: it goes ahead only when it is about to make exactly the
 * change the user saw; when the note changed meanwhile, the user is asked again.
 */
import { isEditableChange, type ChangeEdit, type ChangeGuard, type ProposedChange } from "../core/approval";
import { BridgeError } from "../core/errors";
import { bodyHash } from "../core/hash";
import { normalizeLineEndings } from "../core/text";
import { effectivePolicy, type PolicyMap } from "./policy";

/** The user's answer to a question; `{ edited }` approves the change with the user's own text. */
export type ApprovalDecision = "approve" | "deny" | "allow_session" | { edited: string };

/** One question put to the user. */
export interface ApprovalRequest {
  /** The MCP client's name from its initialize request ("unknown client" when it sent none). */
  client: string;
  tool: string;
  change: ProposedChange;
  /** The bulk guard's question: the session's writes so far in the window, oldest first. */
  bulk?: { minutes: number; writes: string[] };
}

/**
 * The bulk guard of one MCP session: the writes the session made, so that more than `writes`
 * writes within `minutes` pause it and ask the user once, showing the set so far. An answer to
 * go on starts a new count; the next question comes after as many writes again.
 */
export class SessionWrites {
  private made: Array<{ at: number; what: string }> = [];
  private countFrom = 0;

  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Records a write about to be made. */
  record(what: string): void {
    this.made.push({ at: this.now(), what });
    if (this.made.length > 1000) this.made = this.made.slice(-500);
    this.countFrom = Math.min(this.countFrom, this.made.length);
  }

  /** The writes since the last answer within the window, when there are at least `limit.writes` of them. */
  exceeded(limit: { writes: number; minutes: number }): string[] | undefined {
    const since = this.now() - limit.minutes * 60_000;
    const recent = this.made.slice(this.countFrom).filter((write) => write.at >= since);
    return recent.length >= limit.writes ? recent.map((write) => write.what) : undefined;
  }

  /** The user let the session go on: count again from here. */
  goOn(): void {
    this.countFrom = this.made.length;
  }
}

/**
 * Puts a question to the user and resolves with the answer; closing the question is `deny`.
 * When `signal` aborts (the time is up), the question is withdrawn and the promise may reject.
 */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** How a host's refusals name their fix (the plugin's settings, or the command's flags). */
export interface GateWords {
  /** Why `tool` is refused and how the user allows it. */
  denied(tool: string, reason: "policy" | "read_only"): string;
  /** Why `tool` cannot be asked about here (no one to ask) and how the user allows it. */
  cannotAsk(tool: string): string;
}

/** What the MCP server needs to gate its tools; read at every call, so settings apply at once. */
export interface ToolGate {
  /** The policy per tool name. */
  policies(): PolicyMap;
  /** "Read-only for agents": every tool that may change something is denied. */
  readOnly(): boolean;
  /** Asks the user; absent when the host has no one to ask (the command), so `ask` refuses. */
  approver?: Approver;
  /** How long a question waits for an answer, in milliseconds. */
  timeoutMs(): number;
  /** Resolves after `ms`, or never once `signal` aborts (a host timer; tests inject one they control). */
  wait: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Whether calls record the text before a change even when nobody is asked (the activity history's undo). */
  recordsBefore: boolean;
  /**
   * Runs just before an allowed or approved change is written, inside the call's hold (the plugin
   * names HackMD's text as a version before an agent's write, docs/sync-journal.md). A failure
   * here is the host's to swallow; a throw stops the call with nothing written.
   */
  beforeWrite?: (write: { client: string; tool: string; change: ProposedChange }) => Promise<void>;
  /** The bulk guard's limit (more than `writes` writes in `minutes` asks once); undefined: off. */
  bulkLimit?: () => { writes: number; minutes: number } | undefined;
  words: GateWords;
}

/** A change that was made (or was about to be), as the activity history keeps it. */
export interface MadeChange {
  change: ProposedChange;
  /** `body_hash` of the text before and after, for a text change. */
  hashBefore?: string;
  hashAfter?: string;
  /** The user edited the proposed text before approving; `hashAfter` is of their text. */
  editedByUser?: boolean;
}

/** How many times one call asks when the note keeps changing under the question. */
const MAX_QUESTIONS = 3;

/** Thrown through the handler at the first change of an `ask` call; never leaves the gate. */
class NeedsApproval extends Error {
  constructor(readonly change: ProposedChange) {
    super("approval needed");
  }
}

/** Thrown through the handler when the session's writes reached the bulk limit; never leaves the gate. */
class NeedsBulkApproval extends Error {
  constructor(
    readonly change: ProposedChange,
    readonly writes: string[],
    readonly minutes: number,
  ) {
    super("bulk approval needed");
  }
}

/**
 * Each handler calls `beforeChange` at most once per run: the one point where it has decided what
 * it will write and has not written anything yet.
 *
 * Runs one tool call through the gate. `run` receives the guard to put on the call's context and is
 * run again after each approval; `sessionAllowed` holds the tools the user allowed for this MCP
 * session. Returns the handler's result and the last change the call made.
 */
export async function runGated<T>(options: {
  gate: ToolGate | undefined;
  tool: string;
  readsOnly: boolean;
  client: string;
  sessionAllowed: Set<string>;
  /** This session's writes, for the bulk guard (absent: no bulk guard). */
  sessionWrites?: SessionWrites;
  /** The call's arguments as they arrived; shown when a tool that reads only is asked about. */
  rawArguments?: unknown;
  run: (guard: ChangeGuard) => Promise<T>;
  /** Receives the change the call is about to make, once known (also when the call then fails). */
  onChange: (made: MadeChange) => void;
}): Promise<T> {
  const { gate, tool } = options;
  if (gate === undefined) return options.run(recordingGuard(undefined, options.onChange, undefined));
  for (let pause = 0; ; pause += 1) {
    try {
      return await runGatedOnce(options, gate);
    } catch (error) {
      if (!(error instanceof NeedsBulkApproval) || pause > 0) throw error;
      // The session made many writes quickly: ask once, showing them, before this one.
      const approver = gate.approver;
      if (approver === undefined) throw new BridgeError("tool_denied", gate.words.cannotAsk(tool));
      const decision = await ask(gate, approver, {
        client: options.client,
        tool,
        change: error.change,
        bulk: { minutes: error.minutes, writes: error.writes },
      });
      if (decision === "timeout")
        throw new BridgeError(
          "approval_timeout",
          `The user did not answer whether ${options.client} may go on after ${error.writes.length} changes in ${error.minutes} minutes; nothing was changed. Ask the user before going on.`,
        );
      if (decision === "deny")
        throw new BridgeError(
          "approval_denied",
          `The user paused this session after ${error.writes.length} changes in ${error.minutes} minutes; nothing more was changed. Stop and ask the user how to go on.`,
        );
      options.sessionWrites?.goOn();
    }
  }
}

/** One pass through the gate (see `runGated`); a bulk pause comes out as NeedsBulkApproval. */
async function runGatedOnce<T>(options: Parameters<typeof runGated<T>>[0], gate: ToolGate): Promise<T> {
  const { tool } = options;
  const sessionWrites = options.sessionWrites;
  const beforeWrite = async (change: ProposedChange): Promise<void> => {
    const limit = sessionWrites === undefined ? undefined : gate.bulkLimit?.();
    if (sessionWrites !== undefined && limit !== undefined) {
      const writes = sessionWrites.exceeded(limit);
      if (writes !== undefined) throw new NeedsBulkApproval(change, writes, limit.minutes);
      sessionWrites.record(describeWrite(tool, change));
    }
    await gate.beforeWrite?.({ client: options.client, tool, change });
  };
  const readOnly = gate.readOnly();
  const policy = effectivePolicy({ policies: gate.policies(), readOnly, tool, readsOnly: options.readsOnly });
  if (policy === "deny")
    throw new BridgeError(
      "tool_denied",
      gate.words.denied(tool, readOnly && !options.readsOnly ? "read_only" : "policy"),
    );
  const asking = policy === "ask" && !options.sessionAllowed.has(tool);
  if (!asking) return options.run(recordingGuard(gate, options.onChange, undefined, beforeWrite));
  const approver = gate.approver;
  if (approver === undefined) throw new BridgeError("tool_denied", gate.words.cannotAsk(tool));
  if (options.readsOnly) {
    // A read changes nothing, so there is no change point to stop at: the question comes first.
    await decide(gate, approver, options, { action: "read", fields: argumentFields(options.rawArguments) });
    return options.run(recordingGuard(gate, options.onChange, undefined));
  }
  let approved: ProposedChange | undefined;
  let edit: ChangeEdit | undefined;
  for (let question = 1; ; question += 1) {
    try {
      return await options.run(
        recordingGuard(
          gate,
          options.onChange,
          (change) => {
            if (approved === undefined || !sameChange(approved, change)) throw new NeedsApproval(change);
            return edit;
          },
          beforeWrite,
        ),
      );
    } catch (error) {
      if (!(error instanceof NeedsApproval)) throw error;
      if (question > MAX_QUESTIONS) {
        throw new BridgeError(
          "conflict",
          `The note kept changing while the user was asked to approve ${tool}; nothing was changed. Read it again and retry.`,
        );
      }
      edit = await decide(gate, approver, options, error.change);
      approved = error.change;
    }
  }
}

/**
 * Asks about one change; returns on approval (with the user's own text when they edited an
 * editable change), throws `approval_denied` or `approval_timeout` otherwise.
 */
async function decide(
  gate: ToolGate,
  approver: Approver,
  options: { tool: string; client: string; sessionAllowed: Set<string> },
  change: ProposedChange,
): Promise<ChangeEdit | undefined> {
  const { tool } = options;
  const decision = await ask(gate, approver, { client: options.client, tool, change });
  if (decision === "timeout") {
    throw new BridgeError(
      "approval_timeout",
      `The user did not answer the request to approve ${tool} within ${Math.round(gate.timeoutMs() / 1000)} s; nothing was changed. Ask the user before calling it again.`,
    );
  }
  if (decision === "deny")
    throw new BridgeError(
      "approval_denied",
      `The user denied ${tool}; nothing was changed. Do not retry it unless the user asks you to.`,
    );
  if (decision === "allow_session") options.sessionAllowed.add(tool);
  if (typeof decision === "object") {
    if (!isEditableChange(change))
      throw new BridgeError("approval_denied", `The user's edit of ${tool} cannot be applied; nothing was changed.`);
    return decision.edited === change.body?.after ? undefined : { after: normalizeLineEndings(decision.edited) };
  }
  return undefined;
}

/** One line of the bulk guard's list: the tool and what it changed. */
function describeWrite(tool: string, change: ProposedChange): string {
  const what = change.localPath ?? change.note?.title ?? change.note?.noteId ?? change.folder?.name ?? "";
  return what === "" ? tool : `${tool}: ${what}`;
}

/** The plain top-level arguments, as text (each cut at 200 characters), for a question about a read. */
function argumentFields(raw: unknown): Record<string, string> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return {};
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") continue;
    const text = String(value);
    fields[name] = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  }
  return fields;
}

/** The guard of one run: fills in what a question or the history needs, records, then checks. */
function recordingGuard(
  gate: ToolGate | undefined,
  onChange: (made: MadeChange) => void,
  check: ((change: ProposedChange) => ChangeEdit | undefined) | undefined,
  beforeWrite?: (change: ProposedChange) => Promise<void>,
): ChangeGuard {
  return async (proposed) => {
    const change = await completed(proposed, {
      title: check !== undefined,
      before: check !== undefined || gate?.recordsBefore === true,
    });
    const made: MadeChange = { change };
    if (change.body !== undefined) {
      if (change.body.before !== undefined) made.hashBefore = await bodyHash(change.body.before);
      made.hashAfter = await bodyHash(change.body.after);
    }
    onChange(made);
    const edit = check?.(change);
    if (edit !== undefined && change.body !== undefined) {
      // What is written is the user's text: the history and the journal record that.
      made.change = { ...change, body: { ...change.body, after: edit.after } };
      made.hashAfter = await bodyHash(edit.after);
      made.editedByUser = true;
    }
    if (beforeWrite !== undefined && change.action !== "read") await beforeWrite(made.change);
    return edit;
  };
}

/** The change with its lazy parts read (the note's title, the text before) where wanted, and no functions left. */
async function completed(proposed: ProposedChange, want: { title: boolean; before: boolean }): Promise<ProposedChange> {
  const change: ProposedChange = { ...proposed };
  if (proposed.note !== undefined) {
    const { readTitle, ...note } = proposed.note;
    change.note =
      note.title === undefined && readTitle !== undefined && want.title ? { ...note, title: await readTitle() } : note;
  }
  if (proposed.body !== undefined) {
    const { readBefore, ...body } = proposed.body;
    change.body =
      body.before === undefined && readBefore !== undefined && want.before
        ? { ...body, before: await readBefore() }
        : body;
  }
  return change;
}

/** Whether two proposals are the same change (the text before and after included). */
export function sameChange(a: ProposedChange, b: ProposedChange): boolean {
  return JSON.stringify(comparable(a)) === JSON.stringify(comparable(b));
}

function comparable(change: ProposedChange): unknown {
  const { body, ...rest } = change;
  return {
    ...rest,
    body: body === undefined ? null : { where: body.where, before: body.before ?? null, after: body.after },
  };
}

/** Asks, racing the answer against the timeout; a timed-out question is withdrawn. */
async function ask(
  gate: ToolGate,
  approver: Approver,
  request: ApprovalRequest,
): Promise<ApprovalDecision | "timeout"> {
  const controller = new AbortController();
  const timer = gate.wait(gate.timeoutMs(), controller.signal).then(() => "timeout" as const);
  try {
    return await Promise.race([approver(request, controller.signal).catch((): ApprovalDecision => "deny"), timer]);
  } finally {
    controller.abort();
  }
}

/**
 * Makes an approver put one question at a time: later questions wait their turn, and a question
 * withdrawn while it waits is never shown.
 */
export function oneQuestionAtATime(approver: Approver): Approver {
  let turn: Promise<unknown> = Promise.resolve();
  return (request, signal) => {
    const mine = turn.then(() =>
      signal.aborted ? Promise.resolve<ApprovalDecision>("deny") : approver(request, signal),
    );
    turn = mine.catch(() => undefined);
    return mine;
  };
}
