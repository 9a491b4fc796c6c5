/**
 * The JSON-schema validator our MCP server gives the SDK in place of ajv (docs/architecture.md §5): through the
 * SDK's real Server and Client, an accepted elicitation is checked against the requested schema;
 * and the checker alone, for the keywords elicitation schemas use.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { silentLogger } from "../../src/core/ports";
import { ElicitationSchemaValidator } from "../../src/mcp/elicitation-validator";
import { createMcpServer } from "../../src/mcp/server";

const requestedSchema = {
  type: "object" as const,
  properties: {
    name: { type: "string" as const, minLength: 2, maxLength: 5 },
    count: { type: "integer" as const, minimum: 1, maximum: 3 },
    color: { type: "string" as const, enum: ["red", "green"] },
    agree: { type: "boolean" as const },
  },
  required: ["name"],
};

async function connected(answer: Record<string, unknown>) {
  let id = 0;
  const server = createMcpServer({
    name: "test",
    version: "0.0.0",
    tools: [],
    deps: {},
    newCall: () => ({}),
    retryMeta: () => undefined,
    secrets: () => [],
    logger: silentLogger,
    nextRequestId: () => `r${++id}`,
  });
  const client = new Client({ name: "elicit-test", version: "1" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: answer }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return { server, client };
}

/**
 * The 2025-11-25 push-style elicitation, the one path of the SDK's server that uses the validator
 * (the SDK marks it deprecated for 2026-07-28, where elicitation is a multi-round-trip result).
 */
const elicit = (server: { server: unknown }, params: { message: string; requestedSchema: unknown }): Promise<unknown> =>
  (server.server as { elicitInput(params: unknown): Promise<unknown> }).elicitInput(params);

describe("ElicitationSchemaValidator", () => {
  it("through the SDK: a matching answer is returned, a mismatching one is refused as invalid params", async () => {
    const good = await connected({ name: "Ada", count: 2, color: "red", agree: true });
    await expect(elicit(good.server, { message: "Who?", requestedSchema })).resolves.toMatchObject({
      action: "accept",
      content: { name: "Ada" },
    });
    await good.client.close();

    const bad = await connected({ name: "Ada", count: 7 });
    await expect(elicit(bad.server, { message: "Who?", requestedSchema })).rejects.toThrow(
      /does not match requested schema: data\.count must be <= 3/,
    );
    await bad.client.close();
  });

  it("checks types, required, enums, lengths, bounds, additionalProperties, items and oneOf", () => {
    const validate = new ElicitationSchemaValidator().getValidator({ ...requestedSchema, additionalProperties: false });
    expect(validate({ name: "Ada" })).toEqual({ valid: true, data: { name: "Ada" }, errorMessage: undefined });
    expect(validate({}).errorMessage).toBe('data must have property "name"');
    expect(validate({ name: 3 }).errorMessage).toBe("data.name must be string");
    expect(validate({ name: "A" }).errorMessage).toBe("data.name must have at least 2 characters");
    expect(validate({ name: "Adalovelace" }).errorMessage).toBe("data.name must have at most 5 characters");
    expect(validate({ name: "Ada", count: 1.5 }).errorMessage).toBe("data.count must be integer");
    expect(validate({ name: "Ada", count: 0 }).errorMessage).toBe("data.count must be >= 1");
    expect(validate({ name: "Ada", color: "blue" }).errorMessage).toBe('data.color must be one of ["red","green"]');
    expect(validate({ name: "Ada", extra: 1 }).errorMessage).toBe('data must not have property "extra"');
    expect(validate([]).errorMessage).toBe("data must be object");

    const list = new ElicitationSchemaValidator().getValidator({
      type: "array",
      items: {
        oneOf: [
          { const: "a", title: "A" },
          { const: "b", title: "B" },
        ],
      },
      maxItems: 2,
    });
    expect(list(["a", "b"]).valid).toBe(true);
    expect(list(["a", "c"]).errorMessage).toBe("data[1] must match exactly one option");
    expect(list(["a", "a", "b"]).errorMessage).toBe("data must have at most 2 items");
    expect(new ElicitationSchemaValidator().getValidator({ type: ["number", "null"] })(null).valid).toBe(true);
  });

  it("refuses a schema keyword it does not enforce instead of passing everything", () => {
    expect(() => new ElicitationSchemaValidator().getValidator({ type: "string", pattern: "^a" })).toThrow(
      /unsupported schema keyword "pattern"/,
    );
    expect(() =>
      new ElicitationSchemaValidator().getValidator({ type: "object", properties: { a: { $ref: "#/x" } } }),
    ).toThrow(/schema\.a: unsupported schema keyword "\$ref"/);
  });
});
