/**
 * The pure settings migration (docs/style.md rule 14): whatever `loadData()` returned — nothing, an
 * older shape, a newer one or garbage — becomes a valid current `Settings`. Unknown fields are
 * dropped, wrong types and out-of-range values fall back to the defaults (or are clamped), and a
 * secret found in an old shape is never carried over. Migrating a migrated object is the identity.
 *
 * Version 0 is the unversioned prototype shape: `{ token?, apiURL?, pullFolder?, teamPath?,
 * readPermission?, writePermission?, autoCheckInterval?, protectAgentFiles? }`; it kept the API
 * token in `data.json`, which `extractLegacyToken` finds so the plugin can move it to secret storage.
 */
import { isValidApiUrl } from "../hackmd/config";
import type { Permission } from "../hackmd/types";
import { parseRootRelative } from "../core/paths";
import { silentLogger, type Logger } from "../core/ports";
import { DEFAULT_TOOL_POLICIES, isToolPolicy, type ToolPolicy } from "../mcp/policy";
import {
  DEFAULT_SETTINGS,
  MAX_ACTIVITY_LOG_ENTRIES,
  MAX_APPROVAL_TIMEOUT_SECONDS,
  MIN_APPROVAL_TIMEOUT_SECONDS,
  MAX_AUTO_SYNC_BUDGET,
  MAX_BACKGROUND_CHECK_MINUTES,
  MIN_AUTO_SYNC_BUDGET,
  MIN_BACKGROUND_CHECK_MINUTES,
  PERMISSIONS,
  SECRET_ID_PATTERN,
  SETTINGS_VERSION,
  type AutoSyncBudget,
  type Settings,
} from "./schema";

/** Version-0 field names and the version-1 fields they became. */
const V0_RENAMES: ReadonlyArray<readonly [string, keyof Settings]> = [
  ["apiURL", "apiUrl"],
  ["pullFolder", "defaultPullFolder"],
  ["teamPath", "defaultWorkspace"],
  ["readPermission", "defaultReadPermission"],
  ["writePermission", "defaultWritePermission"],
  ["autoCheckInterval", "backgroundCheckMinutes"],
];

/** Options of `migrateSettings`. */
export interface MigrateOptions {
  /** Where repairs are reported (event names and field names only, never values). */
  logger?: Logger;
}

