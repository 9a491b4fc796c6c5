/**
 * The human subcommands (pull, push, status, sync) as a real child process against the emulator
 * in this process: built with esbuild into a temp folder, spawned asynchronously (a blocking
 * spawn would stop the emulator from answering), with a controlled environment.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_NOTE_IDS, startEmulator, type Emulator } from "../../src/emulator";
import { BridgeError } from "../../src/core/errors";
import { EXIT, exitCodeForError } from "../../src/node/commands/exit-codes";
import { createProgress, groupedMessages, scrubbingIo, type CommandIo } from "../../src/node/commands/output";
import { CLI_WORDS } from "../../src/node/commands/words";
import { TOOL_WORDS } from "../../src/core/wording";
import { buildCli } from "../helpers/build-cli";

let work: string;
let cli: string;
let emu: Emulator;
/** Every stdout and stderr the command printed, checked for the token at the end. */
const printed: string[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "hb-cli-sync-"));
  cli = await buildCli(work);
  emu = await startEmulator({ port: 0, seed: "demo" });
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

/** Runs the command without blocking this process (the emulator answers from this event loop). */
function cmd(args: string[], extra: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: work,
      HACKMD_API_URL: emu.url,
      HACKMD_API_TOKEN: emu.token,
      ...extra,
    };
    const child = spawn(process.execPath, [cli, ...args], { env });
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

/** The one JSON object `--json` promises on stdout. */
function json(run: Run): Record<string, unknown> {
  const value = JSON.parse(run.stdout) as unknown;
  expect(typeof value === "object" && value !== null && !Array.isArray(value)).toBe(true);
  return value as Record<string, unknown>;
}

function patches(since: number): number {
  return emu.requests({ since, method: "PATCH" }).length;
}

function lastSeq(): number {
  return emu.requests().at(-1)?.seq ?? 0;
}

