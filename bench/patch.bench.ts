/**
 * Benchmark of large patches (run with `npm run bench -- patch`; see bench/README.md).
 *
 * Generated notes and patches (bench/lib/large-patch.ts; the same every run), each applied
 * once untimed as a warm-up and then N times:
 *
 * - a 160 KB note of short lines with a 124 KB patch of 2,000 hunks (40,000 context lines);
 * - the same note with a 267 KB patch of 5,000 hunks (40,000 context lines, 20,000 replaced);
 * - a 1 MB Markdown note (bench/lib/large-note.ts) with a 1.1 MB patch of 5,000 hunks;
 * - the same note with one 1.1 MB hunk over the whole note (every tenth line replaced);
 * - the same note with two lines added under each of its 1,671 section headings (anchored hunks);
 * - only when asked for (`--only md-10m-hunks`): a 10 MB note with a 10.6 MB patch of 45,000 hunks.
 *
 * For every call a probe timer (a chain of 0 ms `setTimeout`s) records the longest time the
 * event loop could not run it: what an unrelated MCP session waits. It prints p50, min and
 * max wall time, the p50 CPU time (steadier than wall time on a busy machine), and the p50 and
 * max of that longest block. Nothing here asserts a timing.
 */
import process from "node:process";
import { clearTimeout, setTimeout } from "node:timers";
import "../src/node/node-apis-install";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { systemSleep } from "../src/core/ports";
import { applyPatch, applyPatchAsync } from "../src/patch";
import { largeMarkdownNote } from "./lib/large-note";
import { anchoredPatch, manyHunkPatch, oneHunkPatch, shortLineNote, type GeneratedPatch } from "./lib/large-patch";
import { loadNow, machineInfo, ms, summarize, table } from "./lib/report";

const DEFAULT_SCENARIOS = ["short-120k", "short-270k", "md-1m-hunks", "md-1m-one", "md-1m-anchors"];

const USAGE = `usage: npm run bench -- patch [--reps N] [--only a,b,…]
  --reps N     timed repetitions per scenario and API, after one untimed warm-up (default 5)
  --only LIST  scenario ids to run (default: ${DEFAULT_SCENARIOS.join(",")}; also md-10m-hunks)`;

const PATCH_PATH = "notes/bench.md";

interface Scenario {
  id: string;
  label: string;
  body: string;
  patch: GeneratedPatch;
}

