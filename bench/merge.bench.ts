/**
 * Benchmark of large notes (run with `npm run bench -- merge`; see bench/README.md).
 *
 * On one generated Markdown note of about 1 MB (bench/lib/large-note.ts), each repeated a
 * handful of times after one untimed warm-up:
 *
 * - pull: `hackmd_pull_note` through the in-memory MCP client against the emulator (0 ms latency),
 *   overwriting the tracked, unchanged file;
 * - push: `hackmd_push_note` of a one-line local edit (the edit is written to the file untimed);
 * - `threeWayMerge` of two disjoint one-line edits (clean; one edit per side takes the linear
 *   fast path), of four interleaved edits, two per side (clean; the anchored diff3 path), and
 *   of a conflicting edit;
 * - `bodyHash` of the note (the SHA-256 itself, past the memo of recent large bodies);
 * - `applyPatch` of a one-line patch.
 *
 * It prints p50, mean, min and max per operation, and the process's peak RSS (the emulator runs
 * in this process). Nothing here asserts a timing.
 */
import process from "node:process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { sha256Hex } from "../src/core/hash";
import { DEMO_NOTE_IDS } from "../src/emulator";
import { applyPatch } from "../src/patch";
import { threeWayMerge } from "../src/sync/merge";
import { okOutput, startBenchBridge } from "./lib/bridge";
import { largeMarkdownNote } from "./lib/large-note";
import { loadNow, machineInfo, ms, summarize, table } from "./lib/report";

const USAGE = `usage: npm run bench -- merge [--reps N] [--bytes N]
  --reps N   timed repetitions per operation, after one untimed warm-up (default 7)
  --bytes N  size of the generated note in bytes (default 1000000)`;

