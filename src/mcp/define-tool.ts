import { z } from "zod/v4";
import { BridgeError, invalidInput } from "../core/errors";
import { toAdvertisedSchema, type JsonSchema } from "./json-schema";
import { ARGUMENT_ARRAY_LIMIT, ARGUMENT_DEPTH_LIMIT } from "./json-depth";

/** The four MCP annotation hints; every tool sets all of them (docs/style.md rule 9). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a tool handler returns on success: a summary line for people and the output object. */
export interface ToolSuccess {
  summary: string;
  output: Record<string, unknown>;
  /** Facts outside the output schema, sent in the result's `_meta` (docs/tool-contract-extensions.md). */
  meta?: Record<string, unknown>;
}

/** Hidden parameter aliases (docs/tools.md §3.1): alias name → canonical name. */
export type AliasMap = Readonly<Record<string, string>>;

/** A tool as data (docs/style.md rule 7): schemas, annotations and a handler factory over deps. */
export interface ToolDefinition<Deps, Call, Args> {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  /** The advertised input schema: a strict zod object (unknown properties refused). */
  input: z.ZodObject;
  /** Accepted but never advertised aliases. */
  aliases?: AliasMap;
  /** A wider schema for decoding, when the tool accepts parameters it does not advertise. */
  decodeInput?: z.ZodObject;
  /** Admits every shape the tool returns, including the §3.3 resolution shape. */
  output: z.ZodType;
  /** Builds the handler from injected dependencies. */
  create(deps: Deps): (args: Args, call: Call) => Promise<ToolSuccess>;
}

/** Identity helper that pins the generic types of a tool definition. */
export function defineTool<Deps, Call, Schema extends z.ZodObject>(
  definition: Omit<ToolDefinition<Deps, Call, z.output<Schema>>, "input"> & { input: Schema },
): ToolDefinition<Deps, Call, z.output<Schema>> {
  return definition;
}

/** The `tools/list` entry of a tool. */
export function describeTool(tool: ToolDefinition<never, never, never>): {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations & { title: string };
} {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toAdvertisedSchema(tool.input, "input"),
    outputSchema: objectSchema(toAdvertisedSchema(tool.output, "output")),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/** MCP requires an object-typed output schema; a union of object shapes gets the type stated. */
function objectSchema(schema: JsonSchema): JsonSchema {
  return schema.type === undefined ? { type: "object", ...schema } : schema;
}

/**
 * Decodes raw arguments: applies hidden aliases (a name together with its alias is refused),
 * then the strict schema. Every failure is `invalid_input` naming what to fix (docs/tools.md §3.1).
 */
export function decodeArguments<Args>(input: z.ZodType<Args>, aliases: AliasMap | undefined, raw: unknown): Args {
  const value = raw === undefined || raw === null ? {} : raw;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw invalidInput("Arguments must be a JSON object; pass the parameters by name.");
  }
  refuseOddShapes(value);
  const args: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [alias, canonical] of Object.entries(aliases ?? {})) {
    if (!Object.hasOwn(args, alias)) continue;
    if (Object.hasOwn(args, canonical)) {
      throw invalidInput(`Give either ${canonical} or ${alias}, not both; ${canonical} is the documented name.`);
    }
    args[canonical] = canonical === "team_path" ? workspaceAliasValue(args[alias]) : args[alias];
    delete args[alias];
  }
  const parsed = input.safeParse(args);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const described = issues.slice(0, MAX_ISSUES_NAMED).map(describeIssue);
  if (issues.length > MAX_ISSUES_NAMED) described.push(`and ${issues.length - MAX_ISSUES_NAMED} more`);
  throw invalidInput(`Invalid arguments: ${described.join("; ")}. Fix them and call again.`);
}

/** Problems named in one message: a huge wrong array must not make a huge error. */
const MAX_ISSUES_NAMED = 5;
/** Property names named in one message, and the characters kept of each. */
const MAX_KEYS_NAMED = 5;
const MAX_NAME_CHARS = 64;

/** A property name as a message quotes it: JSON-quoted, a long one cut with an ellipsis. */
function quotedName(key: string): string {
  const chars = [...key.slice(0, MAX_NAME_CHARS * 2)];
  return JSON.stringify(chars.length > MAX_NAME_CHARS ? `${chars.slice(0, MAX_NAME_CHARS).join("")}…` : key);
}

/** A path segment as a message shows it (a long name cut, as quotedName). */
function shortName(key: string): string {
  const chars = [...key.slice(0, MAX_NAME_CHARS * 2)];
  return chars.length > MAX_NAME_CHARS ? `${chars.slice(0, MAX_NAME_CHARS).join("")}…` : key;
}

