// Plugin bench. Builds three plugins and loads them side by side in one interleaved run:
//   - main.js as esbuild.config.mjs builds it (scripts/plugin-build.cjs), into a temporary folder;
//   - the baseline: the same features before the plain bundle, commit BASELINE_COMMIT's source
//     bundled by esbuild as one plain minified file (that commit's options, without its packing
//     step), taken from git;
//   - an empty plugin;
//   - and, as the floor of main.js's bytes, main.js's text inside a function that is never called
//     (V8 pre-parses it and runs nothing) under an empty plugin.
// Timed: require + onload as Obsidian's start-up sees it. Obsidian runs `onLayoutReady` callbacks
// registered during start-up only after every plugin has loaded, so here they are held until
// onload has returned and timed on their own ("after layout ready", not start-up time).
// Then the cost of the status refresh when a tracked file is opened with 1 and N tracked notes.
// Usage: npm run bench -- plugin [--loads N] [--notes N] [--opens N] [--also file.js ...]
import process from "node:process";
import { setTimeout } from "node:timers";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { sha256Hex } from "../src/core/hash";
import { baselineFile, RECORD_FORMAT, recordKey } from "../src/sync/store";
import { loadNow, machineInfo, ms, ratio, summarize, table } from "./lib/report";

type Fake = typeof import("../tests/__mocks__/obsidian");

/** The last commit whose main.js packed its lazy chunks (base64, `new Function`): the baseline's source. */
const BASELINE_COMMIT = "7869d6c";

interface LoadedPlugin {
  onload(): Promise<void> | void;
  loaded?: () => Promise<unknown>;
  unload(): void;
  data: unknown;
  statusBarItems: Array<{ text: string }>;
  services: {
    files: { state: { write(path: string, data: string): Promise<unknown> } };
    store: { counters: { recordReads: number; indexBuilds: number } };
  };
  status: { refresh(): Promise<void> };
}

