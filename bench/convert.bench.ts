/**
 * Benchmark of the conversion module (run with `npm run bench -- convert`; see bench/README.md).
 *
 * - toRemote and toLocal of ~1 MB notes: plain, typical (constructs every few lines) and rich
 *   (wikilinks, embeds, images, callouts, nested callouts, comments, tables and code in every
 *   paragraph), with a context of 1,000 tracked notes, 500 uploaded images and 10,000 vault paths;
 * - the same rich note at 0.25, 1 and 4 MB, to show the time per MB stays flat (linear);
 * - adversarial inputs of the same size that a careless scanner would make quadratic;
 * - the module's size when bundled and minified as main.js bundles it.
 *
 * Each round trip is checked (toLocal(toRemote(x)) === x). Nothing here asserts a timing.
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { spawnSync } from "node:child_process";
import { buildConversionContext, toLocal, toRemote, type ConversionInput, type TrackedNote } from "../src/convert";
import { largeMarkdownNote, seededRandom } from "./lib/large-note";
import { loadNow, machineInfo, ms, summarize, table } from "./lib/report";
import { EMULATOR_CHILD, runEmulatorChild } from "./lib/emulator-child";
import { vaultBench } from "./lib/vault-bench";

const USAGE = `usage: npm run bench -- convert [--reps N] [--bytes N] [--vault DIR [--seeds A,B,C] [--big-only]]
  --reps N     timed repetitions per measurement, after one untimed warm-up (default 7)
  --bytes N    size of the main generated notes in bytes (default 1000000)
  --vault DIR  instead: a real vault's round trip (bench/lib/vault-roundtrip.ts) and publish,
               pull and push of a ~1 MB note made of its own notes
  --seeds L    the seeds of the random pull orders (default 1,2,3)
  --big-only   with --vault: only the ~1 MB note's timings, without the round trip`;

function options(): { reps: number; bytes: number; vault: string | undefined; seeds: number[]; bigOnly: boolean } {
  const { values } = parseArgs({
    options: {
      reps: { type: "string", default: "7" },
      bytes: { type: "string", default: "1000000" },
      vault: { type: "string" },
      seeds: { type: "string", default: "1,2,3" },
      "big-only": { type: "boolean", default: false },
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
  return {
    reps: count("reps", values.reps, 1),
    bytes: count("bytes", values.bytes, 1000),
    vault: values.vault,
    seeds: values.seeds.split(",").map((seed) => count("seeds", seed, 0)),
    bigOnly: values["big-only"],
  };
}

const NOTE_COUNT = 1000;
const IMAGE_COUNT = 500;

/** A vault of tracked notes, uploaded images and other files. */
function vaultInput(): ConversionInput {
  const notes = new Map<string, TrackedNote>();
  const images = new Map<string, string>();
  for (let i = 0; i < NOTE_COUNT; i++)
    notes.set(`notes/Note ${i}.md`, { url: `https://hackmd.io/note${i}`, id: `note${i}` });
  for (let i = 0; i < IMAGE_COUNT; i++)
    images.set(`attachments/image ${i}.png`, `https://hackmd.io/_uploads/img${i}.png`);
  const vaultPaths = Array.from({ length: 10_000 - NOTE_COUNT - IMAGE_COUNT }, (_, i) => `archive/Untracked ${i}.md`);
  return { notes, images, vaultPaths, commentSalt: "bench" };
}

