/**
 * The executable (src/node/bin.ts, built as dist/cli.js): it runs the command line and sets the
 * exit code, treats a reader that stops early as no error (`hackmd-bridge status | head`), and
 * importing the command's modules does not start it.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALL_SPECS } from "../../src/node/cli";
import { buildCli } from "../helpers/build-cli";

let work: string;
let cli: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "hb-bin-"));
  cli = await buildCli(work);
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Runs the built command; `closeStdout` closes the reading end of its stdout before it writes. */
function runCli(
  args: string[],
  closeStdout: boolean,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    if (closeStdout) child.stdout.destroy();
    else child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

it("runs the command line and exits with its code", async () => {
  const help = await runCli(["--help"], false);
  expect(help.code).toBe(0);
  expect(help.stdout).toContain("Usage: hackmd-bridge <command> [options]");
  const unknown = await runCli(["no-such-command"], false);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('unknown command "no-such-command"');
}, 60_000);

it("exits quietly when the reader of its output has gone (EPIPE)", async () => {
  const closed = await runCli(["--help"], true);
  expect({ code: closed.code, stderr: closed.stderr }).toEqual({ code: 0, stderr: "" });
}, 60_000);

it("importing the command line does not start the command", () => {
  // This test file imports src/node/cli.ts; had that run main(), jest's arguments would have
  // been read as a command and the process's exit code set.
  expect(ALL_SPECS.length).toBeGreaterThan(0);
  expect(process.exitCode ?? 0).toBe(0);
});
