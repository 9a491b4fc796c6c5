/**
 * The request budget of `hackmd-bridge sync --watch`, adversarially: the built command as child
 * processes (async spawn) against the in-process emulator on port 0.
 *
 * The invariant between the budget file and what HackMD received: every request is reserved
 * (added to `auto-sync/budget.json` under its lock) before it is sent, so the file's count is
 * never below the emulator's request log. A process killed between a reservation and the send
 * leaves a request counted that never left; that cannot be told apart from one that left just
 * before the kill, so exact equality after SIGKILL is impossible in principle. What holds:
 * `sent <= count <= sent + kills × in-flight`, where in-flight is at most the round's
 * concurrency (4). Without kills (two watchers stopped by SIGTERM) the count equals the log.
 *
 * No assertion is on time: waits are for output lines or for the emulator's log, and a watcher
 * that ignored a signal or stalled would fail by the test's own timeout.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_NOTE_IDS, startEmulator, type Emulator } from "../../src/emulator";
import { DEFAULT_SYNC_ALL_CONCURRENCY } from "../../src/sync/sync-all";
import { buildCli } from "../helpers/build-cli";
import { spawnCli, type SpawnedCli } from "../helpers/spawned-cli";

let work: string;
let cli: string;
let emu: Emulator;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "hb-cli-watch-budget-"));
  cli = await buildCli(work);
  emu = await startEmulator({ port: 0, seed: "demo" });
}, 60_000);

afterAll(async () => {
  await emu.close();
  await rm(work, { recursive: true, force: true });
});

/** Every child still running; a failed test's watchers are killed before the next starts. */
const live = new Set<ChildProcessWithoutNullStreams>();

beforeEach(() => {
  emu.reset("demo");
  emu.clearFaults();
});

afterEach(async () => {
  const closing = [...live].map((child) => new Promise((resolve) => child.once("close", resolve)));
  for (const child of live) child.kill("SIGKILL");
  await Promise.all(closing);
});

type Watcher = SpawnedCli;

function start(args: string[], extraEnv: Record<string, string> = {}): Watcher {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: work,
    HACKMD_API_URL: emu.url,
    HACKMD_API_TOKEN: emu.token,
    ...extraEnv,
  };
  const watcher = spawnCli(cli, args, env);
  live.add(watcher.child);
  watcher.child.once("close", () => live.delete(watcher.child));
  return watcher;
}

