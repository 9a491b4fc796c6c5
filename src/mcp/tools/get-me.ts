import { z } from "zod/v4";
import { tool } from "./tool";

const team = z.object({
  id: z.string(),
  owner_id: z.string().optional(),
  name: z.string(),
  logo: z.string().optional(),
  path: z.string(),
  description: z.string().nullable(),
  hard_limit: z.number().nullable(),
  visibility: z.enum(["public", "private"]).optional(),
  created_at: z.number().int().optional(),
  upgraded: z.boolean().optional(),
});

/** `hackmd_get_me` (docs/tools.md §9.1): the profile and its teams; refreshes the account cache. */
export const getMeTool = tool({
  name: "hackmd_get_me",
  title: "Get HackMD Profile and Teams",
  description:
    "Returns the authenticated HackMD profile and its teams. Use user_path to recognise personal https://hackmd.io/@<owner>/<slug> URLs, and a team's path as team_path in other tools.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: z.object({}).strict(),
  output: z.object({
    id: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    user_path: z.string(),
    photo: z.string().nullable(),
    teams: z.array(team),
    upgraded: z.boolean().optional(),
  }),
  create: (deps) => async (_args, call) => {
    const me = await deps.client.me(call);
    const teams = me.teams ?? (await deps.client.teams(call));
    deps.account.remember({ userPath: me.user_path, teams });
    const output: Record<string, unknown> = {
      id: me.id,
      name: me.name,
      email: me.email,
      user_path: me.user_path,
      photo: me.photo,
      teams,
    };
    if (me.upgraded !== undefined) output.upgraded = me.upgraded;
    return {
      summary: `Authenticated as ${me.name} (user_path ${me.user_path}) with ${teams.length} team${teams.length === 1 ? "" : "s"}.`,
      output,
    };
  },
});