/** Turns any stored value into valid current settings; pure apart from the injected logger. */
export function migrateSettings(raw: unknown, options: MigrateOptions = {}): Settings {
  const logger = options.logger ?? silentLogger;
  if (!isRecord(raw)) {
    if (raw !== undefined && raw !== null)
      logger.warn("settings_unreadable", { type: Array.isArray(raw) ? "array" : typeof raw });
    return { ...DEFAULT_SETTINGS };
  }
  const version =
    typeof raw.version === "number" && Number.isSafeInteger(raw.version) && raw.version >= 1 ? raw.version : 0;
  if (version > SETTINGS_VERSION) logger.warn("settings_from_newer_version", { version, known: SETTINGS_VERSION });
  const fields: Record<string, unknown> = { ...raw };
  if (version === 0) {
    for (const [old, current] of V0_RENAMES) {
      if (fields[current] === undefined && fields[old] !== undefined) fields[current] = fields[old];
    }
  }
  const repaired: string[] = [];
  const pick = <T>(name: keyof Settings, value: T | undefined, fallback: T): T => {
    if (value !== undefined) return value;
    if (fields[name] !== undefined) repaired.push(name);
    return fallback;
  };

  const apiUrl = pick(
    "apiUrl",
    typeof fields.apiUrl === "string" && isValidApiUrl(fields.apiUrl) ? fields.apiUrl.trim() : undefined,
    DEFAULT_SETTINGS.apiUrl,
  );
  const defaultPullFolder = pick(
    "defaultPullFolder",
    folderOf(fields.defaultPullFolder),
    DEFAULT_SETTINGS.defaultPullFolder,
  );
  const defaultWorkspace = pick(
    "defaultWorkspace",
    workspaceOf(fields.defaultWorkspace),
    DEFAULT_SETTINGS.defaultWorkspace,
  );
  const read = pick(
    "defaultReadPermission",
    permissionOf(fields.defaultReadPermission),
    DEFAULT_SETTINGS.defaultReadPermission,
  );
  let write = pick(
    "defaultWritePermission",
    permissionOf(fields.defaultWritePermission),
    DEFAULT_SETTINGS.defaultWritePermission,
  );
  // HackMD refuses a write permission more open than the read permission (docs/tools.md §5.4).
  if (PERMISSIONS.indexOf(write) > PERMISSIONS.indexOf(read)) {
    repaired.push("defaultWritePermission");
    write = read;
  }
  const settings: Settings = {
    version: SETTINGS_VERSION,
    apiUrl,
    defaultPullFolder,
    defaultWorkspace,
    defaultReadPermission: read,
    defaultWritePermission: write,
    backgroundCheckMinutes: pick(
      "backgroundCheckMinutes",
      intervalOf(fields.backgroundCheckMinutes),
      DEFAULT_SETTINGS.backgroundCheckMinutes,
    ),
    // Added within version 1 (docs/auto-sync.md): absent means off, and the free plan's budget.
    autoSync: pick("autoSync", booleanOf(fields.autoSync), DEFAULT_SETTINGS.autoSync),
    autoSyncOnStartup: pick(
      "autoSyncOnStartup",
      booleanOf(fields.autoSyncOnStartup),
      DEFAULT_SETTINGS.autoSyncOnStartup,
    ),
    autoSyncOnResume: pick("autoSyncOnResume", booleanOf(fields.autoSyncOnResume), DEFAULT_SETTINGS.autoSyncOnResume),
    autoSyncBudget: pick("autoSyncBudget", budgetOf(fields.autoSyncBudget), DEFAULT_SETTINGS.autoSyncBudget),
    // Added within version 1: a saved object without it gets the default (on).
    autoMerge: pick("autoMerge", booleanOf(fields.autoMerge), DEFAULT_SETTINGS.autoMerge),
    convertObsidianSyntax: pick(
      "convertObsidianSyntax",
      booleanOf(fields.convertObsidianSyntax),
      DEFAULT_SETTINGS.convertObsidianSyntax,
    ),
    downloadImages: pick("downloadImages", booleanOf(fields.downloadImages), DEFAULT_SETTINGS.downloadImages),
    protectAgentFiles: pick(
      "protectAgentFiles",
      booleanOf(fields.protectAgentFiles),
      DEFAULT_SETTINGS.protectAgentFiles,
    ),
    showQuotaInStatusBar: pick(
      "showQuotaInStatusBar",
      booleanOf(fields.showQuotaInStatusBar),
      DEFAULT_SETTINGS.showQuotaInStatusBar,
    ),
    // Added within version 1: absent means the defaults (untracked files quiet; the token's old id).
    showUntrackedInStatusBar: pick(
      "showUntrackedInStatusBar",
      booleanOf(fields.showUntrackedInStatusBar),
      DEFAULT_SETTINGS.showUntrackedInStatusBar,
    ),
    apiTokenSecret: pick("apiTokenSecret", secretIdOf(fields.apiTokenSecret), DEFAULT_SETTINGS.apiTokenSecret),
    activityLogSize: pick("activityLogSize", logSizeOf(fields.activityLogSize), DEFAULT_SETTINGS.activityLogSize),
    // Added within version 1 (docs/tool-contract-extensions.md): absent means the cautious defaults.
    agentToolPolicies: pick("agentToolPolicies", policiesOf(fields.agentToolPolicies), { ...DEFAULT_TOOL_POLICIES }),
    agentsReadOnly: pick("agentsReadOnly", booleanOf(fields.agentsReadOnly), DEFAULT_SETTINGS.agentsReadOnly),
    approvalTimeoutSeconds: pick(
      "approvalTimeoutSeconds",
      approvalTimeoutOf(fields.approvalTimeoutSeconds),
      DEFAULT_SETTINGS.approvalTimeoutSeconds,
    ),
    // Added within version 1 (docs/versions-and-comments.md): absent means off.
    requireVersionBeforeOverwrite: pick(
      "requireVersionBeforeOverwrite",
      booleanOf(fields.requireVersionBeforeOverwrite),
      DEFAULT_SETTINGS.requireVersionBeforeOverwrite,
    ),
    // Added within version 1 (docs/sync-journal.md): absent means on.
    agentVersionsOnHackmd: pick(
      "agentVersionsOnHackmd",
      booleanOf(fields.agentVersionsOnHackmd),
      DEFAULT_SETTINGS.agentVersionsOnHackmd,
    ),
    bulkGuardWrites: pick(
      "bulkGuardWrites",
      countOf(fields.bulkGuardWrites, 0, 1000),
      DEFAULT_SETTINGS.bulkGuardWrites,
    ),
    bulkGuardMinutes: pick(
      "bulkGuardMinutes",
      countOf(fields.bulkGuardMinutes, 1, 1440),
      DEFAULT_SETTINGS.bulkGuardMinutes,
    ),
  };
  if (repaired.length > 0) logger.warn("settings_repaired", { fields: repaired });
  return settings;
}

