/**
 * Acceptance: every command line and snippet in README.md, run as a user runs it, against the
 * user checkout built once by `npm run build` (./checkout.ts). Lines run through bash with
 * `hackmd-bridge` put on PATH by the real `npm link` (into a temporary npm prefix), HOME a
 * temporary folder (so `~/notes` exists), and HackMD played by the command's own emulator
 * (`dist/cli.js emulator --port 0`).
 *
 * What the test changes in a line before running it, and why:
 * - placeholders get real values: `HACKMD_API_TOKEN=…` and `"…"` the emulator's token, `<token>`,
 *   `<url>` and `http://127.0.0.1:27183/mcp` the running endpoint's, `SysJb0yAY`, `<short_id>`,
 *   `<version_id>`, `<id>`, `<vault>`, `<command>` and a trailing `…` real ids, folders and words;
 *   `/home/you` in a configuration file is HOME;
 * - `[a]` and `[a|b]` alternatives run in each form;
 * - no fixed port: `--port 27183` becomes `--port 0`, and `serve` and `npm start` get `--port 0`
 *   (tests may not depend on what else runs on the machine);
 * - HACKMD_API_TOKEN and HACKMD_API_URL (the emulator's) are in the environment, as a user who
 *   exported their token has it, so the lines reach the emulator and not hackmd.io;
 * - lines for programs that would need the network (`claude`, the Inspector and mcp-remote
 *   through `npx -y`) are split into words by bash and run by a stand-in that accepts exactly
 *   those arguments and connects the SDK's client with the URL, header, command and environment
 *   they name (`npm run check:clients` runs the real Inspector and mcp-remote).
 *
 * A README line no driver runs fails the first test; a driver whose line the README lost fails
 * where it looks the line up.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { npmEnv, userCopy } from "./checkout";
import { readmeEntries, type ReadmeEntry } from "./readme";
import { call, header, httpClient, sh, start, startEmulator, stdioClient, words, type Ran, type Running } from "./run";
import { loadPlugin } from "./plugin-host";
import { TOOLS } from "../../src/mcp/tools";

/** Every tool: the 14 that match hackmd-mcp and the five for versions and comments. */
const TOOL_COUNT = TOOLS.length;

/**
 * README lines the suite does not run, each with the reason. Only lines CI runs itself (.ci/run:
 * `npm ci`, then lint, typecheck, `npm test`, build), lines that need a HackMD account or the
 * network, and one the README names as what not to run.
 */
const EXEMPT: ReadonlyArray<{ text: RegExp; why: string }> = [
  {
    text: /^npm install$/,
    why: "CI runs `npm ci` from the same lock file right before `npm test`; a fresh offline install took 35 s and 242 MB per checkout on the 2-core machine (the build and link steps of the same lines do run)",
  },
  { text: /^npm test$/, why: "CI runs it (it is the command running this suite)" },
  { text: /^npm run (lint|typecheck)$/, why: "CI runs it (.ci/run)" },
  { text: /^npm run bench$/, why: "measures for minutes; tests never assert timings (bench/README.md)" },
  {
    text: /^npm run check:clients$/,
    why: "needs the network to install the real Inspector and mcp-remote through npx; this suite runs their snippets through stand-ins",
  },
  {
    text: /^npx @modelcontextprotocol\/inspector$/,
    why: "the README names it as what not to run (unpinned, it resolves to a version without --header); needs the network",
  },
];

