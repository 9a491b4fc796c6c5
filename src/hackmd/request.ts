/**
 * One HackMD API request, end to end (docs/tools.md §5.1, §5.5, §6): path segment checks before any
 * I/O, URL building, the token, headers, timeouts, retries by mode, and the one factory that
 * turns statuses and transport failures into BridgeErrors with redacted detail.
 */
import { BridgeError, type BridgeErrorOptions, type ErrorKind } from "../core/errors";
import { TOOL_WORDS } from "../core/wording";
import {
  TransportError,
  type Clock,
  type HttpRequest,
  type HttpResponse,
  type HttpTimeouts,
  type HttpTransport,
  type Logger,
  type Random,
  type SecretSource,
  type Sleep,
} from "../core/ports";
import type { CallContext } from "./call-context";
import { checkIdentifier, type IdentifierLabel } from "./identifiers";
import { DEFAULT_API_URL, type ApiUrl, type ClientConfig } from "./config";
import { boundedDetail, redactToken } from "./redact";
import { decideRetry, retryPolicyFromConfig, type AttemptOutcome, type RequestMode } from "./retry";
import { quotaFragment } from "./quota";

/** HTTP methods the API client sends. */
export type ApiMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a caller-supplied path segment is, for messages. */
export type SegmentLabel = IdentifierLabel;

/** A caller-supplied path segment; literal segments are plain strings. */
export interface CallerSegment {
  readonly label: SegmentLabel;
  readonly value: string;
}

/** One part of an API path below the base path. */
export type PathPart = string | CallerSegment;

/** A caller-supplied segment (checked and encoded like every other). */
export function segment(label: SegmentLabel, value: string): CallerSegment {
  return { label, value };
}

/** Path parts of a workspace collection: `[teams, {tp}, ...rest]` or `rest`. */
export function workspaceParts(teamPath: string | null, ...rest: PathPart[]): PathPart[] {
  return teamPath === null ? rest : ["teams", segment("team path", teamPath), ...rest];
}

export { hasControlCharacter } from "./identifiers";

/** Checks one caller segment (docs/tools.md §5.5, and its length and characters: hackmd/identifiers.ts); throws `invalid_input` without echoing odd values. */
export function checkSegment(part: CallerSegment): void {
  checkIdentifier(part.label, part.value);
}

/** A built request address. */
export interface RequestTarget {
  /** The absolute URL. */
  url: string;
  /** The percent-encoded path including the base path, e.g. `/v1/notes/abc`. */
  path: string;
  /** The decoded segments below the base path (for route classification). */
  segments: string[];
}

/** Checks every caller segment, then builds the URL with per-segment `encodeURIComponent`. */
export function buildTarget(api: ApiUrl, parts: readonly PathPart[]): RequestTarget {
  for (const part of parts) {
    if (typeof part !== "string") checkSegment(part);
  }
  const segments = parts.map((part) => (typeof part === "string" ? part : part.value));
  const encoded = segments.map((value) => encodeURIComponent(value));
  const url = new URL(`${api.base}/${encoded.join("/")}`);
  const baseCount = api.basePath.split("/").filter((s) => s !== "").length;
  const count = url.pathname.split("/").filter((s) => s !== "").length;
  if (count !== baseCount + parts.length || url.origin !== api.origin) {
    // Defence in depth: the segment checks should make this unreachable.
    throw new BridgeError(
      "invalid_input",
      "A note id, team path or folder id is a dot segment and cannot name anything; pass a real id.",
    );
  }
  return { url: url.href, path: url.pathname, segments };
}

/** Whether a path names no id: `/me`, `/notes` (the personal list) or `/teams`. */
function isAccountRoute(segments: readonly string[]): boolean {
  return segments.length === 1 && (segments[0] === "me" || segments[0] === "notes" || segments[0] === "teams");
}

