/**
 * List, publish, diff and untrack as real child processes against the emulator in
 * this process, sharing the sync records the plugin and the other subcommands use. Request
 * budgets come from the emulator's request log.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_NOTE_IDS, startEmulator, type Emulator } from "../../src/emulator";
import { buildCli } from "../helpers/build-cli";

let work: string;
let cli: string;
let emu: Emulator;
let root: string;
const printed: string[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "hb-cli-commands-"));
  cli = await buildCli(work);
  emu = await startEmulator({ port: 0, seed: "demo" });
  root = await mkdtemp(join(work, "root-"));
}, 60_000);

afterAll(async () => {
  await emu.close();
  await rm(work, { recursive: true, force: true });
});

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command in the root (the sync commands default to the current folder). */
function cmd(args: string[], options: { cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? "", HOME: work, HACKMD_API_URL: emu.url, HACKMD_API_TOKEN: emu.token };
    const child = spawn(process.execPath, [cli, ...args], { env, cwd: options.cwd ?? root });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("close", (status) => {
      printed.push(stdout, stderr);
      resolve({ status, stdout, stderr });
    });
  });
}

function lastSeq(): number {
  return emu.requests().at(-1)?.seq ?? 0;
}

function routesSince(since: number): string[] {
  return emu.requests({ since }).map((entry) => `${entry.method} ${entry.route ?? entry.path}`);
}

describe("list", () => {
  it("lists a workspace's notes with one request, with short ids to pull by and the file each is tracked at", async () => {
    const since = lastSeq();
    const listed = await cmd(["list", "--json"]);
    expect(listed.status).toBe(0);
    expect(routesSince(since)).toEqual(["GET GET /notes"]);
    const notes = (
      JSON.parse(listed.stdout) as {
        team_path: null;
        notes: Array<{ id: string; short_id: string; local_path: string | null }>;
      }
    ).notes;
    const weekly = notes.find((note) => note.id === DEMO_NOTE_IDS.weeklySync);
    expect(weekly).toMatchObject({ local_path: null });
    expect(weekly?.short_id).toMatch(/^[A-Za-z0-9_-]{9}$/);

    // The short id pulls the note, and list then shows where it is tracked.
    const pulled = await cmd(["pull", weekly?.short_id ?? "", "weekly.md"]);
    expect(pulled.status).toBe(0);
    expect(pulled.stdout).toContain(`note ${DEMO_NOTE_IDS.weeklySync}`);
    const again = await cmd(["list"]);
    expect(again.stdout).toMatch(
      new RegExp(`${weekly?.short_id ?? ""} +${DEMO_NOTE_IDS.weeklySync} +weekly\\.md +Weekly sync`),
    );

    const team = await cmd(["list", "--team", "sandbox-team", "--json"]);
    expect((JSON.parse(team.stdout) as { notes: Array<{ id: string }> }).notes.map((note) => note.id)).toContain(
      DEMO_NOTE_IDS.spec,
    );
  }, 60_000);

  it("--tracked lists the tracked files with their state, planned from the note list", async () => {
    await writeFile(join(root, "weekly.md"), `${await readFile(join(root, "weekly.md"), "utf8")}\n- local\n`);
    const tracked = await cmd(["list", "--tracked", "--json"]);
    expect(tracked.status).toBe(0);
    expect(JSON.parse(tracked.stdout)).toEqual({
      counts: { local_changed: 1 },
      tracked: [
        { local_path: "weekly.md", note_id: DEMO_NOTE_IDS.weeklySync, team_path: null, state: "local_changed" },
      ],
    });
    const text = await cmd(["list", "--tracked"]);
    expect(text.stdout).toMatch(/weekly\.md +d2Vla2x5LXN5bmMtYXVyb3 +local_changed/);
  }, 60_000);
});

