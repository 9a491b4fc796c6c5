/**
 * `hackmd-bridge sync --watch` as a real child process against the in-process emulator: the
 * first round pulls a collaborator's edit and prints its line with the budget, SIGINT (and
 * SIGTERM) stop it cleanly with exit 0, and the month's count is kept in the state folder.
 * The test waits for output lines, never for a time.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_NOTE_IDS, startEmulator, type Emulator } from "../../src/emulator";
import { buildCli } from "../helpers/build-cli";
import { spawnCli, type SpawnedCli } from "../helpers/spawned-cli";

let work: string;
let cli: string;
let emu: Emulator;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "hb-cli-watch-"));
  cli = await buildCli(work);
  emu = await startEmulator({ port: 0, seed: "demo" });
}, 60_000);

afterAll(async () => {
  await emu.close();
  await rm(work, { recursive: true, force: true });
});

function start(args: string[]): SpawnedCli {
  return spawnCli(cli, args, {
    PATH: process.env.PATH ?? "",
    HOME: work,
    HACKMD_API_URL: emu.url,
    HACKMD_API_TOKEN: emu.token,
  });
}

function run(args: string[]): Promise<number | null> {
  return start(args).closed;
}

describe("hackmd-bridge sync --watch", () => {
  const id = DEMO_NOTE_IDS.readingList;

  it("syncs in rounds, prints one line per round with the month's count, and stops cleanly on SIGINT and SIGTERM", async () => {
    const root = await mkdtemp(join(work, "root-"));
    expect(await run(["pull", id, "reading.md", "--root", root])).toBe(0);
    emu.collaboratorEdit(id, { content: "# Reading list\n\n- changed on HackMD\n" }, { as: "ada" });

    const watch = start(["sync", "--watch", "--budget", "500", "--root", root]);
    await watch.waitFor(/round: 1 pulled.*\/500 this month, 0 queued; next round in/);
    watch.child.kill("SIGINT");
    expect(await watch.closed).toBe(0);
    expect(watch.output()).toContain("Stopped:");
    expect(await readFile(join(root, "reading.md"), "utf8")).toBe("# Reading list\n\n- changed on HackMD\n");
    const saved = JSON.parse(await readFile(join(root, ".hackmd-bridge/sync/auto-sync/budget.json"), "utf8")) as {
      used: number;
    };
    expect(saved.used).toBeGreaterThanOrEqual(2);

    // A restart keeps counting from the saved month; SIGTERM stops it too.
    const again = start(["sync", "--watch", "--budget", "500", "--root", root]);
    await again.waitFor(new RegExp(`${saved.used}/500 requests used this month`));
    await again.waitFor(/round: nothing to do/);
    again.child.kill("SIGTERM");
    expect(await again.closed).toBe(0);
    expect(again.output()).not.toContain(emu.token);
  }, 60_000);

  it("pushes a file saved while it watches, once the file has been quiet for --quiet-time", async () => {
    const root = await mkdtemp(join(work, "root-"));
    expect(await run(["pull", id, "reading.md", "--root", root])).toBe(0);
    const watch = start(["sync", "--watch", "--budget", "unlimited", "--quiet-time", "1", "--root", root]);
    await watch.waitFor(/round: nothing to do/);
    await writeFile(join(root, "reading.md"), "# Reading list\n\n- saved while watching\n");
    await watch.waitFor(/push reading\.md: pushed/);
    expect(emu.inspect().notes.find((note) => note.id === id)?.content).toBe(
      "# Reading list\n\n- saved while watching\n",
    );
    watch.child.kill("SIGINT");
    expect(await watch.closed).toBe(0);
  }, 60_000);

  it("refuses --budget without --watch, --watch with --dry-run or --json, and a budget that is not a number", async () => {
    expect(await run(["sync", "--budget", "100"])).toBe(2);
    expect(await run(["sync", "--watch", "--dry-run"])).toBe(2);
    expect(await run(["sync", "--watch", "--json"])).toBe(2);
    expect(await run(["sync", "--watch", "--budget", "lots"])).toBe(2);
    expect(await run(["sync", "--quiet-time", "5"])).toBe(2);
    expect(await run(["sync", "--watch", "--quiet-time", "0"])).toBe(2);
  }, 60_000);
});
