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

/** A subcommand line for a next step. */
function stepLine(step: NextStep): string {
  const path = step.path === undefined || step.path === "" ? "<path>" : shellQuote(step.path);
  const flags = (step.flags ?? []).filter((flag) => flag !== "confirm").map((flag) => ` ${FLAGS[flag]}`).join("");
  switch (step.action) {
    case "pull":
      return `hackmd-bridge pull ${step.noteId === undefined ? "<note_ref>" : shellQuote(step.noteId)} ${path}${teamFlag(step.teamPath)}${flags}`;
    case "push":
      return `hackmd-bridge push ${path}${flags}`;
    case "check":
      return step.path === undefined ? "hackmd-bridge status" : `hackmd-bridge status ${path}`;
    case "untrack":
      // A record too damaged to name its file is forgotten by note id.
      return step.path === undefined || step.path === ""
        ? `hackmd-bridge untrack --note ${step.noteId === undefined ? "<note_id>" : shellQuote(step.noteId)}${teamFlag(step.teamPath)}`
        : `hackmd-bridge untrack ${path}`;
    case "list_tracked":
      return "hackmd-bridge list --tracked";
    case "get_note":
      return step.path === undefined ? "hackmd-bridge status" : `hackmd-bridge diff ${path} --remote`;
    case "list_versions":
      return `hackmd-bridge history ${path}`;
    case "list_comments":
      return `hackmd-bridge comments ${path} --all`;
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
  reply: ({ where, text, said, explained }) => (explained ? `${where}: ${text}` : `${where}: ${text} HackMD said: ${said}`),
};
