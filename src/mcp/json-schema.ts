import { z } from "zod/v4";

/** A JSON Schema object as advertised in `tools/list`. */
export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema a client sees for a zod schema: the input side (defaults shown, optional
 * fields not required), without `$schema`, and with `anyOf [T, null]` written as the flat
 * `type: [T, "null"]` that docs/tools.md §3.1 specifies for `team_path`.
 */
export function toAdvertisedSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const raw = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  delete raw.$schema;
  return flattenNullable(raw) as JsonSchema;
}

function flattenNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(flattenNullable);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = flattenNullable(value);
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const [first, second] = anyOf as Array<Record<string, unknown>>;
    const nullIndex = [first, second].findIndex((entry) => isBareType(entry, "null"));
    const other = nullIndex === 0 ? second : nullIndex === 1 ? first : undefined;
    if (other && typeof other.type === "string" && isSimpleTyped(other)) {
      delete out.anyOf;
      const flat: Record<string, unknown> = { ...other, ...out, type: [other.type, "null"] };
      if (Array.isArray(other.enum)) flat.enum = [...(other.enum as unknown[]), null];
      return flat;
    }
  }
  return out;
}

function isBareType(entry: Record<string, unknown> | undefined, type: string): boolean {
  return entry !== undefined && entry.type === type && Object.keys(entry).length === 1;
}

/** Scalars only: an object or array type keeps its anyOf form, where `type` lists would mislead. */
function isSimpleTyped(entry: Record<string, unknown>): boolean {
  return entry.type === "string" || entry.type === "integer" || entry.type === "number" || entry.type === "boolean";
}
