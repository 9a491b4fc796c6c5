/**
 * `npm run bench -- convert --vault <dir>`: a real vault's round trip (vault-roundtrip.ts) as a
 * report, then publish, pull and push of a ~1 MB note made of the vault's own notes, against the
 * emulator on loopback. Nothing here asserts a timing. With HB_VAULT_DUMP=<dir> it also writes
 * what HackMD holds for each note there, to look at what is left.
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { publishFile } from "../../src/app/publish";
import { buildConversionContext, toLocal, toRemote } from "../../src/convert";
import { startEmulator } from "../../src/emulator";
import { CallContext } from "../../src/hackmd/call-context";
import { DEFAULT_CONFIG_DIR } from "../../src/node/local-files";
import { ms, summarize, table } from "./report";
import { isFolder, listFiles, openCore, roundTripVault } from "./vault-roundtrip";

/** Prints the vault report and the 1 MB timings. */
export async function vaultBench(vault: string, seeds: readonly number[], reps: number): Promise<void> {
  if (!(await isFolder(vault))) {
    process.stderr.write(`--vault ${vault} is not a folder\n`);
    process.exit(2);
  }
  const log = (line: string): void => void process.stdout.write(`  ${line}\n`);
  const started = performance.now();
  const report = await roundTripVault(vault, { seeds, log });
  process.stdout.write(`\nvault ${vault} (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  process.stdout.write(`published ${report.published}/${report.notes}\n`);
  for (const failure of report.failures.slice(0, 10))
    process.stdout.write(`  failed: ${failure.path}: ${failure.reason}\n`);
  for (const order of report.orders)
    process.stdout.write(
      `seed ${order.seed}: ${order.identical} byte-identical, ${order.identicalButComments} identical but for comments, ${order.differing.length} differ${order.differing.length === 0 ? "" : ` (${order.differing.slice(0, 5).join(", ")}${order.differing.length > 5 ? ", …" : ""})`}\n`,
    );
  const first = report.orders[0];
  for (const [path, [a, b]] of [...(first?.firstDifference ?? [])].slice(0, 12))
    process.stdout.write(`  ${path}\n    original: ${a.slice(0, 400)}\n    pulled:   ${b.slice(0, 400)}\n`);
  if (report.addedFiles.length > 0)
    process.stdout.write(
      `files a pull added: ${report.addedFiles.length} (${report.addedFiles.slice(0, 5).join(", ")})\n`,
    );
  const percent = report.published === 0 ? 0 : (100 * report.withSyntax) / report.published;
  process.stdout.write(
    `notes whose HackMD text holds Obsidian-only syntax: ${report.withSyntax}/${report.published} (${percent.toFixed(1)}%)\n`,
  );
  process.stdout.write(
    `${table(
      ["construct", "notes", "e.g."],
      report.constructs.map(([name, count]) => [
        name,
        String(count),
        [...report.leftIn].find(([, found]) => found.includes(name))?.[0] ?? "",
      ]),
      [1],
    )}\n`,
  );
  const dump = process.env.HB_VAULT_DUMP;
  if (dump !== undefined)
    for (const [path, text] of report.remote) {
      await mkdir(dirname(join(dump, path)), { recursive: true });
      await writeFile(join(dump, path), text);
    }
  await bigNote(vault, reps);
}

/** Publish, pull and push p50 of a ~1 MB note made of the vault's notes. */
async function bigNote(vault: string, reps: number): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "hb-vault-big-"));
  const emu = await startEmulator({ port: 0 });
  try {
    const root = join(work, "vault");
    await cp(vault, root, { recursive: true, filter: (path) => !relative(vault, path).startsWith(DEFAULT_CONFIG_DIR) });
    const notes = (await listFiles(root)).filter((path) => path.endsWith(".md"));
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < 1_000_000; i++) {
      const text = await readFile(join(root, notes[i % notes.length] as string), "utf8");
      parts.push(text.replace(/^---\n[\s\S]*?\n---\n/, ""));
      size += Buffer.byteLength(text);
    }
    const big = parts.join("\n");
    // The conversion alone, both ways, with the vault's files as context (no tracked notes).
    const context = buildConversionContext({ vaultPaths: await listFiles(root), commentSalt: "bench" });
    const remoteText = toRemote(big, context).text;
    const toRemoteMs: number[] = [];
    const toLocalMs: number[] = [];
    for (let rep = 0; rep <= reps; rep++) {
      let t = performance.now();
      toRemote(big, context);
      const r = performance.now() - t;
      t = performance.now();
      toLocal(remoteText, context);
      const l = performance.now() - t;
      if (rep === 0) continue;
      toRemoteMs.push(r);
      toLocalMs.push(l);
    }
    const core = await openCore(emu, root);
    const deps = core.deps;
    const publish: number[] = [];
    const pull: number[] = [];
    const push: number[] = [];
    for (let rep = 0; rep <= reps; rep++) {
      const path = `Big note ${rep}.md`;
      await writeFile(join(root, path), big);
      let t = performance.now();
      const { noteId } = await publishFile(deps, new CallContext(), {
        path,
        teamPath: null,
        readPermission: "owner",
        writePermission: "owner",
      });
      const published = performance.now() - t;
      t = performance.now();
      await deps.sync.pull({
        localPath: path,
        resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: null, noteId }),
        overwriteLocal: true,
        discardLocalChanges: false,
        createParentDirs: false,
        confirmLargeFile: true,
        call: new CallContext(),
      });
      const pulled = performance.now() - t;
      await writeFile(join(root, path), `${big}\nOne more line ${rep}.\n`);
      t = performance.now();
      await deps.sync.push({
        localPath: path,
        strategy: "safe",
        confirm: false,
        confirmLargeFile: true,
        call: new CallContext(),
      });
      const pushed = performance.now() - t;
      // The first round warms up.
      if (rep === 0) continue;
      publish.push(published);
      pull.push(pulled);
      push.push(pushed);
    }
    const row = (name: string, samples: number[]): string[] => {
      const summary = summarize(samples);
      return [name, ms(summary.p50), ms(summary.min), ms(summary.max)];
    };
    process.stdout.write(
      `\n~1 MB note of the vault's own notes (${(Buffer.byteLength(big) / 1e6).toFixed(2)} MB), ${reps} repetitions after a warm-up:\n`,
    );
    process.stdout.write(
      `${table(
        ["operation", "p50 ms", "min ms", "max ms"],
        [
          row("toRemote alone", toRemoteMs),
          row("toLocal alone", toLocalMs),
          row("publish", publish),
          row("pull", pull),
          row("push (one line added)", push),
        ],
        [1, 2, 3],
      )}\n`,
    );
  } finally {
    await emu.close();
    await rm(work, { recursive: true, force: true });
  }
}