const { values } = parseArgs({
  options: {
    loads: { type: "string", default: "30" },
    notes: { type: "string", default: "10000" },
    opens: { type: "string", default: "200" },
    also: { type: "string", multiple: true, default: [] },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  process.stdout.write("npm run bench -- plugin [--loads N] [--notes N] [--opens N] [--also file.js ...]\n");
  process.exit(0);
}
const loads = Number(values.loads);
const noteCount = Number(values.notes);
const opens = Number(values.opens);

const root = process.cwd();
/** Node's require, for loading the plugins fresh (their cache entries are dropped before each load; they are
 * named by absolute path, so where it resolves from does not matter). */
const load = createRequire(join(root, "package.json"));
/** The build tools, from the repository (not bundled into this bench). */
const fromRoot = createRequire(join(root, "package.json"));

interface Variant {
  name: string;
  file: string;
}

/** Builds main.js as esbuild.config.mjs does (production: minified, no source map). */
async function buildMainJs(dir: string): Promise<string> {
  const { pluginOptions } = fromRoot("./scripts/plugin-build.cjs") as typeof import("../scripts/plugin-build.cjs");
  const esbuild = fromRoot("esbuild") as typeof import("esbuild");
  const outfile = join(dir, "main.js");
  await esbuild.build({ ...pluginOptions({ version: "bench", outfile }), logLevel: "warning" });
  return outfile;
}

/** Builds BASELINE_COMMIT's source as one plain minified file with that commit's own plugin options. */
async function buildBaseline(dir: string): Promise<string | undefined> {
  const source = join(dir, "baseline");
  const archive = spawnSync(
    "git",
    ["archive", "--format=tar", BASELINE_COMMIT, "src", "scripts/plugin-bundle.cjs", "package.json"],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
  if (archive.status !== 0) {
    process.stdout.write(
      `baseline: not built (git archive ${BASELINE_COMMIT} failed: ${archive.stderr.toString().trim() || archive.error?.message || "no git"})\n`,
    );
    return undefined;
  }
  mkdirSync(source, { recursive: true });
  const untar = spawnSync("tar", ["-x", "-C", source], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar: ${untar.stderr.toString()}`);
  symlinkSync(join(root, "node_modules"), join(source, "node_modules"), "dir");
  const old = createRequire(join(source, "package.json"))("./scripts/plugin-bundle.cjs") as {
    pluginOptions(options: { version: string; outfile: string }): import("esbuild").BuildOptions;
  };
  const esbuild = fromRoot("esbuild") as typeof import("esbuild");
  const outfile = join(dir, "baseline.js");
  // Its buildPlugin would pack the lazy chunks; esbuild.build with the same options does not.
  await esbuild.build({
    ...old.pluginOptions({ version: "bench", outfile }),
    absWorkingDir: source,
    logLevel: "warning",
  });
  return outfile;
}

function size(file: string): string {
  const bytes = statSync(file).size;
  const gzip = gzipSync(readFileSync(file)).byteLength;
  return `${(bytes / 1024).toFixed(1)} KiB (${bytes} bytes), gzip ${(gzip / 1024).toFixed(1)} KiB`;
}

async function main(): Promise<void> {
  // The fake obsidian module calls jest.fn at load; a minimal stand-in is enough here. It also
  // expects `window`, the global object as in Obsidian's renderer. Node names the global object
  // only `globalThis`: the one use the hub's scan reports here (CONTRIBUTING.md, "Lint").
  const host = globalThis as Record<string, unknown>;
  host.jest = {
    fn: (impl: (...args: unknown[]) => unknown) =>
      Object.assign((...args: unknown[]) => impl(...args), { mockImplementation: () => undefined }),
  };
  host.window ??= host;
  const fake: Fake = await import("../tests/__mocks__/obsidian");
  const moduleInternals = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const originalLoad = moduleInternals._load;
  moduleInternals._load = function load(request: string, ...rest: unknown[]): unknown {
    return request === "obsidian" ? fake : originalLoad.call(this, request, ...rest);
  };
  console.debug = () => undefined;

  process.stdout.write(`${machineInfo()}\n\n`);
  const dir = mkdtempSync(join(tmpdir(), "hb-plugin-bench-"));
  try {
    const empty = join(dir, "empty-plugin.js");
    writeFileSync(
      empty,
      'const { Plugin } = require("obsidian");\nmodule.exports = { default: class EmptyPlugin extends Plugin { async onload() {} } };\n',
    );
    const mainJs = await buildMainJs(dir);
    const baseline = await buildBaseline(dir);
    const parsedOnly = join(dir, "main-parsed-only.js");
    writeFileSync(
      parsedOnly,
      `function neverCalled(require, module, exports) {\n${readFileSync(mainJs, "utf8")}\n}\nconst { Plugin } = require("obsidian");\nmodule.exports = { default: class EmptyPlugin extends Plugin { async onload() {} } };\n`,
    );
    const variants: Variant[] = [
      ...(baseline ? [{ name: `baseline: ${BASELINE_COMMIT} as one plain file`, file: baseline }] : []),
      { name: "main.js (this build)", file: mainJs },
      { name: "empty plugin", file: empty },
      { name: "main.js parsed only (never run)", file: parsedOnly },
      ...values.also.map((file) => ({ name: basename(file), file: resolve(file) })),
    ];
    for (const variant of variants) process.stdout.write(`${variant.name}: ${size(variant.file)}\n`);
    process.stdout.write("\n");

    // 1. require + onload (fresh module evaluation each time: the cache entry is dropped), then
    // what waited for the layout, timed apart; then unload (not timed).
    const samples = new Map<Variant, { start: number[]; later: number[] }>(
      variants.map((variant) => [variant, { start: [], later: [] }]),
    );
    const timeLoad = async (variant: Variant): Promise<void> => {
      const app = new fake.App();
      const layoutReady: Array<() => unknown> = [];
      app.workspace.onLayoutReady = (callback: () => unknown) => void layoutReady.push(callback);
      delete load.cache[load.resolve(variant.file)];
      const started = performance.now();
      const exported = load(variant.file) as { default: new (app: unknown, manifest: unknown) => LoadedPlugin };
      const plugin = new exported.default(app, { id: "hackmd-bridge", version: "bench" });
      plugin.data = { version: 1 };
      await plugin.onload();
      const elapsed = performance.now() - started;
      const laterStarted = performance.now();
      for (const callback of layoutReady.splice(0)) await callback();
      // The baseline's body waits for a timer after layout ready; its first use is what it defers.
      if (typeof plugin.loaded === "function") await plugin.loaded();
      const later = performance.now() - laterStarted;
      plugin.unload();
      const sample = samples.get(variant);
      sample?.start.push(elapsed);
      sample?.later.push(later);
    };
    for (const variant of variants) await timeLoad(variant);
    const cold = new Map(variants.map((variant) => [variant, samples.get(variant)?.start.pop() ?? Number.NaN]));
    for (const variant of variants) samples.get(variant)?.later.pop();
    for (let i = 0; i < loads; i++) for (const variant of variants) await timeLoad(variant);
    const summaries = new Map(
      variants.map((variant) => [
        variant,
        { start: summarize(samples.get(variant)?.start ?? []), later: summarize(samples.get(variant)?.later ?? []) },
      ]),
    );
    const emptyP50 =
      summaries.get(variants.find((variant) => variant.file === empty) ?? variants[0]!)?.start.p50 ?? Number.NaN;
    const baselineP50 = baseline ? (summaries.get(variants[0]!)?.start.p50 ?? Number.NaN) : Number.NaN;
    process.stdout.write(
      `require + onload (${loads} loads each, interleaved; cold = first load in this process) — ${loadNow()}\n`,
    );
    process.stdout.write(
      `${table(
        ["module", "cold ms", "p50 ms", "p95 ms", "min ms", "p50 ×baseline", "p50 ×empty", "after layout ready p50 ms"],
        variants.map((variant) => {
          const summary = summaries.get(variant)!;
          return [
            variant.name,
            ms(cold.get(variant) ?? Number.NaN),
            ms(summary.start.p50),
            ms(summary.start.p95),
            ms(summary.start.min),
            ratio(summary.start.p50 / baselineP50),
            ratio(summary.start.p50 / emptyP50),
            ms(summary.later.p50),
          ];
        }),
        [1, 2, 3, 4, 5, 6, 7],
      )}\n\n`,
    );

    // 2. Opening a tracked file: the status refresh, with 1 and with N tracked notes.
    delete load.cache[load.resolve(mainJs)];
    const exported = load(mainJs) as { default: new (app: unknown, manifest: unknown) => LoadedPlugin };
    const app = new fake.App();
    const plugin = new exported.default(app, { id: "hackmd-bridge", version: "bench" });
    plugin.data = { version: 1 };
    await plugin.onload();
    await app.vault.createFolder("notes");
    const seed = async (from: number, to: number): Promise<void> => {
      for (let i = from; i < to; i++) {
        const id = `benchNote${String(i).padStart(6, "0")}`;
        const localPath = `notes/${id}.md`;
        const body = `# Note ${i}\n\nBody of tracked note ${i}.\n`;
        const key = recordKey(null, id);
        await app.vault.create(localPath, body);
        await plugin.services.files.state.write(baselineFile(key), body);
        const record = {
          format: RECORD_FORMAT,
          internal_id: id,
          team_path: null,
          local_path: localPath,
          baseline_body_hash: `sha256:${await sha256Hex(body)}`,
          last_observed_remote_timestamp: "1700000000000",
        };
        await plugin.services.files.state.write(`tracked/${key}.json`, `${JSON.stringify(record, null, 2)}\n`);
        await plugin.services.files.state.write(`by-path/${await sha256Hex(localPath)}`, key);
      }
    };
    const timeOpens = async (count: number, untracked = false): Promise<number[]> => {
      const opened: number[] = [];
      for (let i = 0; i < opens; i++) {
        const path = untracked
          ? `notes/untracked${i % 10}.md`
          : `notes/benchNote${String(i % count).padStart(6, "0")}.md`;
        app.workspace.openPath(path);
        await new Promise((done) => setTimeout(done, 0));
        const started = performance.now();
        await plugin.status.refresh();
        opened.push(performance.now() - started);
      }
      return opened;
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
    process.stdout.write(
      `status refresh of the active tracked file (${opens} opens each; seeding ${noteCount} records took ${(seedMs / 1000).toFixed(1)} s) — ${loadNow()}\n`,
    );
    process.stdout.write(
      `${table(
        ["tracked notes", "p50 ms", "p95 ms", "mean ms", "min ms", "max ms", "p50 ×1 note"],
        [
          ["1", ms(one.p50), ms(one.p95), ms(one.mean), ms(one.min), ms(one.max), ratio(1)],
          [
            String(noteCount),
            ms(many.p50),
            ms(many.p95),
            ms(many.mean),
            ms(many.min),
            ms(many.max),
            ratio(many.p50 / one.p50),
          ],
          [
            `${noteCount}, untracked file`,
            ms(untracked.p50),
            ms(untracked.p95),
            ms(untracked.mean),
            ms(untracked.min),
            ms(untracked.max),
            ratio(untracked.p50 / one.p50),
          ],
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
