/**
 * The plugin's settings as saved in `data.json` (docs/style.md rule 14): documented, versioned, with
 * defaults. Secrets are not here (they live in `app.secretStorage`, see obsidian/secrets.ts) and
 * neither are device-local switches such as the MCP endpoint (obsidian/device-settings.ts).
 * Change a field: bump SETTINGS_VERSION and teach `migrateSettings` the step.
 */
import type { Permission } from "../hackmd/types";
import { DEFAULT_API_URL, parseApiUrl } from "../hackmd/config";
import { DEFAULT_TOOL_POLICIES, type ToolPolicy } from "../mcp/policy";
import { defaultBudget, type MonthlyBudget } from "../sync/auto/budget";

/** The current settings version; `migrateSettings` turns every older shape into this one. */
export const SETTINGS_VERSION = 1;

/** Read and write permission values, least to most permissive (HackMD's order). */
export const PERMISSIONS: readonly Permission[] = ["owner", "signed_in", "guest"];

/** Smallest background check interval in minutes when it is on (HackMD allows 100 requests per 5 minutes). */
export const MIN_BACKGROUND_CHECK_MINUTES = 5;

/** Largest background check interval in minutes (one day). */
export const MAX_BACKGROUND_CHECK_MINUTES = 1440;

/** The secret id the API token was stored under before the secret picker (still the default). */
export const DEFAULT_API_TOKEN_SECRET = "hackmd-bridge-api-token";

/** A secret id as Obsidian's secret storage accepts it: lowercase letters and digits, single dashes. */
export const SECRET_ID_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Largest activity log size in entries. */
export const MAX_ACTIVITY_LOG_ENTRIES = 1000;

/** Shortest and longest wait for an answer to an agent's approval request, in seconds. */
export const MIN_APPROVAL_TIMEOUT_SECONDS = 5;
export const MAX_APPROVAL_TIMEOUT_SECONDS = 120;

/** Smallest and largest custom monthly request budget of automatic sync. */
export const MIN_AUTO_SYNC_BUDGET = 10;
export const MAX_AUTO_SYNC_BUDGET = 1_000_000;

/**
 * The monthly request budget of automatic sync: a plan's quota (`free`: 2,000, `upgraded`:
 * 10,000), a custom number of requests, or `unlimited` (only HackMD's 100 per 5 minutes).
 */
export type AutoSyncBudget = "free" | "upgraded" | "unlimited" | number;

/** The budget the engine counts against for a setting. */
export function monthlyBudgetOf(setting: AutoSyncBudget): MonthlyBudget {
  if (setting === "free" || setting === "upgraded") return defaultBudget(setting);
  return setting;
}

