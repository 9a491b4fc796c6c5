/**
 * `hackmd-bridge diff <path> [--remote]`: a unified diff of a tracked file against its baseline
 * (the text both sides last agreed on; no request), or against the note on HackMD (one GET).
 * Exit codes: 0 no differences, 1 differences (as diff(1)) or a refusal such as a file that is not
 * tracked (as every subcommand), 2 trouble. Nothing is written.
 */
import { createTwoFilesPatch } from "diff";
import { BridgeError } from "../../core/errors";
import { normalizeLineEndings } from "../../core/text";
import { CallContext } from "../../hackmd/call-context";
import { MAX_BODY_BYTES } from "../../sync/service";
import { flag, type CommandContext, type HumanCommand } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { writeJson } from "./output";
import { trackedNote } from "./tracked-note";

/** The checked arguments of `diff`. */
export interface DiffArgs {
  path: string;
  remote: boolean;
  json: boolean;
}

/** Prints the diff; exit 0 when the texts are the same, 1 when they differ. */
export async function runDiff(args: DiffArgs, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  const deps = core.deps;
  const { path, found, store } = await trackedNote(context, args.path, "baseline or note to compare with");
  const resolved = { path };
  const local = await readText(context, resolved.path);
  let other: string;
  let label: string;
  if (args.remote) {
    const note = await deps.client.getNote(new CallContext(), {
      teamPath: found.record.team_path,
      noteId: found.record.internal_id,
    });
    other = normalizeLineEndings(note.content ?? "");
    label = `note ${found.record.internal_id} on HackMD`;
  } else {
    other = normalizeLineEndings((await store.load(found)).baseline);
    label = `${resolved.path} at the last sync (baseline)`;
  }
  // In the syntax the file is written in (docs/conversion-rules.md), so only real edits show.
  other = await deps.sync.localFormOf(found, other);
  const changed = other !== local;
  const diff = changed
    ? createTwoFilesPatch(label, resolved.path, other, local, undefined, undefined, { context: 3 })
        .split("\n")
        .slice(1)
        .join("\n")
    : "";
  if (args.json) {
    writeJson(io, {
      local_path: resolved.path,
      note_id: found.record.internal_id,
      team_path: found.record.team_path,
      against: args.remote ? "remote" : "baseline",
      changed,
      diff,
    });
  } else if (changed) {
    io.out(diff.endsWith("\n") ? diff : `${diff}\n`);
  } else {
    io.out(
      `No differences: ${resolved.path} is the same as ${args.remote ? "the note on HackMD" : "at the last sync"}.\n`,
    );
  }
  return changed ? EXIT.attention : EXIT.ok;
}

/** The working file as normalised text. */
async function readText(context: CommandContext, path: string): Promise<string> {
  const read = await context.core.deps.files.read(path, { maxBytes: MAX_BODY_BYTES });
  if (read.truncated) throw new BridgeError("too_large", `${path} is larger than 50 MiB.`);
  try {
    return normalizeLineEndings(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(read.bytes));
  } catch {
    throw new BridgeError("invalid_input", `${path} is not UTF-8 text.`);
  }
}

/** The `diff` subcommand. */
export const diffCommand: HumanCommand = {
  name: "diff",
  summary: "show a tracked file's changes since the last sync, or (--remote) against HackMD",
  synopsis: "<path> [--remote] [options]",
  description: [
    "Without --remote: the file against its baseline, the text both sides last agreed on (no",
    "request). With --remote: the file against the note on HackMD now (one request).",
    "Lines marked + are in the file, lines marked - in the other side.",
  ].join("\n"),
  positionals: { required: ["path"] },
  options: { remote: { type: "boolean", help: "compare with the note on HackMD instead of the baseline" } },
  shared: ["root", "json"],
  exitCodes: {
    0: "no differences",
    1: "differences (shown), or refused: the file is not tracked",
    2: "usage error, or trouble (a damaged record, token, network)",
  },
  examples: ["hackmd-bridge diff notes/plan.md", "hackmd-bridge diff notes/plan.md --remote"],
  parse: ({ values, positionals: given }) => {
    const args: DiffArgs = { path: given[0] ?? "", remote: flag(values, "remote"), json: flag(values, "json") };
    return { json: args.json, run: (context) => runDiff(args, context) };
  },
};
