/**
 * The sandbox (`npm start`) as a real child process. A restart serves the same
 * notes at the same URL with the same token, so configured agents and tracked files keep
 * working; `--reset` starts over; the snippets it prints carry the real token and pinned client
 * versions; the subcommands find the sandbox by themselves when run on its folder, and say so
 * when it is not running. The tokens never reach the log stream.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { INSPECTOR_PACKAGE, MCP_REMOTE_PACKAGE } from "../../src/mcp/client-configs";
import { buildCli } from "../helpers/build-cli";

let work: string;
let cli: string;
/** The folder npm start runs in: the sandbox folder is `<cwd>/sandbox-vault`. */
let cwd: string;
const stderrSeen: string[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "hb-sandbox-"));
  cli = await buildCli(work);
}, 60_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** No HackMD variables: sandbox mode. */
const env = (): Record<string, string> => ({ PATH: process.env.PATH ?? "", HOME: work });

interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: string;
  stderr: () => string;
  line: { url: string; token: string; mode: string };
}

function startSandbox(args: string[] = []): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "sandbox", ...args], { cwd, env: env() });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (stdout.includes("Press Ctrl+C")) {
        resolve({
          child,
          stdout,
          stderr: () => stderr,
          line: JSON.parse(stdout.split("\n")[0] ?? "") as Running["line"],
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`sandbox exited (${String(code)}): ${stderr}`)));
  });
}

async function stop(running: Running): Promise<number | null> {
  running.child.removeAllListeners("exit");
  const exited = new Promise<number | null>((resolve) => running.child.once("exit", (code) => resolve(code)));
  running.child.kill("SIGINT");
  const code = await exited;
  stderrSeen.push(running.stderr());
  return code;
}

function cmd(
  args: string[],
  options: { in?: string } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: options.in ?? cwd, env: env() });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** An MCP client configured once, as an agent would be, with the URL and token printed. */
