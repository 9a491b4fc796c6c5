/**
 * The words a message uses for its fix depend on who reads it: an agent calls tools with
 * arguments (`hackmd_pull_note` with `overwrite_local: true`), a person at the command line types
 * subcommands and flags (`hackmd-bridge pull <id> notes/plan.md --overwrite`). Each message is
 * written once, where the error arises, with these terms in place of the fix; the core is built
 * with the vocabulary of its audience (TOOL_WORDS by default; the standalone command's human
 * subcommands pass their own), so every message comes out whole in one vocabulary.
 */

/** A retry switch an operation can be called again with. */
export type RetryFlag =
  | "overwrite_local"
  | "discard_local_changes"
  | "create_parent_dirs"
  | "confirm_large_file"
  | "confirm"
  | "strategy_overwrite";

/** An input or output field named in a message (`diff_summary`: the diff shown with a conflict). */
export type InputName = "expected_remote_hash" | "note_id" | "team_path" | "diff_summary";

/** Something to do next, with what is known about the note and file it applies to. */
export interface NextStep {
  action: "pull" | "push" | "check" | "untrack" | "list_tracked" | "get_note" | "list_versions" | "list_comments";
  path?: string;
  noteId?: string;
  teamPath?: string | null;
  /** Retry switches that go with the step. */
  flags?: readonly RetryFlag[];
}

/** A vocabulary: how each term reads for one audience. */
export interface Words {
  /** A retry switch, e.g. `overwrite_local: true` or `--overwrite`. */
  flag(name: RetryFlag): string;
  /** The guard of a push after a merge, with the hash to pass. */
  expectedHash(hash: string): string;
  /** An input or output field named in a message. */
  input(name: InputName): string;
  /** A next step, e.g. `hackmd_pull_note with overwrite_local: true`. */
  step(step: NextStep): string;
  /**
   * An error answer of HackMD as a message: `where` is the request (`PUT /v1/notes/…`), `text`
   * what the answer means and what to do, `said` HackMD's own (bounded, redacted) reply body, and
   * `explained` whether `text` already says all the reply means. Agents get HackMD's words too;
   * people get them only when nothing else explains the answer.
   */
  reply(parts: { where: string; text: string; said: string; explained: boolean }): string;
}

const TOOL_FLAGS: Record<RetryFlag, string> = {
  overwrite_local: "overwrite_local: true",
  discard_local_changes: "discard_local_changes: true",
  create_parent_dirs: "create_parent_dirs: true",
  confirm_large_file: "confirm_large_file: true",
  confirm: "confirm: true",
  strategy_overwrite: "strategy overwrite",
};

const TOOL_STEPS: Record<NextStep["action"], string> = {
  pull: "hackmd_pull_note",
  push: "hackmd_push_note",
  check: "hackmd_get_note with local_path",
  untrack: "hackmd_untrack_note",
  list_tracked: "hackmd_list_notes with source: tracked",
  get_note: "hackmd_get_note",
  list_versions: "hackmd_list_versions",
  list_comments: "hackmd_list_comments",
};

/** The tools' vocabulary: tool names and their arguments (what an agent sees). */
export const TOOL_WORDS: Words = {
  flag: (name) => TOOL_FLAGS[name],
  expectedHash: (hash) => `expected_remote_hash: "${hash}"`,
  input: (name) => name,
  step: (step) => {
    const flags = step.flags ?? [];
    return flags.length === 0
      ? TOOL_STEPS[step.action]
      : `${TOOL_STEPS[step.action]} with ${flags.map((flag) => TOOL_FLAGS[flag]).join(" and ")}`;
  },
  reply: ({ where, text, said }) => `${where}: ${text} HackMD said: ${said}`,
};