/**
 * Whether a path (segments below the base path) is a note route (docs/tools.md §6.3): scanning left to
 * right, the segment after `teams` is skipped; `notes` first → yes; `folders`, `trash`,
 * `history` or `me` first → no.
 */
export function isNoteRoute(segments: readonly string[]): boolean {
  for (let i = 0; i < segments.length; i += 1) {
    const value = segments[i];
    if (value === "teams") {
      i += 1;
      continue;
    }
    if (value === "notes") return true;
    if (value === "folders" || value === "trash" || value === "history" || value === "me") return false;
  }
  return false;
}

/** Milliseconds to move `bytes` at the configured transfer allowance. */
export function transferAllowanceMs(config: ClientConfig, bytes: number): number {
  return Math.ceil((bytes / config.transferBytesPerSecond) * 1000);
}

/** The timeouts of a request with a body of `bodyBytes` (docs/tools.md §6.1). */
export function timeoutsFor(config: ClientConfig, bodyBytes: number): HttpTimeouts {
  return {
    connectMs: config.connectTimeoutMs,
    headersMs: config.requestTimeoutMs + transferAllowanceMs(config, bodyBytes),
    idleMs: config.requestTimeoutMs,
    totalMs: config.requestTimeoutMs + transferAllowanceMs(config, bodyBytes + config.maxResponseBytes),
  };
}

/** A request body: JSON (serialised here) or raw bytes with their content type. */
export type ApiBody = { json: unknown } | { bytes: Uint8Array; contentType: string };

/** One API request as a client method describes it. */
export interface ApiRequestSpec {
  method: ApiMethod;
  parts: readonly PathPart[];
  mode: RequestMode;
  body?: ApiBody;
  /** Set for `POST /notes/{id}/images` (413 → `too_large`). */
  isImageUpload?: boolean;
  /** Epoch ms by which the request must have completed, retries included (read-back). */
  deadlineAt?: number;
  /** Query parameters, appended in this order (undefined values are left out). */
  query?: ReadonlyArray<readonly [string, string | undefined]>;
  /** Non-2xx statuses returned like a success, for routes whose error body carries an answer. */
  passStatuses?: readonly number[];
  /** Replaces the generic 404 and 409 texts of routes where they would mislead. */
  statusTexts?: { notFound?: string; conflict?: string };
}

/** Ports and settings a request needs. */
export interface RequestDeps {
  transport: HttpTransport;
  config: ClientConfig;
  secrets: SecretSource;
  clock: Clock;
  sleep: Sleep;
  random: Random;
  logger: Logger;
  /** Sees the headers of every response (the client keeps the last quota). */
  onResponse?: (headers: Readonly<Record<string, string>>) => void;
  /**
   * Awaited before every attempt (retries included), before `onRequestSent`: a request budget
   * reserves the attempt here, so it is counted before it can leave. A throw fails the request
   * with nothing sent.
   */
  beforeSend?: (sent: SentRequest) => Promise<void>;
  /** Told of every attempt just before it goes to the transport (retries included): what a request budget counts. */
  onRequestSent?: (sent: SentRequest) => void;
}

/** One attempt of an API request, as `onRequestSent` reports it (no headers, no body, no token). */
export interface SentRequest {
  method: ApiMethod;
  /** The percent-encoded path including the base path, e.g. `/v1/notes/abc`. */
  path: string;
  /** Epoch ms when it was sent. */
  at: number;
}

/** A 2xx response and what is needed to describe it in later errors. */
export interface ApiResponse {
  response: HttpResponse;
  /** `<METHOD> <path>` of the request. */
  where: string;
  segments: string[];
}

const encoder = new TextEncoder();

/**
 * Sends one API request with the retries its mode allows and returns the 2xx response; every
 * other outcome is thrown as a BridgeError. Segment checks run before the token check and I/O.
 */