/** The plugin settings, version 1. */
export interface Settings {
  /** Schema version of this object; always SETTINGS_VERSION after migration. */
  version: number;
  /** HackMD API base URL (advanced); validated with `parseApiUrl` before it is saved (docs/tools.md §2.2). */
  apiUrl: string;
  /** Vault folder new pulls go to, ROOT-relative with `/`; `""` is the vault root. */
  defaultPullFolder: string;
  /** Team path new notes are created in, or null for the personal workspace. */
  defaultWorkspace: string | null;
  /** Read permission of notes the plugin creates; private by default. */
  defaultReadPermission: Permission;
  /** Write permission of notes the plugin creates; never more permissive than the read permission. */
  defaultWritePermission: Permission;
  /** Minutes between background sync checks; 0 turns them off (else 5 to 1440). */
  backgroundCheckMinutes: number;
  /**
   * Automatic sync (docs/auto-sync.md): pulls and pushes tracked notes on its own,
   * paced by the monthly request budget, with a persistent outbox. Off by default.
   */
  autoSync: boolean;
  /** With automatic sync: a round shortly after Obsidian has started (else the first waits for the schedule). */
  autoSyncOnStartup: boolean;
  /** With automatic sync: a round when Obsidian comes back after being hidden for a while (sleep, mobile foreground). */
  autoSyncOnResume: boolean;
  /** With automatic sync: the monthly request budget (default: HackMD's free plan, 2,000). */
  autoSyncBudget: AutoSyncBudget;
  /** Merge edits made on both sides when they do not overlap (Sync file, Sync all); off reports them as conflicts. */
  autoMerge: boolean;
  /**
   * Write pulled notes in Obsidian's syntax and convert them back on push (images,
   * wikilinks, embeds, callouts, comments; docs/conversion-rules.md). Off: byte for byte. A note
   * pulled without conversion keeps that (the "Pull without conversion" command).
   */
  convertObsidianSyntax: boolean;
  /** With conversion: bring images a collaborator added on HackMD into the attachment folder. */
  downloadImages: boolean;
  /** Refuse to write files and folders coding agents load as instructions (docs/tools.md §12.4). */
  protectAgentFiles: boolean;
  /** Show the remaining HackMD API quota in the status bar when less than a fifth of it is left. */
  showQuotaInStatusBar: boolean;
  /** Show "untracked" in the status bar for files not linked to a note (off: such files show nothing). */
  showUntrackedInStatusBar: boolean;
  /**
   * The id of the secret in Obsidian's keychain (`app.secretStorage`) that holds the HackMD API
   * token, picked with the settings tab's secret picker; `""` when none is picked. The default is
   * the id earlier versions stored the token under, so an existing token keeps working.
   */
  apiTokenSecret: string;
  /** How many entries the activity log keeps (0 keeps none). */
  activityLogSize: number;
  /** What an agent's call of each tool does: allow, ask the user first, or deny (docs/tool-contract-extensions.md); missing tools: reads allow, writes ask. */
  agentToolPolicies: Record<string, ToolPolicy>;
  /** "Read-only for agents": every tool that may change something is denied, whatever its policy. */
  agentsReadOnly: boolean;
  /** Seconds an approval request waits for an answer before the call fails with approval_timeout (5 to 120). */
  approvalTimeoutSeconds: number;
  /** Refuse an overwrite of HackMD's text (keep mine, restore) when it could not be saved as a version first; off: go ahead and say so. */
  requireVersionBeforeOverwrite: boolean;
  /** Name HackMD's text as a version before each agent write of a note, while the quota allows (docs/sync-journal.md). */
  agentVersionsOnHackmd: boolean;
  /** The bulk guard: more than this many writes by one agent session (0: off)… */
  bulkGuardWrites: number;
  /** …within this many minutes pause it and ask once. */
  bulkGuardMinutes: number;
}

/** The defaults of every field. */
export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  version: SETTINGS_VERSION,
  apiUrl: DEFAULT_API_URL,
  defaultPullFolder: "",
  defaultWorkspace: null,
  defaultReadPermission: "owner",
  defaultWritePermission: "owner",
  backgroundCheckMinutes: 0,
  autoSync: false,
  autoSyncOnStartup: true,
  autoSyncOnResume: true,
  autoSyncBudget: "free",
  autoMerge: true,
  convertObsidianSyntax: true,
  downloadImages: true,
  protectAgentFiles: true,
  showQuotaInStatusBar: true,
  showUntrackedInStatusBar: false,
  apiTokenSecret: DEFAULT_API_TOKEN_SECRET,
  activityLogSize: 200,
  agentToolPolicies: { ...DEFAULT_TOOL_POLICIES },
  agentsReadOnly: false,
  // Well under the 60 s most MCP clients wait for a tool call.
  approvalTimeoutSeconds: 45,
  requireVersionBeforeOverwrite: false,
  agentVersionsOnHackmd: true,
  bulkGuardWrites: 10,
  bulkGuardMinutes: 5,
});

/**
 * The API URL as the settings tab saves it: trimmed, or blank for the default. Throws
 * `invalid_input` (a message that never repeats the value) when `parseApiUrl` refuses it.
 */
export function apiUrlForSaving(value: string): string {
  const trimmed = value.trim();
  if (trimmed === "") return DEFAULT_API_URL;
  parseApiUrl(trimmed);
  return trimmed;
}
