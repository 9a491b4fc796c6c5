import { z } from "zod/v4";
import { MAX_JOURNAL_READ, readJournal } from "../../app/journal";
import { tool } from "./tool";

const hashes = z.object({ before: z.string().optional(), after: z.string().optional() });

/**
 * `hackmd_list_journal` (docs/tool-contract-extensions.md, docs/sync-journal.md): the sync journal,
 * oldest first. Reads the state folder only: no request to HackMD, nothing written.
 */
export const listJournalTool = tool({
  name: "hackmd_list_journal",
  title: "List HackMD Sync Journal",
  description:
    "Lists the sync journal, oldest first: every write HackMD Bridge made (pulls, pushes, merges, conflicts, agent writes, automatic sync), who made it (user, agent with its client name and session, or auto), the decision-table branch, body hashes before and after on each side, and where any replaced text lives now (a .remote.md file, a named version id, the journal's own copy). Local only: no request to HackMD.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      local_path: z.string().optional().describe("Only entries about this file (or pass a note id)."),
      actor: z.enum(["user", "agent", "auto"]).optional().describe("Only entries by this kind of actor."),
      session: z.string().optional().describe("Only entries of this agent session."),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_JOURNAL_READ)
        .default(50)
        .describe(`The newest this many entries (1–${MAX_JOURNAL_READ}).`),
    })
    .strict(),
  output: z.object({
    entries: z.array(
      z.object({
        id: z.string(),
        at: z.number(),
        actor: z.object({
          kind: z.string(),
          door: z.string().optional(),
          client: z.string().optional(),
          session: z.string().optional(),
          tool: z.string().optional(),
        }),
        kind: z.string(),
        note: z
          .object({ team_path: z.string().nullable(), note_id: z.string(), title: z.string().optional() })
          .optional(),
        file: z.string().optional(),
        branch: z.string().optional(),
        local: hashes.optional(),
        remote: hashes.optional(),
        baseline: hashes.optional(),
        replaced: z
          .array(
            z.object({
              side: z.string(),
              hash: z.string(),
              where: z.string(),
              path: z.string().optional(),
              version_id: z.string().optional(),
            }),
          )
          .optional(),
        written: z.object({ hash: z.string(), path: z.string() }).optional(),
        undoes: z.string().optional(),
        outcome: z.string().optional(),
      }),
    ),
  }),
  create: (deps) => async (args) => {
    const entries = await readJournal(deps, {
      ...(args.local_path === undefined ? {} : { path: args.local_path }),
      ...(args.actor === undefined ? {} : { actorKind: args.actor }),
      ...(args.session === undefined ? {} : { session: args.session }),
      limit: args.limit,
    });
    return {
      summary: `Listed ${entries.length} journal ${entries.length === 1 ? "entry" : "entries"}.`,
      output: { entries: entries.map(({ v: _v, ...entry }) => entry) },
    };
  },
});