export async function sendApiRequest(
  deps: RequestDeps,
  context: CallContext,
  spec: ApiRequestSpec,
): Promise<ApiResponse> {
  const { config, clock, logger } = deps;
  const target = withQuery(buildTarget(config.api, spec.parts), spec.query);
  const where = `${spec.method} ${target.path}`;
  const { bytes: body, contentType } = serialiseBody(spec.body, where);
  const token = await readToken(deps.secrets);
  if (token === undefined) {
    throw new BridgeError("auth", `${where}: no HackMD API token is configured; ${config.tokenHint}.`);
  }
  const headers: Record<string, string> = {};
  // The URL was built from the API base, so this always holds; it guards later changes.
  if (new URL(target.url).origin === config.api.origin) headers.authorization = `Bearer ${token}`;
  if (contentType !== undefined) headers["content-type"] = contentType;
  const bodyBytes = body?.byteLength ?? 0;
  const policy = retryPolicyFromConfig(config);
  const facts: ErrorFacts = {
    method: spec.method,
    where,
    segments: target.segments,
    token,
    config,
    isImageUpload: spec.isImageUpload === true,
    statusTexts: spec.statusTexts ?? {},
  };

  for (let retries = 0; ; retries += 1) {
    const timeouts = timeoutsFor(config, bodyBytes);
    if (spec.deadlineAt !== undefined) {
      const remaining = spec.deadlineAt - clock.now();
      if (remaining <= 0) throw transportFailureError(facts, new TransportError("timeout", false, "deadline passed"));
      clampTimeouts(timeouts, remaining);
    }
    const request: HttpRequest = {
      method: spec.method,
      url: target.url,
      headers: { ...headers },
      timeouts,
      maxResponseBytes: config.maxResponseBytes,
    };
    if (body !== undefined) request.body = body;
    if (deps.beforeSend !== undefined)
      await deps.beforeSend({ method: spec.method, path: target.path, at: clock.now() });
    const started = clock.now();
    let outcome: AttemptOutcome;
    let failure: TransportError | undefined;
    let response: HttpResponse | undefined;
    try {
      deps.onRequestSent?.({ method: spec.method, path: target.path, at: started });
      response = await deps.transport.request(request);
      deps.onResponse?.(response.headers);
      outcome = { kind: "response", status: response.status, headers: response.headers };
      logger.debug("hackmd.request", {
        method: spec.method,
        path: target.path,
        status: response.status,
        retries,
        duration_ms: clock.now() - started,
      });
      const reset = response.headers["x-ratelimit-userreset"];
      if (reset !== undefined && response.status >= 400) logger.debug("hackmd.ratelimit_reset", { raw: reset });
      if ((response.status >= 200 && response.status <= 299) || spec.passStatuses?.includes(response.status)) {
        return { response, where, segments: target.segments };
      }
    } catch (error) {
      failure =
        error instanceof TransportError
          ? error
          : new TransportError("reset", true, "the transport failed unexpectedly", { cause: error });
      outcome = { kind: "transport", failure: failure.failure };
      logger.debug("hackmd.request", {
        method: spec.method,
        path: target.path,
        status: null,
        failure: failure.failure,
        sent: failure.sent,
        retries,
        duration_ms: clock.now() - started,
      });
    }
    const decision = decideRetry({
      policy,
      mode: spec.mode,
      retriesSoFar: retries,
      outcome,
      requestBodyBytes: bodyBytes,
      now: clock.now(),
      random: deps.random,
    });
    const fitsDeadline =
      !decision.retry || spec.deadlineAt === undefined || clock.now() + decision.waitMs < spec.deadlineAt;
    if (!decision.retry || !fitsDeadline) {
      if (response !== undefined) throw statusError(facts, response, clock.now());
      throw transportFailureError(facts, failure ?? new TransportError("reset", true, "no response"));
    }
    context.recordRetry(decision.waitMs, decision.rateLimited);
    await deps.sleep(decision.waitMs);
  }
}

