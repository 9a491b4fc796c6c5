/** Shared builders for the patch tests. */

import { BridgeError } from "../../src/core/errors";
import { applyPatch, PATCH_RETRY_ADVICE } from "../../src/patch";
import { EXAMPLE_PATCH_PATH } from "../../src/patch/examples";

export const PATH = EXAMPLE_PATCH_PATH;

/** A patch for `PATH` with the given lines between the Update File line and End Patch. */
export function envelope(...lines: string[]): string {
  return ["*** Begin Patch", `*** Update File: ${PATH}`, ...lines, "*** End Patch"].join("\n");
}

/** Applies a patch to a body for `PATH` and returns the resulting body. */
export function patched(body: string, patch: string): string {
  return applyPatch({ body, patch, patchPath: PATH }).body;
}

/** The `patch_rejected` error a patch raises; fails the test when it applies or throws anything else. */
export function rejection(body: string, patch: string, patchPath = PATH): BridgeError {
  try {
    applyPatch({ body, patch, patchPath });
  } catch (error) {
    if (error instanceof BridgeError && error.kind === "patch_rejected") {
      expect(error.message).toContain(PATCH_RETRY_ADVICE);
      return error;
    }
    throw error;
  }
  throw new Error("expected the patch to be rejected, but it applied");
}