async function agent(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "sandbox-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

describe("npm start (hackmd-bridge sandbox)", () => {
  beforeAll(async () => {
    cwd = await mkdtemp(join(work, "repo-"));
  });

  let first: Running["line"];
  let created: { note_id: string; short_id: string | null };

  it("prints snippets with the real token and pinned clients, mentions HACKMD_BRIDGE_MCP_TOKEN, and keeps its files private", async () => {
    const running = await startSandbox(["--port", "0"]);
    try {
      first = running.line;
      expect(first).toMatchObject({ mode: "sandbox" });
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const snippets = running.stdout.split("\n").slice(1).join("\n");
      expect(snippets).not.toContain("<token>");
      expect(snippets).toContain(
        `claude mcp add --transport http hackmd ${first.url} --header "Authorization: Bearer ${first.token}"`,
      );
      expect(snippets).toContain(`http_headers = { Authorization = "Bearer ${first.token}" }`);
      expect(snippets).toContain(
        `"${MCP_REMOTE_PACKAGE}",\n          "${first.url}",\n          "--header",\n          "Authorization: Bearer ${first.token}"`,
      );
      expect(snippets).toContain(
        `npx -y ${INSPECTOR_PACKAGE} --cli ${first.url} --transport http --header "Authorization: Bearer ${first.token}" --method tools/list`,
      );
      // Pinned to versions that pass --header to a URL server on Node 20 (scripts/check-clients.mjs runs them).
      expect(INSPECTOR_PACKAGE).toMatch(/^@modelcontextprotocol\/inspector@\d+\.\d+\.\d+$/);
      expect(MCP_REMOTE_PACKAGE).toMatch(/^mcp-remote@\d+\.\d+\.\d+$/);
      expect(running.stdout).toContain("HACKMD_BRIDGE_MCP_TOKEN");
      expect(running.stdout).toContain("--root sandbox-vault");
      // The log stream never carries the endpoint token.
      expect(running.stderr()).not.toContain(first.token);

      const dir = join(cwd, "sandbox-vault", ".hackmd-bridge", "sandbox");
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      for (const file of ["connection.json", "emulator.json"])
        expect((await stat(join(dir, file))).mode & 0o777).toBe(0o600);
      expect(await readFile(".gitignore", "utf8")).toMatch(/^sandbox-vault\/$/m);

      // An agent writes a note through the endpoint.
      const client = await agent(first.url, first.token);
      const result = await client.callTool({
        name: "hackmd_create_note",
        arguments: { title: "Made before the restart", content: "# Made before the restart\n\nKept.\n" },
      });
      expect(result.isError).toBeFalsy();
      const note = (result.structuredContent as { note: { id: string; short_id: string | null } }).note;
      created = { note_id: note.id, short_id: note.short_id };
      await client.close();
    } finally {
      expect(await stop(running)).toBe(0);
    }
  }, 60_000);

  it("the subcommands find the sandbox by themselves on its folder, and say when it is not running", async () => {
    const running = await startSandbox();
    try {
      const listed = await cmd(["list", "--root", "sandbox-vault", "--json"]);
      expect(listed.status).toBe(0);
      const notes = (JSON.parse(listed.stdout) as { notes: Array<{ id: string }> }).notes;
      expect(notes.map((note) => note.id)).toContain(created.note_id);
      // The short id list shows is a note_ref.
      const pulled = await cmd(["pull", created.short_id ?? "", "made.md", "--root", "sandbox-vault"]);
      expect(pulled.status).toBe(0);
      expect(pulled.stdout).toContain(`note ${created.note_id}`);
      expect((await cmd(["status", "--root", "sandbox-vault"])).status).toBe(0);
      // doctor, like the sync commands, works on the current folder and finds the sandbox there.
      const doctor = await cmd(["doctor", "--probe-api"], { in: join(cwd, "sandbox-vault") });
      expect({ status: doctor.status, stderr: doctor.stderr }).toEqual({ status: 0, stderr: "" });
      expect(JSON.parse(doctor.stdout)).toMatchObject({
        ok: true,
        token_present: true,
        root: { configured: true, exists: true },
        sandbox: { api_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1$/) as unknown },
        api_probe: { ok: true },
      });
      for (const run of [listed, pulled, doctor]) expect(run.stdout + run.stderr).not.toContain(first.token);
    } finally {
      expect(await stop(running)).toBe(0);
    }
    // Every command says the sandbox is not running: one file, the whole folder, and sync.
    const notRunning =
      /[Tt]he sandbox in \S*sandbox-vault is not running \(nothing answers at http:\/\/127\.0\.0\.1:\d+\/v1\); start it with `npm start`/;
    for (const args of [
      ["status", "made.md"],
      ["status"],
      ["sync"],
      ["sync", "--dry-run"],
      ["list"],
      ["pull", created.note_id, "again.md"],
    ]) {
      const stopped = await cmd([...args, "--root", "sandbox-vault"]);
      expect({ args, status: stopped.status }).toEqual({ args, status: 2 });
      expect(stopped.stdout + stopped.stderr).toMatch(notRunning);
      expect(stopped.stdout + stopped.stderr).not.toContain("could not reach HackMD");
    }
  }, 60_000);

  it("a restart serves the same notes at the same URL with the same token: agents and tracked files keep working", async () => {
    const running = await startSandbox();
    try {
      expect(running.line.url).toBe(first.url);
      expect(running.line.token).toBe(first.token);
      const client = await agent(first.url, first.token);
      const note = await client.callTool({ name: "hackmd_get_note", arguments: { note_ref: created.note_id } });
      expect(note.isError).toBeFalsy();
      expect((note.structuredContent as { content: string }).content).toContain("Kept.");
      await client.close();
      const status = await cmd(["status", "made.md", "--root", "sandbox-vault"]);
      expect(status.status).toBe(0);
      expect(status.stdout).toMatch(/^in_sync {2}made\.md/);
    } finally {
      expect(await stop(running)).toBe(0);
    }
  }, 60_000);

  it("--reset starts over: new token, fresh demo notes, no tracked files; the Markdown files are kept", async () => {
    // --reset forgets the saved port too, so without --port it would ask for 27183, which another
    // program (a developer's own `npm start`) may hold while the tests run.
    const running = await startSandbox(["--reset", "--port", "0"]);
    try {
      expect(running.stderr()).toContain("Started over");
      expect(running.line.token).not.toBe(first.token);
      const client = await agent(running.line.url, running.line.token);
      const gone = await client.callTool({ name: "hackmd_get_note", arguments: { note_ref: created.note_id } });
      expect(gone.isError).toBe(true);
      await client.close();
      const status = await cmd(["status", "--root", "sandbox-vault"]);
      expect(status.status).toBe(0);
      expect(status.stdout).toContain("No tracked notes");
      expect(existsSync(join(cwd, "sandbox-vault", "made.md"))).toBe(true);
    } finally {
      expect(await stop(running)).toBe(0);
    }
  }, 60_000);

  it("a port another program holds: says so, asks whether another sandbox runs, names --port 0, and exits 2", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const taken = await cmd(["sandbox", "--port", String(port)]);
      expect(taken.status).toBe(2);
      expect(taken.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
      expect(taken.stderr).toContain("Is another sandbox (npm start) running?");
      expect(taken.stderr).toContain("hackmd-bridge sandbox --port 0");
      expect(taken.stdout).toBe("");
      // Run by npm start, it names the npm form of the flag.
      const viaNpm = await new Promise<string>((resolve) => {
        const child = spawn(process.execPath, [cli, "sandbox", "--port", String(port)], {
          cwd,
          env: { ...env(), npm_lifecycle_event: "start" },
        });
        let stderr = "";
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
        child.once("close", () => resolve(stderr));
      });
      expect(viaNpm).toContain("npm start -- --port 0");
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  }, 60_000);

  it("never wrote a token to its log stream", () => {
    for (const text of stderrSeen) expect(text).not.toContain(first.token);
  });
});