function options(): { reps: number; bytes: number } {
  const { values } = parseArgs({
    options: {
      reps: { type: "string", default: "7" },
      bytes: { type: "string", default: "1000000" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const count = (name: string, text: string, min: number): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) {
      process.stderr.write(`--${name} must be an integer ≥ ${min}\n${USAGE}\n`);
      process.exit(2);
    }
    return value;
  };
  return { reps: count("reps", values.reps, 1), bytes: count("bytes", values.bytes, 1000) };
}

const NOTE = DEMO_NOTE_IDS.weeklySync;
const FILE = "large.md";

/** Replaces the `index`-th line (0-based) of a body. */
function replaceLine(body: string, index: number, text: string): string {
  const lines = body.split("\n");
  lines[index] = text;
  return lines.join("\n");
}

/** Index of the first line at or after `from` that starts with `prefix`. */
function lineIndex(body: string, prefix: string, from = 0): number {
  const lines = body.split("\n");
  for (let i = from; i < lines.length; i++) if (lines[i]!.startsWith(prefix)) return i;
  throw new Error(`bench setup: no line starting with ${prefix}`);
}

const peakRssMiB = (): string => (process.resourceUsage().maxRSS / 1024).toFixed(0);

interface Row {
  label: string;
  samples: number[];
  note: string;
  peak: string;
}

/** One untimed warm-up, then `reps` timed runs; `prepare` runs untimed before each. */
async function measure<T>(
  reps: number,
  prepare: (rep: number) => Promise<T> | T,
  run: (input: T) => unknown,
): Promise<number[]> {
  const samples: number[] = [];
  for (let rep = 0; rep <= reps; rep++) {
    const input = await prepare(rep);
    const started = performance.now();
    await run(input);
    const elapsed = performance.now() - started;
    if (rep > 0) samples.push(elapsed);
  }
  return samples;
}

async function main(): Promise<void> {
  const { reps, bytes } = options();
  process.stdout.write(
    `${machineInfo()}\ncommand: ${["npm run bench -- merge", ...process.argv.slice(2)].join(" ")}\n`,
  );
  const body = largeMarkdownNote(bytes);
  const lineCount = body.split("\n").length - 1;
  process.stdout.write(
    `\nnote: ${body.length} bytes (ASCII), ${lineCount} lines; ${reps} timed repetitions per operation after 1 warm-up\n\n`,
  );
  const rows: Row[] = [];
  const loadBefore = loadNow();

  const bridge = await startBenchBridge();
  try {
    bridge.emu.collaboratorEdit(NOTE, { content: body });

    // Pull: the file exists after the warm-up and is unchanged, so each timed pull replaces it.
    let pulled: Record<string, unknown> = {};
    bridge.mark();
    const pulls = await measure(
      reps,
      () => undefined,
      async () => {
        pulled = okOutput(
          await bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: FILE, overwrite_local: true }),
        );
      },
    );
    const pullRequests = bridge.requestsSinceMark().length / (reps + 1);
    rows.push({
      label: "pull (hackmd_pull_note, MCP)",
      samples: pulls,
      note: `${pullRequests.toFixed(0)} request(s) each; ${String(pulled.local_path)}`,
      peak: peakRssMiB(),
    });

    // Push of a one-line edit: a different line each time, written to the file untimed.
    const path = join(bridge.root, FILE);
    const statuses = new Set<string>();
    let pushRequests = 0;
    const pushes = await measure(
      reps,
      async (rep) => {
        const current = await readFile(path, "utf8");
        await writeFile(
          path,
          replaceLine(
            current,
            lineIndex(current, `Paragraph ${rep + 1}.1 `),
            `Paragraph ${rep + 1}.1 edited by the bench (${rep}).`,
          ),
        );
        bridge.mark();
      },
      async () => {
        const out = okOutput(await bridge.call("hackmd_push_note", { local_path: FILE }));
        statuses.add(String(out.status));
        pushRequests += bridge.requestsSinceMark().length;
      },
    );
    rows.push({
      label: "push of a one-line edit (hackmd_push_note, MCP)",
      samples: pushes,
      note: `status ${[...statuses].join(", ")}; ${(pushRequests / (reps + 1)).toFixed(1)} requests each`,
      peak: peakRssMiB(),
    });
  } finally {
    await bridge.close();
  }

  // threeWayMerge: edits near the top and near the bottom (clean), then the same line edited
  // differently on both sides plus the disjoint edit (one conflict hunk).
  const top = lineIndex(body, "Paragraph 3.1 ");
  const bottom = lineIndex(body, "Paragraph ", lineCount - 40);
  const local = replaceLine(body, top, "Paragraph 3.1 changed locally.");
  const remote = replaceLine(body, bottom, "A paragraph near the end, changed on HackMD.");
  const remoteConflicting = replaceLine(remote, top, "Paragraph 3.1 changed on HackMD too.");
  let cleanOk = true;
  const disjoint = await measure(
    reps,
    () => undefined,
    () => {
      const result = threeWayMerge({ base: body, local, remote });
      cleanOk &&= result.clean;
    },
  );
  rows.push({
    label: "threeWayMerge, two disjoint edits",
    samples: disjoint,
    note: cleanOk ? "clean" : "NOT CLEAN (unexpected)",
    peak: peakRssMiB(),
  });
  const middle = lineIndex(body, "Paragraph ", Math.floor(lineCount / 2));
  const quarter = lineIndex(body, "Paragraph ", Math.floor(lineCount / 4));
  const localTwo = replaceLine(local, middle, "A paragraph in the middle, changed locally.");
  const remoteTwo = replaceLine(remote, quarter, "A paragraph a quarter in, changed on HackMD.");
  let interleavedOk = true;
  const interleaved = await measure(
    reps,
    () => undefined,
    () => {
      const result = threeWayMerge({ base: body, local: localTwo, remote: remoteTwo });
      interleavedOk &&= result.clean;
    },
  );
  rows.push({
    label: "threeWayMerge, four interleaved edits",
    samples: interleaved,
    note: interleavedOk ? "clean" : "NOT CLEAN (unexpected)",
    peak: peakRssMiB(),
  });
  let conflicts = -1;
  const conflicting = await measure(
    reps,
    () => undefined,
    () => {
      const result = threeWayMerge({ base: body, local, remote: remoteConflicting });
      conflicts = result.clean ? 0 : result.conflicts;
    },
  );
  rows.push({
    label: "threeWayMerge, a conflicting edit",
    samples: conflicting,
    note: `${conflicts} conflict hunk(s)`,
    peak: peakRssMiB(),
  });

  let hash = "";
  const hashes = await measure(
    reps,
    () => undefined,
    async () => {
      // The SHA-256 itself: bodyHash would answer a repeated body from its memo.
      hash = `sha256:${await sha256Hex(body)}`;
    },
  );
  rows.push({
    label: "bodyHash, uncached (SHA-256)",
    samples: hashes,
    note: `${hash.slice(0, 19)}…`,
    peak: peakRssMiB(),
  });

  const patchPath = `notes/${NOTE}.md`;
  const target = body.split("\n")[bottom]!;
  const patch = [
    "*** Begin Patch",
    `*** Update File: ${patchPath}`,
    "@@",
    `-${target}`,
    "+Patched near the end by the bench.",
    "*** End Patch",
  ].join("\n");
  let changed = false;
  const patches = await measure(
    reps,
    () => undefined,
    () => {
      changed = applyPatch({ body, patch, patchPath }).changed;
    },
  );
  rows.push({
    label: "applyPatch, one-line patch",
    samples: patches,
    note: changed ? "changed" : "NOT CHANGED (unexpected)",
    peak: peakRssMiB(),
  });

  process.stdout.write(
    `${table(
      ["operation", "p50 ms", "mean ms", "min ms", "max ms", "peak RSS MiB", "check"],
      rows.map((row) => {
        const s = summarize(row.samples);
        return [row.label, ms(s.p50), ms(s.mean), ms(s.min), ms(s.max), row.peak, row.note];
      }),
      [1, 2, 3, 4, 5],
    )}\n\n`,
  );
  process.stdout.write(
    `peak RSS ${peakRssMiB()} MiB (whole process, emulator included; the column is the peak so far after each operation); load ${loadBefore} → ${loadNow()}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
