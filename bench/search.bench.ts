/**
 * Benchmark of `hackmd_search_notes` (run with `npm run bench -- search`; see bench/README.md).
 *
 * 10,000 tracked notes of about 2 KB each are written straight into a ROOT (bench/lib/sync-seed.ts),
 * every 100th with a rare phrase. Then, through the in-memory MCP client (the tool, its schema
 * checks and the index): the first search (which builds the index), then `--reps` timed searches
 * of a phrase, a word pair and a folder-filtered word, with the background sweep of file stamps
 * running as it does for an agent. Prints p50, p95, mean, min and max. Nothing asserts a timing.
 */
import process from "node:process";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { okOutput, startBenchBridge } from "./lib/bridge";
import { loadNow, machineInfo, ms, summarize, table } from "./lib/report";
import { noteBody, writeTrackedNotes, type SeededNote } from "./lib/sync-seed";

const USAGE = `usage: npm run bench -- search [--notes N] [--reps N]
  --notes N  tracked notes (default 10000)
  --reps N   timed searches per query (default 200)`;

function options(): { notes: number; reps: number } {
  const { values } = parseArgs({
    options: {
      notes: { type: "string", default: "10000" },
      reps: { type: "string", default: "200" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  return { notes: Number(values.notes), reps: Number(values.reps) };
}

async function main(): Promise<void> {
  const { notes: count, reps } = options();
  const bridge = await startBenchBridge();
  try {
    const stateFolder = bridge.core.deps.files.root.stateFolder;
    const notes: SeededNote[] = Array.from({ length: count }, (_, i) => ({
      id: `bench${String(i).padStart(17, "0")}`,
      teamPath: null,
      localPath: `Mirror/Folder ${i % 50}/Note ${i}.md`,
      body: noteBody(i, 2000) + (i % 100 === 0 ? "A rare turquoise heron was seen.\n" : ""),
      timestamp: 1_700_000_000_000,
    }));
    const started = performance.now();
    await writeTrackedNotes({ root: bridge.root, stateFolder, notes });
    const seeded = performance.now() - started;
    const firstAt = performance.now();
    const first = okOutput(await bridge.call("hackmd_search_notes", { query: '"turquoise heron"' }));
    const firstMs = performance.now() - firstAt;
    const queries: Array<[string, string]> = [
      ["phrase", '"turquoise heron"'],
      ["two words", "quick 4242"],
      ["word in a folder", 'heron folder:"Mirror/Folder 0"'],
    ];
    const rows: string[][] = [];
    for (const [label, query] of queries) {
      const samples: number[] = [];
      let total = 0;
      for (let rep = 0; rep < reps; rep += 1) {
        const at = performance.now();
        total = okOutput(await bridge.call("hackmd_search_notes", { query })).total as number;
        samples.push(performance.now() - at);
      }
      const s = summarize(samples);
      rows.push([label, String(total), ms(s.p50), ms(s.p95), ms(s.mean), ms(s.min), ms(s.max)]);
    }
    process.stdout.write(`search over ${count} tracked notes (${machineInfo()}; load ${loadNow()})\n`);
    process.stdout.write(
      `seeded in ${ms(seeded)}; first search (builds the index) ${ms(firstMs)}, found ${String(first.total)}\n`,
    );
    process.stdout.write(table(["query", "hits", "p50", "p95", "mean", "min", "max"], rows));
  } finally {
    await bridge.close();
  }
}

void main();
