// Plugin bench: the size of main.js, the time to require it and run onload on the fake `obsidian`
// module (against an empty plugin as the ratio baseline), and the cost of the status refresh when
// a tracked file is opened in a vault with 1 and with 10,000 tracked notes.
// Usage: npm run build && npm run bench -- plugin [--loads N] [--notes N] [--opens N]
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { sha256Hex } from "../src/core/hash";
import { baselineFile, RECORD_FORMAT, recordKey } from "../src/sync/store";
import { loadNow, machineInfo, ms, ratio, summarize, table } from "./lib/report";

type Fake = typeof import("../tests/__mocks__/obsidian");

interface LoadedPlugin {
  onload(): Promise<void> | void;
  loaded(): Promise<unknown>;
  unload(): void;
  data: unknown;
  statusBarItems: Array<{ text: string }>;
  services: { files: { state: { write(path: string, data: string): Promise<unknown> } }; store: { counters: { recordReads: number; indexBuilds: number } } };
  status: { refresh(): Promise<void> };
}

const { values } = parseArgs({
  options: { loads: { type: "string", default: "30" }, notes: { type: "string", default: "10000" }, opens: { type: "string", default: "200" }, help: { type: "boolean", default: false } },
});
if (values.help) {
  process.stdout.write("npm run build && npm run bench -- plugin [--loads N] [--notes N] [--opens N]\n");
  process.exit(0);
}
const loads = Number(values.loads);
const noteCount = Number(values.notes);
const opens = Number(values.opens);

const mainJs = resolve(process.cwd(), "main.js");
/** Node's require, for loading main.js fresh (its cache entry is dropped before each load). */
const load = createRequire(__filename);

