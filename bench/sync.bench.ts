/**
 * Benchmark of sync-all (run with `npm run bench -- sync`; see bench/README.md).
 *
 * For each size N (default 100, 1,000 and 10,000 tracked notes of a few KB each), against the
 * emulator with injected latency (default 50 ms per request, set after the setup):
 *
 * - cold run: 1% of the notes edited on HackMD (collaborator edits) and another 1% edited
 *   locally, an empty local hash cache: requests (from the emulator log, by route), wall time,
 *   time per phase, peak RSS and heap (sampled every 10 ms; the emulator runs in this process);
 * - warm run: straight after, nothing changed, the same hash cache;
 * - the naive plan beside it: one GET per tracked note, plus the same writes. Its requests are
 *   counted (N + 2 per push: PATCH and read-back GET; pulls write nothing to HackMD). Its time is
 *   MEASURED by running N `getNote` calls with the same concurrency and latency for N up to
 *   `--naive-max` (default 1,000) and EXTRAPOLATED linearly from the largest measured size above
 *   that; the naive time counts those GETs only, so it is a lower bound.
 *
 * Setup is direct: `emu.seed` for the notes, and working files, baselines, records and hints
 * written in the on-disk format (bench/lib/sync-seed.ts). Nothing here asserts a timing; a run
 * whose outcome counts differ from the changes made is reported as a failure.
 */
import process from "node:process";
import { clearInterval, setInterval } from "node:timers";
import { realpathSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { silentLogger } from "../src/core/ports";
import { CallContext } from "../src/hackmd/call-context";
import { SyncStateStore } from "../src/sync/store";
import { LocalHashCache, syncAll, type SyncAllProgress, type SyncAllResult } from "../src/sync/sync-all";
import { startBenchBridge, type BenchBridge } from "./lib/bridge";
import { installFsProfiler, tallyText } from "./lib/fs-profile";
import { loadNow, machineInfo, ratio, table } from "./lib/report";
import { noteBody, writeTrackedNotes, type SeededNote } from "./lib/sync-seed";

const USAGE = `usage: npm run bench -- sync [--sizes 100,1000,10000] [--changed 1] [--latency 50] [--concurrency 4] [--note-bytes 3000] [--naive-max 1000] [--real-max 1000] [--no-fs-profile]
  --sizes LIST     tracked-note counts, comma-separated (default 100,1000,10000)
  --changed PCT    percent of notes edited on each side (default 1; at least one note each)
  --latency MS     emulator latency per request during the runs (default 50)
  --concurrency N  sync-all steps in flight, and the naive plan's GETs in flight (default 4)
  --note-bytes N   approximate size of each note body (default 3000)
  --naive-max N    largest size whose naive GETs are measured; larger ones are extrapolated (default 1000)
  --real-max N     largest size synced for real; larger sizes run sync-all as a dry run (default 1000)
  --no-fs-profile  do not time every file-system call and digest ("where the time goes"): the wall
                   times then carry no instrumentation cost`;

interface Options {
  sizes: number[];
  changedPct: number;
  latencyMs: number;
  concurrency: number;
  noteBytes: number;
  naiveMax: number;
  realMax: number;
  fsProfile: boolean;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      sizes: { type: "string", default: "100,1000,10000" },
      changed: { type: "string", default: "1" },
      latency: { type: "string", default: "50" },
      concurrency: { type: "string", default: "4" },
      "note-bytes": { type: "string", default: "3000" },
      "naive-max": { type: "string", default: "1000" },
      "real-max": { type: "string", default: "1000" },
      "no-fs-profile": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const number = (name: string, text: string, min: number, integer = true): number => {
    const value = Number(text);
    if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
      process.stderr.write(`--${name} must be ${integer ? "an integer" : "a number"} ≥ ${min}\n${USAGE}\n`);
      process.exit(2);
    }
    return value;
  };
  return {
    sizes: values.sizes.split(",").map((part) => number("sizes", part.trim(), 1)),
    changedPct: number("changed", values.changed, 0, false),
    latencyMs: number("latency", values.latency, 0),
    concurrency: number("concurrency", values.concurrency, 1),
    noteBytes: number("note-bytes", values["note-bytes"], 16),
    naiveMax: number("naive-max", values["naive-max"], 0),
    realMax: number("real-max", values["real-max"], 0),
    fsProfile: !values["no-fs-profile"],
  };
}

/** Peak RSS and heap while a piece of work runs (sampled every 10 ms, plus before and after). */
async function withMemory<T>(
  work: () => Promise<T>,
): Promise<{ value: T; peakRss: number; peakHeap: number; rssBefore: number }> {
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sample = (): void => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  };
  const timer = setInterval(sample, 10);
  try {
    const value = await work();
    sample();
    return { value, peakRss, peakHeap, rssBefore: before.rss };
  } finally {
    clearInterval(timer);
  }
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);
const seconds = (msValue: number): string => (msValue / 1000).toFixed(msValue < 10_000 ? 2 : 1);

