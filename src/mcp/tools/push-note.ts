import { z } from "zod/v4";
import { noteRefInput, refreshInput, resolutionOutput, teamPathInput } from "./schemas";
import { parseNoteRef } from "../../hackmd/note-ref";
import { resolveRef } from "../../app/notes";
import { workspaceArg } from "../../app/inputs";
import { unresolved } from "./shared";
import { safetyReport } from "./safety";
import { snapshotCleanupSentence } from "../../sync/snapshots";
import { tool } from "./tool";

/** `hackmd_push_note` (docs/tools.md §9.13): sends a tracked file's edits with conflict detection. */
export const pushNoteTool = tool({
  name: "hackmd_push_note",
  title: "Push HackMD Note",
  description:
    "Sends a tracked file's edits (a file pulled with hackmd_pull_note) to its note, with three-way conflict detection against the baseline of the last sync. Statuses: pushed, nothing_to_push, remote_changed (pull with overwrite_local: true) or conflict: nothing is sent, the remote body is written to <name>.remote.md beside the file, and diff_summary shows both sides' changes; merge into the file, then push again with expected_remote_hash set to the reported remote_body_hash. note_ref is an optional cross-check. strategy overwrite (with confirm: true) replaces the remote body regardless; avoid it until a merge is reviewed. strategy merge also merges edits made on both sides when they do not overlap: the merged text is written to the file and pushed (merged: true); overlapping edits are a conflict as with safe.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  input: z
    .object({
      local_path: z.string().describe("A tracked Markdown file under the root."),
      note_ref: noteRefInput.optional().describe("Optional cross-check: the note the file was pulled from."),
      team_path: teamPathInput.describe(
        "Where a bare-id note_ref is looked up; defaults to the tracked note's workspace.",
      ),
      refresh: refreshInput,
      strategy: z
        .enum(["safe", "overwrite", "merge"])
        .default("safe")
        .describe(
          "safe detects conflicts; merge also merges non-overlapping edits of both sides; overwrite (needs confirm) replaces the remote body.",
        ),
      confirm: z.boolean().default(false).describe("Required with strategy overwrite."),
      expected_remote_hash: z.string().optional().describe("The remote_body_hash a conflict reported, after merging."),
      confirm_large_file: z.boolean().default(false).describe("Needed for a file above 5 MiB."),
    })
    .strict(),
  output: z.union([
    z.object({
      status: z.enum(["pushed", "nothing_to_push", "remote_changed", "conflict"]),
      team_path: z.string().nullable(),
      note_id: z.string(),
      local_path: z.string(),
      baseline_path: z.string(),
      body_hash: z.string().optional(),
      merged: z.boolean().optional(),
      title_drift: z.string().optional(),
      remote_body_hash: z.string().optional(),
      diff_summary: z.string().optional(),
      snapshot_path: z.string().optional(),
      snapshot_error: z.string().optional(),
      instructions: z.string().optional(),
    }),
    resolutionOutput,
  ]),
  create: (deps) => async (args, call) => {
    const givenTeam =
      args.team_path === undefined || args.team_path === null ? undefined : workspaceArg(args.team_path);
    const noteRef = args.note_ref;
    if (noteRef !== undefined) parseNoteRef(noteRef); // a malformed reference is refused before any file access or request
    const result = await deps.sync.push({
      localPath: args.local_path,
      strategy: args.strategy,
      confirm: args.confirm,
      expectedRemoteHash: args.expected_remote_hash,
      confirmLargeFile: args.confirm_large_file,
      crossCheck:
        noteRef === undefined
          ? undefined
          : (trackedTeamPath) =>
              resolveRef(deps, call, noteRef, {
                teamPath: givenTeam === undefined ? trackedTeamPath : givenTeam,
                refresh: args.refresh,
              }),
      call,
    });
    if (result.kind === "unresolved") return unresolved(result.resolution);
    const out = result.output;
    const report = safetyReport(result.safety?.version, result.safety?.overwritten);
    // The .remote.md of an earlier conflict, removed now that both sides agree (or why it stayed).
    const snapshot = snapshotCleanupSentence(result.snapshot);
    if (report.sentence === "")
      return { summary: `Push of note ${out.note_id}: ${out.status}.${snapshot}`, output: out };
    const instructions = [out.instructions, report.sentence.trim()].filter((text) => text !== undefined).join(" ");
    return {
      summary: `Push of note ${out.note_id}: ${out.status}.${report.sentence}${snapshot}`,
      output: { ...out, instructions },
      ...(report.meta ? { meta: report.meta } : {}),
    };
  },
});
