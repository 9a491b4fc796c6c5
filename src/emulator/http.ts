/** Replies, route definitions and the context every route handler receives. */
import type { Buffer } from "node:buffer";
import type { IdSource } from "./ids";
import type { RouteFamily, UserRecord } from "./types";
import type { ViewContext } from "./views";

/** A reply before it is written: JSON, plain text, raw bytes or nothing. */
export interface Reply {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** Whether the store changed (for the log and for after-commit faults). */
  committed?: boolean;
}

/** Fault actions a handler consults while it works. */
export type InlineFault = "placementFailure" | "partialApply";

/** What a route handler receives. */
export interface RouteContext extends ViewContext {
  user: UserRecord;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body; `undefined` when there was none (or it was multipart). */
  body: unknown;
  rawBody: Buffer;
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  ids: IdSource;
  /** The emulator's own origin, the default base of image links. */
  origin: string;
  /** Consumes a matching fault of this kind, if one applies to the request. */
  takeFault(kind: InlineFault): boolean;
}

/** One route of the API, as a template relative to the base path. */
export interface RouteDef {
  method: string;
  path: string;
  family: RouteFamily;
  handler: (ctx: RouteContext) => Reply;
}

/** Dialect A: `{ "error": message }`. */
export function errorReply(status: number, message: string): Reply {
  return { status, json: { error: message } };
}

/** Dialect B: `{ "message": message }` (image route). */
export function messageReply(status: number, message: string): Reply {
  return { status, json: { message } };
}

/** A JSON reply. */
export function jsonReply(status: number, json: unknown, committed = false): Reply {
  return { status, json, committed };
}

/** A reply with no body and no Content-Type. */
export function emptyReply(status: number, committed = false): Reply {
  return { status, committed };
}

/** Dialect C: one `requestBody.<field>` entry per failed check. */
export type ValidationDetails = Record<string, { message: string; value: unknown }>;

/** The 422 tsoa shape. */
export function validationReply(details: ValidationDetails): Reply {
  return { status: 422, json: { message: "Validation Failed", details } };
}

/** Whether a value is a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
