/**
 * A child process for the journal's crash test (tests/sync/journal.test.ts): appends journal
 * entries to the state folder of the ROOT given as its argument as fast as it can, printing a
 * line after each, until it is killed. Bundled by esbuild before the test spawns it.
 */
import "../../../src/node/node-apis-install";
import { silentLogger } from "../../../src/core/ports";
import { NodeLocalFiles } from "../../../src/node/local-files";
import { SyncJournal } from "../../../src/sync/journal";

async function main(): Promise<void> {
  const root = process.argv[2] ?? ".";
  const files = await NodeLocalFiles.open({ root });
  const journal = new SyncJournal({
    files: files.state,
    logger: silentLogger,
    stateFolder: files.root.stateFolder,
    defaultActor: { kind: "user", door: "command" },
    segmentBytes: 4096,
    maxBytes: 16384,
  });
  for (let n = 0; ; n += 1) {
    await journal.append({
      kind: "push",
      branch: "S3",
      note: { team_path: null, note_id: `note-${n}`, title: "x".repeat(n % 300) },
      file: `notes/${n}.md`,
      keep: [{ side: "remote", text: `text ${n}\n`.repeat(50) }],
    });
    process.stdout.write(`${n}\n`);
  }
}

void main();