/** Route counts of the requests since `since`, e.g. `GET /notes ×1, GET /notes/:noteId ×20`. */
function routeCounts(bridge: BenchBridge, since: number): { total: number; text: string } {
  const counts = new Map<string, number>();
  const entries = bridge.emu.requests({ since }).filter((entry) => entry.seq > since);
  for (const entry of entries) {
    const route = entry.route ?? `${entry.method} ${entry.path}`;
    counts.set(route, (counts.get(route) ?? 0) + 1);
  }
  const text = [...counts]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([route, count]) => `${route} ×${count}`)
    .join(", ");
  return { total: entries.length, text: text || "(none)" };
}

/** Phase durations from the progress events (ms by phase). */
function phaseTimer(): {
  onProgress: (progress: SyncAllProgress) => void;
  durations: (end: number) => Record<string, number>;
} {
  const starts: Array<{ phase: string; at: number }> = [];
  return {
    onProgress: (progress) => {
      if (progress.done === 0) starts.push({ phase: progress.phase, at: performance.now() });
    },
    durations: (end) =>
      Object.fromEntries(starts.map((start, i) => [start.phase, (starts[i + 1]?.at ?? end) - start.at])),
  };
}

/** `listing 0.12 / checking 0.89 / syncing 1.38`. */
function phaseText(durations: Record<string, number>): string {
  return Object.entries(durations)
    .map(([phase, value]) => `${phase} ${seconds(value)}`)
    .join(" / ");
}

interface SizeResult {
  rows: string[][];
  naivePerGetMs: number | undefined;
  notes: string[];
}

