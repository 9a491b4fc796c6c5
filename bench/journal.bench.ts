/**
 * The sync journal (src/sync/journal.ts): what one append costs as the newest segment grows to
 * its 64 KiB bound (each append rewrites it atomically under the journal's lock), with and without
 * replaced text kept, and what reading every kept entry costs (the `log` command, the tool, the
 * view). Node's real file system in a temporary folder; numbers to read, nothing asserted.
 * Usage: npm run bench -- journal [--entries 3000]
 */
import process from "node:process";
import "../src/node/node-apis-install";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { silentLogger } from "../src/core/ports";
import { NodeLocalFiles } from "../src/node/local-files";
import { SyncJournal } from "../src/sync/journal";
import { machineInfo, ms, summarize, table } from "./lib/report";

const argv = process.argv.slice(2);
const at = argv.indexOf("--entries");
const ENTRIES = at >= 0 ? Number(argv[at + 1]) : 3000;

async function run(keep: boolean): Promise<string[]> {
  const root = await mkdtemp(join(tmpdir(), "hb-bench-journal-"));
  try {
    const files = await NodeLocalFiles.open({ root });
    const journal = new SyncJournal({
      files: files.state,
      logger: silentLogger,
      stateFolder: files.root.stateFolder,
      defaultActor: { kind: "user", door: "command" },
    });
    const samples: number[] = [];
    for (let n = 0; n < ENTRIES; n += 1) {
      const started = performance.now();
      await journal.append({
        kind: "push",
        branch: "S3",
        note: { team_path: null, note_id: `note-${n}`, title: `Note ${n}` },
        file: `notes/note-${n}.md`,
        local: { before: `sha256:${"a".repeat(64)}`, after: `sha256:${"b".repeat(64)}` },
        remote: { before: `sha256:${"c".repeat(64)}`, after: `sha256:${"b".repeat(64)}` },
        ...(keep ? { keep: [{ side: "remote" as const, text: `# Note ${n}\n\n${"text ".repeat(400)}\n` }] } : {}),
      });
      samples.push(performance.now() - started);
    }
    const reads: number[] = [];
    let count = 0;
    for (let i = 0; i < 20; i += 1) {
      const started = performance.now();
      count = (await journal.read()).length;
      reads.push(performance.now() - started);
    }
    const append = summarize(samples);
    const read = summarize(reads);
    return [
      keep ? "with 2 KB kept text" : "hashes only",
      String(ENTRIES),
      ms(append.p50),
      ms(append.p95),
      ms(append.max),
      String(count),
      ms(read.p50),
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  process.stdout.write(`${machineInfo()}\n\n`);
  const rows = [await run(false), await run(true)];
  process.stdout.write(
    `${table(["entries", "appended", "append p50", "append p95", "append max", "kept (bounded)", "read all p50"], rows)}\n`,
  );
}

void main();