async function main(): Promise<void> {
  // The fake obsidian module calls jest.fn at load; a minimal stand-in is enough here.
  (globalThis as Record<string, unknown>).jest = { fn: (impl: (...args: unknown[]) => unknown) => Object.assign((...args: unknown[]) => impl(...args), { mockImplementation: () => undefined }) };
  (globalThis as Record<string, unknown>).window ??= globalThis;
  const fake: Fake = await import("../tests/__mocks__/obsidian");
  const moduleInternals = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const originalLoad = moduleInternals._load;
  moduleInternals._load = function load(request: string, ...rest: unknown[]): unknown {
    return request === "obsidian" ? fake : originalLoad.call(this, request, ...rest);
  };
  console.debug = () => undefined;

  process.stdout.write(`${machineInfo()}\n\n`);
  const bytes = statSync(mainJs).size;
  const gzip = gzipSync(readFileSync(mainJs)).byteLength;
  process.stdout.write(`main.js: ${(bytes / 1024).toFixed(1)} KiB (${bytes} bytes), gzip ${(gzip / 1024).toFixed(1)} KiB\n\n`);

  const dir = mkdtempSync(join(tmpdir(), "hb-plugin-bench-"));
  const empty = join(dir, "empty-plugin.js");
  writeFileSync(empty, 'const { Plugin } = require("obsidian");\nmodule.exports = { default: class EmptyPlugin extends Plugin { async onload() {} } };\n');
  try {
    // 1. require + onload, cold (first) and warm (fresh module evaluation each time, cache dropped).
    // The body (services, status bar, settings, endpoint wiring) loads after the layout is ready,
    // outside Obsidian's start-up time; it is timed on its own (`bodySamples`), from its first use.
    const bodySamples: number[] = [];
    const timeLoad = async (file: string): Promise<number> => {
      delete load.cache[load.resolve(file)];
      const started = performance.now();
      const exported = load(file) as { default: new (app: unknown, manifest: unknown) => LoadedPlugin };
      const plugin = new exported.default(new fake.App(), { id: "hackmd-bridge", version: "bench" });
      plugin.data = { version: 1 };
      await plugin.onload();
      const elapsed = performance.now() - started;
      if (typeof plugin.loaded === "function") {
        const bodyStarted = performance.now();
        await plugin.loaded();
        bodySamples.push(performance.now() - bodyStarted);
      }
      plugin.unload();
      return elapsed;
    };
    const coldPlugin = await timeLoad(mainJs);
    const coldBody = bodySamples.pop();
    const coldEmpty = await timeLoad(empty);
    const pluginSamples: number[] = [];
    const emptySamples: number[] = [];
    for (let i = 0; i < loads; i++) {
      pluginSamples.push(await timeLoad(mainJs));
      emptySamples.push(await timeLoad(empty));
    }
    const p = summarize(pluginSamples);
    const e = summarize(emptySamples);
    const b = summarize(bodySamples);
    process.stdout.write(`require + onload (${loads} warm loads each, interleaved; cold = first load in this process) — ${loadNow()}\n`);
    process.stdout.write(
      `${table(
        ["module", "cold ms", "p50 ms", "p95 ms", "min ms", "p50 ×empty"],
        [
          ["main.js (HackMD Bridge)", ms(coldPlugin), ms(p.p50), ms(p.p95), ms(p.min), ratio(p.p50 / e.p50)],
          ["empty plugin", ms(coldEmpty), ms(e.p50), ms(e.p95), ms(e.min), ratio(1)],
        ],
        [1, 2, 3, 4, 5],
      )}\n`,
    );
    if (coldBody !== undefined) {
      process.stdout.write(
        `then, after the layout is ready (not in start-up time): the body's first use (inflate, compile, data.json, wiring) cold ${ms(coldBody)} ms, p50 ${ms(b.p50)} ms, p95 ${ms(b.p95)} ms\n`,
      );
    }
    process.stdout.write("\n");

    // 2. Opening a tracked file: the status refresh, with 1 and with N tracked notes.
    delete load.cache[load.resolve(mainJs)];
    const exported = load(mainJs) as { default: new (app: unknown, manifest: unknown) => LoadedPlugin };
    const app = new fake.App();
    const plugin = new exported.default(app, { id: "hackmd-bridge", version: "bench" });
    plugin.data = { version: 1 };
    await plugin.onload();
    await plugin.loaded();
    await app.vault.createFolder("notes");
    const seed = async (from: number, to: number): Promise<void> => {
      for (let i = from; i < to; i++) {
        const id = `benchNote${String(i).padStart(6, "0")}`;
        const localPath = `notes/${id}.md`;
        const body = `# Note ${i}\n\nBody of tracked note ${i}.\n`;
        const key = recordKey(null, id);
        await app.vault.create(localPath, body);
        await plugin.services.files.state.write(baselineFile(key), body);
        const record = { format: RECORD_FORMAT, internal_id: id, team_path: null, local_path: localPath, baseline_body_hash: `sha256:${await sha256Hex(body)}`, last_observed_remote_timestamp: "1700000000000" };
        await plugin.services.files.state.write(`tracked/${key}.json`, `${JSON.stringify(record, null, 2)}\n`);
        await plugin.services.files.state.write(`by-path/${await sha256Hex(localPath)}`, key);
      }
    };
    const timeOpens = async (count: number, untracked = false): Promise<number[]> => {
      const samples: number[] = [];
      for (let i = 0; i < opens; i++) {
        const path = untracked ? `notes/untracked${i % 10}.md` : `notes/benchNote${String(i % count).padStart(6, "0")}.md`;
        app.workspace.openPath(path);
        await new Promise((done) => setTimeout(done, 0));
        const started = performance.now();
        await plugin.status.refresh();
        samples.push(performance.now() - started);
      }
      return samples;
    };
    await seed(0, 1);
    const one = summarize(await timeOpens(1));
    const text = plugin.statusBarItems[0]?.text ?? "";
    const seedStarted = performance.now();
    await seed(1, noteCount);
    const seedMs = performance.now() - seedStarted;
    // The first refresh after the seeding builds the record index (one scan); then none reads a record.
    const counters = plugin.services.store.counters;
    await timeOpens(noteCount);
    const reads0 = counters.recordReads;
    const builds0 = counters.indexBuilds;
    const many = summarize(await timeOpens(noteCount));
    for (let i = 0; i < 10; i++) await app.vault.create(`notes/untracked${i}.md`, "Not tracked.\n");
    const untracked = summarize(await timeOpens(noteCount, true));
    const readsPerRefresh = (counters.recordReads - reads0) / (2 * opens);
    process.stdout.write(`status refresh of the active tracked file (${opens} opens each; seeding ${noteCount} records took ${(seedMs / 1000).toFixed(1)} s) — ${loadNow()}\n`);
    process.stdout.write(
      `${table(
        ["tracked notes", "p50 ms", "p95 ms", "mean ms", "min ms", "max ms", "p50 ×1 note"],
        [
          ["1", ms(one.p50), ms(one.p95), ms(one.mean), ms(one.min), ms(one.max), ratio(1)],
          [String(noteCount), ms(many.p50), ms(many.p95), ms(many.mean), ms(many.min), ms(many.max), ratio(many.p50 / one.p50)],
          [`${noteCount}, untracked file`, ms(untracked.p50), ms(untracked.p95), ms(untracked.mean), ms(untracked.min), ms(untracked.max), ratio(untracked.p50 / one.p50)],
        ],
        [1, 2, 3, 4, 5, 6],
      )}\n`,
    );
    process.stdout.write(`status bar text for a tracked, unchanged file: ${JSON.stringify(text)}\n`);
    process.stdout.write(
      `record reads per refresh with ${noteCount} tracked notes, index warm (tracked and untracked files): ${readsPerRefresh.toFixed(2)}; index builds during the timed refreshes: ${counters.indexBuilds - builds0}\n`,
    );
    plugin.unload();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
