/**
 * `doctor` judges paths exactly as the tools do and never writes outside the ROOT,
 * and it prints its one JSON report (docs/tools.md §2.6) even when --config-dir is unusable. The runs
 * in-process check the report; the spawned command checks stdout, stderr and the exit code.
 */
import { spawn } from "node:child_process";
import { watch } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { runDoctor, type DoctorReport } from "../../src/node/doctor";
import { makeSettings } from "../../src/node/runtime";
import { startBridge, errorKind } from "../helpers/bridge";
import { buildCli } from "../helpers/build-cli";

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "hackmd-doctor-")));
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  await fs.mkdir(root);
  await fs.mkdir(outside);
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

/** A token is set: without one doctor reports that first (README.md), which these checks are not about. */
function doctor(options: { configDir?: string } = {}): Promise<DoctorReport> {
  return runDoctor(
    makeSettings(
      { apiUrl: undefined, root, configDir: options.configDir, protectAgentFiles: true },
      "a-token-for-doctor",
    ),
    false,
  );
}

/** Every name under a folder, recursively (a leftover or misplaced probe file shows up). */
async function tree(folder: string): Promise<string[]> {
  return (await fs.readdir(folder, { recursive: true })).map(String).sort();
}

/** Records every probe file created under `folder` while `run` runs, by watching it. */
async function createdDuring(folder: string, run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const watcher = watch(folder, (_event, name) => {
    if (name !== null) seen.push(String(name));
  });
  try {
    await run();
    // Give pending watch events a chance to arrive; nothing about timing is asserted.
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    watcher.close();
  }
  return seen;
}

describe("doctor judges the sync state location as the tools do", () => {
  it("reports a healthy vault as ok and leaves nothing behind", async () => {
    await fs.mkdir(path.join(root, ".obsidian"));
    const report = await doctor();
    expect(report).toMatchObject({
      ok: true,
      root: { exists: true, writable: true, is_vault: true },
      sync_state: { path: ".obsidian/plugins/hackmd-bridge/sync", writable: true },
      problems: [],
    });
    expect(await tree(root)).toEqual([".obsidian"]);
  });

  it("never creates a probe file outside the ROOT when .obsidian is a symlink leading outside, and reports it", async () => {
    await fs.symlink(outside, path.join(root, ".obsidian"));
    const created = await createdDuring(outside, () => doctor());
    expect(created).toEqual([]);
    const report = await doctor();
    expect(report.ok).toBe(false);
    expect(report.root).toMatchObject({ exists: true, writable: true, is_vault: true });
    expect(report.sync_state).toEqual({ path: ".obsidian/plugins/hackmd-bridge/sync", writable: false });
    expect(report.problems.join(" ")).toMatch(/outside the ROOT/);
    expect(await tree(outside)).toEqual([]);
  });

  it("agrees with a real pull, which the tools refuse for that layout", async () => {
    await fs.symlink(outside, path.join(root, ".obsidian"));
    const bridge = await startBridge({ root });
    try {
      const pulled = await bridge.call("hackmd_pull_note", {
        note_ref: DEMO_NOTE_IDS.readingList,
        local_path: "reading.md",
      });
      expect(pulled.isError).toBe(true);
      expect(errorKind(pulled)).toBe("local_access");
    } finally {
      await bridge.close();
    }
    expect(await tree(outside)).toEqual([]);
    expect((await doctor()).sync_state.writable).toBe(false);
  });

  it("refuses the state location through a symlink below the config folder that leads outside", async () => {
    await fs.mkdir(path.join(root, ".obsidian"));
    await fs.symlink(outside, path.join(root, ".obsidian", "plugins"));
    const report = await doctor();
    expect(report.sync_state.writable).toBe(false);
    expect(report.ok).toBe(false);
    expect(await tree(outside)).toEqual([]);
  });

  it("refuses a dangling symlink on the way instead of probing beside it", async () => {
    await fs.symlink(path.join(outside, "not-yet"), path.join(root, ".hackmd-bridge"));
    const report = await doctor();
    expect(report.sync_state).toEqual({ path: ".hackmd-bridge/sync", writable: false });
    expect(report.problems.join(" ")).toMatch(/symlink/);
    expect(await tree(outside)).toEqual([]);
  });

  it("refuses a state folder that a symlink inside the ROOT redirects elsewhere, as state writes do", async () => {
    await fs.mkdir(path.join(root, "Notes"));
    await fs.symlink("Notes", path.join(root, ".hackmd-bridge"));
    const report = await doctor();
    expect(report.sync_state.writable).toBe(false);
    expect(await tree(path.join(root, "Notes"))).toEqual([]);
  });
});

describe("doctor with an unusable --config-dir", () => {
  it.each(["../elsewhere", "/abs/config", "a/../../b", ""])(
    "reports --config-dir %j as a problem in the one report",
    async (configDir) => {
      const report = await doctor({ configDir });
      expect(report.ok).toBe(false);
      expect(report.root).toMatchObject({ configured: true, exists: true, writable: true });
      expect(report.sync_state).toEqual({ path: null, writable: false });
      expect(report.problems.some((problem) => problem.includes("--config-dir"))).toBe(true);
      expect(await tree(root)).toEqual([]);
      expect(await tree(base)).toEqual(["outside", "root"]);
    },
  );
});

describe("hackmd-bridge doctor as a command", () => {
  let work: string;
  let cli: string;

  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), "hb-doctor-cli-"));
    cli = await buildCli(work);
  }, 60_000);
  afterAll(async () => {
    await fs.rm(work, { recursive: true, force: true });
  });

  function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH ?? "", HOME: work } });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      child.once("close", (status) => resolve({ status, stdout, stderr }));
    });
  }

  it("prints exactly one JSON report and exits non-zero when --config-dir is invalid", async () => {
    const result = await run(["doctor", "--root", root, "--config-dir", "../elsewhere"]);
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout) as DoctorReport;
    expect(report.ok).toBe(false);
    expect(report.problems.some((problem) => problem.includes("--config-dir"))).toBe(true);
    expect(result.stdout.trim().startsWith("{")).toBe(true);
    expect(await tree(base)).toEqual(["outside", "root"]);
  });

  it("reports the escaping .obsidian symlink and writes nothing outside the ROOT", async () => {
    await fs.symlink(outside, path.join(root, ".obsidian"));
    const result = await run(["doctor", "--root", root]);
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout) as DoctorReport;
    expect(report.sync_state.writable).toBe(false);
    expect(await tree(outside)).toEqual([]);
  });
});
