/**
 * The command behaves as people expect a CLI to. Every subcommand answers
 * `--help`, `-h` and `help <command>` with exit 0; a typo gets "did you mean"; every usage error
 * exits 2 with nothing on stdout; the README's exit-code table is the one the commands describe;
 * and the built command is executable and runs as `hackmd-bridge` through `npm link` and `npx`.
 * Real child processes throughout.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitCodeTable, parseCommandLine } from "../../src/node/commands/args";
import { pullCommand } from "../../src/node/commands/pull";
import { syncCommand } from "../../src/node/commands/sync";
import { nextStep } from "../../src/node/commands/status";
import { untrackCommand } from "../../src/node/commands/untrack";
import { CLI_WORDS } from "../../src/node/commands/words";
import { mcpSpec, serveSpec } from "../../src/node/commands/protocol";
import { parsePolicyFlags } from "../../src/node/tool-policy-flags";
import { ALL_SPECS } from "../../src/node/cli";
import { buildCli } from "../helpers/build-cli";

let work: string;
let cli: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "hb-cli-help-"));
  cli = await buildCli(work);
}, 60_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** The command with no HackMD variables; nothing here reaches a network. */
function run(args: string[], options: { cwd?: string } = {}) {
  return spawnSync(process.execPath, [cli, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: work },
    encoding: "utf8",
    timeout: 20_000,
    cwd: options.cwd ?? work,
  });
}

const NAMES = ALL_SPECS.map((spec) => spec.name);

