/**
 * Acceptance: the built `dist/cli.js` (./checkout.ts) typed as `node dist/cli.js mcp|serve --root
 * <dir> [policy flags]`, with no flag and with each policy flag of README's configuration table
 * (`--read-only`, `--deny`, `--allow`, `--ask`), spoken to by the SDK's client over stdio and over
 * Streamable HTTP. A refused tool answers an error naming the flag and changes nothing on HackMD
 * (the command's own emulator, `dist/cli.js emulator --port 0`).
 */
import { TOOLS } from "../../src/mcp/tools";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { userCheckout } from "./checkout";
import { call, httpClient, start, startEmulator, stdioClient, type Running } from "./run";

let checkout: string;
let root: string;
let emu: Awaited<ReturnType<typeof startEmulator>>;
const seen: string[] = [];

beforeAll(async () => {
  checkout = await userCheckout();
  root = await mkdtemp(join(tmpdir(), "hb-accept-policy-"));
  emu = await startEmulator(checkout);
}, 240_000);

afterAll(async () => {
  await emu?.stop();
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

const env = (): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: root,
  HACKMD_API_TOKEN: emu.token,
  HACKMD_API_URL: emu.url,
});

/** The command line typed, its client, and how to end it. */
async function connect(
  transport: "stdio" | "http",
  flags: string,
): Promise<{ client: Client; close: () => Promise<void> }> {
  if (transport === "stdio") {
    const { client, stderr } = await stdioClient("bash", ["-c", `node dist/cli.js mcp --root ${root} ${flags}`], {
      cwd: checkout,
      env: env(),
    });
    return {
      client,
      close: async () => {
        await client.close();
        seen.push(stderr());
      },
    };
  }
  const running: Running = await start(`node dist/cli.js serve --root ${root} --port 0 ${flags}`, {
    cwd: checkout,
    env: env(),
    ready: (out) => out.includes("\n"),
  });
  const printed = JSON.parse(running.stdout().split("\n")[0] ?? "") as { url: string; token: string };
  const client = await httpClient(printed.url, { Authorization: `Bearer ${printed.token}` });
  return {
    client,
    close: async () => {
      await client.close();
      expect(await running.stop("SIGTERM")).toBe(0);
      seen.push(running.stdout(), running.stderr());
    },
  };
}

/** Creates a note through the tool; what came back (allowed: the note; refused: the message). */
async function create(client: Client, title: string): Promise<{ allowed: boolean; text: string }> {
  const result = await call(client, "hackmd_create_note", { title, content: `# ${title}\n` });
  return { allowed: !result.isError, text: result.text };
}

async function notesTitled(title: string): Promise<number> {
  const response = await fetch(`${emu.url}/notes`, { headers: { Authorization: `Bearer ${emu.token}` } });
  return ((await response.json()) as Array<{ title: string }>).filter((note) => note.title === title).length;
}

/** [flags, whether create is allowed, the flag a refusal names, whether delete is refused too]. */
const CASES: ReadonlyArray<[string, boolean, string | undefined, boolean]> = [
  ["", true, undefined, false],
  ["--read-only", false, "--read-only", true],
  ["--deny hackmd_create_note,hackmd_delete_note", false, "--deny", true],
  ["--deny hackmd_create_note --deny hackmd_delete_note", false, "--deny", true],
  ["--allow hackmd_create_note", true, undefined, false],
  ["--ask hackmd_create_note", false, "--ask", false],
];

describe.each(["stdio", "http"] as const)("dist/cli.js over %s", (transport) => {
  it.each(CASES)(
    `${transport === "stdio" ? "mcp" : "serve"} --root <dir> %s: create allowed %s`,
    async (flags, allowed, named, deleteRefused) => {
      const title = `Policy ${transport} ${flags || "(no flags)"}`;
      const { client, close } = await connect(transport, flags);
      try {
        expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
        // Reading is never refused by these flags.
        expect((await call(client, "hackmd_get_me")).isError).toBe(false);
        const created = await create(client, title);
        expect({ allowed: created.allowed, names: named === undefined || created.text.includes(named) }).toEqual({
          allowed,
          names: true,
        });
        expect(await notesTitled(title)).toBe(allowed ? 1 : 0);
        // A note id that does not exist: a refused delete says the flag; an allowed one reaches HackMD (not found).
        const deleted = await call(client, "hackmd_delete_note", { note_ref: "doesNotExist0000" });
        expect(deleted.isError).toBe(true);
        expect({ refusedByPolicy: /--read-only|--deny|--ask/.test(deleted.text) }).toEqual({
          refusedByPolicy: deleteRefused,
        });
      } finally {
        await close();
      }
    },
    60_000,
  );
});

it("no output carried the HackMD token", () => {
  for (const text of seen) expect(text).not.toContain(emu.token);
});
