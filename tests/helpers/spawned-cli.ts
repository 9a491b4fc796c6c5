/** The built command as a child process whose output a test can wait on (async spawn: the emulator may run in the test's own event loop). */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

/** A running `node cli.js …`. */
export interface SpawnedCli {
  child: ChildProcessWithoutNullStreams;
  /** Everything printed so far, stdout then stderr. */
  output: () => string;
  /** Resolves with the exit code once the process has closed. */
  closed: Promise<number | null>;
  /** Resolves once stdout matches `pattern`; rejects if the process exits first. */
  waitFor: (pattern: RegExp) => Promise<void>;
}

/** Starts `node <cli> <args>` with exactly `env`. */
export function spawnCli(cli: string, args: readonly string[], env: NodeJS.ProcessEnv): SpawnedCli {
  const child = spawn(process.execPath, [cli, ...args], { env });
  let out = "";
  let err = "";
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const check = (): void => {
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(out)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
    check();
  });
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
  return {
    child,
    output: () => out + err,
    closed,
    waitFor: (pattern) =>
      new Promise<void>((resolve, reject) => {
        waiters.push({ pattern, resolve });
        check();
        void closed.then(() => reject(new Error(`exited before printing ${String(pattern)}: ${out}${err}`)));
      }),
  };
}
