/**
 * The standalone command as a real child process: built from source with esbuild into a temp
 * folder (npm test does not need a prior build), then spawned with a controlled environment.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startEmulator, type Emulator } from "../../src/emulator";
import { buildCli } from "../helpers/build-cli";

let work: string;
let cli: string;
let emu: Emulator;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "hb-cli-"));
  cli = await buildCli(work);
  emu = await startEmulator({ port: 0, seed: "demo" });
}, 60_000);

afterAll(async () => {
  await emu.close();
  await rm(work, { recursive: true, force: true });
});

/** A minimal environment: no inherited HackMD variables. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: work, ...extra };
}

/** Runs the command without blocking this process (the emulator answers from this event loop). */
function runAsync(
  args: string[],
  extra: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env: env(extra) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

function run(args: string[], extra: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, ...args], { env: env(extra), encoding: "utf8", timeout: 20_000 });
}

describe("hackmd-bridge", () => {
  it("describes its commands with --help and prints its version", () => {
    const help = run(["--help"]);
    expect(help.status).toBe(0);
    for (const command of ["mcp", "serve", "doctor", "emulator", "sandbox"]) expect(help.stdout).toContain(command);
    const version = run(["--version"]);
    expect(version.stdout).toBe("hackmd-bridge 9.9.9-test\n");
  });

  it("doctor prints one JSON report with empty stderr, and --probe-api elsewhere is a usage error", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const doctor = run(["doctor", "--root", root], { HACKMD_API_TOKEN: "a-token" });
    expect(doctor.status).toBe(0);
    expect(doctor.stderr).toBe("");
    const report = JSON.parse(doctor.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      ok: true,
      version: "9.9.9-test",
      token_present: true,
      api_origin: "https://api.hackmd.io",
      root: { configured: true, exists: true, writable: true, is_vault: false },
      sync_state: { path: ".hackmd-bridge/sync", writable: true },
      problems: [],
    });
    expect(report).not.toHaveProperty("api_probe");
    expect(existsSync(join(root, ".hackmd-bridge"))).toBe(false);

    const misplaced = run(["serve", "--probe-api", "--root", root]);
    expect(misplaced.status).toBe(2);
    expect(misplaced.stdout).toBe("");
    expect(misplaced.stderr).toContain("--probe-api is not an option of serve (it goes with doctor)");
  });

  // Doctor finds what stops the tools, names the fix and the variable, and exits 1.
  it("doctor without a token is not ok: it says where to get one and which variable to set", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const result = run(["doctor", "--root", root]);
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout) as { ok: boolean; token_present: boolean; problems: string[] };
    expect(report).toMatchObject({ ok: false, token_present: false });
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatch(/HACKMD_API_TOKEN/);
    expect(report.problems[0]).toMatch(/Settings → API/);
  });

  it("doctor names HACKMD_API_URL for a URL without /v1, an unusable URL, an unreachable host and a wrong one", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const problems = async (
      url: string,
      probe: boolean,
    ): Promise<{ status: number | null; problems: string[]; probe?: { ok: boolean } }> => {
      const result = await runAsync(["doctor", "--root", root, ...(probe ? ["--probe-api"] : [])], {
        HACKMD_API_URL: url,
        HACKMD_API_TOKEN: emu.token,
      });
      const report = JSON.parse(result.stdout) as { ok: boolean; problems: string[]; api_probe?: { ok: boolean } };
      expect(report.ok).toBe(result.status === 0);
      expect(result.stdout + result.stderr).not.toContain(emu.token);
      return {
        status: result.status,
        problems: report.problems,
        ...(report.api_probe === undefined ? {} : { probe: report.api_probe }),
      };
    };
    // No /v1: found without any request.
    const noV1 = await problems(emu.origin, false);
    expect(noV1.status).toBe(1);
    expect(noV1.problems.join(" ")).toMatch(/HACKMD_API_URL has no path, but the HackMD API lives under \/v1/);
    const wrongPath = await problems(`${emu.origin}/api`, true);
    expect(wrongPath.problems.join(" ")).toMatch(/GET \/me: 404.*HACKMD_API_URL should end in \/v1/);
    // Unusable: named, never echoed.
    const unusable = await problems("ftp://example.invalid/v1", false);
    expect(unusable.problems.join(" ")).toMatch(/^HACKMD_API_URL is not usable/);
    // Unreachable: a loopback port nothing listens on.
    const closed = await startEmulator({ port: 0 });
    const port = closed.port;
    await closed.close();
    const unreachable = await problems(`http://127.0.0.1:${port}/v1`, true);
    expect(unreachable.status).toBe(1);
    expect(unreachable.problems.join(" ")).toMatch(
      /Nothing answers at http:\/\/127\.0\.0\.1:\d+ .*check HACKMD_API_URL/,
    );
    // A rejected token names HACKMD_API_TOKEN and where to make a new one.
    const rejected = await runAsync(["doctor", "--root", root, "--probe-api"], {
      HACKMD_API_URL: emu.url,
      HACKMD_API_TOKEN: "not-the-token",
    });
    expect(rejected.status).toBe(1);
    expect((JSON.parse(rejected.stdout) as { problems: string[] }).problems.join(" ")).toMatch(
      /HackMD rejected HACKMD_API_TOKEN.*Settings → API/,
    );
    // And the healthy setup is ok.
    expect((await problems(emu.url, true)).status).toBe(0);
  });

  it("a tool call against a URL without /v1 says the API URL is wrong and names HACKMD_API_URL", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const result = await runAsync(["list", "--root", root], {
      HACKMD_API_URL: emu.origin,
      HACKMD_API_TOKEN: emu.token,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      /answers like the HackMD API, so the API URL is probably wrong .*ends in \/v1.*set HACKMD_API_URL/,
    );
    expect(result.stderr).not.toContain("check the note or folder id");
  });

  it("doctor --probe-api makes one GET /me: without a token it fails naming the token", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const without = await runAsync(["doctor", "--probe-api", "--root", root], { HACKMD_API_URL: emu.url });
    expect(without.status).not.toBe(0);
    const failed = JSON.parse(without.stdout) as { ok: boolean; api_probe: { ok: boolean; error: string } };
    expect(failed.ok).toBe(false);
    expect(failed.api_probe.error).toMatch(/token/i);

    const before = emu.requests().length;
    const withToken = await runAsync(["doctor", "--probe-api", "--root", root], {
      HACKMD_API_URL: emu.url,
      HACKMD_API_TOKEN: emu.token,
    });
    expect(withToken.status).toBe(0);
    const passed = JSON.parse(withToken.stdout) as { ok: boolean; api_probe: Record<string, unknown> };
    expect(passed.api_probe).toEqual({ requested: true, ok: true });
    expect(
      emu
        .requests()
        .slice(before)
        .map((entry) => entry.route),
    ).toEqual(["GET /me"]);
    expect(withToken.stdout + withToken.stderr).not.toContain(emu.token);
  });

  it("refuses an invalid or plain-http API URL without echoing it", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const secretish = "http://user:hunter2@example.com/v1";
    const result = run(["doctor", "--root", root], { HACKMD_API_URL: secretish });
    expect(result.status).not.toBe(0);
    expect(result.stdout + result.stderr).not.toContain("hunter2");
    expect((JSON.parse(result.stdout) as { api_origin: unknown }).api_origin).toBeNull();
  });

  // A setup that cannot start is exit 2, as the README's table says.
  it("stops mcp and serve with exit 2 when the root is missing or not given", () => {
    for (const args of [
      ["mcp", "--root", join(work, "does-not-exist")],
      ["serve", "--root", join(work, "does-not-exist")],
      ["mcp"],
      ["serve"],
    ]) {
      const result = run(args);
      expect({ args, status: result.status }).toEqual({ args, status: 2 });
      expect(result.stdout).toBe("");
      expect(result.stderr.length).toBeGreaterThan(0);
    }
  });

  it("serves MCP over stdio: stdout is protocol only, stderr is JSON lines, the token never appears", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, "mcp", "--root", root],
      env: env({ HACKMD_API_URL: emu.url, HACKMD_API_TOKEN: emu.token }),
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const client = new Client({ name: "cli-test", version: "1" });
    await client.connect(transport);
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain("hackmd_get_me");
    const me = await client.callTool({ name: "hackmd_get_me", arguments: {} });
    expect(me.structuredContent).toMatchObject({ user_path: "sandbox" });
    const denied = await client.callTool({ name: "hackmd_get_note", arguments: { note_ref: "nope" } });
    expect(denied.isError).toBe(true);
    await client.close();
    const lines = stderr.trim().split("\n");
    const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const started = events.filter((event) => event.event === "tool_call_started");
    expect(started.map((event) => event.tool)).toEqual(["hackmd_get_me", "hackmd_get_note"]);
    expect(new Set(started.map((event) => event.request_id)).size).toBe(2);
    expect(events.filter((event) => event.event === "tool_call_completed")).toHaveLength(2);
    expect(stderr).not.toContain(emu.token);
    expect(existsSync(join(root, ".hackmd-bridge"))).toBe(false);
  });

  it("mcp answers every request piped in before stdin closed, the last line without a newline included, then exits 0", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const child = spawn(process.execPath, [cli, "mcp", "--root", root], {
      env: env({ HACKMD_API_URL: emu.url, HACKMD_API_TOKEN: emu.token }),
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
    const lines = [
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pipe", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hackmd_list_notes", arguments: {} } },
    ].map((message) => `${JSON.stringify(message)}\n`);
    // Written and closed at once, as `printf … | hackmd-bridge mcp` does; the last line has no newline.
    child.stdin.end(`${lines.join("")}${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}`);
    expect(await closed).toBe(0);
    const answers = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: number; result?: Record<string, unknown> });
    expect(answers.map((answer) => answer.id).sort()).toEqual([0, 1, 2]);
    expect(answers.find((answer) => answer.id === 1)?.result).toMatchObject({ structuredContent: { total: 3 } });
  });

  it("without a token keeps serving stdio, warns once, and tools fail with auth", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, "mcp", "--root", root],
      env: env({ HACKMD_API_TOKEN: "   " }),
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const client = new Client({ name: "cli-test", version: "1" });
    await client.connect(transport);
    const result = await client.callTool({ name: "hackmd_get_me", arguments: {} });
    expect(result.isError).toBe(true);
    expect((result._meta as { error_kind?: string } | undefined)?.error_kind).toBe("auth");
    await client.close();
    expect(stderr.split("\n").filter((line) => line.includes('"no_token"'))).toHaveLength(1);
  });

  it("serve prints one JSON line with the URL and token, answers MCP over HTTP, and exits 0 on SIGTERM", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const child = spawn(process.execPath, [cli, "serve", "--root", root, "--port", "0"], {
      env: env({ HACKMD_API_URL: emu.url, HACKMD_API_TOKEN: emu.token }),
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
        if (stdout.includes("\n")) resolve(stdout.split("\n")[0] ?? "");
      });
      child.once("exit", () => reject(new Error(`serve exited early: ${stderr}`)));
    });
    try {
      const { url, token } = JSON.parse(line) as { url: string; token: string };
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(token.length).toBeGreaterThanOrEqual(43);
      // The instructions follow on stderr once the JSON line is out.
      for (let waited = 0; !stderr.includes("Press Ctrl+C") && waited < 5000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stderr).toContain("claude mcp add --transport http");
      // The endpoint token is printed once, on stdout; stderr is the log stream and never has it.
      expect(stderr).not.toContain(token);
      const unauthorised = await fetch(url, {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json" },
      });
      expect(unauthorised.status).toBe(401);
      const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exit).toBe(0);
      expect(stdout + stderr).not.toContain(emu.token);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
