import { z } from "zod/v4";
import { parseNoteRef } from "../../hackmd/note-ref";
import { noteRefInput, refreshInput, resolutionOutput, teamPathInput } from "./schemas";
import { resolveRef } from "../../app/notes";
import { workspaceArg } from "../../app/inputs";
import { unresolved } from "./shared";
import { tool } from "./tool";
import { snapshotCleanupSentence } from "../../sync/snapshots";

/** `hackmd_pull_note` (docs/tools.md §9.12): writes a note's body to a Markdown file and tracks it. */
export const pullNoteTool = tool({
  name: "hackmd_pull_note",
  title: "Pull HackMD Note",
  description:
    "Writes a note's body into a Markdown file under the root and starts (or refreshes) tracking it for hackmd_push_note. local_path must end in .md. An existing file needs overwrite_local: true; unpushed edits in it are still protected (unpushed_changes: push first; unverified_local_content: pull to another path), and discard_local_changes: true drops them. A missing folder needs create_parent_dirs: true; a body above 5 MiB needs confirm_large_file: true. Returns changes (a diff from the replaced file) and title_drift when the body's title differs from the listed one. Pulling a tracked note to another path moves its tracking there: moved_from names the file it was tracked at, which is kept but no longer tracked.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  input: z
    .object({
      note_ref: noteRefInput,
      local_path: z.string().describe("Destination .md file under the root (root-relative or absolute inside it)."),
      team_path: teamPathInput,
      refresh: refreshInput,
      overwrite_local: z.boolean().default(false).describe("Needed when the file exists."),
      discard_local_changes: z.boolean().default(false).describe("Allows replacing content not known to be pushed."),
      create_parent_dirs: z.boolean().default(false).describe("Creates missing parent folders."),
      confirm_large_file: z.boolean().default(false).describe("Needed for a body above 5 MiB."),
    })
    .strict(),
  output: z.union([
    z.object({
      team_path: z.string().nullable(),
      note_id: z.string(),
      title: z.string(),
      local_path: z.string(),
      bytes: z.number().int(),
      body_hash: z.string(),
      changes: z.string().optional(),
      title_drift: z.string().optional(),
      moved_from: z.string().optional(),
    }),
    resolutionOutput,
  ]),
  create: (deps) => async (args, call) => {
    const teamPath = workspaceArg(args.team_path);
    parseNoteRef(args.note_ref); // a malformed reference is refused before any file access
    const result = await deps.sync.pull({
      localPath: args.local_path,
      resolveTarget: () => resolveRef(deps, call, args.note_ref, { teamPath, refresh: args.refresh }),
      overwriteLocal: args.overwrite_local,
      discardLocalChanges: args.discard_local_changes,
      createParentDirs: args.create_parent_dirs,
      confirmLargeFile: args.confirm_large_file,
      call,
    });
    if (result.kind === "unresolved") return unresolved(result.resolution);
    const out = result.output;
    const moved =
      out.moved_from === undefined
        ? ""
        : ` It was tracked at ${out.moved_from} until now; that file is kept but no longer tracked.`;
    return {
      summary: `Pulled note ${out.note_id} to ${out.local_path} (${out.bytes} bytes).${moved}${snapshotCleanupSentence(result.snapshot)}`,
      output: out,
    };
  },
});
