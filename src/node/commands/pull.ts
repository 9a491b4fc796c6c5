/** `hackmd-bridge pull <note_ref> <path>`: the sync engine's pull (docs/tools.md §14.1–§14.2) for people. */
import { CallContext } from "../../hackmd/call-context";
import { resolveRef, unresolvedOutput } from "../../app/notes";
import { snapshotCleanupSentence } from "../../sync/snapshots";
import type { UnresolvedTarget } from "../../sync/types";
import { flag, teamOption, text, type CommandContext, type HumanCommand } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { formatTable, indent, UsageError, workspaceLabel, writeJson, type CommandIo } from "./output";

/** The checked arguments of `pull`. */
export interface PullArgs {
  noteRef: string;
  path: string;
  /** `--team`: where a bare note id is looked up (personal workspace when absent). */
  teamPath: string | null;
  overwrite: boolean;
  discardLocalChanges: boolean;
  createParentDirs: boolean;
  confirmLargeFile: boolean;
  /** `--convert` / `--no-convert` (docs/conversion-rules.md); undefined: the note's setting, else on in a vault. */
  convert: boolean | undefined;
  json: boolean;
}

/** Writes a note into a Markdown file and tracks it; refusals throw (exit 1 via the caller). */
export async function runPull(args: PullArgs, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  const call = new CallContext();
  const result = await core.deps.sync.pull({
    localPath: args.path,
    resolveTarget: () =>
      resolveRef(core.deps, call, args.noteRef, { teamPath: args.teamPath, refresh: false, label: "<note_ref>" }),
    overwriteLocal: args.overwrite,
    discardLocalChanges: args.discardLocalChanges,
    createParentDirs: args.createParentDirs,
    confirmLargeFile: args.confirmLargeFile,
    ...(args.convert === undefined ? {} : { convert: args.convert }),
    call,
  });
  if (result.kind === "unresolved") return reportUnresolved({ resolution: result.resolution, io, json: args.json });
  const out = result.output;
  if (args.json) {
    writeJson(io, result.snapshot === undefined ? out : { ...out, snapshot_cleanup: result.snapshot });
    return EXIT.ok;
  }
  io.out(
    `Pulled "${out.title}" (${workspaceLabel(out.team_path)}, note ${out.note_id}) to ${out.local_path}: ${out.bytes} bytes.\n`,
  );
  if (out.moved_from !== undefined) {
    // The record moved: say so, or the first file silently stops syncing.
    io.out(
      `The note was tracked at ${out.moved_from} until now; it is tracked at ${out.local_path} from now on, and ${out.moved_from} is kept but no longer tracked.\n`,
    );
  }
  const snapshot = snapshotCleanupSentence(result.snapshot).trim();
  if (snapshot !== "") io.out(`${snapshot}\n`);
  if (out.changes !== undefined) io.out(`Changes to the replaced file:\n${indent(out.changes)}\n`);
  if (out.title_drift !== undefined) io.out(`Title drift: ${out.title_drift}\n`);
  return EXIT.ok;
}

/** Reports a reference that matched no note or several (exit 1, candidates listed). */
export function reportUnresolved(options: { resolution: UnresolvedTarget; io: CommandIo; json: boolean }): ExitCode {
  const { resolution, io, json } = options;
  if (json) {
    writeJson(io, unresolvedOutput(resolution));
    return EXIT.attention;
  }
  if (resolution.status === "not_found") {
    io.err(
      `No note matches ${resolution.query}; nothing was written. Give a note id, a short id from \`hackmd-bridge list\`, or a HackMD URL (with --team for a team note).\n`,
    );
    return EXIT.attention;
  }
  const rows = resolution.candidates.map((candidate) => [
    candidate.note_id,
    workspaceLabel(candidate.team_path),
    candidate.title,
  ]);
  io.err(
    `${resolution.candidates.length} notes match ${resolution.query}; nothing was written. Pull one of them by its id:\n${formatTable([["note", "workspace", "title"], ...rows])}`,
  );
  return EXIT.attention;
}

/** The `pull` subcommand. */
export const pullCommand: HumanCommand = {
  name: "pull",
  summary: "write a note into a Markdown file and track it",
  synopsis: "<note_ref> <path> [options]",
  description: [
    "<note_ref> is a note id, a short id as `list` shows it, or a HackMD URL",
    "(https://hackmd.io/<id> or https://hackmd.io/@<owner>/<permalink>). <path> is a .md file",
    "inside the root. A file that exists is replaced only with --overwrite, and never when it has",
    "edits that were not pushed (unless --discard-local-changes).",
    "In an Obsidian vault the file is written in Obsidian's syntax (wikilinks, embeds, callouts,",
    "%%comments%%; docs/conversion-rules.md) and converted back on push; --no-convert syncs this",
    "note byte for byte from now on, --convert turns that back on.",
  ].join("\n"),
  positionals: { required: ["note_ref", "path"] },
  options: {
    team: { type: "string", value: "<team_path>", help: "the team workspace a bare note id is in (default: personal)" },
    overwrite: { type: "boolean", help: "replace an existing file (unpushed edits are still protected)" },
    "discard-local-changes": { type: "boolean", help: "replace the file even if it has edits that were never pushed" },
    "create-parent-dirs": { type: "boolean", help: "create the file's folder when it does not exist" },
    "confirm-large-file": { type: "boolean", help: "allow a note above 5 MiB" },
    convert: { type: "boolean", help: "write the note in Obsidian's syntax (the default in a vault)" },
    "no-convert": { type: "boolean", help: "sync this note byte for byte, without Obsidian conversion" },
  },
  shared: ["root", "json"],
  exitCodes: {
    0: "pulled and tracked",
    1: "refused: a flag is needed (the message names it), unpushed edits are protected, or no single note matches",
    2: "usage error, or a failure (token, network, HackMD, local files)",
  },
  examples: [
    "hackmd-bridge pull https://hackmd.io/@me/plan notes/plan.md",
    "hackmd-bridge pull SysJb0yAY notes/plan.md --overwrite",
  ],
  parse: ({ values, positionals: given }) => {
    const [noteRef = "", path = ""] = given;
    if (noteRef.trim() === "") throw new UsageError("<note_ref> is blank; give a note id, a short id or a HackMD URL");
    const team = text(values, "team");
    const teamPath = teamOption(team);
    if (flag(values, "convert") && flag(values, "no-convert"))
      throw new UsageError("--convert and --no-convert contradict each other; give one of them");
    const args: PullArgs = {
      noteRef,
      path,
      teamPath,
      overwrite: flag(values, "overwrite"),
      discardLocalChanges: flag(values, "discard-local-changes"),
      createParentDirs: flag(values, "create-parent-dirs"),
      confirmLargeFile: flag(values, "confirm-large-file"),
      convert: flag(values, "no-convert") ? false : flag(values, "convert") ? true : undefined,
      json: flag(values, "json"),
    };
    return { json: args.json, run: (context) => runPull(args, context) };
  },
};