describe("hackmd-bridge pull / push / status / sync", () => {
  const id = DEMO_NOTE_IDS.readingList;
  let root: string;
  let file: string;

  beforeAll(async () => {
    root = await mkdtemp(join(work, "root-"));
    file = join(root, "reading.md");
  });

  it("pulls a note, reports in_sync, then local_changed after an edit, and pushes it", async () => {
    const pull = await cmd(["pull", id, "reading.md", "--root", root]);
    expect(pull.status).toBe(0);
    expect(pull.stdout).toMatch(/Pulled "Reading list" .*reading\.md: \d+ bytes/);
    expect(existsSync(file)).toBe(true);

    const clean = await cmd(["status", "reading.md", "--root", root]);
    expect(clean.status).toBe(0);
    expect(clean.stdout).toMatch(/^in_sync {2}reading\.md/);

    await writeFile(file, `${await readFile(file, "utf8")}\n- A local addition\n`);
    // A local edit is what push is for; it needs no person, so status exits 0.
    const edited = await cmd(["status", "reading.md", "--root", root]);
    expect(edited.status).toBe(0);
    expect(edited.stdout).toContain("local_changed");
    expect(edited.stdout).toContain("hackmd-bridge push reading.md");

    const before = lastSeq();
    const push = await cmd(["push", "reading.md", "--root", root]);
    expect(push.status).toBe(0);
    expect(push.stdout).toContain("Pushed reading.md");
    expect(patches(before)).toBe(1);

    const again = await cmd(["push", "reading.md", "--root", root]);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("Nothing to push");
  }, 60_000);

  it("reports a push conflict with exit 1, writes the .remote.md snapshot and names it", async () => {
    const remote =
      (emu.inspect().notes.find((note) => note.id === id)?.content ?? "") + "\n- A collaborator addition\n";
    emu.collaboratorEdit(id, { content: remote }, { as: "ada" });
    await writeFile(file, `${await readFile(file, "utf8")}\n- A second local addition\n`);

    const status = await cmd(["status", "reading.md", "--root", root]);
    expect(status.status).toBe(1);
    expect(status.stdout).toContain("conflict");

    const before = lastSeq();
    const push = await cmd(["push", "reading.md", "--root", root]);
    expect(push.status).toBe(1);
    expect(existsSync(join(root, "reading.remote.md"))).toBe(true);
    expect(push.stdout).toContain("reading.remote.md");
    expect(push.stdout).toContain("LOCAL CHANGES");
    expect(push.stdout).toMatch(/--expected-remote-hash sha256:[0-9a-f]{64}/);
    expect(patches(before)).toBe(0);

    // The merge: take the remote body plus the local lines, then push with the reported hash.
    const pushJson = json(await cmd(["push", "reading.md", "--root", root, "--json"]));
    expect(pushJson.status).toBe("conflict");
    const merged = `${remote}\n- A local addition\n- A second local addition\n`;
    await writeFile(file, merged);
    const resolved = await cmd([
      "push",
      "reading.md",
      "--root",
      root,
      "--expected-remote-hash",
      String(pushJson.remote_body_hash),
    ]);
    expect(resolved.status).toBe(0);
    expect(resolved.stdout).toContain("Pushed");
  }, 60_000);

  it("--json prints exactly one JSON object on stdout for each subcommand", async () => {
    const pull = await cmd(["pull", DEMO_NOTE_IDS.weeklySync, "weekly.md", "--root", root, "--json"]);
    expect(pull.status).toBe(0);
    expect(json(pull)).toMatchObject({ note_id: DEMO_NOTE_IDS.weeklySync, local_path: "weekly.md", team_path: null });
    expect(pull.stderr).toBe("");

    const one = await cmd(["status", "weekly.md", "--root", root, "--json"]);
    expect(one.status).toBe(0);
    expect(json(one)).toMatchObject({ status: "in_sync", local_path: "weekly.md", note_id: DEMO_NOTE_IDS.weeklySync });

    // Every tracked note from sync-all's plan: one list request for the one workspace, and a GET only for
    // reading.md, pushed seconds ago by the test before (a timestamp that fresh is not trusted, SETTLE_MS).
    const listed = lastSeq();
    const all = await cmd(["status", "--root", root, "--json"]);
    expect(all.status).toBe(0);
    const listing = json(all) as {
      source: string;
      counts: Record<string, number>;
      notes: Array<{ status: string; local_path: string }>;
    };
    expect(listing.source).toBe("sync_all_plan");
    expect(listing.counts).toEqual({ in_sync: 2 });
    expect(listing.notes.map((note) => note.local_path).sort()).toEqual(["reading.md", "weekly.md"]);
    expect(
      emu
        .requests({ since: listed })
        .map((entry) =>
          `${entry.route ?? ""} ${entry.path.includes(DEMO_NOTE_IDS.readingList) ? "reading" : ""}`.trim(),
        ),
    ).toEqual(["GET /notes", "GET /notes/:noteId reading"]);
    expect(all.stderr).toBe("");
    // No internal decision-table ids in --json.
    expect(listing.notes.every((note) => !("branch" in note))).toBe(true);

    const push = await cmd(["push", "weekly.md", "--root", root, "--json"]);
    expect(push.status).toBe(0);
    expect(json(push)).toMatchObject({ status: "nothing_to_push" });

    const sync = await cmd(["sync", "--dry-run", "--root", root, "--json"]);
    expect(sync.status).toBe(0);
    expect(json(sync)).toMatchObject({
      dry_run: true,
      counts: { in_sync: 2, pulled: 0, pushed: 0, conflicts: 0, errors: 0 },
    });
    expect(
      (json(sync).items as Array<Record<string, unknown>>).every(
        (item) => !("branch" in item) && typeof item.plan === "string",
      ),
    ).toBe(true);

    const refused = await cmd(["pull", id, "reading.md", "--root", root, "--json"]);
    expect(refused.status).toBe(1);
    expect(json(refused)).toMatchObject({ error: { kind: "confirmation_required" } });

    const unresolved = await cmd([
      "pull",
      "https://hackmd.io/@sandbox/no-such-note",
      "nowhere.md",
      "--root",
      root,
      "--json",
    ]);
    expect(unresolved.status).toBe(1);
    expect(json(unresolved)).toMatchObject({ resolution: { status: "not_found", query: "no-such-note" } });
    expect(existsSync(join(root, "nowhere.md"))).toBe(false);

    const missing = await cmd(["pull", "NoSuchNoteAnywhere1234", "nowhere.md", "--root", root, "--json"]);
    expect(missing.status).toBe(1);
    expect(json(missing)).toMatchObject({ error: { kind: "not_found" } });
  }, 60_000);

  it("usage errors exit 2 with a usage line and nothing on stdout", async () => {
    const cases: string[][] = [
      ["pull", id, "--root", root],
      ["pull", id, "a.md", "b.md", "--root", root],
      ["push", "--root", root],
      ["push", "reading.md", "--confirm", "--root", root],
      ["status", "a.md", "b.md", "--root", root],
      ["sync", "extra", "--root", root],
      ["sync", "--no-such-flag", "--root", root],
      ["status", "--port", "1", "--root", root],
    ];
    for (const args of cases) {
      const result = await cmd(args);
      expect({ args, status: result.status }).toEqual({ args, status: 2 });
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(`Usage: hackmd-bridge ${args[0] ?? ""}`);
    }
  }, 60_000);

  it("refuses to pull over an existing file without --overwrite: exit 1, the fix in flags, no tool words", async () => {
    const before = await readFile(file, "utf8");
    const refused = await cmd(["pull", id, "reading.md", "--root", root]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain("reading.md already exists; pull again with --overwrite to replace it");
    expect(await readFile(file, "utf8")).toBe(before);

    await writeFile(file, `${before}\n- unpushed\n`);
    const protectedEdits = await cmd(["pull", id, "reading.md", "--overwrite", "--root", root]);
    expect(protectedEdits.status).toBe(1);
    expect(protectedEdits.stderr).toContain("--discard-local-changes");
    // The next step names the actual file, not <path>.
    expect(protectedEdits.stderr).toContain("`hackmd-bridge push reading.md`");
    await writeFile(file, before);

    const notTracked = await cmd(["status", "untracked.md", "--root", root]);
    expect(notTracked.status).toBe(1);

    // Pushing an untracked file speaks the command line's words, in one message.
    await writeFile(join(root, "untracked.md"), "# Not tracked\n");
    const push = await cmd(["push", "untracked.md", "--root", root]);
    expect(push.status).toBe(1);
    expect(push.stderr).toBe(
      "hackmd-bridge push: untracked.md is not tracked; pull the note to it first with `hackmd-bridge pull <note_ref> untracked.md`.\n",
    );
    for (const run of [refused, protectedEdits, notTracked, push]) {
      expect(run.stderr).not.toMatch(/hackmd_|overwrite_local|discard_local_changes|hint:/);
    }
  }, 60_000);

  it("sync --dry-run changes nothing; sync pulls a remote change", async () => {
    const remote = `${emu.inspect().notes.find((note) => note.id === DEMO_NOTE_IDS.weeklySync)?.content ?? ""}\n- Decided on the web\n`;
    emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: remote }, { as: "ada" });
    const weekly = join(root, "weekly.md");
    const bytes = await readFile(weekly);

    const before = lastSeq();
    // A dry run with a pull pending says "something to do" with exit 1.
    const dry = await cmd(["sync", "--dry-run", "--root", root]);
    expect(dry.status).toBe(1);
    expect(dry.stdout).toContain("Dry run, nothing was written");
    expect(dry.stdout).toMatch(/would_pull {2}weekly\.md/);
    expect(await readFile(weekly)).toEqual(bytes);
    expect(emu.requests({ since: before }).filter((entry) => entry.method !== "GET")).toEqual([]);

    const attention = await cmd(["status", "--root", root]);
    expect(attention.status).toBe(0);
    expect(attention.stdout).toMatch(/remote_changed {2}weekly\.md/);
    expect(attention.stdout).toContain(
      `weekly.md: pull it: hackmd-bridge pull ${DEMO_NOTE_IDS.weeklySync} weekly.md --overwrite`,
    );
    expect(attention.stdout).toContain("one note list per workspace");

    const sync = await cmd(["sync", "--root", root]);
    expect(sync.status).toBe(0);
    expect(sync.stdout).toMatch(/2 tracked notes: 1 in sync, 1 pulled\./);
    expect(sync.stdout).toMatch(/pulled {2}weekly\.md/);
    expect(await readFile(weekly, "utf8")).toBe(remote);
    expect(patches(before)).toBe(0);

    const settled = await cmd(["status", "--root", root]);
    expect(settled.status).toBe(0);

    // A local edit is pushed; a conflict is left for a person (exit 1) with its snapshot.
    await writeFile(weekly, `${remote}- A local follow-up\n`);
    const pushed = await cmd(["sync", "--root", root]);
    expect(pushed.status).toBe(0);
    expect(pushed.stdout).toMatch(/pushed {2}weekly\.md/);
    emu.collaboratorEdit(DEMO_NOTE_IDS.weeklySync, { content: `${remote}- A web follow-up\n` }, { as: "ada" });
    await writeFile(weekly, `${remote}- Another local follow-up\n`);
    const conflicted = await cmd(["sync", "--root", root]);
    expect(conflicted.status).toBe(1);
    expect(conflicted.stdout).toMatch(/conflict {2}weekly\.md/);
    expect(conflicted.stdout).toContain("weekly.remote.md");
    expect(conflicted.stdout).toMatch(/--expected-remote-hash sha256:[0-9a-f]{64}/);
    expect(existsSync(join(root, "weekly.remote.md"))).toBe(true);
  }, 60_000);

  it("sync merges edits on both sides that do not overlap (both sides end equal); --no-merge leaves them as a conflict", async () => {
    const merging = await mkdtemp(join(work, "merge-"));
    const note = DEMO_NOTE_IDS.cs101;
    const path = join(merging, "cs101.md");
    expect((await cmd(["pull", note, "cs101.md", "--root", merging])).status).toBe(0);
    const body = await readFile(path, "utf8");
    const edit = (): Promise<void> => writeFile(path, `Local intro\n${body}`);
    await edit();
    emu.collaboratorEdit(note, { content: `${body}Remote outro\n` }, { as: "ada" });

    const refused = await cmd(["sync", "--no-merge", "--root", merging]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(/conflict {2}cs101\.md/);
    await rm(join(merging, "cs101.remote.md"));

    const dry = await cmd(["sync", "--dry-run", "--root", merging]);
    expect(dry.status).toBe(1);
    expect(dry.stdout).toMatch(/would_merge {2}cs101\.md/);
    // A conflict that merges by itself needs no person: status exits 0 and says sync merges it.
    const mergeable = await cmd(["status", "--root", merging]);
    expect(mergeable.status).toBe(0);
    expect(mergeable.stdout).toContain("hackmd-bridge push cs101.md --merge (or hackmd-bridge sync) merges them");
    const synced = await cmd(["sync", "--root", merging, "--json"]);
    expect(synced.status).toBe(0);
    expect(json(synced)).toMatchObject({ counts: { merged: 1, conflicts: 0 } });
    const merged = `Local intro\n${body}Remote outro\n`;
    expect(await readFile(path, "utf8")).toBe(merged);
    expect(emu.inspect().notes.find((n) => n.id === note)?.content).toBe(merged);
    expect((await cmd(["status", "cs101.md", "--root", merging])).status).toBe(0);
  }, 60_000);

  it("pulls a team note with --team and lists it as team/note", async () => {
    const teamRoot = await mkdtemp(join(work, "team-"));
    const pull = await cmd([
      "pull",
      DEMO_NOTE_IDS.spec,
      "specs/offline.md",
      "--team",
      "sandbox-team",
      "--create-parent-dirs",
      "--root",
      teamRoot,
    ]);
    expect(pull.status).toBe(0);
    expect(pull.stdout).toContain("team sandbox-team");
    const status = await cmd(["status", "--root", teamRoot]);
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`in_sync {2}specs/offline\\.md {2}sandbox-team/${DEMO_NOTE_IDS.spec}`));
  }, 60_000);

  it("fails with exit 2 on a wrong token, and the token never appears in any output", async () => {
    const wrong = await cmd(["status", "--root", root], { HACKMD_API_TOKEN: "wrong-token-value-123456" });
    expect(wrong.status).toBe(2);
    expect(wrong.stdout + wrong.stderr).not.toContain("wrong-token-value-123456");
    for (const text of printed) expect(text).not.toContain(emu.token);
  }, 60_000);
});