/** A note of at least `bytes` characters with every construct the rules handle, deterministic. */
function richNote(bytes: number, seed = 7): string {
  const random = seededRandom(seed);
  const pick = (n: number): number => Math.floor(random() * n);
  const lines: string[] = ["---", "title: Large rich note", "tags: [bench, convert]", "aliases: [rich]", "---", ""];
  let size = 0;
  for (let section = 1; size < bytes; section++) {
    const note = (): string => `Note ${pick(NOTE_COUNT)}`;
    const image = (): string => `image ${pick(IMAGE_COUNT)}.png`;
    const block = [
      `## Section ${section}`,
      "",
      `Paragraph with [[${note()}]], [[${note()}|an alias]], [[${note()}#Some heading]] and [[Untracked ${pick(8000)}]].`,
      `Images ![[${image()}]] and ![[${image()}|300]] and ![alt](${encodeURI(image())}), a %%private remark ${section}%% and \`[[code]]\`.`,
      "",
      `![[${note()}]]`,
      "",
      `> [!warning] Careful in section ${section}`,
      `> Text with [[${note()}]].`,
      ">",
      "> > [!info]",
      "> > Nested.",
      "",
      "| key | link |",
      "| --- | --- |",
      `| k${section} | [[${note()}\\|alias]] |`,
      "",
      "```ts",
      `const link = "[[${note()}]]";`,
      "```",
      "",
      "%%",
      `block comment ${section}`,
      "%%",
      "",
    ];
    for (const line of block) size += line.length + 1;
    lines.push(...block);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The plain generated note with what a busy real note has: a wikilink in every paragraph, and per
 * section a callout, an embedded image, a note embed and a comment.
 */
function typicalNote(bytes: number): string {
  const random = seededRandom(11);
  const pick = (n: number): number => Math.floor(random() * n);
  const out: string[] = [];
  for (const line of largeMarkdownNote(bytes).split("\n")) {
    if (line.startsWith("Paragraph")) out.push(`${line} See [[Note ${pick(NOTE_COUNT)}]].`);
    else if (line.startsWith("## Section")) {
      out.push(
        line,
        "",
        "> [!info] Summary",
        `> Decided in [[Note ${pick(NOTE_COUNT)}]]. %%check with the team%%`,
        "",
        `![[image ${pick(IMAGE_COUNT)}.png|300]] ![[Note ${pick(NOTE_COUNT)}]]`,
      );
    } else out.push(line);
  }
  return out.join("\n");
}

/** Inputs of about `bytes` characters that a careless scanner would handle in quadratic time. */
function adversarial(bytes: number): Array<{ label: string; text: string }> {
  const repeat = (unit: string, tail = ""): string => unit.repeat(Math.ceil(bytes / unit.length)) + tail;
  return [
    { label: "container openers, one closer at the end", text: repeat(":::info\ntext\n", ":::\n") },
    { label: "block-comment openers, one closer at the end", text: repeat("<!---->%%\ntext\n", "%%\n") },
    { label: "unclosed %% on every line", text: repeat("%% open [[Note 1]] %\n") },
    { label: "one 1 MB line of [ and [[", text: repeat("[[ [ ![ a") },
    {
      label: "backtick runs of growing length",
      text: Array.from({ length: 1400 }, (_, i) => "`".repeat(i % 700)).join(" x "),
    },
    { label: "one quote run of 1 MB", text: repeat("> [!info] x [[Note 2]]\n") },
    { label: "a callout title with a 1 MB run of spaces", text: `> [!note] *${" ".repeat(bytes)}x\n> a` },
    { label: "a table delimiter row with a 1 MB run of spaces", text: `a|b\n|-${" ".repeat(bytes)}x\n` },
    { label: "# and a 1 MB run of spaces, then a same-note link", text: `#${" ".repeat(bytes)}!\n[[#x]]` },
  ];
}

async function measure(reps: number, run: () => unknown): Promise<number[]> {
  const samples: number[] = [];
  for (let rep = 0; rep <= reps; rep++) {
    const started = performance.now();
    run();
    const elapsed = performance.now() - started;
    if (rep > 0) samples.push(elapsed);
  }
  return Promise.resolve(samples);
}

/** Size of src/convert bundled and minified as main.js bundles it (through the esbuild command). */
function bundleSize(): { minified: number; gzip: number } {
  const run = spawnSync(
    "npx",
    ["esbuild", "src/convert/index.ts", "--bundle", "--minify", "--format=cjs", "--log-level=error"],
    { encoding: "buffer" },
  );
  if (run.status !== 0) throw new Error(`esbuild failed: ${run.stderr.toString()}`);
  return { minified: run.stdout.byteLength, gzip: gzipSync(run.stdout).byteLength };
}

async function main(): Promise<void> {
  // `--vault` starts this bundle again as the emulator of its 1 MB timings (lib/emulator-child.ts).
  if (process.argv[2] === EMULATOR_CHILD) process.exit(await runEmulatorChild());
  const { reps, bytes, vault, seeds, bigOnly } = options();
  if (vault !== undefined) {
    await vaultBench(vault, seeds, reps, bigOnly);
    return;
  }
  process.stdout.write(
    `${machineInfo()}\ncommand: ${["npm run bench -- convert", ...process.argv.slice(2)].join(" ")}\n`,
  );
  const loadBefore = loadNow();
  const built = performance.now();
  const input = vaultInput();
  const context = buildConversionContext(input);
  const buildMs = performance.now() - built;
  process.stdout.write(
    `\ncontext: ${NOTE_COUNT} tracked notes, ${IMAGE_COUNT} uploaded images, 10,000 vault paths; built in ${ms(buildMs)} ms\n`,
  );
  process.stdout.write(`${reps} timed repetitions per measurement after 1 warm-up\n\n`);

  const rows: string[][] = [];
  const time = async (label: string, text: string): Promise<void> => {
    const remote = toRemote(text, context);
    // toLocal needs the comment sources toRemote hid, as the engine keeps them.
    const decodeContext = buildConversionContext({ ...input, comments: new Map(remote.dependencies.comments) });
    const back = toLocal(remote.text, decodeContext);
    if (back.text !== text) throw new Error(`round trip failed for ${label}`);
    const up = summarize(await measure(reps, () => toRemote(text, context)));
    const down = summarize(await measure(reps, () => toLocal(remote.text, decodeContext)));
    const mb = text.length / 1_000_000;
    rows.push([
      label,
      (text.length / 1000).toFixed(0),
      ms(up.p50),
      ms(up.min),
      ms(down.p50),
      ms(down.min),
      ms(up.p50 / mb),
    ]);
  };

  await time(
    "typical note (plain + a link per paragraph, a callout, image, embed, comment per section)",
    typicalNote(bytes),
  );
  await time("rich note (every construct in every paragraph)", richNote(bytes));
  await time("plain note (bench/lib/large-note.ts)", largeMarkdownNote(bytes));
  for (const scale of [0.25, 4]) await time(`rich note ×${scale}`, richNote(Math.round(bytes * scale)));
  for (const { label, text } of adversarial(bytes)) await time(`adversarial: ${label}`, text);

  process.stdout.write(
    `${table(["input", "KB", "toRemote p50 ms", "toRemote min ms", "toLocal p50 ms", "toLocal min ms", "toRemote ms/MB"], rows, [1, 2, 3, 4, 5, 6])}\n`,
  );
  const size = bundleSize();
  process.stdout.write(
    `\nsrc/convert bundled and minified: ${(size.minified / 1024).toFixed(1)} KiB (${(size.gzip / 1024).toFixed(1)} KiB gzipped)\n`,
  );
  process.stdout.write(
    `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB; load ${loadBefore} → ${loadNow()}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
