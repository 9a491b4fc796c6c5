/**
 * Fast setup for sync benches: tracked notes written straight into a ROOT in the on-disk format
 * of docs/tools.md §13 (working file, baseline, record, by-path hint), as a pull would leave them.
 * `SyncStateStore.save` rescans every record to drop displaced ones (§13.6 step 1), so saving
 * 10,000 records through it would read ~50 million records; this writes each file once.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { sha256Hex } from "../../src/core/hash";
import { baselineFile, RECORD_FORMAT, recordKey } from "../../src/sync/store";

/** One tracked note to write: the file and its baseline hold `body`; the record `timestamp`. */
export interface SeededNote {
  id: string;
  teamPath: string | null;
  /** ROOT-relative path of the working file. */
  localPath: string;
  body: string;
  /** The note's `lastChangedAt` in ms, as the emulator lists it. */
  timestamp: number;
}

/** A Markdown body of about `bytes` bytes (ASCII), different for every `index`. */
export function noteBody(index: number, bytes: number): string {
  const lines = [`# Note ${index}`, ""];
  let size = lines.join("\n").length + 1;
  for (let line = 1; size < bytes; line += 1) {
    const text = `Line ${line} of note ${index}: the quick brown fox jumps over the lazy dog, again and again.`;
    lines.push(text);
    size += text.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

/** Writes every note's working file, baseline, record and hint under `root` (`concurrency` files at once). */
export async function writeTrackedNotes(options: {
  root: string;
  stateFolder: string;
  notes: readonly SeededNote[];
  concurrency?: number;
}): Promise<void> {
  const state = join(options.root, options.stateFolder);
  const folders = new Set([
    join(state, "tracked"),
    join(state, "by-path"),
    ...options.notes.map((note) => dirname(join(options.root, note.localPath))),
  ]);
  for (const folder of folders) await mkdir(folder, { recursive: true, mode: 0o700 });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.notes.length) {
      const note = options.notes[next] as SeededNote;
      next += 1;
      const key = recordKey(note.teamPath, note.id);
      const record = {
        format: RECORD_FORMAT,
        internal_id: note.id,
        team_path: note.teamPath,
        local_path: note.localPath,
        baseline_body_hash: `sha256:${await sha256Hex(note.body)}`,
        last_observed_remote_timestamp: String(note.timestamp),
      };
      await writeFile(join(options.root, note.localPath), note.body);
      await writeFile(join(state, baselineFile(key)), note.body, { mode: 0o600 });
      await writeFile(join(state, "tracked", `${key}.json`), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
      await writeFile(join(state, "by-path", await sha256Hex(note.localPath)), key, { mode: 0o600 });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 32) }, () => worker()));
}