/** A whole number from `min` to `max`, or undefined. */
function countOf(value: unknown, min: number, max: number): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max ? value : undefined;
}

/** The API token a version-0 `data.json` kept in plain text, so the plugin can move it to secret storage. */
export function extractLegacyToken(raw: unknown): string | undefined {
  if (!isRecord(raw) || typeof raw.token !== "string") return undefined;
  const token = raw.token.trim();
  return token === "" ? undefined : token;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function booleanOf(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

/** A secret id Obsidian accepts, or `""` (no secret picked); undefined when unusable. */
function secretIdOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  return value === "" || SECRET_ID_PATTERN.test(value) ? value : undefined;
}

function permissionOf(value: unknown): Permission | undefined {
  return PERMISSIONS.find((permission) => permission === value);
}

/** A ROOT-relative folder in normal form, `""` for the vault root; undefined when unusable. */
function folderOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  if (trimmed === "" || trimmed === "/") return "";
  try {
    return parseRootRelative(trimmed);
  } catch {
    return undefined;
  }
}

/** A team path (docs/tools.md §5.5: not blank, not `.` or `..`, no control characters), null, or undefined when unusable. */
function workspaceOf(value: unknown): string | null | undefined {
  if (value === null) return null;
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  if (trimmed === "") return null;
  if (trimmed === "." || trimmed === ".." || /\p{Cc}/u.test(trimmed)) return undefined;
  return trimmed;
}

/** 0 (off) or whole minutes clamped to [MIN, MAX]; undefined when not a finite number. */
function intervalOf(value: unknown): number | undefined {
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  const minutes = Math.round(value);
  if (minutes <= 0) return 0;
  return Math.min(MAX_BACKGROUND_CHECK_MINUTES, Math.max(MIN_BACKGROUND_CHECK_MINUTES, minutes));
}

/**
 * The defaults overlaid with every stored policy of a tool-shaped name (a tool this version does
 * not know keeps its choice for the version that does); undefined when not an object.
 */
function policiesOf(value: unknown): Record<string, ToolPolicy> | undefined {
  if (!isRecord(value)) return undefined;
  const policies: Record<string, ToolPolicy> = { ...DEFAULT_TOOL_POLICIES };
  for (const [name, policy] of Object.entries(value)) {
    if (/^hackmd_[a-z_]+$/.test(name) && isToolPolicy(policy)) policies[name] = policy;
  }
  return policies;
}

/** A plan's name, `unlimited`, or whole requests clamped to [MIN, MAX]; undefined when unusable. */
function budgetOf(value: unknown): AutoSyncBudget | undefined {
  if (value === "free" || value === "upgraded" || value === "unlimited") return value;
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  return Math.min(MAX_AUTO_SYNC_BUDGET, Math.max(MIN_AUTO_SYNC_BUDGET, Math.round(value)));
}

/** Whole seconds clamped to [MIN, MAX]; undefined when not a finite number. */
function approvalTimeoutOf(value: unknown): number | undefined {
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  return Math.min(MAX_APPROVAL_TIMEOUT_SECONDS, Math.max(MIN_APPROVAL_TIMEOUT_SECONDS, Math.round(value)));
}

/** Whole entries clamped to [0, MAX]; undefined when not a finite number. */
function logSizeOf(value: unknown): number | undefined {
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  return Math.min(MAX_ACTIVITY_LOG_ENTRIES, Math.max(0, Math.round(value)));
}
