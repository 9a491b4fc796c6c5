/**
 * The emulator process of §2.14 (`hackmd-bridge emulator`): one JSON line with the URL and a
 * fresh token on stdout when ready, diagnostics on stderr, clean shutdown on SIGINT/SIGTERM.
 */
import process from "node:process";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { startEmulator } from "./index";
import { readStateFile } from "./persist";
import type { SeedName } from "./types";

/** Where the process writes, and what stops it; tests replace them. */
export interface ProcessIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Resolves when the emulator should stop; default: the first SIGINT or SIGTERM. */
  stopped?: Promise<unknown>;
}

function cryptoRandom(): number {
  return randomBytes(4).readUInt32LE() / 2 ** 32;
}

function waitForSignal(): Promise<unknown> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve(undefined);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/**
 * The primary token: a fresh one, or the one a state file already knows (its first user's first
 * token), so a restart over the same file accepts the same token.
 */
function stateToken(stateFile: string | undefined): string {
  const fresh = randomBytes(32).toString("base64url");
  if (stateFile === undefined) return fresh;
  const store = readStateFile(stateFile);
  return store === undefined ? fresh : ([...store.tokens.keys()][0] ?? fresh);
}

/** Runs the emulator until stopped; resolves with the exit code. */
export async function runEmulatorProcess(
  argv: string[],
  io: ProcessIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let port = 0;
  let seed: SeedName = "empty";
  let control = false;
  let stateFile: string | undefined;
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string" },
        seed: { type: "string" },
        control: { type: "boolean" },
        state: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.port !== undefined) {
      if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) throw new Error(`invalid --port ${values.port}`);
      port = Number(values.port);
    }
    if (values.seed !== undefined) {
      if (values.seed !== "empty" && values.seed !== "demo")
        throw new Error(`invalid --seed ${values.seed} (empty or demo)`);
      seed = values.seed;
    }
    control = values.control === true;
    if (values.state !== undefined) {
      if (values.state.trim() === "") throw new Error("--state needs a file name");
      stateFile = values.state;
    }
  } catch (error) {
    io.stderr.write(`hackmd-bridge emulator: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  let emulator;
  try {
    emulator = await startEmulator({
      port,
      seed,
      control,
      token: stateToken(stateFile),
      random: cryptoRandom,
      ...(stateFile === undefined ? {} : { stateFile }),
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason =
      code === "EADDRINUSE" ? `port ${port} is already in use` : error instanceof Error ? error.message : String(error);
    io.stderr.write(`hackmd-bridge emulator: ${reason}\n`);
    return 2;
  }
  // Listen for signals only once running, so a failed start leaves no handlers behind.
  const stopped = io.stopped ?? waitForSignal();
  io.stdout.write(`${JSON.stringify({ url: emulator.url, token: emulator.token })}\n`);
  await stopped;
  await emulator.close();
  return 0;
}
