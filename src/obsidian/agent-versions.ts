/**
 * Agent writes visible on HackMD (docs/sync-journal.md): before an agent's write of a note's body,
 * the plugin saves HackMD's current text as a named version "Before <client>: <tool>, <time>", so
 * collaborators see on hackmd.io that an agent changed the note and can restore the text. Per
 * vault setting ("Name a version before agent writes", on by default), and only while the quota
 * HackMD last reported leaves room: below `QUOTA_RESERVE` requests (or a tenth of the limit) left,
 * the version is skipped so the user's own syncs keep their requests. Best effort: a version that
 * cannot be made never stops the agent's write (the journal and the activity history still have it).
 */
import type { AppDeps } from "../app/deps";
import { CallContext } from "../hackmd/call-context";
import type { ToolGate } from "../mcp/gate";

/** Requests kept for the user's own work when the quota runs low. */
export const QUOTA_RESERVE = 50;

/** Whether the last quota HackMD reported leaves room for a version (unknown: yes). */
export function quotaAllowsVersion(quota: { limit: number | null; remaining: number | null } | null): boolean {
  if (quota === null || quota.remaining === null) return true;
  const reserve = Math.max(QUOTA_RESERVE, quota.limit === null ? 0 : Math.ceil(quota.limit / 10));
  return quota.remaining > reserve;
}

/** The gate's `beforeWrite` that names a version before each agent write of a note body. */
export function agentVersionBefore(options: {
  deps: () => Promise<AppDeps>;
  enabled: () => boolean;
}): NonNullable<ToolGate["beforeWrite"]> {
  return async ({ client, tool, change }) => {
    if (!options.enabled()) return;
    const body = change.body;
    // Only an existing note's text on HackMD: a new note has nothing to keep, a pull writes a file.
    if (change.note === undefined || body?.where !== "note" || change.action === "create_note") return;
    const deps = await options.deps();
    if (!quotaAllowsVersion(deps.client.lastQuota)) return;
    await deps.safety
      .beforeAgent(new CallContext({ actor: { kind: "agent", client, tool } }), change.note.noteId, client, tool)
      .catch(() => undefined);
  };
}