async function run(args: string[]): Promise<number | null> {
  const watcher = start(args);
  const code = await watcher.closed;
  if (code !== 0) throw new Error(`hackmd-bridge ${args.join(" ")} failed: ${watcher.output()}`);
  return code;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves true once the emulator has logged at least `count` requests after `since`; false after `giveUpMs`. */
async function requestsReach(since: number, count: number, giveUpMs = 30_000): Promise<boolean> {
  const until = Date.now() + giveUpMs;
  while (emu.requests({ since }).length < count) {
    if (Date.now() > until) return false;
    await pause(10);
  }
  return true;
}

const lastSeq = (): number => emu.requests().at(-1)?.seq ?? 0;

/** A seeded generator (a linear congruence), so a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

interface SavedBudget {
  month: string;
  used: number;
  recent: number[];
}

async function savedBudget(root: string): Promise<SavedBudget> {
  return JSON.parse(await readFile(join(root, ".hackmd-bridge/sync/auto-sync/budget.json"), "utf8")) as SavedBudget;
}

const NOTES = [DEMO_NOTE_IDS.readingList, DEMO_NOTE_IDS.weeklySync, DEMO_NOTE_IDS.cs101, DEMO_NOTE_IDS.spec];

/** A folder with the four live demo notes pulled to n0.md … n3.md (the last from the team: two lists a round). */
async function pulledRoot(): Promise<string> {
  const root = await mkdtemp(join(work, "root-"));
  for (const [i, id] of NOTES.entries())
    await run([
      "pull",
      id,
      `n${i}.md`,
      "--root",
      root,
      ...(id === DEMO_NOTE_IDS.spec ? ["--team", "sandbox-team"] : []),
    ]);
  return root;
}

const WATCH = ["sync", "--watch", "--budget", "unlimited", "--quiet-time", "1"];

describe("sync --watch: the budget file counts every request HackMD received", () => {
  it("after 20 SIGKILLs at seeded random moments of a busy watcher, sent <= count <= sent + kills × in-flight", async () => {
    const root = await pulledRoot();
    const since = lastSeq();
    const random = seeded(20_261_203);
    const kills = 20;
    for (let k = 0; k < kills; k += 1) {
      // Edits on both sides each time, so every start has lists, pulls and pushes to send.
      emu.collaboratorEdit(NOTES[k % 2] ?? "", { content: `# Theirs\n\nremote edit ${k}\n` }, { as: "ada" });
      await writeFile(join(root, `n${2 + (k % 2)}.md`), `# Mine\n\nlocal edit ${k}\n`);
      const watcher = start([...WATCH, "--root", root]);
      // Anywhere from start-up to well into the first round and the pushes after it.
      await pause(150 + Math.floor(random() * 700));
      watcher.child.kill("SIGKILL");
      await watcher.closed;
    }
    const sent = emu.requests({ since }).length;
    const saved = await savedBudget(root);
    // It was busy (fewer when a kill inside a record rewrite left a record lock, which the next
    // watchers wait out for 10 s; src/sync/record-lock.ts).
    expect(sent).toBeGreaterThanOrEqual(5);
    expect(saved.used).toBeGreaterThanOrEqual(sent);
    expect(saved.used - sent).toBeLessThanOrEqual(kills * DEFAULT_SYNC_ALL_CONCURRENCY);
    // The window's send times were saved with the count.
    expect(saved.recent.length).toBeGreaterThanOrEqual(Math.min(sent, 100));
  }, 180_000);

  it("two watchers on one folder at once: the count equals the request log", async () => {
    const root = await pulledRoot();
    const since = lastSeq();
    emu.collaboratorEdit(NOTES[0] ?? "", { content: "# Theirs\n\nbefore both\n" }, { as: "ada" });
    await writeFile(join(root, "n2.md"), "# Mine\n\nbefore both\n");
    const one = start([...WATCH, "--root", root]);
    const two = start([...WATCH, "--root", root]);
    await one.waitFor(/round: /);
    await two.waitFor(/round: /);
    // More edits while both watch: each pushes what it notices.
    for (let k = 0; k < 3; k += 1) {
      const text = `# Mine\n\nwhile both watch ${k}\n`;
      await writeFile(join(root, "n3.md"), text);
      while (emu.inspect().notes.find((note) => note.id === NOTES[3])?.content !== text) await pause(20);
    }
    one.child.kill("SIGTERM");
    two.child.kill("SIGTERM");
    expect(await one.closed).toBe(0);
    expect(await two.closed).toBe(0);
    const sent = emu.requests({ since }).length;
    expect(sent).toBeGreaterThan(5);
    expect((await savedBudget(root)).used).toBe(sent);
  }, 60_000);
});

describe("sync --watch: the saved window and the clock", () => {
  it("send times saved in the future (a clock set back) count as now: the push goes out once they leave the window", async () => {
    const root = await pulledRoot();
    await writeFile(join(root, "n1.md"), "# Mine\n\nafter the clock moved back\n");
    const now = Date.now();
    const month = new Date(now).toISOString().slice(0, 7);
    // A full window (14 of 14), every send time an hour ahead: read as now, they leave after 3 s.
    await mkdir(join(root, ".hackmd-bridge/sync/auto-sync"), { recursive: true });
    await writeFile(
      join(root, ".hackmd-bridge/sync/auto-sync/budget.json"),
      JSON.stringify({
        format: 1,
        month,
        used: 14,
        rounds: 0,
        recent: Array.from({ length: 14 }, (_, i) => now + 3_600_000 + i),
      }),
    );
    const watcher = start([...WATCH, "--root", root], {
      HACKMD_BRIDGE_TEST_WINDOW_LIMIT: "14",
      HACKMD_BRIDGE_TEST_WINDOW_MS: "3000",
    });
    await watcher.waitFor(/round: 1 pushed/);
    expect(emu.inspect().notes.find((note) => note.id === NOTES[1])?.content).toBe(
      "# Mine\n\nafter the clock moved back\n",
    );
    watcher.child.kill("SIGTERM");
    expect(await watcher.closed).toBe(0);
    expect((await savedBudget(root)).recent.every((at) => at <= Date.now())).toBe(true);
  }, 60_000);

  it("a damaged budget file is reported, the watcher goes on from a safe count, and the file is written anew", async () => {
    const root = await pulledRoot();
    await writeFile(join(root, "n0.md"), "# Mine\n\nwith a damaged budget file\n");
    await mkdir(join(root, ".hackmd-bridge/sync/auto-sync"), { recursive: true });
    await writeFile(join(root, ".hackmd-bridge/sync/auto-sync/budget.json"), '{"month": "2026-1');
    const since = lastSeq();
    const watcher = start([...WATCH, "--root", root]);
    await watcher.waitFor(
      /The request budget file \S+budget\.json was damaged \(it is not JSON\); counting goes on from a safe count/,
    );
    await watcher.waitFor(/round: 1 pushed/);
    watcher.child.kill("SIGTERM");
    expect(await watcher.closed).toBe(0);
    // Unlimited: the safe count of the month's pace is 0, so the file counts exactly what was sent.
    expect((await savedBudget(root)).used).toBe(emu.requests({ since }).length);
  }, 60_000);

  it("SIGTERM while a round waits for room in the short window ends the watcher with exit 0", async () => {
    const root = await pulledRoot();
    await writeFile(join(root, "n0.md"), "# Mine\n\nwaits for the window\n");
    const now = Date.now();
    // 11 of 14 taken for ten minutes: the round's two lists fit, its push step (room for 4) does not.
    await mkdir(join(root, ".hackmd-bridge/sync/auto-sync"), { recursive: true });
    await writeFile(
      join(root, ".hackmd-bridge/sync/auto-sync/budget.json"),
      JSON.stringify({
        format: 1,
        month: new Date(now).toISOString().slice(0, 7),
        used: 11,
        rounds: 0,
        recent: Array.from({ length: 11 }, () => now - 1000),
      }),
    );
    const since = lastSeq();
    const watcher = start([...WATCH, "--root", root], {
      HACKMD_BRIDGE_TEST_WINDOW_LIMIT: "14",
      HACKMD_BRIDGE_TEST_WINDOW_MS: "600000",
    });
    await requestsReach(since, 2);
    await pause(500); // the lists' answers, then the push step's wait
    watcher.child.kill("SIGTERM");
    expect(await watcher.closed).toBe(0);
    expect(watcher.output()).toContain("Stopped:");
    expect(emu.requests({ since }).map((entry) => entry.route)).toEqual(["GET /notes", "GET /teams/:teamPath/notes"]);
  }, 30_000);

  it("the window is kept across a kill and a restart: the two watchers together never pass its limit", async () => {
    const root = await pulledRoot();
    const limit = 10;
    const env = { HACKMD_BRIDGE_TEST_WINDOW_LIMIT: String(limit), HACKMD_BRIDGE_TEST_WINDOW_MS: "600000" };
    emu.collaboratorEdit(NOTES[0] ?? "", { content: "# Theirs\n\nfirst\n" }, { as: "ada" });
    emu.collaboratorEdit(NOTES[1] ?? "", { content: "# Theirs\n\nfirst\n" }, { as: "ada" });
    await writeFile(join(root, "n2.md"), "# Mine\n\nfirst\n");
    await writeFile(join(root, "n3.md"), "# Mine\n\nfirst\n");
    const since = lastSeq();
    const first = start([...WATCH, "--root", root], env);
    await requestsReach(since, 5);
    first.child.kill("SIGKILL");
    await first.closed;
    const sentByFirst = emu.requests({ since }).length;
    // More work than the window has left.
    for (const i of [0, 1]) await writeFile(join(root, `n${i}.md`), `# Mine\n\nsecond ${i}\n`);
    emu.collaboratorEdit(NOTES[2] ?? "", { content: "# Theirs\n\nsecond\n" }, { as: "ada" });
    emu.collaboratorEdit(NOTES[3] ?? "", { content: "# Theirs\n\nsecond\n" }, { as: "ada" });
    const second = start([...WATCH, "--root", root], env);
    await second.waitFor(/Watching/);
    // Time to overspend, were the first watcher's sends forgotten: until the window is full, or a while.
    await requestsReach(since, limit, 3000);
    await pause(1000);
    second.child.kill("SIGTERM");
    expect(await second.closed).toBe(0);
    const sent = emu.requests({ since }).length;
    expect(sentByFirst).toBeGreaterThanOrEqual(5);
    expect(sent).toBeLessThanOrEqual(limit);
    // Both watchers' sends are in the saved window.
    expect((await savedBudget(root)).recent.length).toBeGreaterThanOrEqual(sent);
  }, 60_000);
});

describe("sync --watch: races with a collaborator", () => {
  it("a collaborator's edit landing while the round's list is on its way is merged or reported, never lost silently", async () => {
    const root = await pulledRoot();
    const id = NOTES[0] ?? "";
    await writeFile(join(root, "n0.md"), "# Mine\n\nlocal line\n");
    // HackMD builds the list, then takes 1.5 s to answer it.
    emu.injectFault({ match: { route: "GET /notes" }, action: { latencyMs: 1500 }, when: "after-commit", times: 1 });
    const since = lastSeq();
    const watcher = start([...WATCH, "--root", root]);
    await requestsReach(since, 1);
    await pause(400);
    emu.collaboratorEdit(id, { content: "# Mine\n\nlocal line\n\nada's line\n" }, { as: "ada" });
    await watcher.waitFor(/round: /);
    watcher.child.kill("SIGTERM");
    expect(await watcher.closed).toBe(0);
    const remote = emu.inspect().notes.find((note) => note.id === id)?.content ?? "";
    const merged =
      remote.includes("ada's line") && (await readFile(join(root, "n0.md"), "utf8")).includes("ada's line");
    const reported =
      /n0\.md: an edit by Ada Collaborator landed just before the push and was replaced; their text is in version \S+/.test(
        watcher.output(),
      );
    expect(merged || reported).toBe(true);
  }, 60_000);
});