describe("diff", () => {
  it("shows the file against its baseline with no request, and against HackMD with one GET; exit 1 when they differ", async () => {
    const since = lastSeq();
    const local = await cmd(["diff", "weekly.md"]);
    expect(local.status).toBe(1);
    expect(local.stdout).toMatch(/^--- weekly\.md at the last sync \(baseline\)\n\+\+\+ weekly\.md\n@@ /);
    expect(local.stdout).toContain("\n+- local\n");
    expect(routesSince(since)).toEqual([]);

    emu.collaboratorEdit(
      DEMO_NOTE_IDS.weeklySync,
      {
        content: `${emu.inspect().notes.find((note) => note.id === DEMO_NOTE_IDS.weeklySync)?.content ?? ""}- remote\n`,
      },
      { as: "ada" },
    );
    const remote = await cmd(["diff", "weekly.md", "--remote", "--json"]);
    expect(remote.status).toBe(1);
    expect(routesSince(since)).toEqual(["GET GET /notes/:noteId"]);
    const report = JSON.parse(remote.stdout) as { against: string; changed: boolean; diff: string };
    expect(report).toMatchObject({ against: "remote", changed: true });
    expect(report.diff).toContain("\n-- remote\n");
    expect(report.diff).toContain("\n+- local\n");
  }, 60_000);

  it("exit 0 with no differences; a file that is not tracked is a refusal (1), as for every command", async () => {
    await cmd(["pull", DEMO_NOTE_IDS.cs101, "cs101.md"]);
    const same = await cmd(["diff", "cs101.md"]);
    expect(same.status).toBe(0);
    expect(same.stdout).toBe("No differences: cs101.md is the same as at the last sync.\n");
    expect((await cmd(["diff", "cs101.md", "--remote"])).status).toBe(0);
    await writeFile(join(root, "loose.md"), "# Loose\n");
    const untracked = await cmd(["diff", "loose.md"]);
    expect(untracked.status).toBe(1);
    expect(untracked.stderr).toContain("loose.md is not tracked");
    expect(untracked.stderr).toContain("`hackmd-bridge pull <note_ref> loose.md`");
  }, 60_000);
});