function options(): { reps: number; only: string[] | undefined } {
  const { values } = parseArgs({
    options: {
      reps: { type: "string", default: "5" },
      only: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const reps = Number(values.reps);
  if (!Number.isInteger(reps) || reps < 1) {
    process.stderr.write(`--reps must be an integer ≥ 1\n${USAGE}\n`);
    process.exit(2);
  }
  return { reps, only: values.only?.split(",").map((id) => id.trim()) };
}

function linesOf(body: string): string[] {
  const lines = body.split("\n");
  lines.pop();
  return lines;
}

/** The scenarios named in `ids`; notes are generated only for the scenarios that run. */
function scenarios(ids: readonly string[]): Scenario[] {
  const short = shortLineNote(160 * 1024);
  const shortLines = linesOf(short);
  const markdown = largeMarkdownNote(1_000_000);
  const markdownLines = linesOf(markdown);
  const huge = ids.includes("md-10m-hunks") ? largeMarkdownNote(10_000_000) : "";
  const all: Scenario[] = [
    {
      id: "short-120k",
      label: "160 KB note, 120 KB patch",
      body: short,
      patch: manyHunkPatch(shortLines, PATCH_PATH, { hunks: 2000, context: 20, changed: 1 }),
    },
    {
      id: "short-270k",
      label: "160 KB note, 270 KB patch",
      body: short,
      patch: manyHunkPatch(shortLines, PATCH_PATH, { hunks: 5000, context: 8, changed: 4 }),
    },
    {
      id: "md-1m-hunks",
      label: "1 MB note, 1 MB patch, many hunks",
      body: markdown,
      patch: manyHunkPatch(markdownLines, PATCH_PATH, { hunks: 5000, context: 6, changed: 1 }),
    },
    {
      id: "md-1m-one",
      label: "1 MB note, 1 MB patch, one hunk",
      body: markdown,
      patch: oneHunkPatch(markdownLines, PATCH_PATH, 10),
    },
    {
      id: "md-1m-anchors",
      label: "1 MB note, anchored additions",
      body: markdown,
      patch: anchoredPatch(markdownLines, PATCH_PATH, "## Section ", 1, 2),
    },
  ];
  if (huge !== "") {
    const patch = manyHunkPatch(linesOf(huge), PATCH_PATH, { hunks: 45_000, context: 6, changed: 1 });
    all.push({ id: "md-10m-hunks", label: "10 MB note, 10 MB patch, many hunks", body: huge, patch });
  }
  return all.filter((scenario) => ids.includes(scenario.id));
}

interface Sample {
  elapsed: number;
  /** Process CPU time (user + system, all threads) during the call. */
  cpu: number;
  longestBlock: number;
  changed: boolean;
}

/** Runs `call` while a 0 ms timer chain measures the longest stretch the event loop was held. */
async function probed(call: () => Promise<{ changed: boolean }> | { changed: boolean }): Promise<Sample> {
  let last = performance.now();
  let longest = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = (): void => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    timer = setTimeout(tick, 0);
  };
  // Let the probe start ticking before the call, so its first gap is not counted as a block.
  await new Promise<void>((resolve) => setTimeout(resolve, 0));
  timer = setTimeout(tick, 0);
  last = performance.now();
  const started = last;
  const cpuBefore = process.cpuUsage();
  const result = await call();
  const ended = performance.now();
  const cpu = process.cpuUsage(cpuBefore);
  clearTimeout(timer);
  longest = Math.max(longest, ended - last);
  return {
    elapsed: ended - started,
    cpu: (cpu.user + cpu.system) / 1000,
    longestBlock: longest,
    changed: result.changed,
  };
}

interface Api {
  name: string;
  run: (scenario: Scenario) => Promise<{ changed: boolean }> | { changed: boolean };
}

/** `applyPatch` in one go, and `applyPatchAsync` pausing as the Node host's `Sleep` port does (0 ms timers). */
const APIS: Api[] = [
  { name: "applyPatch", run: ({ body, patch }) => applyPatch({ body, patch: patch.patch, patchPath: PATCH_PATH }) },
  {
    name: "applyPatchAsync",
    run: ({ body, patch }) =>
      applyPatchAsync({ body, patch: patch.patch, patchPath: PATCH_PATH, pause: () => systemSleep(0) }),
  },
];

const kb = (text: string): string => `${(text.length / 1024).toFixed(0)} KB`;
const count = (value: number): string => value.toLocaleString("en-US");

async function main(): Promise<void> {
  const { reps, only } = options();
  process.stdout.write(
    `${machineInfo()}\ncommand: ${["npm run bench -- patch", ...process.argv.slice(2)].join(" ")}\n`,
  );
  const ids = only ?? DEFAULT_SCENARIOS;
  const unknown = ids.filter((id) => ![...DEFAULT_SCENARIOS, "md-10m-hunks"].includes(id));
  if (unknown.length > 0) {
    process.stderr.write(`unknown scenario ${unknown.join(", ")}\n${USAGE}\n`);
    process.exit(2);
  }
  const selected = scenarios(ids);
  process.stdout.write(`${reps} timed repetitions per scenario and API after 1 warm-up\n\n`);
  const loadBefore = loadNow();
  const rows: string[][] = [];
  for (const scenario of selected) {
    for (const api of APIS) {
      const samples: Sample[] = [];
      for (let rep = 0; rep <= reps; rep++) {
        const sample = await probed(() => api.run(scenario));
        if (rep > 0) samples.push(sample);
      }
      const wall = summarize(samples.map((sample) => sample.elapsed));
      const cpu = summarize(samples.map((sample) => sample.cpu));
      const block = summarize(samples.map((sample) => sample.longestBlock));
      const { patch } = scenario;
      rows.push([
        scenario.label,
        kb(scenario.body),
        kb(patch.patch),
        count(patch.hunks),
        count(patch.contextLines),
        api.name,
        ms(wall.p50),
        ms(wall.min),
        ms(wall.max),
        ms(cpu.p50),
        ms(block.p50),
        ms(block.max),
        samples.every((sample) => sample.changed) ? "changed" : "NOT CHANGED (unexpected)",
      ]);
      process.stderr.write(`done: ${scenario.id} ${api.name}\n`);
    }
  }
  process.stdout.write(
    `${table(
      [
        "scenario",
        "note",
        "patch",
        "hunks",
        "context lines",
        "API",
        "p50 ms",
        "min ms",
        "max ms",
        "CPU p50 ms",
        "block p50 ms",
        "block max ms",
        "check",
      ],
      rows,
      [1, 2, 3, 4, 6, 7, 8, 9, 10, 11],
    )}\n\n`,
  );
  process.stdout.write(
    `CPU = process CPU time during the call (user + system, GC threads included); block = the longest time the event loop was held during one call (a 0 ms timer chain ran beside it); load ${loadBefore} → ${loadNow()}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
