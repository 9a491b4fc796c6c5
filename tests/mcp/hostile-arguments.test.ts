/**
 * Hostile argument shapes against every tool tools/list names, through the SDK's real client:
 * nesting 50,000 levels deep, identifiers megabytes long or with characters HackMD never uses,
 * arrays of 200,000 entries, odd property names, wrong types and ids that look like options.
 * Each gets a clear error (invalid_input, before any request), nothing is written (the
 * emulator's request log and the files under ROOT are unchanged) and the server answers the next
 * call. The in-memory path runs every shape; the built command runs the deep case over stdio
 * (`hackmd-bridge mcp`) and HTTP (`hackmd-bridge serve`). No timings here: bench/hostile.bench.ts.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Emulator } from "../../src/emulator";
import { TOOLS } from "../../src/mcp/tools";
import { ARGUMENT_ARRAY_LIMIT, ARGUMENT_DEPTH_LIMIT, MESSAGE_DEPTH_LIMIT } from "../../src/mcp/json-depth";
import { errorKind, startBridge, type CallResult, type TestBridge } from "../helpers/bridge";
import { buildCli } from "../helpers/build-cli";
import { deepSafeHttpTransport, LineClientTransport, stringifyIterative } from "../helpers/deep-wire";
import { createEmulatorFree } from "../helpers/emulator";
import { DEMO_FOLDER_ID, VALID_ARGUMENTS } from "../helpers/tool-arguments";

const DEEP = 50_000;
const HUGE_STRING = "a".repeat(2 * 1024 * 1024);
const HUGE_ARRAY_LENGTH = 200_000;

const BASE = VALID_ARGUMENTS;

/** Parameters that carry an identifier (checked by hackmd/identifiers.ts before any request). */
const IDENTIFIERS = new Set([
  "team_path",
  "note_ref",
  "note_id",
  "folder_id",
  "version_id",
  "comment_id",
  "parent_folder_id",
]);

type JsonType = "string" | "boolean" | "integer" | "array" | "object";

/** A value of the wrong type for a parameter. */
function wrongValue(types: readonly JsonType[]): unknown {
  if (types.includes("string")) return 12345;
  if (types.includes("boolean")) return "yes";
  if (types.includes("integer")) return "1";
  return "not an array or object";
}

function deepArray(levels: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < levels; level += 1) value = [value];
  return value;
}

/** Every file under a folder with the hash of its bytes (the state folder included). */
async function snapshot(folder: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.push(
      `${path} ${createHash("sha256")
        .update(await readFile(path))
        .digest("hex")}`,
    );
  }
  return out.sort();
}

interface ToolShape {
  name: string;
  params: Map<string, JsonType[]>;
}

function typesOf(schema: Record<string, unknown>): JsonType[] {
  if (typeof schema.type === "string") return [schema.type as JsonType];
  if (Array.isArray(schema.type)) return schema.type as JsonType[];
  const anyOf = schema.anyOf as Array<{ type?: JsonType }> | undefined;
  return (anyOf ?? []).map((entry) => entry.type).filter((type): type is JsonType => type !== undefined);
}

