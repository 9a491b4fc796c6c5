/**
 * `npm run bench -- convert --vault <dir>`: a real vault's round trip (vault-roundtrip.ts) as a
 * report, then publish, pull and push of a ~1 MB note made of the vault's own notes, against the
 * emulator on loopback (in a child process for those timings; `--big-only`: only them). Nothing here asserts a timing. With HB_VAULT_DUMP=<dir> it also writes
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
import { CallContext } from "../../src/hackmd/call-context";
import { DEFAULT_CONFIG_DIR } from "../../src/node/local-files";
import { startChildEmulator } from "./emulator-child";
import { loadNow, ms, summarize, table } from "./report";
import { isFolder, listFiles, openCore, roundTripVault } from "./vault-roundtrip";

/** Prints the vault report and the 1 MB timings. */
export async function vaultBench(
  vault: string,
  seeds: readonly number[],
  reps: number,
  bigOnly = false,
): Promise<void> {
  if (!(await isFolder(vault))) {
    process.stderr.write(`--vault ${vault} is not a folder\n`);
    process.exit(2);
  }
  if (bigOnly) {
    await bigNote(vault, reps);
    return;
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

/** One operation's samples: wall time and this process's CPU time (user + system, all its threads). */
interface Samples {
  wall: number[];
  cpu: number[];
}

/** Runs `run` and adds its wall and CPU time to `into` (unless it is the warm-up). */
async function timed<T>(into: Samples, warmUp: boolean, run: () => Promise<T> | T): Promise<T> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await run();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (!warmUp) {
    into.wall.push(wall);
    into.cpu.push((used.user + used.system) / 1000);
  }
  return result;
}

/**
 * Publish, pull and push of a ~1 MB note made of the vault's notes: p50, min and max of the wall
 * time and of this process's CPU time. The emulator runs in a child process (emulator-child.ts),
 * so its work is in the wall time but not in the CPU time. Each repetition publishes a note of its
 * own (its last line names the repetition), so nothing one repetition computed answers another.
 */
export async function bigNote(vault: string, reps: number): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "hb-vault-big-"));
  const emu = await startChildEmulator();
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
    const vaultPaths = await listFiles(root);
    const context = buildConversionContext({ vaultPaths, commentSalt: "bench" });
    const toRemoteTimes: Samples = { wall: [], cpu: [] };
    const toLocalTimes: Samples = { wall: [], cpu: [] };
    for (let rep = 0; rep <= reps; rep++) {
      const note = `${big}\nRepetition ${rep}.\n`;
      const remote = await timed(toRemoteTimes, rep === 0, () => toRemote(note, context));
      // toLocal with the comments toRemote hid, as the engine keeps them.
      const decode = buildConversionContext({
        vaultPaths,
        commentSalt: "bench",
        comments: new Map(remote.dependencies.comments),
      });
      await timed(toLocalTimes, rep === 0, () => toLocal(remote.text, decode));
    }
    const core = await openCore(emu, root);
    const deps = core.deps;
    const publish: Samples = { wall: [], cpu: [] };
    const pull: Samples = { wall: [], cpu: [] };
    const push: Samples = { wall: [], cpu: [] };
    for (let rep = 0; rep <= reps; rep++) {
      // The first round warms up.
      const warmUp = rep === 0;
      const path = `Big note ${rep}.md`;
      const note = `${big}\nRepetition ${rep}.\n`;
      await writeFile(join(root, path), note);
      const { noteId } = await timed(publish, warmUp, () =>
        publishFile(deps, new CallContext(), {
          path,
          teamPath: null,
          readPermission: "owner",
          writePermission: "owner",
        }),
      );
      await timed(pull, warmUp, () =>
        deps.sync.pull({
          localPath: path,
          resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: null, noteId }),
          overwriteLocal: true,
          discardLocalChanges: false,
          createParentDirs: false,
          confirmLargeFile: true,
          call: new CallContext(),
        }),
      );
      await writeFile(join(root, path), `${note}One more line ${rep}.\n`);
      const pushed = await timed(push, warmUp, () =>
        deps.sync.push({
          localPath: path,
          strategy: "safe",
          confirm: false,
          confirmLargeFile: true,
          call: new CallContext(),
        }),
      );
      if (pushed.kind !== "pushed" || pushed.output.status !== "pushed")
        throw new Error(
          `push of ${path} did not push (${JSON.stringify(pushed.kind === "pushed" ? pushed.output.status : pushed.kind)})`,
        );
    }
    const row = (name: string, samples: Samples): string[] => {
      const wall = summarize(samples.wall);
      const cpu = summarize(samples.cpu);
      return [name, ms(wall.p50), ms(wall.min), ms(wall.max), ms(cpu.p50), ms(cpu.min), ms(cpu.max)];
    };
    process.stdout.write(
      `\n~1 MB note of the vault's own notes (${(Buffer.byteLength(big) / 1e6).toFixed(2)} MB), ${reps} repetitions after a warm-up; load ${loadNow()}\n` +
        "wall: elapsed time; CPU: this process's user + system time (the emulator runs in a child process)\n",
    );
    process.stdout.write(
      `${table(
        ["operation", "wall p50 ms", "min", "max", "CPU p50 ms", "min", "max"],
        [
          row("toRemote alone", toRemoteTimes),
          row("toLocal alone", toLocalTimes),
          row("publish", publish),
          row("pull", pull),
          row("push (one line added)", push),
        ],
        [1, 2, 3, 4, 5, 6],
      )}\n`,
    );
  } finally {
    await emu.close();
    await rm(work, { recursive: true, force: true });
  }
}