/** The facts an error message is built from. */
interface ErrorFacts {
  method: ApiMethod;
  where: string;
  segments: readonly string[];
  token: string;
  config: ClientConfig;
  isImageUpload: boolean;
  statusTexts: { notFound?: string; conflict?: string };
}

function isRead(method: ApiMethod): boolean {
  return method === "GET";
}

/** The one factory of HackMD errors: prefix, text, and a last token scrub of the whole message. */
function makeError(facts: ErrorFacts, kind: ErrorKind, text: string, options: BridgeErrorOptions = {}): BridgeError {
  return new BridgeError(kind, redactToken(`${facts.where}: ${text}`, facts.token), options);
}

/**
 * The BridgeError for a non-2xx response (docs/tools.md §6.3), with bounded, redacted detail. The
 * message is composed by the audience's words (`config.words.reply`): what the answer means and
 * what to do, and HackMD's own reply body for agents (for people only when nothing explains it).
 */
function statusError(facts: ErrorFacts, response: HttpResponse, now: number): BridgeError {
  const { status } = response;
  const words = facts.config.words ?? TOOL_WORDS;
  const said = boundedDetail(response.body, facts.token);
  const error = (kind: ErrorKind, text: string, explained = true): BridgeError =>
    new BridgeError(kind, redactToken(words.reply({ where: facts.where, text, said, explained }), facts.token), {
      details: { status },
    });
  if (status === 401) {
    return error(
      "auth",
      `HackMD rejected the token (401); check the token (create a new one in HackMD under Settings → API if needed) and ${facts.config.tokenHint}.`,
    );
  }
  if (status === 403) {
    return error(
      "forbidden",
      `HackMD refused access (403): the token may not access this note, folder or team; check the ${words.input("team_path")} and the note's permissions.`,
    );
  }
  if (status === 404) {
    // A route that names no id (the account, the personal note list, the teams) cannot be
    // missing at a HackMD API; a 404 there means the API URL points somewhere else.
    if (isAccountRoute(facts.segments)) {
      return error(
        "not_found",
        `not found (404): nothing at ${facts.config.api.base} answers like the HackMD API, so the API URL is probably wrong (HackMD's is ${DEFAULT_API_URL}; it ends in /v1); ${facts.config.apiUrlHint ?? "fix the API URL setting"}.`,
      );
    }
    return error(
      "not_found",
      `not found (404): ${facts.statusTexts.notFound ?? `check the note or folder id and the ${words.input("team_path")}`}.`,
    );
  }
  if (status === 409) {
    if (facts.statusTexts.conflict !== undefined)
      return error("conflict", `conflict (409): ${facts.statusTexts.conflict}.`);
    return isNoteRoute(facts.segments)
      ? error(
          "conflict",
          "conflict (409): the requested permalink is probably taken in this workspace; choose another permalink.",
        )
      : error("conflict", "conflict (409): read the current state and try again.", false);
  }
  if (status === 429) {
    const fragment = quotaFragment(response.headers, now);
    const next =
      facts.method === "PATCH" && isNoteRoute(facts.segments)
        ? `The PATCH was not repeated: wait, then fetch the note afresh (${words.step({ action: "get_note" })}) before trying again.`
        : "Wait before retrying.";
    return error("rate_limited", `rate limited (429): ${fragment}. ${next}`);
  }
  if (status === 413 && facts.isImageUpload) {
    return error("too_large", "HackMD refused the image as too large (413); resize it and retry.");
  }
  if (status >= 500 && status <= 599) {
    return isRead(facts.method)
      ? error("upstream", `HackMD failed (${status}); retry later.`)
      : error(
          "readback",
          `HackMD answered ${status}; the write may have landed. Read the note or folder again and compare before repeating it.`,
        );
  }
  if (status >= 300 && status <= 399) {
    return error("api", `HackMD answered ${status}, a redirect the client does not follow; check the API URL.`);
  }
  return error("api", `HackMD answered ${status}; check the arguments.`, false);
}