describe("conflicts resolved from the command line, push --merge, and a pull that moves a note", () => {
  const note = DEMO_NOTE_IDS.cs101;
  let dir: string;
  let body: string;
  const at = (name: string): string => join(dir, name);
  const remoteBody = (): string => emu.inspect().notes.find((n) => n.id === note)?.content ?? "";

  beforeEach(async () => {
    dir = await mkdtemp(join(work, "resolve-"));
    const pulled = await cmd(["pull", note, "draft.md", "--root", dir]);
    expect(pulled.status).toBe(0);
    body = await readFile(at("draft.md"), "utf8");
  });

  /** Edits on both sides that overlap (both append a last line). */
  async function overlapping(): Promise<void> {
    await writeFile(at("draft.md"), `${body}mine\n`);
    emu.collaboratorEdit(note, { content: `${body}theirs\n` }, { as: "ada" });
  }

  it("push --expected-remote-hash resolves a conflict and removes the .remote.md it wrote; an edited one is kept", async () => {
    await overlapping();
    const conflict = json(await cmd(["push", "draft.md", "--root", dir, "--json"]));
    expect(conflict).toMatchObject({ status: "conflict", snapshot_path: "draft.remote.md" });
    expect(existsSync(at("draft.remote.md"))).toBe(true);

    await writeFile(at("draft.md"), `${body}theirs\nmine\n`);
    const resolved = await cmd([
      "push",
      "draft.md",
      "--root",
      dir,
      "--expected-remote-hash",
      String(conflict.remote_body_hash),
    ]);
    expect(resolved.status).toBe(0);
    expect(resolved.stdout).toContain("Removed draft.remote.md, the copy of HackMD's version it no longer needs.");
    expect(existsSync(at("draft.remote.md"))).toBe(false);

    // Again, but the user writes in the snapshot: it is theirs now, and stays.
    body = `${body}theirs\nmine\n`;
    await overlapping();
    const again = json(await cmd(["push", "draft.md", "--root", dir, "--json"]));
    expect(again.status).toBe("conflict");
    await writeFile(at("draft.remote.md"), `${body}theirs\nmy notes on it\n`);
    await writeFile(at("draft.md"), `${body}theirs\nmine\n`);
    const kept = await cmd([
      "push",
      "draft.md",
      "--root",
      dir,
      "--expected-remote-hash",
      String(again.remote_body_hash),
      "--json",
    ]);
    expect(kept.status).toBe(0);
    expect(json(kept)).toMatchObject({
      status: "pushed",
      snapshot_cleanup: { kind: "kept", path: "draft.remote.md", reason: "edited" },
    });
    expect(await readFile(at("draft.remote.md"), "utf8")).toBe(`${body}theirs\nmy notes on it\n`);
  }, 60_000);

  it("a conflict whose edits do not overlap: push names --merge and sync, status too; sync merges it and removes the snapshot", async () => {
    await writeFile(at("draft.md"), `Local intro\n${body}`);
    emu.collaboratorEdit(note, { content: `${body}Remote outro\n` }, { as: "ada" });

    const status = await cmd(["status", "--root", dir]);
    expect(status.status).toBe(0);
    expect(status.stdout).toContain(
      "both sides changed without overlapping: hackmd-bridge push draft.md --merge (or hackmd-bridge sync) merges them",
    );

    const push = await cmd(["push", "draft.md", "--root", dir]);
    expect(push.status).toBe(1);
    expect(push.stdout).toContain(
      "The edits do not overlap: hackmd-bridge push draft.md --merge (or hackmd-bridge sync) merges them.",
    );
    expect(existsSync(at("draft.remote.md"))).toBe(true);

    const synced = await cmd(["sync", "--root", dir]);
    expect(synced.status).toBe(0);
    expect(synced.stdout).toMatch(/merged {2}draft\.md/);
    expect(synced.stdout).toContain("Removed draft.remote.md");
    expect(existsSync(at("draft.remote.md"))).toBe(false);
    expect(remoteBody()).toBe(`Local intro\n${body}Remote outro\n`);
  }, 60_000);

  it("push --merge merges edits that do not overlap and removes an earlier snapshot; overlapping edits stay a conflict (exit 1)", async () => {
    await writeFile(at("draft.md"), `Local intro\n${body}`);
    emu.collaboratorEdit(note, { content: `${body}Remote outro\n` }, { as: "ada" });
    expect((await cmd(["push", "draft.md", "--root", dir])).status).toBe(1);
    expect(existsSync(at("draft.remote.md"))).toBe(true);

    const before = lastSeq();
    const merged = await cmd(["push", "draft.md", "--merge", "--root", dir]);
    expect(merged.status).toBe(0);
    expect(merged.stdout).toContain("Merged the edits of draft.md");
    expect(merged.stdout).toContain("Removed draft.remote.md");
    expect(patches(before)).toBe(1);
    const result = `Local intro\n${body}Remote outro\n`;
    expect(await readFile(at("draft.md"), "utf8")).toBe(result);
    expect(remoteBody()).toBe(result);
    expect(existsSync(at("draft.remote.md"))).toBe(false);

    body = result;
    await overlapping();
    const refused = await cmd(["push", "draft.md", "--merge", "--root", dir, "--json"]);
    expect(refused.status).toBe(1);
    expect(json(refused)).toMatchObject({ status: "conflict", snapshot_path: "draft.remote.md" });
    expect(await readFile(at("draft.md"), "utf8")).toBe(`${body}mine\n`);

    const usage = await cmd(["push", "draft.md", "--merge", "--overwrite", "--confirm", "--root", dir]);
    expect(usage.status).toBe(2);
  }, 60_000);

  it("pulling a tracked note to a second path says its tracking moved (text and --json); status on the old path says where", async () => {
    const moved = await cmd(["pull", note, "second.md", "--root", dir]);
    expect(moved.status).toBe(0);
    expect(moved.stdout).toContain(
      "The note was tracked at draft.md until now; it is tracked at second.md from now on, and draft.md is kept but no longer tracked.",
    );

    const old = await cmd(["status", "draft.md", "--root", dir]);
    expect(old.status).toBe(1);
    expect(old.stderr).toContain(`draft.md is no longer tracked: note ${note} was pulled to second.md`);
    expect(old.stderr).toContain(`hackmd-bridge pull ${note} draft.md --overwrite`);
    // Every command that looks the file up says so, not only status and push.
    for (const args of [
      ["diff", "draft.md"],
      ["history", "draft.md"],
      ["comments", "draft.md"],
      ["untrack", "draft.md"],
    ]) {
      const result = await cmd([...args, "--root", dir]);
      expect({ args, status: result.status }).toEqual({ args, status: 1 });
      expect(result.stderr).toContain(`draft.md is no longer tracked: note ${note} was pulled to second.md`);
    }

    const third = await cmd(["pull", note, "third.md", "--root", dir, "--json"]);
    expect(third.status).toBe(0);
    expect(json(third)).toMatchObject({ local_path: "third.md", moved_from: "second.md" });
    const same = await cmd(["pull", note, "third.md", "--overwrite", "--root", dir, "--json"]);
    expect(json(same).moved_from).toBeUndefined();
  }, 60_000);
});