/** `hackmd-bridge serve --port 0 <flags>` against the emulator, and an SDK client connected with the URL and token it prints. */
async function serveWithClient(flags: string[]): Promise<{ child: ChildProcess; client: Client }> {
  const root = await mkdtemp(join(work, "root-"));
  const child = spawn(process.execPath, [cli, "serve", "--root", root, "--port", "0", ...flags], {
    env: env({ HACKMD_API_URL: emu.url, HACKMD_API_TOKEN: emu.token }),
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (stdout.includes("\n")) resolve(stdout.split("\n")[0] ?? "");
    });
    child.once("exit", () => reject(new Error(`serve exited early: ${stderr}`)));
  });
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { url, token } = JSON.parse(line) as { url: string; token: string };
  const client = new Client({ name: "cli-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return { child, client };
}

describe("hackmd-bridge serve: the tool policy flags", () => {
  const WRITE_TOOLS = [
    "hackmd_create_note",
    "hackmd_update_note",
    "hackmd_delete_note",
    "hackmd_upload_note_image",
    "hackmd_create_folder",
    "hackmd_update_folder",
    "hackmd_delete_folder",
    "hackmd_pull_note",
    "hackmd_push_note",
    "hackmd_untrack_note",
  ];

  it("refuses bad policy flags with a usage error naming the fix", () => {
    const root = work;
    const typo = run(["serve", "--root", root, "--deny", "hackmd_updte_note"]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain("did you mean hackmd_update_note?");
    const both = run(["serve", "--root", root, "--read-only", "--allow", "hackmd_delete_note"]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("--read-only refuses hackmd_delete_note");
    const twice = run(["mcp", "--root", root, "--allow", "hackmd_pull_note", "--deny", "hackmd_pull_note"]);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toContain("hackmd_pull_note is given to both --deny and --allow");
  });

  /** An MCP client of `hackmd-bridge mcp` over stdio, against the emulator. */
  async function stdioClient(args: string[]): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, "mcp", ...args],
      env: env({ HACKMD_API_URL: emu.url, HACKMD_API_TOKEN: emu.token }),
      stderr: "pipe",
    });
    const client = new Client({ name: "cli-test", version: "1" });
    await client.connect(transport);
    return client;
  }

  it("mcp --root DIR with no policy flag allows the tools that write (the README's first agent example)", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const client = await stdioClient(["--root", root]);
    try {
      const created = await client.callTool({
        name: "hackmd_create_note",
        arguments: { title: "Written over stdio", content: "# Written over stdio\n" },
      });
      expect({ isError: created.isError, meta: created._meta }).not.toMatchObject({ isError: true });
      const note = (created.structuredContent as { note: { id: string } }).note;
      expect(emu.inspect().notes.some((entry) => entry.id === note.id)).toBe(true);
      const pulled = await client.callTool({
        name: "hackmd_pull_note",
        arguments: { note_ref: note.id, local_path: "stdio.md" },
      });
      expect(pulled.isError).toBeFalsy();
      expect(existsSync(join(root, "stdio.md"))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("repeated --deny flags all count: each tool named is refused, the others stay allowed", async () => {
    const root = await mkdtemp(join(work, "root-"));
    const client = await stdioClient(["--root", root, "--deny", "hackmd_delete_note", "--deny", "hackmd_update_note"]);
    try {
      for (const name of ["hackmd_delete_note", "hackmd_update_note"]) {
        const result = await client.callTool({ name, arguments: { note_ref: "x" } });
        expect({ name, kind: (result._meta as { error_kind?: string } | undefined)?.error_kind }).toEqual({
          name,
          kind: "tool_denied",
        });
        expect((result.content as Array<{ text: string }>)[0]?.text).toContain(`refuses ${name} (--deny)`);
      }
      const created = await client.callTool({
        name: "hackmd_create_note",
        arguments: { title: "Still allowed", content: "x\n" },
      });
      expect(created.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it("serve with no policy flag allows a tool that writes", async () => {
    const { child, client } = await serveWithClient([]);
    try {
      const created = await client.callTool({
        name: "hackmd_create_note",
        arguments: { title: "Written over HTTP", content: "# Written over HTTP\n" },
      });
      expect(created.isError).toBeFalsy();
      expect(emu.inspect().notes.some((entry) => entry.title === "Written over HTTP")).toBe(true);
      await client.close();
    } finally {
      child.kill("SIGTERM");
      if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    }
  });

  it("serve --read-only refuses every write tool with tool_denied and still reads; --ask refuses with the reason", async () => {
    const { child, client } = await serveWithClient(["--read-only", "--ask", "hackmd_list_folders"]);
    try {
      const before = emu.requests().length;
      for (const name of WRITE_TOOLS) {
        // Arguments do not matter: the policy is decided before they are read.
        const result = await client.callTool({ name, arguments: { note_ref: "x" } });
        expect(result.isError).toBe(true);
        expect((result._meta as { error_kind?: string }).error_kind).toBe("tool_denied");
        expect((result.content as Array<{ text: string }>)[0]?.text).toContain(
          `runs with --read-only, so ${name} is refused; nothing was changed`,
        );
      }
      // Nothing reached HackMD for the refused calls.
      expect(emu.requests().length).toBe(before);
      const listed = await client.callTool({ name: "hackmd_list_notes", arguments: {} });
      expect(listed.isError).toBeFalsy();
      const folders = await client.callTool({ name: "hackmd_list_folders", arguments: {} });
      expect((folders._meta as { error_kind?: string }).error_kind).toBe("tool_denied");
      expect((folders.content as Array<{ text: string }>)[0]?.text).toContain(
        "hackmd-bridge has no one to ask, so it is refused",
      );
      expect((folders.content as Array<{ text: string }>)[0]?.text).toContain("--allow hackmd_list_folders");
      await client.close();
    } finally {
      child.kill("SIGTERM");
      if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    }
  });
});