/**
 * Property names that rebuilding or validating an object would not treat as plain data: an own
 * `__proto__` (from JSON.parse) becomes the prototype when assigned, and a `constructor` or
 * `prototype` key makes an object look like a class instance to schema checks. No tool has such a
 * parameter, and free-form objects (`note_features`) cannot carry them safely either.
 */
const RESERVED_NAMES = new Set(["__proto__", "constructor", "prototype"]);

/** Where a value sits in the arguments: its key and its parent's place (built into a path only for a message). */
interface Place {
  key: string;
  parent: Place | undefined;
}

function pathOf(place: Place | undefined): string {
  const keys: string[] = [];
  for (let at = place; at !== undefined; at = at.parent) keys.push(at.key);
  return keys.reverse().map(shortName).join(".");
}

/**
 * Refuses arguments nested deeper than ARGUMENT_DEPTH_LIMIT, an array longer than
 * ARGUMENT_ARRAY_LIMIT (mcp/json-depth.ts) and a reserved
 * property name anywhere in them, naming it and where it is. One iterative pass: each value is
 * visited once and holds only a link to its parent's place, so the work is linear in the size of
 * the arguments however deep they nest (copying the path at every level made it quadratic).
 */
function refuseOddShapes(root: object): void {
  const pending: Array<{ value: object; depth: number; place: Place | undefined }> = [
    { value: root, depth: 1, place: undefined },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth, place } = next;
    if (depth > ARGUMENT_DEPTH_LIMIT) {
      throw invalidInput(
        `Invalid arguments: nested deeper than ${ARGUMENT_DEPTH_LIMIT} levels of arrays and objects; no tool takes such a shape. Send the parameters the tool's input schema lists.`,
      );
    }
    if (Array.isArray(value) && value.length > ARGUMENT_ARRAY_LIMIT) {
      const where = place === undefined ? "the arguments" : pathOf(place);
      throw invalidInput(
        `Invalid arguments: ${where} has ${value.length} entries; no tool takes more than ${ARGUMENT_ARRAY_LIMIT}. Fix them and call again.`,
      );
    }
    for (const key of Object.keys(value)) {
      if (RESERVED_NAMES.has(key)) {
        const problem =
          place === undefined
            ? `unknown property ${JSON.stringify(key)} (remove it)`
            : `${pathOf(place)} has the property ${JSON.stringify(key)}, which is not accepted (remove it)`;
        throw invalidInput(`Invalid arguments: ${problem}. Fix them and call again.`);
      }
      const child = (value as Record<string, unknown>)[key];
      if (typeof child === "object" && child !== null)
        pending.push({ value: child, depth: depth + 1, place: { key, parent: place } });
    }
  }
}

/** `workspace` also accepts `{"kind":"personal"}` and `{"kind":"team","team_path":"x"}`. */
function workspaceAliasValue(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort().join(",");
  if (record.kind === "personal" && keys === "kind") return null;
  if (record.kind === "team" && keys === "kind,team_path") return record.team_path;
  throw invalidInput(
    'workspace must be a team path, null, {"kind":"personal"} or {"kind":"team","team_path":"<path>"}; prefer team_path.',
  );
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length > 0 ? issue.path.map((part) => shortName(String(part))).join(".") : "arguments";
  switch (issue.code) {
    case "unrecognized_keys":
      return `unknown ${issue.keys.length === 1 ? "property" : "properties"} ${namedKeys(issue.keys)} (remove ${issue.keys.length === 1 ? "it" : "them"})`;
    case "too_big":
      return `${where} must be at most ${String(issue.maximum)}`;
    case "too_small":
      return issue.origin === "string"
        ? `${where} must not be empty`
        : `${where} must be at least ${String(issue.minimum)}`;
    case "invalid_type":
      return `${where} must be ${describeExpected(issue.expected)}`;
    case "invalid_value":
      return `${where} must be one of ${issue.values.map((entry) => JSON.stringify(entry)).join(", ")}`;
    default:
      return `${where}: ${issue.message}`;
  }
}

function namedKeys(keys: readonly string[]): string {
  const named = keys.slice(0, MAX_KEYS_NAMED).map(quotedName);
  if (keys.length > MAX_KEYS_NAMED) named.push(`and ${keys.length - MAX_KEYS_NAMED} more`);
  return named.join(", ");
}

function describeExpected(expected: string): string {
  if (expected === "int") return "an integer";
  if (expected === "array") return "an array";
  if (expected === "object") return "an object";
  return `a ${expected}`;
}

/** Re-export for handlers that need to throw with a kind. */
export { BridgeError };