describe("human subcommand output", () => {
  function capture(errIsTty: boolean): { io: CommandIo; out: string[]; err: string[] } {
    const out: string[] = [];
    const err: string[] = [];
    return { io: { out: (text) => out.push(text), err: (text) => err.push(text), errIsTty, errColumns: 40 }, out, err };
  }

  it("redraws the progress line with \\r only on a TTY, prints plain lines otherwise, and nothing for --json off a TTY", () => {
    const tty = capture(true);
    const onTty = createProgress({ io: tty.io, json: true });
    onTty.update("Checking 1/2: a.md");
    onTty.update(`Checking 2/2: ${"x".repeat(100)}.md`);
    onTty.done();
    expect(tty.err.every((text) => text.startsWith("\r"))).toBe(true);
    expect(tty.err.every((text) => !text.includes("\n"))).toBe(true);
    expect(tty.err[1]?.length).toBeLessThanOrEqual(45);
    expect(tty.out).toEqual([]);

    const plain = capture(false);
    const lines = createProgress({ io: plain.io, json: false });
    lines.update("Checking 1/1: a.md");
    lines.done();
    expect(plain.err).toEqual(["Checking 1/1: a.md\n"]);

    let clock = 0;
    const throttled = capture(false);
    const slow = createProgress({ io: throttled.io, json: false, now: () => clock });
    slow.update("Checking 1/3");
    slow.update("Checking 2/3");
    clock = 1500;
    slow.update("Checking 3/3");
    expect(throttled.err).toEqual(["Checking 1/3\n", "Checking 3/3\n"]);

    const script = capture(false);
    const quiet = createProgress({ io: script.io, json: true });
    quiet.update("Checking 1/1: a.md");
    quiet.done();
    expect(script.err).toEqual([]);
  });

  it("words every fix for its audience: tool arguments for agents, flags and subcommand lines for people", () => {
    const step = {
      action: "pull",
      path: "Notes/a plan.md",
      noteId: "abc",
      teamPath: "team-x",
      flags: ["overwrite_local"],
    } as const;
    expect(TOOL_WORDS.step(step)).toBe("hackmd_pull_note with overwrite_local: true");
    expect(CLI_WORDS.step(step)).toBe("`hackmd-bridge pull abc 'Notes/a plan.md' --team team-x --overwrite`");
    expect(CLI_WORDS.step({ action: "push", path: "a.md" })).toBe("`hackmd-bridge push a.md`");
    expect(CLI_WORDS.step({ action: "untrack", noteId: "abc", teamPath: null })).toBe(
      "`hackmd-bridge untrack --note abc`",
    );
    expect(CLI_WORDS.flag("discard_local_changes")).toBe("--discard-local-changes");
    expect(TOOL_WORDS.flag("discard_local_changes")).toBe("discard_local_changes: true");
    expect(CLI_WORDS.expectedHash("sha256:00")).toBe("--expected-remote-hash sha256:00");
    // Every term has a command-line form without tool words.
    for (const flag of [
      "overwrite_local",
      "discard_local_changes",
      "create_parent_dirs",
      "confirm_large_file",
      "confirm",
      "strategy_overwrite",
    ] as const) {
      expect(CLI_WORDS.flag(flag)).toMatch(/^--[a-z-]+( --[a-z-]+)?$/);
    }
    for (const action of ["pull", "push", "check", "untrack", "list_tracked", "get_note"] as const) {
      expect(CLI_WORDS.step({ action, path: "a.md" })).toMatch(/^`hackmd-bridge [a-z]+/);
    }
  });

  it("maps refusals to exit 1 and failures to exit 2", () => {
    for (const kind of [
      "confirmation_required",
      "unpushed_changes",
      "unverified_local_content",
      "local_access",
      "conflict",
      "not_tracked",
    ] as const) {
      expect(exitCodeForError(new BridgeError(kind, "x"))).toBe(EXIT.attention);
    }
    for (const kind of [
      "auth",
      "network",
      "upstream",
      "internal",
      "local_io",
      "sync_state",
      "invalid_input",
      "readback",
      "partial_write",
    ] as const) {
      expect(exitCodeForError(new BridgeError(kind, "x"))).toBe(EXIT.error);
    }
    expect(exitCodeForError(new Error("boom"))).toBe(EXIT.error);
  });

  it("says a message shared by several notes once, naming the paths", () => {
    expect(
      groupedMessages([
        { label: "a.md", message: "The token was rejected." },
        { label: "b.md", message: "b.md is missing." },
        { label: "c.md", message: "The token was rejected." },
      ]),
    ).toEqual(["a.md, c.md: The token was rejected.", "b.md: b.md is missing."]);
  });

  it("scrubs secrets from everything written", () => {
    const sink = capture(false);
    const io = scrubbingIo({ io: sink.io, secrets: () => ["s3cret-token", " "] });
    io.out("token s3cret-token here");
    io.err("and s3cret-token there");
    expect(sink.out.join("") + sink.err.join("")).not.toContain("s3cret-token");
    expect(sink.out.join("")).toBe("token [REDACTED] here");
  });
});