/** The BridgeError for a request that got no response (docs/tools.md §6.3). */
function transportFailureError(facts: ErrorFacts, failure: TransportError): BridgeError {
  if (failure.failure === "too_large") {
    return makeError(
      facts,
      "too_large",
      `the response is larger than the ${facts.config.maxResponseBytes}-byte cap and was not read; ask for less (for example a smaller note) or check the API URL.`,
      { cause: failure },
    );
  }
  const timedOut = failure.failure === "timeout";
  // The host may know why nothing answers (a local sandbox that is not running) and say so.
  const unreachable = facts.config.unreachableHint;
  if (isRead(facts.method)) {
    return makeError(
      facts,
      "network",
      timedOut
        ? "HackMD did not answer in time (timed out); check your connection and retry."
        : (unreachable ??
            "could not reach HackMD (the connection failed); check your connection and the API URL, then retry."),
      { cause: failure },
    );
  }
  if (!failure.sent) {
    return makeError(
      facts,
      "network",
      unreachable === undefined
        ? "could not connect to HackMD, so nothing was sent and it is safe to retry; check your connection and the API URL."
        : `nothing was sent: ${unreachable}`,
      { cause: failure },
    );
  }
  return makeError(
    facts,
    "readback",
    `${timedOut ? "the request timed out" : "the connection was lost"} after it was sent; the write may have landed. Read the note or folder again and compare before repeating it.`,
    { cause: failure },
  );
}

/** Parses a 2xx reply as JSON; an empty or unparsable body → `upstream` (or the given kind), never quoted. */
export function parseJsonReply(
  reply: ApiResponse,
  onUnreadable: { kind: ErrorKind; text: string } = {
    kind: "upstream",
    text: "HackMD's reply was empty or not valid JSON; retry later, and check the API URL if it persists.",
  },
): unknown {
  const fail = (): BridgeError =>
    new BridgeError(onUnreadable.kind, `${reply.where}: ${onUnreadable.text}`, {
      details: { status: reply.response.status },
    });
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(reply.response.body);
  } catch {
    throw fail();
  }
  if (text.trim() === "") throw fail();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw fail();
  }
}

/** The target with a query string; the path (and so every message) shows it too. */
function withQuery(target: RequestTarget, query: ApiRequestSpec["query"]): RequestTarget {
  const params = new URLSearchParams();
  for (const [key, value] of query ?? []) if (value !== undefined) params.append(key, value);
  const search = params.toString();
  if (search === "") return target;
  return { ...target, url: `${target.url}?${search}`, path: `${target.path}?${search}` };
}

function serialiseBody(body: ApiBody | undefined, where: string): { bytes?: Uint8Array; contentType?: string } {
  if (body === undefined) return {};
  if ("bytes" in body) return { bytes: body.bytes, contentType: body.contentType };
  let text: string | undefined;
  try {
    text = JSON.stringify(body.json);
  } catch (error) {
    throw new BridgeError("internal", `${where}: the request body could not be serialised; report this as a bug.`, {
      cause: error,
    });
  }
  if (text === undefined) {
    throw new BridgeError("internal", `${where}: the request body could not be serialised; report this as a bug.`);
  }
  return { bytes: encoder.encode(text), contentType: "application/json" };
}

async function readToken(secrets: SecretSource): Promise<string | undefined> {
  const token = (await secrets.getToken())?.trim();
  return token === undefined || token === "" ? undefined : token;
}

function clampTimeouts(timeouts: HttpTimeouts, remainingMs: number): void {
  timeouts.connectMs = Math.min(timeouts.connectMs, remainingMs);
  timeouts.headersMs = Math.min(timeouts.headersMs, remainingMs);
  timeouts.idleMs = Math.min(timeouts.idleMs, remainingMs);
  timeouts.totalMs = Math.min(timeouts.totalMs, remainingMs);
}
