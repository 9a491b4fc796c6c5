/**
 * Acceptance: both protocol revisions on every transport of the built checkout (./checkout.ts,
 * docs/adr/0006-mcp-v2-both-revisions.md). A 2026-07-28 client (the SDK's v2 client, pinned to
 * that revision) and a 2025-11-25 client (the v1 SDK's client, as released clients speak it) each
 * list every tool (the table in tests/helpers/tool-arguments.ts) and call every one of them, against the plugin's endpoint (main.js in the
 * fake Obsidian host), `serve` and `mcp`. Each pair runs on a fresh emulator, and the two
 * revisions must get the same outcomes, call for call.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { VALID_ARGUMENTS } from "../helpers/tool-arguments";
import { freePort, portIsFree } from "../helpers/ports";
import { userCheckout } from "./checkout";
import { loadPlugin } from "./plugin-host";
import { httpClient, start, startEmulator, stdioClient } from "./run";

const MODERN = "2026-07-28";

let checkout: string;
let work: string;

beforeAll(async () => {
  checkout = await userCheckout();
  work = await mkdtemp(join(tmpdir(), "hb-accept-revisions-"));
}, 240_000);

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** What both clients offer: list the tools, call one (the SDK's result as it arrived), close. */
interface AnyClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/** One call's outcome as compared across revisions: ok, or the error kind. */
type Outcome = string;

async function everyTool(client: AnyClient): Promise<Record<string, Outcome>> {
  const tools = (await client.listTools()).tools.map((tool) => tool.name);
  expect(tools.sort()).toEqual(Object.keys(VALID_ARGUMENTS).sort());
  const outcomes: Record<string, Outcome> = {};
  for (const name of Object.keys(VALID_ARGUMENTS)) {
    const result = (await client.callTool({ name, arguments: { ...VALID_ARGUMENTS[name] } })) as {
      isError?: boolean;
      content?: unknown[];
      _meta?: { error_kind?: string };
    };
    // A tool result (never a protocol error), with its text.
    expect(result.content?.length).toBeGreaterThan(0);
    outcomes[name] = result.isError === true ? `error:${result._meta?.error_kind ?? "?"}` : "ok";
  }
  return outcomes;
}

function modernClient(): ModernClient {
  return new ModernClient(
    { name: "acceptance-modern", version: "1" },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
}

const env = (emu: { url: string; token: string }, root: string): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: root,
  HACKMD_API_TOKEN: emu.token,
  HACKMD_API_URL: emu.url,
});

/** Runs `connect` under each revision on its own emulator and returns both outcome tables. */
async function bothRevisions(
  transport: string,
  connect: (
    revision: "modern" | "legacy",
    emu: { url: string; token: string },
    root: string,
  ) => Promise<{
    client: AnyClient;
    negotiated: () => string | undefined;
    stop: () => Promise<void>;
  }>,
): Promise<Record<string, Record<string, Outcome>>> {
  const tables: Record<string, Record<string, Outcome>> = {};
  for (const revision of ["modern", "legacy"] as const) {
    const emu = await startEmulator(checkout);
    const root = await mkdtemp(join(work, `${transport}-${revision}-`));
    const { client, negotiated, stop } = await connect(revision, emu, root);
    try {
      if (revision === "modern") expect(negotiated()).toBe(MODERN);
      tables[revision] = await everyTool(client);
    } finally {
      await client.close().catch(() => undefined);
      await stop();
      await emu.stop();
    }
  }
  return tables;
}

describe("both revisions, every tool, every transport", () => {
  it("serve: a 2026-07-28 client and a 2025-11-25 client on the same URL get the same outcomes", async () => {
    const tables = await bothRevisions("serve", async (revision, emu, root) => {
      const running = await start(`node dist/cli.js serve --root ${root} --port 0`, {
        cwd: checkout,
        env: env(emu, root),
        ready: (out) => out.includes("\n"),
      });
      const line = JSON.parse(running.stdout().split("\n")[0] ?? "") as { url: string; token: string };
      const headers = { authorization: `Bearer ${line.token}` };
      if (revision === "legacy") {
        const client = await httpClient(line.url, headers);
        return { client, negotiated: () => undefined, stop: () => running.stop().then(() => undefined) };
      }
      const client = modernClient();
      await client.connect(new ModernHttp(new URL(line.url), { requestInit: { headers } }));
      return {
        client,
        negotiated: () => client.getNegotiatedProtocolVersion(),
        stop: () => running.stop().then(() => undefined),
      };
    });
    expect(tables.modern).toEqual(tables.legacy);
    expect(tables.modern?.hackmd_get_note).toBe("ok");
  }, 120_000);

  it("mcp (stdio): each revision negotiated on the connection, the same outcomes", async () => {
    const tables = await bothRevisions("stdio", async (revision, emu, root) => {
      const args = ["-c", `node dist/cli.js mcp --root ${root}`];
      if (revision === "legacy") {
        const { client } = await stdioClient("bash", args, { cwd: checkout, env: env(emu, root) });
        return { client, negotiated: () => undefined, stop: () => Promise.resolve() };
      }
      const client = modernClient();
      await client.connect(new ModernStdio({ command: "bash", args, cwd: checkout, env: env(emu, root) }));
      return { client, negotiated: () => client.getNegotiatedProtocolVersion(), stop: () => Promise.resolve() };
    });
    expect(tables.modern).toEqual(tables.legacy);
    expect(tables.modern?.hackmd_get_note).toBe("ok");
  }, 120_000);

  it("the plugin's endpoint (main.js in the fake host): both revisions, the same outcomes", async () => {
    const tables = await bothRevisions("plugin", async (revision, emu) => {
      const port = await freePort();
      const plugin = await loadPlugin(join(checkout, "main.js"), {
        apiUrl: emu.url,
        token: emu.token,
        manifest: { id: "hackmd-bridge", version: "0.0.0-acceptance" },
        mcpPort: port,
        // Every tool allowed: approval under both revisions is tests/plugin/agent-approval.dom.test.ts's.
        settings: {
          agentToolPolicies: Object.fromEntries(Object.keys(VALID_ARGUMENTS).map((name) => [name, "allow"])),
        },
      });
      const url = `http://127.0.0.1:${port}/mcp`;
      const headers = { authorization: `Bearer ${await plugin.endpointToken()}` };
      const stop = async (): Promise<void> => plugin.unload();
      // The endpoint starts once the layout is ready: wait until its port is taken.
      while (await portIsFree(port)) await new Promise((resolve) => setTimeout(resolve, 20));
      if (revision === "legacy") {
        const client = await httpClient(url, headers);
        return { client, negotiated: () => undefined, stop };
      }
      const client = modernClient();
      await client.connect(new ModernHttp(new URL(url), { requestInit: { headers } }));
      return { client, negotiated: () => client.getNegotiatedProtocolVersion(), stop };
    });
    expect(tables.modern).toEqual(tables.legacy);
    expect(tables.modern?.hackmd_get_note).toBe("ok");
  }, 120_000);
});