describe("hostile argument shapes, every tool, through the SDK's real client (in memory)", () => {
  let bridge: TestBridge;
  let tools: ToolShape[];

  beforeAll(async () => {
    bridge = await startBridge();
    const listed = await bridge.client.listTools();
    tools = listed.tools.map((tool) => ({
      name: tool.name,
      params: new Map(
        Object.entries(tool.inputSchema.properties ?? {}).map(([name, schema]) => [
          name,
          typesOf(schema as Record<string, unknown>),
        ]),
      ),
    }));
  }, 60_000);
  afterAll(async () => {
    await bridge.close();
  });

  it("covers every tool tools/list names, each with valid base arguments", () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(BASE).sort());
    expect(tools).toHaveLength(TOOLS.length);
  });

  /**
   * Calls a tool with hostile arguments and checks: an error of an allowed kind, no request to
   * HackMD (or, when `reads` is set, no write), no file changed under ROOT, and a server that
   * still answers.
   */
  async function expectRefused(tool: string, args: Record<string, unknown>, label: string): Promise<CallResult> {
    const before = await snapshot(bridge.root);
    bridge.mark();
    const result = await bridge.call(tool, args);
    const context = `${tool} with ${label}`;
    expect([context, result.isError]).toEqual([context, true]);
    expect([context, errorKind(result)]).toEqual([context, "invalid_input"]);
    // A clear message, bounded whatever the size of the input.
    expect(result.content[0]?.text.length).toBeLessThan(2000);
    expect([context, bridge.requestsSinceMark()]).toEqual([context, []]);
    expect(await snapshot(bridge.root)).toEqual(before);
    // The server answers the next call (a ping: the client's listTools compiles every output schema).
    expect(await bridge.client.ping()).toEqual({});
    return result;
  }

  it(`refuses arguments nested ${DEEP} levels deep, in every parameter of every tool, with invalid_input`, async () => {
    for (const tool of tools) {
      for (const param of [...tool.params.keys(), "extra"]) {
        const result = await expectRefused(
          tool.name,
          { ...BASE[tool.name], [param]: deepArray(DEEP) },
          `${param} nested ${DEEP} deep`,
        );
        if (param !== "extra")
          expect(result.content[0]?.text).toContain(`nested deeper than ${ARGUMENT_DEPTH_LIMIT} levels`);
      }
    }
  }, 120_000);

  it("accepts nesting up to the limit and refuses one level more (the limit is the documented one)", async () => {
    // note_features is the one free-form object parameter: at the limit it fails the schema, not the depth check.
    const at = await bridge.call("hackmd_create_note", {
      title: "x",
      note_features: deepArray(ARGUMENT_DEPTH_LIMIT - 1),
    });
    expect(at.content[0]?.text).not.toContain("nested deeper");
    const past = await bridge.call("hackmd_create_note", {
      title: "x",
      note_features: deepArray(ARGUMENT_DEPTH_LIMIT),
    });
    expect(past.content[0]?.text).toContain(`nested deeper than ${ARGUMENT_DEPTH_LIMIT} levels`);
  });

  it("refuses a 2 MiB identifier, and identifiers with characters HackMD never uses, before any request", async () => {
    let checked = 0;
    for (const tool of tools) {
      for (const param of tool.params.keys()) {
        if (!IDENTIFIERS.has(param)) continue;
        for (const [value, label] of [
          [HUGE_STRING, "a 2 MiB value"],
          ["a/b", "a slash"],
          ["a b", "a space"],
          ["x?y#z", "URL delimiters"],
          ["é".repeat(129), "129 characters"],
        ] as const) {
          if (param === "team_path" && value === "é".repeat(129)) continue; // team paths may hold letters; still too long below
          const result = await expectRefused(tool.name, { ...BASE[tool.name], [param]: value }, `${param} = ${label}`);
          expect(result.content[0]?.text).not.toContain(HUGE_STRING.slice(0, 1000));
          checked += 1;
        }
        await expectRefused(tool.name, { ...BASE[tool.name], [param]: "t".repeat(129) }, `${param} of 129 characters`);
      }
    }
    // Every tool that takes an identifier was tried (all but hackmd_get_me).
    expect(checked).toBeGreaterThan(18 * 4);
    // child_order holds folder ids too.
    await expectRefused(
      "hackmd_update_folder",
      { folder_id: DEMO_FOLDER_ID, child_order: [DEMO_FOLDER_ID, HUGE_STRING] },
      "a 2 MiB child_order entry",
    );
  }, 120_000);

  it("refuses ids that look like command-line options (--help, -x) before any request", async () => {
    for (const tool of tools) {
      for (const param of tool.params.keys()) {
        if (!IDENTIFIERS.has(param)) continue;
        for (const value of ["--help", "-x", "--root=/"]) {
          const result = await expectRefused(tool.name, { ...BASE[tool.name], [param]: value }, `${param} = ${value}`);
          expect(result.content[0]?.text).toMatch(
            /starts with "-" like a command-line option|characters HackMD does not use/,
          );
        }
      }
    }
  }, 120_000);

  it(`refuses arrays of ${HUGE_ARRAY_LENGTH} entries in every parameter, and a wrong array at the limit names only a few problems`, async () => {
    const huge = new Array<number>(HUGE_ARRAY_LENGTH).fill(0);
    for (const tool of tools) {
      for (const param of tool.params.keys()) {
        const result = await expectRefused(
          tool.name,
          { ...BASE[tool.name], [param]: huge },
          `${param} = ${HUGE_ARRAY_LENGTH} numbers`,
        );
        expect(result.content[0]?.text).toContain(
          `${param} has ${HUGE_ARRAY_LENGTH} entries; no tool takes more than ${ARGUMENT_ARRAY_LIMIT}`,
        );
      }
    }
    // At the limit the schema judges it: the message names five problems and counts the rest.
    const wrong = await expectRefused(
      "hackmd_list_notes",
      { tags: new Array<number>(ARGUMENT_ARRAY_LIMIT).fill(0) },
      "tags at the limit",
    );
    expect(wrong.content[0]?.text).toContain(`and ${ARGUMENT_ARRAY_LIMIT - 5} more`);
  }, 120_000);

  it("refuses odd property names (__proto__, constructor, empty, 100,000 characters, unicode) with a bounded message", async () => {
    const longKey = "k".repeat(100_000);
    for (const tool of tools) {
      const base = stringifyIterative(BASE[tool.name]).slice(1, -1);
      for (const key of ["__proto__", "constructor", "", longKey, "ключ🙂", "\u0000"]) {
        // JSON.parse keeps __proto__ as an own property, as the transports do.
        const args = JSON.parse(`{${base}${base === "" ? "" : ","}${JSON.stringify(key)}:{"polluted":true}}`) as Record<
          string,
          unknown
        >;
        const result = await expectRefused(tool.name, args, `the property ${JSON.stringify(key.slice(0, 20))}`);
        expect(result.content[0]?.text).not.toContain(longKey);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 120_000);

  it("refuses a value of the wrong type in every parameter of every tool", async () => {
    for (const tool of tools) {
      for (const [param, types] of tool.params) {
        await expectRefused(
          tool.name,
          { ...BASE[tool.name], [param]: wrongValue(types) },
          `${param} of the wrong type`,
        );
      }
    }
  }, 120_000);
});

describe("a 50,000-level argument through the built command", () => {
  let work: string;
  let cli: string;
  let emu: Emulator;
  const children: ChildProcessWithoutNullStreams[] = [];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "hb-hostile-"));
    cli = await buildCli(work);
    emu = await createEmulatorFree({ seed: "demo" });
  }, 60_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await emu.close();
    await rm(work, { recursive: true, force: true });
  });

  function start(args: string[]): ChildProcessWithoutNullStreams {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: work, HACKMD_API_URL: emu.url, HACKMD_API_TOKEN: emu.token },
    });
    children.push(child);
    return child;
  }

  async function expectDeepRefused(client: Client): Promise<void> {
    const since = emu.requests().at(-1)?.seq ?? 0;
    // A read tool: the command's default policy denies writes before their arguments are read.
    const deep = (await client.callTool({
      name: "hackmd_list_notes",
      arguments: { query: "x", tags: deepArray(DEEP) },
    })) as CallResult;
    expect(deep.isError).toBe(true);
    expect(deep._meta?.error_kind).toBe("invalid_input");
    expect(deep.content[0]?.text).toContain(`nested deeper than ${ARGUMENT_DEPTH_LIMIT} levels`);
    expect(emu.requests({ since }).filter((entry) => entry.seq > since)).toEqual([]);
    // The server answers the next call.
    const me = (await client.callTool({ name: "hackmd_get_me", arguments: {} })) as CallResult;
    expect(me.isError).toBe(false);
  }

  it("over stdio (hackmd-bridge mcp): invalid_input for the call, then the next call is answered", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const child = start(["mcp", "--root", root]);
    const transport = new LineClientTransport(child);
    const client = new Client({ name: "hostile", version: "1" });
    await client.connect(transport);
    await expectDeepRefused(client);
    // A message nested too deep outside the arguments is answered with a JSON-RPC error for its id.
    const answered = new Promise<unknown>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        for (const line of chunk.toString("utf8").split("\n"))
          if (line.includes('"id":"raw-1"')) resolve(JSON.parse(line));
      });
    });
    await transport.writeLine(
      `{"jsonrpc":"2.0","id":"raw-1","method":"tools/list","params":{"_meta":{"x":${"[".repeat(DEEP)}${"]".repeat(DEEP)}}}}`,
    );
    expect(await answered).toMatchObject({
      id: "raw-1",
      error: { code: -32600, message: expect.stringContaining(`deeper than ${MESSAGE_DEPTH_LIMIT} levels`) as string },
    });
    // Not JSON at all: a parse error, and the server goes on.
    await transport.writeLine(`{"jsonrpc":"2.0","id":7,"method":`);
    expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
    await client.close();
  }, 60_000);

  it("over HTTP (hackmd-bridge serve): invalid_input for the call, then the next call is answered", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const child = start(["serve", "--root", root, "--port", "0"]);
    const line = await new Promise<string>((resolve, reject) => {
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
        if (stdout.includes("\n")) resolve(stdout.split("\n")[0] ?? "");
      });
      child.once("exit", () => reject(new Error("serve exited early")));
    });
    const { url, token } = JSON.parse(line) as { url: string; token: string };
    const transport = deepSafeHttpTransport(new URL(url), token);
    const client = new Client({ name: "hostile", version: "1" });
    await client.connect(transport);
    await expectDeepRefused(client);
    // Too deep outside the arguments: a JSON-RPC error for the request's id, before the SDK sees it.
    const raw = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": transport.sessionId ?? "",
        "mcp-protocol-version": "2025-06-18",
      },
      body: `{"jsonrpc":"2.0","id":"raw-1","method":"tools/list","params":{"_meta":{"x":${"[".repeat(DEEP)}${"]".repeat(DEEP)}}}}`,
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ id: "raw-1", error: { code: -32600 } });
    expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
    await client.close();
    child.kill("SIGTERM");
  }, 60_000);
});
