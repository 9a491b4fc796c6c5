/** `hackmd-bridge push <path>`: the sync engine's push (docs/tools.md §14.3–§14.4) for people. */
import { CallContext } from "../../hackmd/call-context";
import { snapshotCleanupSentence } from "../../sync/snapshots";
import type { PushOutput } from "../../sync/types";
import { flag, text, type CommandContext, type HumanCommand } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { overwrittenSentence, safetySentence } from "../../hackmd/safety-version";
import { indent, UsageError, workspaceLabel, writeJson, type CommandIo } from "./output";
import { reportUnresolved } from "./pull";
import { commandLine } from "./words";

/** The checked arguments of `push`. */
export interface PushArgs {
  path: string;
  /** `--overwrite --confirm`: replace the remote body regardless (strategy overwrite). */
  overwrite: boolean;
  confirm: boolean;
  /** `--merge`: also merge edits of both sides that do not overlap (strategy merge). */
  merge: boolean;
  expectedRemoteHash: string | undefined;
  confirmLargeFile: boolean;
  json: boolean;
}

/** Sends a tracked file's edits: pushed / nothing_to_push exit 0, remote_changed / conflict exit 1. */
export async function runPush(args: PushArgs, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  const result = await core.deps.sync.push({
    localPath: args.path,
    strategy: args.overwrite ? "overwrite" : args.merge ? "merge" : "safe",
    confirm: args.confirm,
    expectedRemoteHash: args.expectedRemoteHash,
    confirmLargeFile: args.confirmLargeFile,
    call: new CallContext(),
  });
  // Without a note_ref cross-check the engine never returns an unresolved reference; kept for the type.
  if (result.kind === "unresolved") return reportUnresolved({ resolution: result.resolution, io, json: args.json });
  const out = result.output;
  const code = out.status === "pushed" || out.status === "nothing_to_push" ? EXIT.ok : EXIT.attention;
  if (args.json) {
    writeJson(io, {
      ...out,
      ...(result.safety === undefined ? {} : { safety: result.safety }),
      ...(result.mergeable === true ? { mergeable: true } : {}),
      ...(result.snapshot === undefined ? {} : { snapshot_cleanup: result.snapshot }),
    });
  } else {
    printPush({ out, io, mergeable: result.mergeable === true });
    // The .remote.md of an earlier conflict, removed now that both sides agree (or why it stayed).
    const snapshot = snapshotCleanupSentence(result.snapshot).trim();
    if (snapshot !== "") io.out(`${snapshot}\n`);
    // The version that keeps HackMD's previous text, and collaborators' versions overwritten.
    if (result.safety?.version !== undefined) io.out(`${safetySentence(result.safety.version)}\n`);
    if (result.safety?.overwritten !== undefined && result.safety.overwritten.length > 0)
      io.out(`${overwrittenSentence(result.safety.overwritten)}\n`);
  }
  return code;
}

/** The readable report of a push. */
function printPush(options: { out: PushOutput; io: CommandIo; mergeable: boolean }): void {
  const { out, io } = options;
  const note = `note ${out.note_id} (${workspaceLabel(out.team_path)})`;
  switch (out.status) {
    case "pushed":
      io.out(
        out.merged === true
          ? `Merged the edits of ${out.local_path} and ${note} into the file and pushed the result.\n`
          : `Pushed ${out.local_path} to ${note}.\n`,
      );
      break;
    case "nothing_to_push":
      io.out(
        out.merged === true
          ? `Merged ${note}'s edits into ${out.local_path}; the note already held every local edit, so nothing was sent.\n`
          : `Nothing to push: ${out.local_path} and ${note} hold the same text.\n`,
      );
      break;
    case "remote_changed":
      io.out(`Not pushed: ${note} changed on HackMD and ${out.local_path} has no local edits.\n`);
      if (out.instructions !== undefined) io.out(`${out.instructions}\n`);
      break;
    case "conflict":
      io.out(`Conflict: both ${out.local_path} and ${note} changed since the last sync; nothing was sent.\n`);
      if (options.mergeable) {
        // Same words as status: the edits do not overlap, so no hand merge is needed.
        io.out(
          `The edits do not overlap: ${commandLine("push", [out.local_path], " --merge")} (or hackmd-bridge sync) merges them.\n`,
        );
      }
      if (out.snapshot_path !== undefined) io.out(`The current remote body is in ${out.snapshot_path}\n`);
      if (out.snapshot_error !== undefined) io.out(`${out.snapshot_error}\n`);
      if (out.diff_summary !== undefined) io.out(`${indent(out.diff_summary)}\n`);
      if (out.instructions !== undefined) io.out(`${out.instructions}\n`);
      if (out.remote_body_hash !== undefined) {
        io.out(
          `After merging: ${commandLine("push", [out.local_path], ` --expected-remote-hash ${out.remote_body_hash}`)}\n`,
        );
      }
      break;
  }
  if (out.title_drift !== undefined) io.out(`Title drift: ${out.title_drift}\n`);
}

/** The `push` subcommand. */
export const pushCommand: HumanCommand = {
  name: "push",
  summary: "send a tracked file's edits to its note",
  synopsis: "<path> [options]",
  description: [
    "Sends the file only when the note has not changed on HackMD since the last sync. When both",
    "changed, nothing is sent: the note's current text is written to <name>.remote.md; merge it",
    "into the file, then push with the --expected-remote-hash the message gives. With --merge, edits",
    "of both sides that do not overlap are merged into the file and pushed (as sync does); edits",
    "that overlap are still a conflict. Once both sides agree, the <name>.remote.md this command",
    "wrote is removed, unless you edited it.",
  ].join("\n"),
  positionals: { required: ["path"] },
  options: {
    "expected-remote-hash": {
      type: "string",
      value: "<hash>",
      help: "push over a remote change you merged (the hash a conflict reported)",
    },
    merge: { type: "boolean", help: "merge edits of both sides that do not overlap into the file and push the result" },
    overwrite: {
      type: "boolean",
      help: "replace the note's text with the file, discarding remote edits (needs --confirm)",
    },
    confirm: { type: "boolean", help: "confirm --overwrite" },
    "confirm-large-file": { type: "boolean", help: "allow a file above 5 MiB" },
  },
  shared: ["root", "json"],
  exitCodes: {
    0: "pushed (with --merge: merged and pushed), or nothing to push",
    1: "not pushed: a conflict (<name>.remote.md written; with --merge: edits that overlap), a remote change to pull first, the file is not tracked, or a refusal naming the flag",
    2: "usage error, or a failure",
  },
  examples: [
    "hackmd-bridge push notes/plan.md",
    "hackmd-bridge push notes/plan.md --merge",
    "hackmd-bridge push notes/plan.md --expected-remote-hash sha256:…",
  ],
  parse: ({ values, positionals: given }) => {
    const [path = ""] = given;
    const confirm = flag(values, "confirm");
    const overwrite = flag(values, "overwrite");
    if (confirm && !overwrite) throw new UsageError("--confirm goes with --overwrite");
    const merge = flag(values, "merge");
    if (merge && overwrite) throw new UsageError("--merge and --overwrite contradict each other; give one of them");
    const args: PushArgs = {
      path,
      overwrite,
      confirm,
      merge,
      expectedRemoteHash: text(values, "expected-remote-hash"),
      confirmLargeFile: flag(values, "confirm-large-file"),
      json: flag(values, "json"),
    };
    return { json: args.json, run: (context) => runPush(args, context) };
  },
};
