/** `hackmd-bridge pull <note_ref> <path>`: the sync engine's pull (TOOLS.md §14.1–§14.2) for people. */
import { CallContext } from "../../hackmd/call-context";
import { resolveRef, unresolved, workspaceArg } from "../../mcp/tools/shared";
import type { UnresolvedTarget } from "../../sync/types";
import { flag, JSON_OPTION, positionals, text, type CommandContext, type HumanCommand } from "./command";
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
  json: boolean;
}

/** Writes a note into a Markdown file and tracks it; refusals throw (exit 1 via the caller). */
export async function runPull(args: PullArgs, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  const call = new CallContext();
  const result = await core.deps.sync.pull({
    localPath: args.path,
    resolveTarget: () => resolveRef(core.deps, call, args.noteRef, { teamPath: args.teamPath, refresh: false }),
    overwriteLocal: args.overwrite,
    discardLocalChanges: args.discardLocalChanges,
    createParentDirs: args.createParentDirs,
    confirmLargeFile: args.confirmLargeFile,
    call,
  });
  if (result.kind === "unresolved") return reportUnresolved({ resolution: result.resolution, io, json: args.json });
  const out = result.output;
  if (args.json) {
    writeJson(io, out);
    return EXIT.ok;
  }
  io.out(`Pulled "${out.title}" (${workspaceLabel(out.team_path)}, note ${out.note_id}) to ${out.local_path}: ${out.bytes} bytes.\n`);
  if (out.changes !== undefined) io.out(`Changes to the replaced file:\n${indent(out.changes)}\n`);
  if (out.title_drift !== undefined) io.out(`Title drift: ${out.title_drift}\n`);
  return EXIT.ok;
}

/** Reports a reference that matched no note or several (exit 1, candidates listed). */
export function reportUnresolved(options: { resolution: UnresolvedTarget; io: CommandIo; json: boolean }): ExitCode {
  const { resolution, io, json } = options;
  if (json) {
    writeJson(io, unresolved(resolution).output);
    return EXIT.attention;
  }
  if (resolution.status === "not_found") {
    io.err(`No note matches ${resolution.query}; nothing was written. Give a note id or a HackMD URL (with --team for a team note).\n`);
    return EXIT.attention;
  }
  const rows = resolution.candidates.map((candidate) => [candidate.note_id, workspaceLabel(candidate.team_path), candidate.title]);
  io.err(`${resolution.candidates.length} notes match ${resolution.query}; nothing was written. Pull one of them by its id:\n${formatTable([["note", "workspace", "title"], ...rows])}`);
  return EXIT.attention;
}

/** The `pull` subcommand. */
export const pullCommand: HumanCommand = {
  name: "pull",
  usage:
    "hackmd-bridge pull <note_ref> <path> [--team <team_path>] [--overwrite] [--discard-local-changes] [--create-parent-dirs] [--confirm-large-file] [--root <dir>] [--json]",
  options: {
    ...JSON_OPTION,
    team: { type: "string" },
    overwrite: { type: "boolean" },
    "discard-local-changes": { type: "boolean" },
    "create-parent-dirs": { type: "boolean" },
    "confirm-large-file": { type: "boolean" },
  },
  parse: ({ values, positionals: given }) => {
    const [noteRef = "", path = ""] = positionals(given, { required: ["note_ref", "path"] });
    if (noteRef.trim() === "") throw new UsageError("<note_ref> is blank; give a note id or a HackMD URL");
    const team = text(values, "team");
    let teamPath: string | null;
    try {
      teamPath = workspaceArg(team);
    } catch {
      throw new UsageError("--team is blank or contains a control character; pass a team path");
    }
    const args: PullArgs = {
      noteRef,
      path,
      teamPath,
      overwrite: flag(values, "overwrite"),
      discardLocalChanges: flag(values, "discard-local-changes"),
      createParentDirs: flag(values, "create-parent-dirs"),
      confirmLargeFile: flag(values, "confirm-large-file"),
      json: flag(values, "json"),
    };
    return { json: args.json, run: (context) => runPull(args, context) };
  },
};