async function runSize(n: number, opts: Options, naiveFromBelow: number | undefined): Promise<SizeResult> {
  const k = Math.max(1, Math.round((n * opts.changedPct) / 100));
  const bridge = await startBenchBridge({ emulator: { seed: "empty", logCapacity: Math.max(10_000, 4 * n + 1_000) } });
  const notes: string[] = [];
  try {
    // ---- setup (not measured) ----
    const setupStarted = performance.now();
    const past = Date.now() - 86_400_000;
    const seeded: SeededNote[] = Array.from({ length: n }, (_, i) => ({
      id: `bench${String(i).padStart(17, "0")}`,
      teamPath: null,
      localPath: `notes/${String(Math.floor(i / 1000)).padStart(2, "0")}/note-${String(i).padStart(5, "0")}.md`,
      body: noteBody(i, opts.noteBytes),
      timestamp: past,
    }));
    bridge.emu.seed({
      notes: seeded.map((note, i) => ({
        id: note.id,
        shortId: `b${String(i).padStart(8, "0")}`,
        title: `Note ${i}`,
        content: note.body,
        createdAt: past,
        lastChangedAt: past,
      })),
    });
    await writeTrackedNotes({ root: bridge.root, stateFolder: bridge.core.deps.files.root.stateFolder, notes: seeded });
    // Disjoint sets, spread over the range: remote edits at i ≡ 0, local edits at i ≡ ⌊step/2⌋ (mod step).
    const step = Math.max(2, Math.floor(n / k));
    const remote = seeded.filter((_, i) => i % step === 0).slice(0, k);
    const local = seeded.filter((_, i) => i % step === Math.floor(step / 2)).slice(0, k);
    for (const note of remote) bridge.emu.collaboratorEdit(note.id, { content: `${note.body}\nEdited on HackMD.\n` });
    for (const note of local) await appendFile(join(bridge.root, note.localPath), "\nEdited locally.\n");
    bridge.emu.setQuirks({ latencyMs: opts.latencyMs });
    notes.push(
      `N=${n}: setup ${seconds(performance.now() - setupStarted)} s (seed + ${4 * n} files), ${remote.length} remote and ${local.length} local edits, load ${loadNow()}`,
    );

    const profiler = opts.fsProfile ? await installFsProfiler() : undefined;
    const cache = new LocalHashCache();
    const rows: string[][] = [];
    const dryRun = n > opts.realMax;
    const runOnce = async (
      label: string,
    ): Promise<{ result: SyncAllResult; ms: number; requests: number; phases: Record<string, number> }> => {
      const since = bridge.emu.requests().at(-1)?.seq ?? 0;
      const timer = phaseTimer();
      profiler?.reset(realpathSync(bridge.root), bridge.core.deps.files.root.stateFolder);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const measured = await withMemory(() =>
        syncAll(bridge.core.deps, {
          dryRun,
          concurrency: opts.concurrency,
          hashCache: cache,
          onProgress: timer.onProgress,
        }),
      );
      const ended = performance.now();
      const requests = routeCounts(bridge, since);
      const { counts } = measured.value;
      const phases = timer.durations(ended);
      const used = process.cpuUsage(cpu);
      notes.push(
        `N=${n} ${label}: where the time goes (summed call times; calls overlap, so sums can exceed the ${seconds(ended - started)} s wall): ` +
          `${profiler === undefined ? "(not profiled: --no-fs-profile)" : tallyText(profiler.snapshot())}; process CPU ${seconds(used.user / 1000)} s user + ${seconds(used.system / 1000)} s system`,
      );
      rows.push([
        String(n),
        label,
        String(requests.total),
        requests.text,
        `${counts.pulled}/${counts.pushed}/${counts.in_sync}/${counts.conflicts + counts.errors + counts.skipped + counts.missing_local + counts.missing_remote}`,
        seconds(ended - started),
        phaseText(phases),
        mb(measured.peakRss),
        mb(measured.peakRss - measured.rssBefore),
        mb(measured.peakHeap),
      ]);
      return { result: measured.value, ms: ended - started, requests: requests.total, phases };
    };

    const kind = dryRun ? "dry run" : "real run";
    const cold = await runOnce(`cold ${kind} (${k}+${k} changed)`);
    const expected = { pulled: remote.length, pushed: local.length, in_sync: n - remote.length - local.length };
    const got = {
      pulled: cold.result.counts.pulled,
      pushed: cold.result.counts.pushed,
      in_sync: cold.result.counts.in_sync,
    };
    if (JSON.stringify(expected) !== JSON.stringify(got))
      throw new Error(
        `N=${n}: expected ${JSON.stringify(expected)}, sync-all reported ${JSON.stringify(cold.result.counts)}`,
      );
    // After a real run nothing is left to do; after a dry run the same changes are planned again.
    const warm = await runOnce(dryRun ? "warm dry run (same changes, warm cache)" : "warm real run (nothing changed)");
    const warmExpected = dryRun ? expected.in_sync : n;
    if (warm.result.counts.in_sync !== warmExpected)
      throw new Error(`N=${n}: the warm run reported ${JSON.stringify(warm.result.counts)}`);

    // ---- one pull and one push of a single note, the index warm (as in the plugin or `serve`) ----
    const single = await singleOps(bridge, seeded[1] as SeededNote);
    notes.push(
      `N=${n}: single note, index warm: pull p50 ${single.pull.toFixed(1)} ms, push p50 ${single.push.toFixed(1)} ms (${SINGLE_REPS} each), ` +
        `record reads per operation ${single.readsPerOp.toFixed(1)}, index builds ${single.builds}; the index build of this size (one scan, as a fresh process pays once) read ${single.scanReads} records`,
    );

    // ---- the naive plan: one GET per tracked note, then the same writes ----
    const naiveRequests = n + 2 * local.length;
    let naiveGetsMs: number;
    let naivePerGetMs: number | undefined;
    let how: string;
    if (n <= opts.naiveMax) {
      const started = performance.now();
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < n) {
          const note = seeded[next] as SeededNote;
          next += 1;
          await bridge.core.deps.client.getNote(new CallContext(), { teamPath: null, noteId: note.id });
        }
      };
      await Promise.all(Array.from({ length: Math.min(opts.concurrency, n) }, () => worker()));
      naiveGetsMs = performance.now() - started;
      naivePerGetMs = naiveGetsMs / n;
      how = "measured";
    } else if (naiveFromBelow !== undefined) {
      naiveGetsMs = naiveFromBelow * n;
      how = "extrapolated";
      notes.push(
        `N=${n}: naive GET time extrapolated linearly from ${naiveFromBelow.toFixed(2)} ms per GET measured at the largest size ≤ ${opts.naiveMax}`,
      );
    } else {
      naiveGetsMs = Number.NaN;
      how = "not measured";
    }
    rows.push([
      String(n),
      `naive: 1 GET per note (GETs ${how})`,
      String(naiveRequests),
      `GET /notes/:noteId ×${n} + ${2 * local.length} write requests`,
      "",
      seconds(naiveGetsMs),
      "GETs only",
      "",
      "",
      "",
    ]);
    const ours = dryRun ? 1 + remote.length + 3 * local.length : cold.requests;
    rows.push([
      String(n),
      dryRun ? "ratio naive / real run (by the table)" : "ratio naive / cold",
      ratio(naiveRequests / ours),
      "",
      "",
      dryRun ? "" : ratio((naiveGetsMs + (cold.phases.syncing ?? 0)) / cold.ms),
      dryRun ? "" : "time: naive GETs + same writes",
      "",
      "",
      "",
    ]);
    if (dryRun) {
      notes.push(
        `N=${n}: dry run (N > --real-max ${opts.realMax}); a real run makes 1 list + ${remote.length} pull GETs + ${local.length}×(GET, PATCH, read-back GET) = ${ours} requests; ` +
          `naive ${naiveRequests} → ${ratio(naiveRequests / ours)} fewer. Planning alone (list + checks + ${remote.length} confirming GETs) took ${seconds(cold.ms)} s vs ${seconds(naiveGetsMs)} s for the naive GETs alone.`,
      );
    } else {
      const writes = cold.phases.syncing ?? 0;
      notes.push(
        `N=${n}: naive ${naiveRequests} requests (${n} GETs + ${2 * local.length} for ${local.length} pushes) vs ${cold.requests}: ${ratio(naiveRequests / cold.requests)} fewer. ` +
          `Time: naive GETs ${seconds(naiveGetsMs)} s (${how}) + the same writes (≈ this run's syncing phase, ${seconds(writes)} s) = ${seconds(naiveGetsMs + writes)} s vs ${seconds(cold.ms)} s cold → ${ratio((naiveGetsMs + writes) / cold.ms)}; ` +
          `planning only: ${seconds(cold.ms - writes)} s vs ${seconds(naiveGetsMs)} s → ${ratio(naiveGetsMs / (cold.ms - writes))}.`,
      );
    }
    return { rows, naivePerGetMs, notes };
  } finally {
    await bridge.close();
  }
}