/** The README lines each driver below runs (a line may match several; it needs at least one). */
const DRIVEN: readonly RegExp[] = [
  /^npm install && npm run build( && npm link)?$/,
  /^npm run build$/,
  /^npm (un)?link( -g hackmd-bridge)?$/,
  /^which hackmd-bridge$/,
  /^npx hackmd-bridge …$/,
  /^node dist\/cli\.js …$/,
  /^hackmd-bridge (--help|<command> --help|help <command>)$/,
  /^hackmd-bridge mcp$/,
  /^HACKMD_API_TOKEN=… hackmd-bridge (mcp|serve) /,
  /^hackmd-bridge doctor /,
  /^cd ~\/notes$/,
  /^hackmd-bridge (list|pull|status|diff|push|sync|publish|untrack|history|comments|log)( |$)/,
  /^npm start( -- --reset)?$/,
  /^npx hackmd-bridge (list|pull) (.* )?--root sandbox-vault/,
  /^claude mcp add /,
  /^npx -y (@modelcontextprotocol\/inspector|mcp-remote)@/,
  /^mkdir -p <vault>\//,
  /^cp main\.js manifest\.json styles\.css <vault>\//,
  /^HACKMD_LIVE_TOKEN=… npm run test:live$/,
  /^\[mcp_servers\.hackmd\]\ncommand = /,
  /^\{ "mcpServers": \{ "hackmd": \{ "command": /,
];

const entries = readmeEntries();
/** The texts run so far. */
const executed = new Set<string>();

/** The README entries matching `pattern` (at least one, or the README lost the line this driver runs). */
function readme(pattern: RegExp): ReadmeEntry[] {
  const found = entries.filter((entry) => pattern.test(entry.text));
  if (found.length === 0)
    throw new Error(`README.md has no line matching ${String(pattern)} any more; update the acceptance driver`);
  return found;
}

/** The one README text matching `pattern`, marked as run. */
function line(pattern: RegExp): string {
  const texts = [...new Set(readme(pattern).map((entry) => entry.text))];
  if (texts.length !== 1)
    throw new Error(`${String(pattern)} matches ${texts.length} different README lines: ${texts.join(" | ")}`);
  executed.add(texts[0] ?? "");
  return texts[0] ?? "";
}

/** Each form of a line with `[a]` / `[--flag a|b]` alternatives: without the group, then with each choice. */
function forms(text: string): string[] {
  const group = /\s*\[([^\]]+)\]/.exec(text);
  if (group === null) return [text.trim()];
  const inner = group[1] ?? "";
  const space = inner.lastIndexOf(" ");
  const [head, tail] = space === -1 ? ["", inner] : [`${inner.slice(0, space)} `, inner.slice(space + 1)];
  const choices = tail.split("|").map((choice) => ` ${head}${choice}`);
  const before = text.slice(0, group.index);
  const after = text.slice(group.index + group[0].length);
  return ["", ...choices].flatMap((choice) => forms(`${before}${choice}${after}`));
}

let checkout: string;
let home: string;
let prefix: string;
let emu: Awaited<ReturnType<typeof startEmulator>>;
let env: NodeJS.ProcessEnv;
/** The folder the lines run in (`cd` moves it). */
let cwd: string;
const stopAtEnd: Running[] = [];
const outputs: string[] = [];

/** Runs a line as typed (bash), after the substitutions; keeps its output for the token check. */
async function run(text: string, extra: Record<string, string | undefined> = {}, where = cwd): Promise<Ran> {
  const childEnv = { ...env, ...extra };
  for (const [name, value] of Object.entries(extra)) if (value === undefined) delete childEnv[name];
  const ran = await sh(text, { cwd: where, env: childEnv });
  outputs.push(ran.stdout, ran.stderr);
  return ran;
}

/** The placeholders every line may carry. */
function fill(text: string, values: Record<string, string> = {}): string {
  let out = text.replace(/HACKMD_API_TOKEN=…/g, `HACKMD_API_TOKEN=${emu.token}`);
  for (const [name, value] of Object.entries(values)) out = out.split(name).join(value);
  return out;
}

beforeAll(async () => {
  checkout = await userCopy();
  home = await realpath(await mkdtemp(join(tmpdir(), "hb-accept-home-")));
  prefix = await mkdtemp(join(tmpdir(), "hb-accept-prefix-"));
  await mkdir(join(prefix, "lib"), { recursive: true });
  await mkdir(join(home, "notes"));
  emu = await startEmulator(checkout);
  env = npmEnv({
    PATH: `${join(prefix, "bin")}:${process.env.PATH ?? ""}`,
    HOME: home,
    npm_config_prefix: prefix,
    HACKMD_API_URL: emu.url,
    HACKMD_API_TOKEN: emu.token,
  });
  for (const name of ["HACKMD_BRIDGE_ROOT", "HACKMD_BRIDGE_MCP_TOKEN", "HACKMD_LIVE_TOKEN", "HACKMD_BRIDGE_LOG_LEVEL"])
    delete env[name];
  cwd = checkout;
}, 240_000);

afterAll(async () => {
  for (const running of stopAtEnd) await running.stop("SIGKILL").catch(() => undefined);
  await emu?.stop();
  for (const folder of [checkout, home, prefix])
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

describe("README.md, run as a user runs it", () => {
  it("every command line and snippet in the README has a driver here, or a stated reason not to run it", () => {
    expect(entries.length).toBeGreaterThan(40);
    const orphans = entries.filter(
      (entry) =>
        !DRIVEN.some((pattern) => pattern.test(entry.text)) && !EXEMPT.some((exempt) => exempt.text.test(entry.text)),
    );
    expect(orphans.map((entry) => `README.md:${entry.line} ${entry.text}`)).toEqual([]);
  });

  it("npm install && npm run build && npm link: the build makes main.js and an executable dist/cli.js; the link puts hackmd-bridge on PATH", async () => {
    const text = line(/^npm install && npm run build && npm link$/);
    executed.add(line(/^npm link$/));
    // npm install: see EXEMPT (CI runs npm ci); the rest of the line runs as written.
    const ran = await run(text.replace(/^npm install && /, ""));
    expect(ran.stderr).not.toMatch(/npm error/);
    expect(ran.status).toBe(0);
    expect(existsSync(join(checkout, "main.js"))).toBe(true);
    const which = await run(line(/^which hackmd-bridge$/));
    expect(which.status).toBe(0);
    expect(which.stdout.trim()).toBe(join(prefix, "bin", "hackmd-bridge"));
    const version = await run("hackmd-bridge --version", {}, home);
    expect(version).toMatchObject({ status: 0, stdout: expect.stringMatching(/^hackmd-bridge \d+\.\d+\.\d+/) });
  }, 120_000);

  it("npm run build alone, and `npx hackmd-bridge …` / `node dist/cli.js …` inside the folder", async () => {
    const build = await run(line(/^npm run build$/));
    expect(build.status).toBe(0);
    for (const text of [line(/^npx hackmd-bridge …$/), line(/^node dist\/cli\.js …$/)]) {
      const ran = await run(text.replace(/…$/, "--version"));
      expect(ran).toMatchObject({ status: 0, stdout: expect.stringMatching(/^hackmd-bridge \d+\.\d+\.\d+/) });
    }
  }, 120_000);

  it("hackmd-bridge --help, <command> --help and help <command> for every command of the exit-code table", async () => {
    const help = await run(line(/^hackmd-bridge --help$/));
    expect(help.status).toBe(0);
    // Typed with nothing after it: the same help, on stderr, as a usage error.
    const bare = await run("hackmd-bridge");
    expect({ status: bare.status, stdout: bare.stdout }).toEqual({ status: 2, stdout: "" });
    expect(bare.stderr).toContain(help.stdout.trim().split("\n")[0] ?? "");
    const readmeText = await readFile(join(checkout, "README.md"), "utf8");
    const commands = [
      ...readmeText
        .slice(readmeText.indexOf("<!-- exit-codes:start -->"), readmeText.indexOf("<!-- exit-codes:end -->"))
        .matchAll(/^\| `([a-z]+)` \|/gm),
    ].map((match) => match[1] ?? "");
    expect(commands.length).toBeGreaterThan(10);
    const perCommand = line(/^hackmd-bridge <command> --help$/);
    const helpCommand = line(/^hackmd-bridge help <command>$/);
    // Four commands at a time: each is a short process of its own.
    for (let index = 0; index < commands.length; index += 4) {
      await Promise.all(
        commands.slice(index, index + 4).map(async (command) => {
          expect(help.stdout).toContain(command);
          const [one, same] = await Promise.all([
            run(perCommand.replace("<command>", command)),
            run(helpCommand.replace("<command>", command)),
          ]);
          expect({ command, status: one.status }).toEqual({ command, status: 0 });
          expect(one.stdout).toContain(`hackmd-bridge ${command}`);
          expect(same).toEqual(one);
        }),
      );
    }
    // "the client starts `hackmd-bridge mcp` itself": typed alone it needs a root, and says so.
    const mcp = await run(line(/^hackmd-bridge mcp$/));
    expect(mcp.status).toBe(2);
    expect(mcp.stderr).toContain("--root");
    expect(mcp.stdout).toBe("");
  }, 120_000);

  describe("the standalone command block, in ~/notes against the emulator", () => {
    let shortId = "";

    it("HACKMD_API_TOKEN=… hackmd-bridge mcp --root ~/notes: the SDK's client over stdio lists every tool, reads and writes", async () => {
      const text = line(/^HACKMD_API_TOKEN=… hackmd-bridge mcp --root ~\/notes$/);
      const { client, stderr } = await stdioClient("bash", ["-c", fill(text)], {
        cwd,
        env: env as Record<string, string>,
      });
      try {
        expect((await client.listTools()).tools).toHaveLength(TOOL_COUNT);
        expect((await call(client, "hackmd_get_me")).structured).toMatchObject({ user_path: "sandbox" });
        // No policy flag: every tool is allowed, writes too.
        const created = await call(client, "hackmd_create_note", { title: "From stdio", content: "# From stdio\n" });
        expect({ isError: created.isError, text: created.text }).toEqual({
          isError: false,
          text: expect.stringContaining("From stdio"),
        });
      } finally {
        await client.close();
      }
      expect(stderr()).not.toContain(emu.token);
    }, 60_000);

    it.each([
      [
        "--port 27183 (run on --port 0)",
        /^HACKMD_API_TOKEN=… hackmd-bridge serve --root ~\/notes --port 27183$/,
        false,
      ],
      ["--read-only (run with --port 0)", /^HACKMD_API_TOKEN=… hackmd-bridge serve --root ~\/notes --read-only$/, true],
    ])(
      "HACKMD_API_TOKEN=… hackmd-bridge serve --root ~/notes %s: the printed URL and token answer over HTTP",
      async (_name, pattern, readOnly) => {
        const text = line(pattern);
        const typed = fill(text).includes("--port 27183")
          ? fill(text).replace("--port 27183", "--port 0")
          : `${fill(text)} --port 0`;
        const running = await start(typed, { cwd, env, ready: (out) => out.includes("\n") });
        try {
          const printed = JSON.parse(running.stdout().split("\n")[0] ?? "") as { url: string; token: string };
          expect(printed.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
          const client = await httpClient(printed.url, { Authorization: `Bearer ${printed.token}` });
          expect((await client.listTools()).tools).toHaveLength(TOOL_COUNT);
          expect((await call(client, "hackmd_get_me")).isError).toBe(false);
          const created = await call(client, "hackmd_create_note", { title: "From serve", content: "# From serve\n" });
          if (readOnly)
            expect({ isError: created.isError, text: created.text }).toEqual({
              isError: true,
              text: expect.stringContaining("--read-only"),
            });
          else
            expect({ isError: created.isError, text: created.text }).toEqual({
              isError: false,
              text: expect.stringContaining("From serve"),
            });
          await client.close();
          // Not a terminal: the snippets go to stderr with <token> in place of the token.
          expect(running.stderr()).toContain("<token>");
          expect(running.stderr()).not.toContain(printed.token);
        } finally {
          expect(await running.stop()).toBe(0);
        }
      },
      60_000,
    );

    it("hackmd-bridge doctor --root ~/notes --probe-api: ok, exit 0", async () => {
      const ran = await run(line(/^hackmd-bridge doctor --root ~\/notes --probe-api$/));
      expect(ran.status).toBe(0);
      expect(JSON.parse(ran.stdout)).toMatchObject({ ok: true });
    });

    it("cd ~/notes, then list, pull, status, diff [--remote], push, sync [--dry-run] as the comments say", async () => {
      const cd = await run(`${line(/^cd ~\/notes$/)} && pwd`);
      cwd = cd.stdout.trim();
      expect(cwd).toBe(join(home, "notes"));

      const list = await run(line(/^hackmd-bridge list$/));
      expect(list.status).toBe(0);
      expect(list.stdout).toContain("Weekly sync");
      const listed = JSON.parse((await run("hackmd-bridge list --json")).stdout) as {
        notes: Array<{ id: string; short_id: string; title: string }>;
      };
      const weekly = listed.notes.find((note) => note.title.startsWith("Weekly sync"));
      shortId = weekly?.short_id ?? "";
      expect(shortId).not.toBe("");

      const pull = await run(fill(line(/^hackmd-bridge pull SysJb0yAY plan\.md$/), { SysJb0yAY: shortId }));
      expect(pull.status).toBe(0);
      expect(pull.stdout).toMatch(/^Pulled "Weekly sync/);
      expect(await readFile(join(cwd, "plan.md"), "utf8")).toContain("Weekly sync");

      const status = await run(line(/^hackmd-bridge status$/));
      expect(status.status).toBe(0);
      expect(status.stdout).toMatch(/in_sync\s+plan\.md/);

      // The user edits the file, then looks at the change and sends it.
      await writeFile(
        join(cwd, "plan.md"),
        `${await readFile(join(cwd, "plan.md"), "utf8")}\nAdded from the command line.\n`,
      );
      const diffForms = forms(line(/^hackmd-bridge diff plan\.md \[--remote\]$/));
      expect(diffForms).toEqual(["hackmd-bridge diff plan.md", "hackmd-bridge diff plan.md --remote"]);
      for (const form of diffForms) {
        const diff = await run(form);
        expect(diff.status).toBe(1);
        expect(diff.stdout).toContain("+Added from the command line.");
      }
      const [plainPush, mergePush] = forms(line(/^hackmd-bridge push plan\.md \[--merge\]$/));
      expect([plainPush, mergePush]).toEqual(["hackmd-bridge push plan.md", "hackmd-bridge push plan.md --merge"]);
      const push = await run(plainPush ?? "");
      expect(push.status).toBe(0);
      expect(push.stdout).toContain("Pushed plan.md");
      const noteUrl = `${emu.url}/notes/${weekly?.id ?? ""}`;
      const auth = { Authorization: `Bearer ${emu.token}` };
      const remote = (await (await fetch(noteUrl, { headers: auth })).json()) as { content: string };
      expect(remote.content).toContain("Added from the command line.");

      // A collaborator edits the top of the note while the user adds a line at the end: the
      // plain push refuses and names --merge; push --merge sends both edits.
      const collaborator = `${remote.content.replace("Weekly sync", "Weekly sync (moved to Tuesday)")}`;
      expect(
        (
          await fetch(noteUrl, {
            method: "PATCH",
            headers: { ...auth, "Content-Type": "application/json" },
            body: JSON.stringify({ content: collaborator }),
          })
        ).status,
      ).toBeLessThan(300);
      await writeFile(join(cwd, "plan.md"), `${await readFile(join(cwd, "plan.md"), "utf8")}\nAnd one more line.\n`);
      const refused = await run(plainPush ?? "");
      expect(refused.status).toBe(1);
      expect(refused.stdout + refused.stderr).toContain("--merge");
      const merged = await run(mergePush ?? "");
      expect(merged.status).toBe(0);
      const both = (await (await fetch(noteUrl, { headers: auth })).json()) as { content: string };
      expect(both.content).toContain("(moved to Tuesday)");
      expect(both.content).toContain("And one more line.");
      expect(existsSync(join(cwd, "plan.remote.md"))).toBe(false);

      // A note id that begins with "-" (one in 64 do), after "--".
      const dashed = line(/^hackmd-bridge pull -- -[\w-]{21} todo\.md$/);
      const dashedId = /-- (-[\w-]{21})/.exec(dashed)?.[1] ?? "";
      const seeded = await fetch(`${emu.url.replace(/\/v1$/, "")}/__emulator/seed`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({
          notes: [{ id: dashedId, title: "Dashed", content: "# Dashed\n\nAn id that looks like an option.\n" }],
        }),
      });
      expect(seeded.status).toBeLessThan(300);
      const dashedPull = await run(dashed);
      expect({ status: dashedPull.status, stderr: dashedPull.stderr }).toEqual({ status: 0, stderr: "" });
      expect(await readFile(join(cwd, "todo.md"), "utf8")).toContain("An id that looks like an option.");
      await run("hackmd-bridge untrack todo.md");

      for (const form of forms(line(/^hackmd-bridge sync \[--dry-run\]$/))) {
        const sync = await run(form);
        expect({ form, status: sync.status }).toEqual({ form, status: 0 });
      }
    }, 120_000);

    it("sync --watch [--budget 2000|unlimited]: each form says it is watching, and stops on Ctrl+C with exit 0", async () => {
      const watchForms = forms(line(/^hackmd-bridge sync --watch \[--budget 2000\|unlimited\]$/));
      executed.add(line(/^hackmd-bridge sync --watch$/));
      expect(watchForms).toEqual([
        "hackmd-bridge sync --watch",
        "hackmd-bridge sync --watch --budget 2000",
        "hackmd-bridge sync --watch --budget unlimited",
      ]);
      for (const form of watchForms) {
        const running = await start(form, { cwd, env, ready: (out) => out.includes("Watching") });
        expect(running.stdout()).toMatch(/^Watching 1 tracked note: \d+\/(2000|unlimited) requests used this month/);
        expect(await running.stop("SIGINT")).toBe(0);
        expect(running.stdout()).toContain("Stopped:");
      }
    }, 60_000);

    it("history plan.md [--show <version_id>] and comments plan.md [--resolve <id>]", async () => {
      const historyForms = forms(line(/^hackmd-bridge history plan\.md \[--show <version_id>\]$/));
      const versions = JSON.parse((await run("hackmd-bridge history plan.md --json")).stdout) as {
        versions: Array<{ id: string }>;
      };
      const versionId = versions.versions[0]?.id ?? "";
      expect(versionId).not.toBe("");
      for (const form of historyForms) {
        const history = await run(form.replace("<version_id>", versionId));
        expect({ form, status: history.status }).toEqual({ form, status: 0 });
        expect(history.stdout.length).toBeGreaterThan(0);
      }
      const open = JSON.parse((await run("hackmd-bridge comments plan.md --json")).stdout) as {
        comments: Array<{ id: string }>;
      };
      const commentId = open.comments[0]?.id ?? "";
      expect(commentId).not.toBe("");
      const [list, resolve] = forms(line(/^hackmd-bridge comments plan\.md \[--resolve <id>\]$/));
      const listed = await run(list ?? "");
      expect(listed.status).toBe(0);
      expect(listed.stdout).toContain(commentId);
      const resolved = await run((resolve ?? "").replace("<id>", commentId));
      expect(resolved.status).toBe(0);
      expect(resolved.stdout).toContain(`Resolved`);
      expect((await run(list ?? "")).stdout).not.toContain(commentId);
      // The sync journal lists the pulls and pushes the lines above made (docs/sync-journal.md).
      const logForms = forms(line(/^hackmd-bridge log \[plan\.md\]$/));
      executed.add(line(/^hackmd-bridge log$/));
      expect(logForms).toEqual(["hackmd-bridge log", "hackmd-bridge log plan.md"]);
      for (const form of logForms) {
        const log = await run(form);
        expect({ form, status: log.status }).toEqual({ form, status: 0 });
        expect(log.stdout).toContain("plan.md");
        expect(log.stdout).toContain("you (command)");
      }
    }, 60_000);

    it("publish idea.md, then untrack plan.md: the file and the note stay", async () => {
      await writeFile(join(cwd, "idea.md"), "# An idea\n\nWritten by hand.\n");
      const publish = await run(line(/^hackmd-bridge publish idea\.md$/));
      expect(publish.status).toBe(0);
      expect(publish.stdout).toContain("Published idea.md");
      const untrack = await run(line(/^hackmd-bridge untrack plan\.md$/));
      expect(untrack.status).toBe(0);
      expect(existsSync(join(cwd, "plan.md"))).toBe(true);
      const status = await run("hackmd-bridge status");
      expect(status.stdout).toContain("idea.md");
      expect(status.stdout).not.toContain("plan.md");
    }, 60_000);

    it("the stdio configurations for Claude Code, Codex and Cursor start hackmd-bridge mcp and answer", async () => {
      const clients: Array<{ what: string; command: string; args: string[]; env: Record<string, string> }> = [];
      const claude = await words(fill(line(/^claude mcp add --transport stdio /)), home);
      const parsed = claudeStandIn(claude);
      expect(parsed).toMatchObject({ transport: "stdio", name: "hackmd" });
      clients.push({ what: "Claude Code", command: parsed.command ?? "", args: parsed.args, env: parsed.env });
      const toml = parseCodexToml(fill(line(/^\[mcp_servers\.hackmd\]\ncommand = /).replace(/"…"/g, `"${emu.token}"`)));
      clients.push({ what: "Codex", ...toml });
      const cursor = (
        JSON.parse(line(/^\{ "mcpServers": \{ "hackmd": \{ "command": /).replace(/"…"/g, `"${emu.token}"`)) as {
          mcpServers: { hackmd: { command: string; args: string[]; env: Record<string, string> } };
        }
      ).mcpServers.hackmd;
      clients.push({ what: "Cursor", ...cursor });
      for (const client of clients) {
        // A client app starts the command with the environment it names; the paths of the example are HOME's.
        const args = client.args.map((arg) => arg.replace(/^\/home\/you(?=\/|$)/, home));
        const childEnv = { PATH: env.PATH ?? "", HOME: home, HACKMD_API_URL: emu.url, ...client.env };
        const { client: mcp } = await stdioClient(client.command, args, { cwd: home, env: childEnv });
        try {
          expect({ what: client.what, tools: (await mcp.listTools()).tools.length }).toEqual({
            what: client.what,
            tools: TOOL_COUNT,
          });
          expect((await call(mcp, "hackmd_get_me")).isError).toBe(false);
        } finally {
          await mcp.close();
        }
      }
    }, 60_000);
  });

  describe("the sandbox: npm start in the folder", () => {
    let sandbox: Running;
    let printed: { url: string; token: string; mode: string };

    it("npm start (run with --port 0): sandbox mode, one JSON line, snippets with the real token", async () => {
      const text = line(/^npm start$/);
      // Not in ~/notes: npm start runs in the checkout, with no HackMD variables set.
      const sandboxEnv = { ...env };
      delete sandboxEnv.HACKMD_API_TOKEN;
      delete sandboxEnv.HACKMD_API_URL;
      sandbox = await start(`${text} -- --port 0`, {
        cwd: checkout,
        env: sandboxEnv,
        ready: (out) => out.includes("Press Ctrl+C"),
      });
      stopAtEnd.push(sandbox);
      const jsonLine =
        sandbox
          .stdout()
          .split("\n")
          .find((text) => text.startsWith("{")) ?? "";
      printed = JSON.parse(jsonLine) as typeof printed;
      expect(printed.mode).toBe("sandbox");
      expect(sandbox.stdout()).toContain(`Bearer ${printed.token}`);
      expect(sandbox.stderr()).toContain("Mode: SANDBOX");
      expect(sandbox.stderr()).not.toContain(printed.token);
      // The README's "Try the plugin against the sandbox": the API URL and token it prints for the
      // plugin's settings answer as HackMD does.
      const plugin = /set API URL to (http:\/\/127\.0\.0\.1:\d+\/v1) and the API token to (\S+)/.exec(sandbox.stdout());
      expect(plugin).not.toBeNull();
      const me = await fetch(`${plugin?.[1] ?? ""}/me`, { headers: { Authorization: `Bearer ${plugin?.[2] ?? ""}` } });
      expect(me.status).toBe(200);
    }, 120_000);

    it("npx hackmd-bridge list / pull <short_id> … --root sandbox-vault find the sandbox with no token", async () => {
      const noToken = { HACKMD_API_TOKEN: undefined, HACKMD_API_URL: undefined };
      const list = await run(line(/^npx hackmd-bridge list --root sandbox-vault$/), noToken, checkout);
      expect(list.status).toBe(0);
      expect(list.stdout).toContain("Weekly sync");
      const json = await run("node dist/cli.js list --root sandbox-vault --json", noToken, checkout);
      const shortId = (JSON.parse(json.stdout) as { notes: Array<{ short_id: string }> }).notes[0]?.short_id ?? "";
      const pull = await run(
        line(/^npx hackmd-bridge pull <short_id> notes\/first\.md --root sandbox-vault --create-parent-dirs$/).replace(
          "<short_id>",
          shortId,
        ),
        noToken,
        checkout,
      );
      expect(pull.status).toBe(0);
      expect(existsSync(join(checkout, "sandbox-vault", "notes", "first.md"))).toBe(true);
    }, 60_000);

    it("the HTTP snippets (claude mcp add, the Inspector, mcp-remote) connect with the printed URL and token", async () => {
      const values = { "http://127.0.0.1:27183/mcp": printed.url, "<url>": printed.url, "<token>": printed.token };
      // The sandbox prints the same commands with the real values.
      const claudeLine = fill(line(/^claude mcp add --transport http /), values);
      const inspectorLine = fill(line(/^npx -y @modelcontextprotocol\/inspector@/), values);
      expect(sandbox.stdout()).toContain(claudeLine);
      expect(sandbox.stdout()).toContain(inspectorLine);

      const claude = claudeStandIn(await words(claudeLine, home));
      expect(claude).toMatchObject({ transport: "http", name: "hackmd", url: printed.url });
      const viaClaude = await httpClient(claude.url ?? "", claude.headers);
      expect((await viaClaude.listTools()).tools).toHaveLength(TOOL_COUNT);
      await viaClaude.close();

      const inspector = inspectorStandIn(await words(inspectorLine, home));
      const viaInspector = await httpClient(inspector.url, inspector.headers);
      expect(inspector.method).toBe("tools/list");
      expect((await viaInspector.listTools()).tools).toHaveLength(TOOL_COUNT);
      await viaInspector.close();

      const remote = mcpRemoteStandIn(await words(fill(line(/^npx -y mcp-remote@/), values), home));
      const viaRemote = await httpClient(remote.url, remote.headers);
      expect((await call(viaRemote, "hackmd_get_me")).structured).toMatchObject({ user_path: "sandbox" });
      await viaRemote.close();
    }, 60_000);

    it("the stdio configurations it prints (Claude Code, Codex) start the tools on its folder with no token", async () => {
      const out = sandbox.stdout();
      const claudeLine =
        out
          .split("\n")
          .find((text) => text.trim().startsWith("claude mcp add --transport stdio "))
          ?.trim() ?? "";
      const claude = claudeStandIn(await words(claudeLine, home));
      expect(claude).toMatchObject({ transport: "stdio", name: "hackmd", env: {} });
      const codexStart = out.indexOf("[mcp_servers.hackmd]\n  command = ");
      const codex = parseCodexToml(
        out
          .slice(codexStart)
          .split("\n")
          .slice(0, 3)
          .map((text) => text.trim())
          .join("\n"),
      );
      for (const server of [{ command: claude.command ?? "", args: claude.args }, codex]) {
        // What a client app passes: its own PATH and HOME, and no HackMD variables.
        const { client } = await stdioClient(server.command, server.args, {
          cwd: home,
          env: { PATH: env.PATH ?? "", HOME: home },
        });
        try {
          expect((await client.listTools()).tools).toHaveLength(TOOL_COUNT);
          expect((await call(client, "hackmd_get_me")).structured).toMatchObject({ user_path: "sandbox" });
        } finally {
          await client.close();
        }
      }
    }, 60_000);

    it("Ctrl+C stops it; npm start -- --reset (run with --port 0) starts over", async () => {
      await sandbox.stop("SIGINT");
      const sandboxEnv = { ...env };
      delete sandboxEnv.HACKMD_API_TOKEN;
      delete sandboxEnv.HACKMD_API_URL;
      const reset = await start(`${line(/^npm start -- --reset$/)} --port 0`, {
        cwd: checkout,
        env: sandboxEnv,
        ready: (out) => out.includes("Press Ctrl+C"),
      });
      stopAtEnd.push(reset);
      try {
        expect(reset.stderr()).toContain("Started over");
        const again = JSON.parse(
          reset
            .stdout()
            .split("\n")
            .find((text) => text.startsWith("{")) ?? "",
        ) as typeof printed;
        expect(again.token).not.toBe(printed.token);
      } finally {
        await reset.stop("SIGINT");
      }
    }, 120_000);
  });

  it("npm start on a port another program holds: says so and how to start anyway, and stops", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const ran = await run(
        `${line(/^npm start$/)} -- --port ${port}`,
        { HACKMD_API_TOKEN: undefined, HACKMD_API_URL: undefined },
        checkout,
      );
      expect(ran.status).not.toBe(0);
      expect(ran.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
      expect(ran.stderr).toContain("npm start -- --port 0");
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  }, 60_000);

  it("installing the plugin: the copied main.js loads in the fake host, pulls and pushes against the emulator", async () => {
    const vault = await mkdtemp(join(tmpdir(), "hb-accept-vault-"));
    try {
      const build = await run(line(/^npm install && npm run build$/).replace(/^npm install && /, ""), {}, checkout);
      expect(build.status).toBe(0);
      for (const pattern of [/^mkdir -p <vault>\//, /^cp main\.js manifest\.json styles\.css <vault>\//]) {
        const ran = await run(line(pattern).split("<vault>").join(vault), {}, checkout);
        expect(ran.status).toBe(0);
      }
      const folder = join(vault, ".obsidian", "plugins", "hackmd-bridge");
      const manifest = JSON.parse(await readFile(join(folder, "manifest.json"), "utf8")) as {
        id: string;
        version: string;
      };
      expect(manifest.id).toBe("hackmd-bridge");
      const host = await loadPlugin(join(folder, "main.js"), { apiUrl: emu.url, token: emu.token, manifest });
      try {
        const marker = "Edited in Obsidian (acceptance).";
        const path = await host.pullEditPush("cs101", marker);
        expect(path).toMatch(/\.md$/);
        const remote = (await (
          await fetch(`${emu.url}/notes/${host.noteId("cs101")}`, { headers: { Authorization: `Bearer ${emu.token}` } })
        ).json()) as { content: string };
        expect(remote.content).toContain(marker);
      } finally {
        host.unload();
      }
    } finally {
      await rm(vault, { recursive: true, force: true });
    }
  }, 120_000);

  it("HACKMD_LIVE_TOKEN=… npm run test:live, with no token to give: says in one line that it ran nothing, exit 0", async () => {
    const text = line(/^HACKMD_LIVE_TOKEN=… npm run test:live$/);
    // A HackMD account's token cannot be given here; the README's promise for the tokenless run is checked.
    const ran = await run(text.replace("HACKMD_LIVE_TOKEN=…", "HACKMD_LIVE_TOKEN="), {}, checkout);
    expect(ran.status).toBe(0);
    expect(
      ran.stdout
        .trim()
        .split("\n")
        .filter((text) => !text.startsWith(">") && text.trim() !== ""),
    ).toEqual([expect.stringContaining("ran nothing")]);
  }, 60_000);

  it("npm unlink -g hackmd-bridge removes the command again", async () => {
    const ran = await run(line(/^npm unlink -g hackmd-bridge$/), {}, home);
    expect(ran.status).toBe(0);
    expect((await run("command -v hackmd-bridge", {}, home)).status).not.toBe(0);
  }, 60_000);

  it("ran every README line that has a driver, and no output carried the HackMD token", () => {
    const notRun = entries.filter(
      (entry) => !executed.has(entry.text) && !EXEMPT.some((exempt) => exempt.text.test(entry.text)),
    );
    expect(notRun.map((entry) => `README.md:${entry.line} ${entry.text}`)).toEqual([]);
    for (const text of outputs) expect(text).not.toContain(emu.token);
  });
});

/** `claude mcp add`, as far as these snippets use it: the options, the name, then a URL or `-- command args`. */
function claudeStandIn(argv: string[]): {
  transport: string;
  name: string;
  url?: string;
  headers: Record<string, string>;
  command?: string;
  args: string[];
  env: Record<string, string>;
} {
  expect(argv.slice(0, 3)).toEqual(["claude", "mcp", "add"]);
  const out = { transport: "stdio", name: "", headers: {}, args: [] as string[], env: {} } as ReturnType<
    typeof claudeStandIn
  >;
  const rest = argv.slice(3);
  const positional: string[] = [];
  while (rest.length > 0) {
    const word = rest.shift() ?? "";
    if (word === "--") {
      out.command = rest.shift();
      out.args = rest.splice(0);
    } else if (word === "--transport") out.transport = rest.shift() ?? "";
    else if (word === "--header") Object.assign(out.headers, header(rest.shift() ?? ""));
    else if (word === "--env") {
      const pair = rest.shift() ?? "";
      out.env[pair.slice(0, pair.indexOf("="))] = pair.slice(pair.indexOf("=") + 1);
    } else if (word.startsWith("-")) throw new Error(`the claude stand-in does not know ${word}`);
    else positional.push(word);
  }
  out.name = positional[0] ?? "";
  if (positional[1] !== undefined) out.url = positional[1];
  return out;
}

/** The Inspector's CLI mode as the snippet runs it: `npx -y <pinned> --cli URL --transport http --header H --method M`. */
function inspectorStandIn(argv: string[]): { url: string; headers: Record<string, string>; method: string } {
  expect(argv.slice(0, 2)).toEqual(["npx", "-y"]);
  expect(argv[2]).toMatch(/^@modelcontextprotocol\/inspector@\d+\.\d+\.\d+$/);
  const out = { url: "", headers: {} as Record<string, string>, method: "" };
  const rest = argv.slice(3);
  while (rest.length > 0) {
    const word = rest.shift() ?? "";
    if (word === "--cli") out.url = rest.shift() ?? "";
    else if (word === "--transport") expect(rest.shift()).toBe("http");
    else if (word === "--header") Object.assign(out.headers, header(rest.shift() ?? ""));
    else if (word === "--method") out.method = rest.shift() ?? "";
    else throw new Error(`the Inspector stand-in does not know ${word}`);
  }
  return out;
}

/** mcp-remote as Claude Desktop runs it: `npx -y mcp-remote@<pinned> URL --header H`. */
function mcpRemoteStandIn(argv: string[]): { url: string; headers: Record<string, string> } {
  expect(argv.slice(0, 2)).toEqual(["npx", "-y"]);
  expect(argv[2]).toMatch(/^mcp-remote@\d+\.\d+\.\d+$/);
  const [url, flag, value, ...rest] = argv.slice(3);
  expect([flag, rest]).toEqual(["--header", []]);
  return { url: url ?? "", headers: header(value ?? "") };
}

/** The three lines of the Codex entry: `command`, `args` and `env` (TOML strings, arrays and an inline table). */
function parseCodexToml(text: string): { command: string; args: string[]; env: Record<string, string> } {
  const [first, ...rest] = text.split("\n");
  expect(first).toBe("[mcp_servers.hackmd]");
  const values: Record<string, string> = {};
  for (const entry of rest) {
    const match = /^(\w+) = (.+)$/.exec(entry);
    if (match === null) throw new Error(`the Codex stand-in cannot read ${entry}`);
    values[match[1] ?? ""] = match[2] ?? "";
  }
  const env = Object.fromEntries(
    [...(values.env ?? "").matchAll(/(\w+) = "([^"]*)"/g)].map((pair) => [pair[1] ?? "", pair[2] ?? ""]),
  );
  return {
    command: JSON.parse(values.command ?? '""') as string,
    args: JSON.parse(values.args ?? "[]") as string[],
    env,
  };
}