describe("publish", () => {
  it("creates a private note from a file, tracks it, and refuses to publish it twice", async () => {
    await writeFile(join(root, "idea.md"), "# A new idea\n\nWritten locally.\n");
    const since = lastSeq();
    const published = await cmd(["publish", "idea.md", "--json"]);
    expect(published.status).toBe(0);
    const out = JSON.parse(published.stdout) as {
      note_id: string;
      title: string;
      read_permission: string;
      write_permission: string;
      local_path: string;
    };
    expect(out).toMatchObject({
      title: "A new idea",
      read_permission: "owner",
      write_permission: "owner",
      local_path: "idea.md",
    });
    expect(routesSince(since).filter((route) => !route.startsWith("GET"))).toEqual(["POST POST /notes"]);
    const note = emu.inspect().notes.find((entry) => entry.id === out.note_id);
    expect(note).toMatchObject({
      content: "# A new idea\n\nWritten locally.\n",
      readPermission: "owner",
      writePermission: "owner",
    });

    const status = await cmd(["status", "idea.md"]);
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/^in_sync {2}idea\.md/);

    const twice = await cmd(["publish", "idea.md"]);
    expect(twice.status).toBe(1);
    expect(twice.stderr).toContain("idea.md is already tracked");
    expect(twice.stderr).toContain("`hackmd-bridge push idea.md`");
    expect(emu.inspect().notes.filter((entry) => entry.title === "A new idea")).toHaveLength(1);

    const missing = await cmd(["publish", "team-idea.md", "--team", "sandbox-team"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("team-idea.md");
    expect(emu.inspect().notes.filter((entry) => entry.title === "team-idea")).toHaveLength(0);
    await writeFile(join(root, "team-idea.md"), "Body only.\n");
    const shared = await cmd([
      "publish",
      "team-idea.md",
      "--team",
      "sandbox-team",
      "--read",
      "signed_in",
      "--title",
      "Shared idea",
    ]);
    expect(shared.status).toBe(0);
    expect(shared.stdout).toContain("Readable by signed-in HackMD users, editable by only you.");
    expect(emu.inspect().notes.find((entry) => entry.title === "Shared idea")).toMatchObject({
      readPermission: "signed_in",
      writePermission: "owner",
    });
  }, 60_000);
});

describe("untrack", () => {
  it("forgets a file's record with no request; the file and the note stay; a second time is a refusal", async () => {
    const since = lastSeq();
    const untracked = await cmd(["untrack", "cs101.md", "--json"]);
    expect(untracked.status).toBe(0);
    expect(JSON.parse(untracked.stdout)).toEqual({
      team_path: null,
      note_id: DEMO_NOTE_IDS.cs101,
      local_path: "cs101.md",
    });
    expect(routesSince(since)).toEqual([]);
    expect(existsSync(join(root, "cs101.md"))).toBe(true);
    expect((await cmd(["status", "cs101.md"])).status).toBe(1);

    const again = await cmd(["untrack", "cs101.md"]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(
      "cs101.md is not tracked, so there is nothing to forget; see `hackmd-bridge list --tracked`.",
    );

    // A record can also be forgotten by note id, for a file that is gone.
    await rm(join(root, "idea.md"));
    const tracked = JSON.parse((await cmd(["list", "--tracked", "--json"])).stdout) as {
      tracked: Array<{ note_id: string; local_path: string; state: string }>;
    };
    const idea = tracked.tracked.find((entry) => entry.local_path === "idea.md");
    expect(idea?.state).toBe("missing_local");
    const byNote = await cmd(["untrack", "--note", idea?.note_id ?? ""]);
    expect(byNote.status).toBe(0);
    expect(byNote.stdout).toContain("Untracked idea.md");
  }, 60_000);

  it("never printed the token", () => {
    for (const text of printed) expect(text).not.toContain(emu.token);
  });
});

describe("one exit code for a file that is not tracked", () => {
  it("every command that takes a tracked file refuses an untracked one with exit 1, naming the pull that tracks it", async () => {
    await writeFile(join(root, "never-tracked.md"), "# Never tracked\n");
    for (const args of [
      ["status", "never-tracked.md"],
      ["diff", "never-tracked.md"],
      ["diff", "never-tracked.md", "--remote"],
      ["push", "never-tracked.md"],
      ["history", "never-tracked.md"],
      ["comments", "never-tracked.md"],
      ["untrack", "never-tracked.md"],
    ]) {
      const result = await cmd(args);
      expect({ args, status: result.status }).toEqual({ args, status: 1 });
      expect(result.stderr).toContain("never-tracked.md is not tracked");
      const json = await cmd([...args, "--json"]);
      expect({
        args,
        status: json.status,
        kind: (JSON.parse(json.stdout) as { error: { kind: string } }).error.kind,
      }).toEqual({ args, status: 1, kind: "not_tracked" });
    }
  }, 60_000);
});

describe("note ids that begin with - (one in 64: they are base64url)", () => {
  // A 22-character id, and one holding an h that node:util parseArgs read as a group of short flags (-h: help, exit 0).
  const dashed = "-PxVq3nGxRzKbLm0aY8ZtQ";
  const withH = "-ve4vnGutHhk3AAuRhk3AA";

  beforeAll(() => {
    emu.seed({
      notes: [
        {
          id: dashed,
          shortId: "-PxVshort",
          title: "Dashed",
          content: "# Dashed\n\nA note whose id begins with a dash.\n",
          workspace: { user: "sandbox" },
        },
        {
          id: withH,
          shortId: "-ve4short",
          title: "Dashed with h",
          content: "# Dashed with h\n",
          workspace: { user: "sandbox" },
        },
        {
          id: "-QaBcDeFgHiJkLmNoPqRsA",
          shortId: "-h1ab2cd3",
          title: "Short id with h",
          content: "# Short id with h\n",
          workspace: { user: "sandbox" },
        },
      ],
    });
  });

  it("pull, status, diff, push, history and untrack take such ids and file names, with or without --", async () => {
    const pulled = await cmd(["pull", withH, "with-h.md"]);
    expect({ status: pulled.status, stderr: pulled.stderr }).toEqual({ status: 0, stderr: "" });
    expect(pulled.stdout).toContain(`note ${withH}`);
    expect(await readFile(join(root, "with-h.md"), "utf8")).toBe("# Dashed with h\n");
    // A short id that begins with -h is a note reference too, not the help.
    const byShort = await cmd(["pull", "-h1ab2cd3", "with-h-short.md"]);
    expect(byShort.status).toBe(0);
    expect(byShort.stdout).toContain("note -QaBcDeFgHiJkLmNoPqRsA");
    // -- ends the options: a file name that begins with - as well.
    const ended = await cmd(["pull", "--create-parent-dirs", "--", dashed, "-dashed.md"]);
    expect(ended.status).toBe(0);
    expect(existsSync(join(root, "-dashed.md"))).toBe(true);
    for (const args of [
      ["status", "-dashed.md"],
      ["diff", "-dashed.md"],
      ["push", "-dashed.md"],
      ["history", "-dashed.md"],
      ["status", "--", "-dashed.md"],
    ]) {
      const result = await cmd(args);
      expect({ args, status: result.status, stderr: result.stderr }).toEqual({ args, status: 0, stderr: "" });
      expect(result.stdout).not.toContain("Usage:");
    }
    const byNote = await cmd(["untrack", "--note", withH]);
    expect(byNote.status).toBe(0);
    expect(byNote.stdout).toContain("Untracked with-h.md");
  }, 60_000);
});

describe("history and comments", () => {
  it("history lists a tracked file's versions with one GET, and --show prints one version's text", async () => {
    expect((await cmd(["pull", DEMO_NOTE_IDS.readingList, "reading.md"])).status).toBe(0);
    const since = lastSeq();
    const listed = await cmd(["history", "reading.md", "--json"]);
    expect(listed.status).toBe(0);
    expect(routesSince(since)).toEqual(["GET GET /notes/:noteId/versions"]);
    const versions = (JSON.parse(listed.stdout) as { versions: Array<{ id: string; name_source: string }> }).versions;
    expect(versions).toHaveLength(1);
    const text = await cmd(["history", "reading.md"]);
    expect(text.stdout).toMatch(/^time +by +version id +name\n/);
    expect(text.stdout).toContain(versions[0]?.id ?? "?");
    const shown = await cmd(["history", "reading.md", "--show", versions[0]?.id ?? ""]);
    expect(shown.stdout).toBe(emu.inspect().notes.find((note) => note.id === DEMO_NOTE_IDS.readingList)?.content);
    const missing = await cmd(["history", "loose.md"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("loose.md is not tracked, so it has no note history");
  }, 60_000);

  it("the commands history and comments suggest can be pasted back: a file name with a space is quoted", async () => {
    expect((await cmd(["pull", DEMO_NOTE_IDS.spec, "spec notes.md"])).status).toBe(0);
    const versions = await cmd(["history", "spec notes.md"]);
    expect(versions.stdout).toContain("Show one with `hackmd-bridge history 'spec notes.md' --show <version id>`.");
    emu.setComments(DEMO_NOTE_IDS.spec, [
      { id: "7d1e9c2a-4b3f-4a5e-8c6d-1f2a3b4c5d99", author: "ada", body: "Is this section still current?" },
    ]);
    const threads = await cmd(["comments", "spec notes.md"]);
    expect(threads.stdout).toContain("Resolve one with `hackmd-bridge comments 'spec notes.md' --resolve <id>`.");
  }, 60_000);

  it("comments lists the open threads, resolves one (one PUT) and reports a repeat as attention (1)", async () => {
    const listed = await cmd(["comments", "weekly.md"]);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('Ada Collaborator on "Draft the field-test checklist" (open, 1 reply)');
    expect(listed.stdout).toContain("2 open threads on weekly.md.");
    const thread = "7d1e9c2a-4b3f-4a5e-8c6d-1f2a3b4c5d03";
    const since = lastSeq();
    const resolved = await cmd(["comments", "weekly.md", "--resolve", thread]);
    expect(resolved.status).toBe(0);
    expect(routesSince(since)).toEqual(["PUT PUT /notes/:noteId/comments/:commentId/resolution"]);
    expect((await cmd(["comments", "weekly.md", "--resolve", thread])).status).toBe(1);
    expect((await cmd(["comments", "weekly.md", "--json"])).stdout).not.toContain(thread);
    expect((await cmd(["comments", "weekly.md", "--reopen", thread])).status).toBe(0);
    expect((await cmd(["comments", "weekly.md", "--resolve", "a", "--reopen", "b"])).status).toBe(2);
  }, 60_000);
});

describe("the command's words", () => {
  it("no message names a tool, a tool argument or team_path, or quotes HackMD's raw reply when its meaning is known", async () => {
    const texts: string[] = [];
    const failing = async (args: string[], expected: number): Promise<Run> => {
      const result = await cmd(args);
      expect({ args, status: result.status }).toEqual({ args, status: expected });
      expect(result.stderr).not.toBe("");
      texts.push(result.stderr);
      const json = await cmd([...args, "--json"]);
      texts.push(json.stdout, json.stderr);
      return result;
    };
    const thread = "7d1e9c2a-4b3f-4a5e-8c6d-1f2a3b4c5d03";
    expect((await cmd(["comments", "weekly.md", "--resolve", thread])).status).toBe(0);
    const twice = await failing(["comments", "weekly.md", "--resolve", thread], 1);
    expect(twice.stderr).toContain("the comment is already resolved");
    expect((await cmd(["comments", "weekly.md", "--reopen", thread])).status).toBe(0);
    const version = await failing(["history", "reading.md", "--show", "no-such-version"], 1);
    expect(version.stderr).toContain("`hackmd-bridge history <path>` lists them");
    const comment = await failing(["comments", "weekly.md", "--resolve", "no-such-comment"], 1);
    expect(comment.stderr).toContain("`hackmd-bridge comments <path> --all` lists them");
    const team = await failing(["pull", DEMO_NOTE_IDS.cs101, "team.md", "--team", "no-such-team"], 1);
    expect(team.stderr).toContain("check the note or folder id and the team (--team)");
    const listed = await failing(["list", "--team", "no-such-team"], 2);
    expect(listed.stderr).toContain("check the note or folder id and the team (--team)");
    const short = await failing(["pull", "-h1ab2cd3", "short-team.md", "--team", "no-such-team"], 1);
    expect(short.stderr).toContain("not found (404)");
    const fault = emu.injectFault({
      match: { method: "GET", route: "GET /notes/:noteId" },
      action: { status: 403, body: { error: "forbidden", message: "raw body" } },
      times: 2,
    });
    const forbidden = await failing(["diff", "weekly.md", "--remote"], 1);
    expect(forbidden.stderr).toContain("check the team (--team) and the note's permissions");
    fault.remove();
    for (const text of texts) {
      expect(text).not.toMatch(/\bteam_path\b/);
      expect(text).not.toMatch(/\bhackmd_[a-z_]+/);
      expect(text).not.toMatch(/\b[a-z]+_[a-z_]+: true\b/);
      expect(text).not.toContain("HackMD said");
      expect(text).not.toContain("raw body");
    }
  }, 60_000);
});

describe("identifiers on the command line (hackmd/identifiers.ts)", () => {
  it("refuses a team path or note id HackMD could not have issued before any request, without echoing it", async () => {
    const long = "t".repeat(5000);
    const since = lastSeq();
    const cases: Array<[string[], RegExp]> = [
      [["list", "--team", long], /--team is 5000 characters long; HackMD's are at most 128/],
      [["list", "--team", "a/b"], /--team has characters HackMD does not use/],
      [["pull", "--team=--help", "x", "odd.md"], /--team starts with "-" like a command-line option/],
      [["pull", "a b", "odd.md"], /note id has characters HackMD does not use/],
      [["pull", "--", "-x", "odd.md"], /note id starts with "-" like a command-line option/],
      [["pull", long, "odd.md"], /<note_ref> is 5000 characters long/],
    ];
    for (const [args, message] of cases) {
      const run = await cmd(args);
      expect([args[0], run.status]).toEqual([args[0], 2]);
      expect(run.stderr).toMatch(message);
      expect(run.stderr + run.stdout).not.toContain(long);
    }
    // `--help` before `--` asks for the help, even where a value was expected: shown, nothing sent.
    const help = await cmd(["pull", "--team", "--help", "x", "odd.md"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: hackmd-bridge pull");
    expect(routesSince(since)).toEqual([]);
    expect(existsSync(join(root, "odd.md"))).toBe(false);
  }, 60_000);
});
