/**
 * The command line's vocabulary (src/core/wording.ts): the fixes the sync engine and the HackMD
 * client name, as the subcommands and flags a person types, with the actual file and note filled
 * in where known; no tool names, tool arguments or raw HackMD replies.
 */
import type { NextStep, RetryFlag, Words } from "../../core/wording";

const FLAGS: Record<RetryFlag, string> = {
  overwrite_local: "--overwrite",
  discard_local_changes: "--discard-local-changes",
  create_parent_dirs: "--create-parent-dirs",
  confirm_large_file: "--confirm-large-file",
  // Only a push asks for confirmation on the command line (untrack is confirmed by typing it).
  confirm: "--overwrite --confirm",
  strategy_overwrite: "--overwrite",
};

/** Quotes a value for a copy-paste command line when it needs it. */
export function shellQuote(value: string): string {
  return /^[\w./@:+=,-]+$/.test(value) ? value : `'${value.split("'").join(`'\\''`)}'`;
}

/** ` --team <path>` for a team note, nothing for a personal one. */
export function teamFlag(teamPath: string | null | undefined): string {
  return teamPath === null || teamPath === undefined ? "" : ` --team ${shellQuote(teamPath)}`;
}

/**
 * `hackmd-bridge <subcommand> <args…><options>` as a person can type it: an argument that begins
 * with `--` (a note id may: base64url; a file name may) would be read as an option, so then the
 * options come first and `--` ends them before the arguments (src/node/commands/args.ts).
 */
export function commandLine(subcommand: string, args: readonly string[], options = ""): string {
  const quoted = args.map((arg) => (arg.startsWith("<") ? arg : shellQuote(arg))).join(" ");
  return args.some((arg) => arg.startsWith("--"))
    ? `hackmd-bridge ${subcommand}${options} -- ${quoted}`
    : `hackmd-bridge ${subcommand} ${quoted}${options}`;
}

/** A subcommand line for a next step. */
function stepLine(step: NextStep): string {
  const path = step.path === undefined || step.path === "" ? "<path>" : step.path;
  const flags = (step.flags ?? [])
    .filter((flag) => flag !== "confirm")
    .map((flag) => ` ${FLAGS[flag]}`)
    .join("");
  switch (step.action) {
    case "pull":
      return commandLine("pull", [step.noteId ?? "<note_ref>", path], `${teamFlag(step.teamPath)}${flags}`);
    case "push":
      return commandLine("push", [path], flags);
    case "check":
      return step.path === undefined ? "hackmd-bridge status" : commandLine("status", [path]);
    case "untrack": {
      // A record too damaged to name its file is forgotten by note id (written --note=<id>, so an id that begins with -- stays its value).
      const noteId = step.noteId === undefined ? "<note_id>" : shellQuote(step.noteId);
      return step.path === undefined || step.path === ""
        ? `hackmd-bridge untrack --note${noteId.startsWith("--") ? "=" : " "}${noteId}${teamFlag(step.teamPath)}`
        : commandLine("untrack", [path]);
    }
    case "list_tracked":
      return "hackmd-bridge list --tracked";
    case "get_note":
      return step.path === undefined ? "hackmd-bridge status" : commandLine("diff", [path], " --remote");
    case "list_versions":
      return commandLine("history", [path]);
    case "list_comments":
      return commandLine("comments", [path], " --all");
  }
}

/** The command line's words: flags and `hackmd-bridge …` lines. */
export const CLI_WORDS: Words = {
  flag: (name) => FLAGS[name],
  expectedHash: (hash) => `--expected-remote-hash ${hash}`,
  input: (name) => {
    switch (name) {
      case "expected_remote_hash":
        return "--expected-remote-hash";
      case "note_id":
        return "the note id";
      case "team_path":
        return "team (--team)";
      case "diff_summary":
        return "the diff above";
    }
  },
  step: (step) => `\`${stepLine(step)}\``,
  // A person gets what HackMD's answer means; its raw reply body only when nothing explains it.
  reply: ({ where, text, said, explained }) =>
    explained ? `${where}: ${text}` : `${where}: ${text} HackMD said: ${said}`,
};
