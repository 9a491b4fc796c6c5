// Runs the benchmarks: bundles each bench/*.bench.ts with esbuild into a temporary directory and
// runs it with Node, one after another. Benchmarks are run on demand; nothing here asserts timings.
//
// Usage: npm run bench [-- [name ...] [bench options]]
//   npm run bench                       every bench/*.bench.ts
//   npm run bench -- tools              only bench/tools.bench.ts
//   npm run bench -- tools --calls 500  options after the names go to each selected bench
// Arguments up to the first one starting with "-" are bench names; the rest are passed through.
import process from "node:process";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";

const benchDir = dirname(fileURLToPath(import.meta.url));
const suffix = ".bench.ts";

const argv = process.argv.slice(2);
const firstOption = argv.findIndex((arg) => arg.startsWith("-"));
const names = firstOption === -1 ? argv : argv.slice(0, firstOption);
const passThrough = firstOption === -1 ? [] : argv.slice(firstOption);

const available = readdirSync(benchDir)
  .filter((file) => file.endsWith(suffix))
  .map((file) => basename(file, suffix))
  .sort();
const unknown = names.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`bench: no bench named ${unknown.join(", ")}; available: ${available.join(", ")}\n`);
  process.exit(2);
}
const selected = names.length > 0 ? available.filter((name) => names.includes(name)) : available;
if (selected.length === 0) {
  process.stderr.write("bench: no bench/*.bench.ts files found\n");
  process.exit(2);
}

const outDir = mkdtempSync(join(tmpdir(), "hackmd-bridge-bench-"));
let failed = 0;
try {
  for (const name of selected) {
    const outfile = join(outDir, `${name}.bench.cjs`);
    await esbuild.build({
      entryPoints: [resolve(benchDir, `${name}${suffix}`)],
      outfile,
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      // Built like dist/cli.js (no source maps, not minified), so the numbers match the shipped code.
      logLevel: "warning",
    });
    process.stdout.write(`\n=== bench: ${name} (bench/${name}${suffix}) ===\n`);
    const run = spawnSync(process.execPath, [outfile, ...passThrough], { stdio: "inherit" });
    if (run.status !== 0) {
      failed += 1;
      process.stderr.write(`bench: ${name} failed (${run.signal ?? `exit ${String(run.status)}`})\n`);
    }
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
process.exit(failed > 0 ? 1 : 0);
