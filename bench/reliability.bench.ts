/**
 * The on-demand run of the concurrency harness (run with `npm run bench -- reliability`; see
 * bench/README.md): tests/sync/concurrency.test.ts with 10,000 schedules (or `--runs N`),
 * counting every failing schedule instead of stopping at the first, then the summary — the
 * number of schedules, the seed and the losses. `--single N` also runs the single-actor harness
 * (tests/sync/reliability.test.ts) with N cases first.
 *
 * It spawns jest from the repository (the working directory of `npm run bench`), relays its
 * output, and repeats the summary lines at the end. Exit status 1 when a harness failed.
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const USAGE = `usage: npm run bench -- reliability [--runs 10000] [--seed N] [--single N] [--print 5]
  --runs N     schedules of the concurrency harness (default 10000)
  --seed N     its seed (default: the suite's fixed seed)
  --single N   also run the single-actor reliability harness with N cases first (default 0: skip)
  --print N    failing schedules printed in full (default 5; the rest as one line each)`;

function options(): { runs: number; seed: number | undefined; single: number; print: number } {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "10000" },
      seed: { type: "string" },
      single: { type: "string", default: "0" },
      print: { type: "string", default: "5" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const integer = (name: string, text: string, min: number): number => {
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < min) {
      process.stderr.write(`--${name} must be an integer ≥ ${min}\n${USAGE}\n`);
      process.exit(2);
    }
    return value;
  };
  return {
    runs: integer("runs", values.runs, 1),
    seed: values.seed === undefined ? undefined : integer("seed", values.seed, 0),
    single: integer("single", values.single, 0),
    print: integer("print", values.print, 0),
  };
}

/** Runs one jest suite with extra environment; resolves with its exit code and its summary lines. */
function runSuite(
  test: string,
  env: Record<string, string>,
  summaryPrefix: string,
): Promise<{ code: number; summary: string[] }> {
  const jest = join(process.cwd(), "node_modules", "jest", "bin", "jest.js");
  if (!existsSync(jest)) {
    process.stderr.write(
      `reliability: ${jest} not found; run the bench from the repository (npm run bench -- reliability)\n`,
    );
    process.exit(2);
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [jest, "--runInBand", "--runTestsByPath", test, "--selectProjects=unit"], {
      cwd: process.cwd(),
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const summary: string[] = [];
    let pending = "";
    child.stdout.on("data", (chunk: Buffer) => {
      process.stdout.write(chunk);
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      summary.push(...lines.filter((line) => line.startsWith(summaryPrefix)));
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (pending.startsWith(summaryPrefix)) summary.push(pending);
      resolve({ code: code ?? 1, summary });
    });
  });
}

async function main(): Promise<void> {
  const opts = options();
  const started = Date.now();
  const summaries: string[] = [];
  let failed = false;
  if (opts.single > 0) {
    const single = await runSuite(
      "tests/sync/reliability.test.ts",
      { HB_RELIABILITY_RUNS: String(opts.single) },
      "reliability:",
    );
    summaries.push(
      ...(single.summary.length > 0
        ? single.summary
        : ["reliability: no summary (the suite failed before it finished; see above)"]),
    );
    failed ||= single.code !== 0;
  }
  const env: Record<string, string> = {
    HB_CONCURRENCY_RUNS: String(opts.runs),
    HB_CONCURRENCY_KEEP_GOING: "1",
    HB_CONCURRENCY_PRINT: String(opts.print),
    ...(opts.seed === undefined ? {} : { HB_CONCURRENCY_SEED: String(opts.seed) }),
  };
  const concurrent = await runSuite("tests/sync/concurrency.test.ts", env, "concurrency:");
  summaries.push(
    ...(concurrent.summary.length > 0
      ? concurrent.summary
      : ["concurrency: no summary (the suite failed before it finished; see above)"]),
  );
  failed ||= concurrent.code !== 0;
  process.stdout.write(
    `\n=== reliability summary (${((Date.now() - started) / 60_000).toFixed(1)} min) ===\n${summaries.join("\n")}\n`,
  );
  process.exit(failed ? 1 : 0);
}

void main();