const SINGLE_REPS = 7;

/** p50 of one pull (overwrite of the unchanged file) and one push (of a one-line edit) of `note`, and the store's reads. */
async function singleOps(
  bridge: BenchBridge,
  note: SeededNote,
): Promise<{ pull: number; push: number; readsPerOp: number; builds: number; scanReads: number }> {
  const median = (values: number[]): number =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  const pulls: number[] = [];
  const pushes: number[] = [];
  const reads = bridge.store.counters.recordReads;
  const builds = bridge.store.counters.indexBuilds;
  for (let i = 0; i < SINGLE_REPS; i++) {
    await appendFile(join(bridge.root, note.localPath), `\nEdit ${i}.\n`);
    let started = performance.now();
    const pushed = await bridge.call("hackmd_push_note", { local_path: note.localPath });
    pushes.push(performance.now() - started);
    if (pushed.isError) throw new Error(`single push failed: ${pushed.content[0]?.text ?? ""}`);
    started = performance.now();
    const pulled = await bridge.call("hackmd_pull_note", {
      note_ref: note.id,
      local_path: note.localPath,
      overwrite_local: true,
    });
    pulls.push(performance.now() - started);
    if (pulled.isError) throw new Error(`single pull failed: ${pulled.content[0]?.text ?? ""}`);
  }
  const readsPerOp = (bridge.store.counters.recordReads - reads) / (2 * SINGLE_REPS);
  const fresh = new SyncStateStore({ files: bridge.core.deps.files.state, logger: silentLogger });
  await fresh.list();
  return {
    pull: median(pulls),
    push: median(pushes),
    readsPerOp,
    builds: bridge.store.counters.indexBuilds - builds,
    scanReads: fresh.counters.recordReads,
  };
}

async function main(): Promise<void> {
  const opts = options();
  process.stdout.write(`${machineInfo()}\ncommand: ${["npm run bench -- sync", ...process.argv.slice(2)].join(" ")}\n`);
  process.stdout.write(
    `\n## Sync-all (${opts.changedPct}% changed on each side, ${opts.latencyMs} ms latency, concurrency ${opts.concurrency}, ~${opts.noteBytes} B per note)\n\n`,
  );
  const rows: string[][] = [];
  const notes: string[] = [];
  let perGet: number | undefined;
  for (const n of [...opts.sizes].sort((a, b) => a - b)) {
    const started = performance.now();
    const result = await runSize(n, opts, perGet);
    perGet = result.naivePerGetMs ?? perGet;
    rows.push(...result.rows);
    notes.push(...result.notes, `N=${n}: whole size took ${seconds(performance.now() - started)} s`);
    process.stdout.write(`${notes.at(-1) ?? ""}\n`);
  }
  process.stdout.write(
    `\n${table(["notes", "run", "requests", "by route", "pulled/pushed/in sync/other", "wall s", "phases s", "peak RSS MB", "RSS +MB", "peak heap MB"], rows, [0, 2, 5, 7, 8, 9])}\n\n`,
  );
  for (const note of notes) process.stdout.write(`${note}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
