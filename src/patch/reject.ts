/** The one way the patch engine refuses: a `patch_rejected` BridgeError that names the fix. */

import { BridgeError } from "../core/errors";

/** The fix every patch refusal names (docs/tools.md §10: read the note again, rebuild the patch). */
export const PATCH_RETRY_ADVICE =
  "Nothing was changed; read the note again (hackmd_get_note) and rebuild the patch from its current body.";

const QUOTE_LIMIT = 200;

/** A `patch_rejected` error: "Patch rejected: <problem>. <advice>". */
export function patchRejected(problem: string): BridgeError {
  return new BridgeError("patch_rejected", `Patch rejected: ${problem}. ${PATCH_RETRY_ADVICE}`);
}

/** A patch or body line quoted for a message: JSON-escaped and cut after 200 characters. */
export function quote(text: string): string {
  const cut = text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text;
  return JSON.stringify(cut);
}