describe("help", () => {
  it("lists every subcommand with --help, -h and help, exit 0", () => {
    for (const args of [["--help"], ["-h"], ["help"]]) {
      const result = run(args);
      expect({ args, status: result.status }).toEqual({ args, status: 0 });
      for (const name of NAMES.filter((name) => name !== "help"))
        expect(result.stdout).toMatch(new RegExp(`^  ${name} `, "m"));
      expect(result.stdout).toContain("hackmd-bridge help <command>");
      expect(result.stdout).toContain("HackMD → Settings → API");
    }
    expect(run(["--version"]).stdout).toBe("hackmd-bridge 9.9.9-test\n");
  });

  it.each(NAMES)(
    "%s answers --help, -h and `help <command>` with its usage, options and exit codes (exit 0)",
    (name) => {
      const outputs = [
        [name, "--help"],
        [name, "-h"],
        ["help", name],
        [name, "extra", "--bogus", "--help"],
      ].map((args) => {
        const result = run(args);
        expect({ args, status: result.status, stderr: result.stderr }).toEqual({ args, status: 0, stderr: "" });
        return result.stdout;
      });
      expect(new Set(outputs).size).toBe(1);
      const help = outputs[0] ?? "";
      expect(help.startsWith(`hackmd-bridge ${name} — `)).toBe(true);
      expect(help).toContain(`Usage: hackmd-bridge ${name}`);
      expect(help).toMatch(/Exit codes:\n {2}0 {2}\S/);
      expect(help).toMatch(/-h, --help/);
    },
  );

  it("with no command prints the help on stderr and exits 2, stdout empty", () => {
    const result = run([]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("No command given.");
  });
});

describe("usage errors", () => {
  it("suggests the subcommand meant, whatever follows it", () => {
    for (const [args, meant] of [
      [["pul", "x", "y"], "pull"],
      [["sycn", "--dry-run"], "sync"],
      [["stauts"], "status"],
      [["dif", "a.md"], "diff"],
      [["help", "pusj"], "push"],
    ] as const) {
      const result = run([...args]);
      expect({ args, status: result.status, stdout: result.stdout }).toEqual({ args, status: 2, stdout: "" });
      expect(result.stderr).toContain(`did you mean "${meant}"?`);
      expect(result.stderr).not.toMatch(/positional|Unknown option/);
    }
  });

  it("suggests the option meant, or names the subcommand it belongs to; quotes stay balanced", () => {
    const cases: Array<[string[], string]> = [
      [["sync", "--dry-rn"], "unknown option --dry-rn; did you mean --dry-run?"],
      [["pull", "x", "y.md", "--overwrit"], "did you mean --overwrite?"],
      [["status", "--jsn"], "did you mean --json?"],
      [["pull", "x", "y.md", "--dry-run"], "--dry-run is not an option of pull (it goes with sync, mirror)"],
      [["--hepl"], "did you mean --help?"],
      [["--root", "x", "status"], "options go after the command"],
    ];
    for (const [args, message] of cases) {
      const result = run(args);
      expect({ args, status: result.status, stdout: result.stdout }).toEqual({ args, status: 2, stdout: "" });
      expect(result.stderr).toContain(message);
      expect((result.stderr.match(/"/g) ?? []).length % 2).toBe(0);
      expect((result.stderr.match(/'/g) ?? []).length % 2).toBe(0);
    }
  });

  it.each(NAMES)(
    "%s: an unknown option is a usage error (exit 2, nothing on stdout, its usage line on stderr)",
    (name) => {
      const result = run([name, "--no-such-option"]);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(`hackmd-bridge ${name}: unknown option --no-such-option`);
      expect(result.stderr).toContain(`Usage: hackmd-bridge ${name}`);
    },
  );

  it("wrong argument counts and values are usage errors that say what is expected", () => {
    const cases: Array<[string[], RegExp]> = [
      [["pull", "only-a-ref"], /missing <path>/],
      [["pull", "a", "b.md", "c.md"], /takes at most 2 arguments/],
      [["sync", "extra"], /sync takes no arguments/],
      [["status", "--root"], /--root needs a value: --root <dir>/],
      [["status", "--root", "--json"], /--root needs a value/],
      [["sync", "--json=yes"], /--json takes no value/],
      [["serve", "--port", "http"], /--port takes a whole number/],
      [["doctor", "--protect-agent-files=maybe"], /--protect-agent-files takes true or false/],
      [["publish", "a.md", "--read", "owner", "--write", "guest"], /--write guest is wider than --read owner/],
      [["untrack"], /give either <path> or --note <note_id>/],
      [["list", "--tracked", "--team", "t"], /--team goes without --tracked/],
      [["emulator", "--seed", "huge"], /invalid --seed huge/],
    ];
    for (const [args, message] of cases) {
      const result = run(args);
      expect({ args, status: result.status, stdout: result.stdout }).toEqual({ args, status: 2, stdout: "" });
      expect(result.stderr).toMatch(message);
    }
  });
});

describe("note ids that begin with - (base64url: one in 64)", () => {
  // Real shapes: 22-character note ids and 9-character short ids; the second holds an h, which
  // node:util parseArgs read as -v -e -4 … -h (help, exit 0, nothing pulled).
  const ids = ["-PxVq3nGxRzKbLm0aY8ZtQ", "-ve4vnGutHhk3AAuRhk3AA", "-h1ab2cd3"];

  it.each(ids)("the parser takes %s as an argument, before or after the options and after --", (id) => {
    for (const args of [
      [id, "a.md"],
      [id, "a.md", "--overwrite"],
      ["--overwrite", id, "a.md"],
      ["--", id, "a.md"],
      ["--overwrite", "--", id, "a.md"],
    ]) {
      const line = parseCommandLine(pullCommand, args, ALL_SPECS);
      expect({ args, help: line.help, positionals: line.positionals }).toEqual({
        args,
        help: false,
        positionals: [id, "a.md"],
      });
    }
    // An option's value may begin with - too.
    expect(parseCommandLine(pullCommand, ["x", "a.md", "--team", id], ALL_SPECS).values.team).toBe(id);
  });

  it("only --help and a standalone -h ask for help; one-dash spellings of options are refused naming the fix", () => {
    expect(parseCommandLine(pullCommand, ["-h"], ALL_SPECS).help).toBe(true);
    expect(parseCommandLine(pullCommand, ["x", "--help"], ALL_SPECS).help).toBe(true);
    // After --, --help is a file name.
    expect(parseCommandLine(pullCommand, ["x", "--", "--help"], ALL_SPECS)).toMatchObject({
      help: false,
      positionals: ["x", "--help"],
    });
    expect(() => parseCommandLine(pullCommand, ["-x", "a.md", "b"], ALL_SPECS)).toThrow(/unknown option -x/);
    expect(() => parseCommandLine(pullCommand, ["x", "a.md", "-overwrite"], ALL_SPECS)).toThrow(
      "-overwrite has one dash; write --overwrite",
    );
  });

  it("a pull of an id that begins with - and holds an h never prints the help and exits 0", () => {
    const result = run(["pull", "-ve4vnGutHhk3AAuRhk3AA", "a.md"], { cwd: work });
    // No token here, so the pull fails (2) — but it was attempted, not answered with the help.
    expect(result.status).toBe(2);
    expect(result.stdout).not.toContain("Usage:");
    expect(result.stderr).not.toMatch(/unknown option|Usage:/);
  });

  it("an id or file name that begins with -- is refused as an option, and the message says to end the options before it", () => {
    expect(() => parseCommandLine(pullCommand, ["--PxVq3nGxRzKbLm0aY8Zt", "a.md"], ALL_SPECS)).toThrow(
      "unknown option --PxVq3nGxRzKbLm0aY8Zt; if it is a note id or a file name, end the options with -- before it: hackmd-bridge pull [options] -- --PxVq3nGxRzKbLm0aY8Zt …",
    );
    // Options of other commands and typos keep their own messages.
    expect(() => parseCommandLine(pullCommand, ["x", "a.md", "--dry-run"], ALL_SPECS)).toThrow(
      "--dry-run is not an option of pull (it goes with sync, mirror)",
    );
    expect(() => parseCommandLine(pullCommand, ["x", "a.md", "--overwrit"], ALL_SPECS)).toThrow(
      "did you mean --overwrite?",
    );
  });

  it("every next step the command suggests, typed back, reads a note id or file name that begins with -- as an argument", () => {
    const id = "--PxVq3nGxRzKbLm0aY8Zt";
    const words = (line: string): string[] => line.replace(/^`|`$/g, "").split(" ").slice(2);
    const pull = CLI_WORDS.step({
      action: "pull",
      path: "--plan.md",
      noteId: id,
      teamPath: "team-x",
      flags: ["overwrite_local"],
    });
    expect(pull).toBe("`hackmd-bridge pull --team team-x --overwrite -- --PxVq3nGxRzKbLm0aY8Zt --plan.md`");
    expect(parseCommandLine(pullCommand, words(pull), ALL_SPECS)).toMatchObject({
      positionals: [id, "--plan.md"],
      values: { team: "team-x", overwrite: true },
    });
    const push = nextStep({ status: "conflict", merges: true, local_path: "--plan.md", note_id: id, team_path: null });
    expect(push).toContain("hackmd-bridge push --merge -- --plan.md");
    const remote = nextStep({ status: "remote_changed", local_path: "a.md", note_id: id, team_path: null });
    expect(remote).toContain(`hackmd-bridge pull --overwrite -- ${id} a.md`);
    const untrack = CLI_WORDS.step({ action: "untrack", noteId: id, teamPath: null });
    expect(untrack).toBe(`\`hackmd-bridge untrack --note=${id}\``);
    expect(parseCommandLine(untrackCommand, words(untrack), ALL_SPECS).values.note).toBe(id);
    // Ordinary names read as before.
    expect(CLI_WORDS.step({ action: "pull", path: "a.md", noteId: "-PxVq3nGxRzKbLm0aY8ZtQ", teamPath: null })).toBe(
      "`hackmd-bridge pull -PxVq3nGxRzKbLm0aY8ZtQ a.md`",
    );
  });

  it("every command with arguments says in its help how ids that begin with - are read", () => {
    for (const name of ["pull", "push", "status", "diff", "untrack", "history", "comments", "publish"]) {
      expect(run([name, "--help"]).stdout).toContain("-- ends the options");
    }
    expect(run(["--help"]).stdout).toContain("-- ends the options");
  });
});

describe("options given more than once", () => {
  it("--deny, --allow and --ask accumulate, repeated and comma-separated alike", () => {
    const line = parseCommandLine(
      mcpSpec,
      [
        "--deny",
        "hackmd_delete_note",
        "--deny",
        "hackmd_update_note,hackmd_delete_folder",
        "--ask",
        "hackmd_push_note",
      ],
      ALL_SPECS,
    );
    expect(parsePolicyFlags(line.values).policies).toEqual({
      hackmd_delete_note: "deny",
      hackmd_update_note: "deny",
      hackmd_delete_folder: "deny",
      hackmd_push_note: "ask",
    });
  });

  it("a tool given two policies across repeats is a usage error (exit 2) naming it", () => {
    const result = run([
      "mcp",
      "--root",
      work,
      "--deny",
      "hackmd_delete_note",
      "--deny",
      "hackmd_update_note",
      "--allow",
      "hackmd_delete_note",
    ]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("hackmd_delete_note is given to both --deny and --allow; name it once");
  });

  it("a single-valued option given twice is a usage error (exit 2), never last-wins", () => {
    expect(() => parseCommandLine(syncCommand, ["--watch", "--budget", "10", "--budget", "20"], ALL_SPECS)).toThrow(
      '--budget is given twice ("10" and "20"); give it once',
    );
    for (const args of [
      ["status", "--root", "a", "--root", "b"],
      ["serve", "--root", work, "--port", "0", "--port", "1"],
      ["sync", "--watch", "--budget", "10", "--budget=20"],
      ["pull", "x", "a.md", "--team", "t", "--team", "u"],
      ["history", "a.md", "--show", "v1", "--show", "v2"],
      ["emulator", "--port", "0", "--port", "0"],
    ]) {
      const result = run(args);
      expect({ args, status: result.status, stdout: result.stdout }).toEqual({ args, status: 2, stdout: "" });
      expect(result.stderr).toMatch(/--[a-z-]+ is given twice \(.*\); give it once/);
    }
    // Booleans say the same thing twice: harmless, accepted.
    expect(parseCommandLine(serveSpec, ["--read-only", "--read-only"], ALL_SPECS).values["read-only"]).toBe(true);
  });
});

describe("the README", () => {
  it("has one exit-code table, and it is the one every subcommand's --help states", async () => {
    const readme = await readFile("README.md", "utf8");
    const tables = readme.match(/<!-- exit-codes:start -->\n([\s\S]*?)\n<!-- exit-codes:end -->/g) ?? [];
    expect(tables).toHaveLength(1);
    const table = /<!-- exit-codes:start -->\n([\s\S]*?)\n<!-- exit-codes:end -->/.exec(readme)?.[1] ?? "";
    expect(table).toBe(exitCodeTable(ALL_SPECS));
    const rows = table
      .split("\n")
      .slice(2)
      .map((row) => /^\| `([a-z]+)`/.exec(row)?.[1]);
    expect(rows).toEqual(NAMES);
    // Each row is what the subcommand's own help says.
    for (const spec of ALL_SPECS) {
      const help = run([spec.name, "--help"]).stdout;
      for (const code of [0, 1, 2] as const) {
        const meaning = spec.exitCodes[code];
        if (meaning !== undefined) expect(help).toContain(`  ${code}  ${meaning}`);
      }
    }
  });

  it("states the Node version, how long the tests take, and where to get a HackMD token", async () => {
    const readme = await readFile("README.md", "utf8");
    const engines = (JSON.parse(await readFile("package.json", "utf8")) as { engines: { node: string } }).engines.node;
    expect(readme).toContain(`Node.js ${engines.replace(">=", "")} or newer`);
    expect(readme).toMatch(/npm test[^\n]*about 3 minutes/);
    expect(readme).toContain("HackMD → Settings → API");
  });
});

describe("hackmd-bridge on the PATH", () => {
  /** A package folder as the README's steps leave it: package.json and the built dist/cli.js. */
  async function builtPackage(): Promise<string> {
    const folder = await mkdtemp(join(work, "pkg-"));
    await mkdir(join(folder, "dist"));
    const built = spawnSync(
      process.execPath,
      ["esbuild.config.mjs", "--cli-only", `--cli-outfile=${join(folder, "dist", "cli.js")}`],
      { encoding: "utf8" },
    );
    expect(built.status).toBe(0);
    const pkg = JSON.parse(await readFile("package.json", "utf8")) as {
      name: string;
      version: string;
      bin: Record<string, string>;
      engines: unknown;
    };
    // Only what linking needs: no dependencies, so npm has nothing to fetch.
    await writeFile(
      join(folder, "package.json"),
      JSON.stringify({ name: pkg.name, version: pkg.version, bin: pkg.bin, engines: pkg.engines, private: true }),
    );
    return folder;
  }

  function npm(
    args: string[],
    options: { cwd: string; env?: Record<string, string> },
  ): Promise<{ status: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn("npm", args, {
        cwd: options.cwd,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: work,
          npm_config_cache: join(work, "npm-cache"),
          npm_config_update_notifier: "false",
          ...options.env,
        },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      child.once("close", (status) => resolve({ status, stdout, stderr }));
    });
  }

  it("the build makes dist/cli.js executable, and it runs by itself (shebang)", async () => {
    const folder = await builtPackage();
    const file = join(folder, "dist", "cli.js");
    expect((await stat(file)).mode & 0o111).toBe(0o111);
    const version = (JSON.parse(await readFile("package.json", "utf8")) as { version: string }).version;
    const direct = spawnSync(file, ["--version"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } });
    expect(direct.stdout).toBe(`hackmd-bridge ${version}\n`);
  }, 60_000);

  it("npm link puts hackmd-bridge on the PATH, and npx hackmd-bridge runs it in the package folder", async () => {
    const folder = await builtPackage();
    const prefix = join(work, "global");
    const linked = await npm(["link", "--offline", "--no-audit", "--no-fund"], {
      cwd: folder,
      env: { npm_config_prefix: prefix },
    });
    expect(linked.status).toBe(0);
    const onPath = spawnSync("hackmd-bridge", ["--help"], {
      encoding: "utf8",
      env: { PATH: `${join(prefix, "bin")}:${process.env.PATH ?? ""}` },
    });
    expect(onPath.status).toBe(0);
    expect(onPath.stdout).toContain("Usage: hackmd-bridge <command>");
    const viaNpx = await npm(["exec", "--offline", "--", "hackmd-bridge", "status", "--help"], { cwd: folder });
    expect(viaNpx.status).toBe(0);
    expect(viaNpx.stdout).toContain("Usage: hackmd-bridge status");
  }, 120_000);
});
