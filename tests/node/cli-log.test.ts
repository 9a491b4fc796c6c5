/**
 * `hackmd-bridge log [<path>] [--json]` as a real child process: after the command pulls and
 * pushes (and an edit conflicts), the journal lists each write once, by the command's user, with
 * its branch and where replaced text lives; `log` itself sends no request and writes nothing.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_NOTE_IDS, startEmulator, type Emulator } from "../../src/emulator";
import type { JournalEntry } from "../../src/sync/journal";
import { buildCli } from "../helpers/build-cli";

let work: string;
let cli: string;
let emu: Emulator;
let root: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "hb-cli-log-"));
  cli = await buildCli(work);
  emu = await startEmulator({ port: 0, seed: "demo" });
  root = await mkdtemp(join(work, "root-"));
}, 60_000);

afterAll(async () => {
  await emu.close();
  await rm(work, { recursive: true, force: true });
});

function cmd(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? "", HOME: work, HACKMD_API_URL: emu.url, HACKMD_API_TOKEN: emu.token };
    const child = spawn(process.execPath, [cli, ...args], { env, cwd: root });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

it("lists the command's pull, push and conflict, with the text each replaced, and filters by path", async () => {
  const note = DEMO_NOTE_IDS.readingList;
  expect((await cmd(["pull", note, "reading.md"])).status).toBe(0);
  const pulled = await readFile(join(root, "reading.md"), "utf8");
  await writeFile(join(root, "reading.md"), `${pulled}mine\n`);
  expect((await cmd(["push", "reading.md"])).status).toBe(0);
  expect((await cmd(["pull", DEMO_NOTE_IDS.spec, "spec.md", "--team", "sandbox-team"])).status).toBe(0);

  const before = emu.requests().length;
  const all = await cmd(["log", "--json"]);
  expect(all.status).toBe(0);
  const entries = (JSON.parse(all.stdout) as { entries: JournalEntry[] }).entries;
  expect(entries.map((entry) => [entry.kind, entry.file, entry.branch])).toEqual([
    ["pull", "reading.md", "pull"],
    ["push", "reading.md", "S3"],
    ["pull", "spec.md", "pull"],
  ]);
  expect(entries.every((entry) => entry.actor.kind === "user" && entry.actor.door === "command")).toBe(true);
  // The push replaced HackMD's text: the journal names its copy, and that copy holds it.
  const place = entries[1]?.replaced?.find((replaced) => replaced.where === "journal");
  expect(await readFile(join(root, ".hackmd-bridge/sync", place?.path ?? ""), "utf8")).toBe(pulled);

  const one = await cmd(["log", "./reading.md", "--json"]);
  expect((JSON.parse(one.stdout) as { entries: JournalEntry[] }).entries).toHaveLength(2);
  const table = await cmd(["log", "reading.md"]);
  expect(table.stdout).toContain("you (command)");
  expect(table.stdout).toContain("HackMD text kept in the journal");
  expect(emu.requests().length).toBe(before);
  expect(`${all.stdout}${table.stdout}`).not.toContain(emu.token);

  expect((await cmd(["log", "--limit", "0"])).status).toBe(2);
}, 60_000);
