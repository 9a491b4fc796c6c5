/**
 * The HackMD emulator in a child process, for benches that time what the user's machine spends:
 * with the emulator in the bench's own process, its work (serialising and parsing 1 MB bodies,
 * its revision history) runs on the same thread and heap as ours and is counted as ours; HackMD's
 * server time is not. The wall time of a request still includes the child's time, as it would
 * include HackMD's.
 *
 * The bench bundle starts itself again with `EMULATOR_CHILD` as its only argument; its `main`
 * hands that run to `runEmulatorChild` (src/emulator/process.ts: one JSON line with the URL and a
 * fresh token, then serve until SIGTERM), on a free loopback port.
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { createInterface } from "node:readline";
import { runEmulatorProcess } from "../../src/emulator/process";

/** The argument a bench bundle is started with to be the emulator. */
export const EMULATOR_CHILD = "--emulator-child";

/** A running child emulator. */
export interface ChildEmulator {
  readonly url: string;
  readonly token: string;
  close(): Promise<void>;
}

/**
 * Serves the emulator in this process (the child's side) until SIGTERM or SIGINT, or until its
 * standard input ends (the bench that started it is gone); resolves with the exit code.
 */
export function runEmulatorChild(): Promise<number> {
  const stopped = new Promise<void>((resolve) => {
    process.once("SIGTERM", () => resolve());
    process.once("SIGINT", () => resolve());
    process.stdin.once("end", () => resolve());
    process.stdin.resume();
  });
  return runEmulatorProcess(["--port", "0"], { stdout: process.stdout, stderr: process.stderr, stopped });
}

/** Starts this bench bundle again as the emulator and waits for its URL and token. */
export async function startChildEmulator(): Promise<ChildEmulator> {
  const script = process.argv[1];
  if (script === undefined) throw new Error("no script to start the emulator from");
  // Its standard input stays open while this process lives: the child stops when it ends.
  const child = spawn(process.execPath, [script, EMULATOR_CHILD], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the emulator child exited (${String(code)}) before it was ready`)));
  });
  lines.close();
  const ready = JSON.parse(first) as { url: string; token: string };
  return {
    url: ready.url,
    token: ready.token,
    close: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
