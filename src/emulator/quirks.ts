/** Quirk switches of docs/hackmd-api.md §2.9: defaults and run-time merging. */
import type { Quirks, QuirksPatch } from "./types";

const MIB = 1024 * 1024;

/** Fresh defaults; production's measured behaviour, else the choice that catches careless clients. */
export function defaultQuirks(): Quirks {
  return {
    visibilityDelayMs: 0,
    visibilityScope: "all",
    patchWithoutContentBlanksBody: true,
    contentPatchClearsTitle: false,
    deriveTitleAtCreate: true,
    normalizeLineEndings: true,
    folderMoveIgnored: true,
    personalFolderPatchUnsupported: true,
    createHonoursParentFolderId: true,
    forbiddenButApplied: false,
    strictPatchFields: false,
    unknownFolderEmptyObject: false,
    folderDeleteChildren: "orphan",
    etag: true,
    tagsNullOnCreate: false,
    rateLimit: {
      enabled: false,
      windowLimit: 100,
      windowMs: 300_000,
      monthlyQuota: { free: 2000, upgraded: 10_000 },
      headers: true,
      headersDescribe: "window",
      resetUnit: "epoch-ms",
      headersOnWindow429: true,
      retryAfter: false,
    },
    unauthorizedBody: "text",
    teamPathCaseSensitive: true,
    fractionalTimestamps: false,
    hiddenRouteFamilies: [],
    latencyMs: 0,
    imageMaxBytes: 10 * MIB,
    maxRequestBytes: 64 * MIB,
    webOrigin: "https://hackmd.io",
    imageOrigin: null,
    autoVersions: "per-write",
  };
}

/** A deep copy, so callers never alias the live switches. */
export function copyQuirks(quirks: Quirks): Quirks {
  return {
    ...quirks,
    rateLimit: { ...quirks.rateLimit, monthlyQuota: { ...quirks.rateLimit.monthlyQuota } },
    hiddenRouteFamilies: [...quirks.hiddenRouteFamilies],
  };
}

/** `base` with `patch` merged in; `rateLimit` and its quota merge field by field. */
export function mergeQuirks(base: Quirks, patch: QuirksPatch): Quirks {
  const next = copyQuirks(base);
  const { rateLimit, ...flat } = patch;
  for (const [key, value] of Object.entries(flat)) {
    if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
  }
  if (rateLimit) {
    const { monthlyQuota, ...rest } = rateLimit;
    for (const [key, value] of Object.entries(rest)) {
      if (value !== undefined) (next.rateLimit as unknown as Record<string, unknown>)[key] = value;
    }
    if (monthlyQuota) {
      if (monthlyQuota.free !== undefined) next.rateLimit.monthlyQuota.free = monthlyQuota.free;
      if (monthlyQuota.upgraded !== undefined) next.rateLimit.monthlyQuota.upgraded = monthlyQuota.upgraded;
    }
  }
  return copyQuirks(next);
}
