/**
 * The JSON-schema validator our MCP server hands the SDK instead of its ajv default (docs/architecture.md §5):
 * ajv and its formats are ~130 KB of the plugin's bundle, and the server side of the SDK uses the
 * validator for one thing only, checking an accepted elicitation's content against the schema the
 * server requested (`Server.elicitInput`). Elicitation schemas are flat objects of primitive
 * properties (MCP spec, "Requested schema"), which is all this checks: `type` (one or a list),
 * `properties`, `required`, `additionalProperties: false`, `enum`, `const`, `oneOf`/`anyOf`
 * (titled enums), string lengths, number bounds and `items` of arrays. Anything else in a schema
 * is refused when the validator is built, never silently passed. We send no elicitation today.
 */

/** The SDK's validator result (`@modelcontextprotocol/sdk/validation/types`). */
type ValidatorResult<T> =
  { valid: true; data: T; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };

type Schema = Record<string, unknown>;

const KNOWN = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "enum",
  "const",
  "oneOf",
  "anyOf",
  "items",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "minItems",
  "maxItems",
  // Annotations: no effect on validity.
  "title",
  "description",
  "default",
  "enumNames",
  "format",
  "$schema",
  "examples",
]);

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(expected: string, value: unknown): boolean {
  const actual = typeOf(value);
  return actual === expected || (expected === "number" && actual === "integer");
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Throws when the schema uses a keyword this checker does not enforce. */
function assertSupported(schema: unknown, at: string): void {
  if (schema === true || schema === false) return;
  if (schema === null || typeof schema !== "object" || Array.isArray(schema))
    throw new Error(`${at}: a schema must be an object`);
  for (const key of Object.keys(schema))
    if (!KNOWN.has(key)) throw new Error(`${at}: unsupported schema keyword ${JSON.stringify(key)}`);
  const s = schema as Schema;
  if (s.properties && typeof s.properties === "object")
    for (const [name, sub] of Object.entries(s.properties)) assertSupported(sub, `${at}.${name}`);
  if (s.items !== undefined) assertSupported(s.items, `${at}[]`);
  for (const key of ["oneOf", "anyOf"] as const)
    if (Array.isArray(s[key])) (s[key] as unknown[]).forEach((sub, i) => assertSupported(sub, `${at}/${key}/${i}`));
  if (s.additionalProperties !== undefined && typeof s.additionalProperties !== "boolean")
    throw new Error(`${at}: additionalProperties must be a boolean`);
}

/** The first error of `value` against `schema`, or undefined when it is valid. */
function check(schema: unknown, value: unknown, at: string): string | undefined {
  if (schema === true) return undefined;
  if (schema === false) return `${at} is not allowed`;
  const s = schema as Schema;
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.some((type) => typeMatches(type, value))) return `${at} must be ${types.join(" or ")}`;
  }
  if (Array.isArray(s.enum) && !s.enum.some((option) => equal(option, value)))
    return `${at} must be one of ${JSON.stringify(s.enum)}`;
  if ("const" in s && !equal(s.const, value)) return `${at} must be ${JSON.stringify(s.const)}`;
  if (Array.isArray(s.oneOf) && s.oneOf.filter((sub) => check(sub, value, at) === undefined).length !== 1)
    return `${at} must match exactly one option`;
  if (Array.isArray(s.anyOf) && !s.anyOf.some((sub) => check(sub, value, at) === undefined))
    return `${at} must match an option`;
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof s.minLength === "number" && length < s.minLength)
      return `${at} must have at least ${s.minLength} characters`;
    if (typeof s.maxLength === "number" && length > s.maxLength)
      return `${at} must have at most ${s.maxLength} characters`;
  }
  if (typeof value === "number") {
    if (typeof s.minimum === "number" && value < s.minimum) return `${at} must be >= ${s.minimum}`;
    if (typeof s.maximum === "number" && value > s.maximum) return `${at} must be <= ${s.maximum}`;
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === "number" && value.length < s.minItems)
      return `${at} must have at least ${s.minItems} items`;
    if (typeof s.maxItems === "number" && value.length > s.maxItems)
      return `${at} must have at most ${s.maxItems} items`;
    if (s.items !== undefined) {
      for (let i = 0; i < value.length; i++) {
        const error = check(s.items, value[i], `${at}[${i}]`);
        if (error) return error;
      }
    }
  }
  if (typeOf(value) === "object") {
    const object = value as Record<string, unknown>;
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    for (const name of Array.isArray(s.required) ? (s.required as string[]) : []) {
      if (!Object.prototype.hasOwnProperty.call(object, name))
        return `${at} must have property ${JSON.stringify(name)}`;
    }
    for (const [name, item] of Object.entries(object)) {
      if (Object.prototype.hasOwnProperty.call(properties, name)) {
        const error = check(properties[name], item, `${at}.${name}`);
        if (error) return error;
      } else if (s.additionalProperties === false) {
        return `${at} must not have property ${JSON.stringify(name)}`;
      }
    }
  }
  return undefined;
}

/** `jsonSchemaValidator` for the SDK's `Server`: a small checker for elicitation schemas. */
export class ElicitationSchemaValidator {
  getValidator<T>(schema: unknown): (input: unknown) => ValidatorResult<T> {
    assertSupported(schema, "schema");
    return (input) => {
      const error = check(schema, input, "data");
      return error === undefined
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: error };
    };
  }
}
