/**
 * The settings tab (token in secret storage, connection test, defaults, MCP endpoint).
 * The tab is described once as data (sections of rows, each row rendering into one `Setting`) and
 * rendered two ways from that one description: imperatively by `display()` (required while
 * minAppVersion is below 1.13) and declaratively by `getSettingDefinitions()` (Obsidian 1.13+,
 * where settings search indexes it). Nothing re-renders the whole tab: rows that depend on live
 * state (the endpoint status, the token) subscribe and update themselves, and return a cleanup.
 */
import { renderMirrorList, type MirrorSettings } from "./mirror-list";
import {
  normalizePath,
  Platform,
  PluginSettingTab,
  SecretComponent,
  Setting,
  type App,
  type Plugin,
  type SettingDefinitionItem,
} from "obsidian";
import { clientConfigs } from "../mcp/client-configs";
import { ALL_TOOL_NAMES, DEFAULT_TOOL_POLICIES, isToolPolicy, isWriteTool, type ToolPolicy } from "../mcp/policy";
import type { Permission } from "../hackmd/types";
import {
  apiUrlForSaving,
  MAX_AUTO_SYNC_BUDGET,
  MAX_BACKGROUND_CHECK_MINUTES,
  MIN_AUTO_SYNC_BUDGET,
  monthlyBudgetOf,
  MIN_BACKGROUND_CHECK_MINUTES,
  PERMISSIONS,
  type Settings,
} from "../settings/schema";
import { FREE_PLAN_MONTHLY } from "../sync/auto/budget";
import type { ActivityLog } from "../obsidian/activity-log";
import type { AutoSyncHost } from "../obsidian/auto-sync";
import { isValidPort, type DeviceSettings } from "../obsidian/device-settings";
import { describeEndpointStatus, type EndpointStatus, type McpEndpointController } from "../obsidian/mcp-endpoint";
import type { PluginSecrets } from "../obsidian/secrets";
import { confirm, type ConfirmOptions } from "./confirm-modal";

/** The result of "Test connection": who the token belongs to, or why it failed. */
export type ConnectionTestResult =
  { ok: true; name: string; user_path: string; teams: readonly string[] } | { ok: false; message: string };

/** What the settings tab needs from the plugin (main.ts adapts its services to this). */
export interface SettingsTabServices {
  /** The current settings (data.json). */
  getSettings(): Readonly<Settings>;
  /** Merges and saves a change to data.json. */
  saveSettings(change: Partial<Settings>): Promise<void>;
  /** The HackMD token and the endpoint token in secret storage. */
  secrets: Pick<PluginSecrets, "hackmdToken" | "endpointToken" | "regenerateEndpointToken">;
  /** The device-local endpoint switch and port. */
  device: Pick<DeviceSettings, "get" | "setMcpEnabled" | "setMcpPort">;
  /** The endpoint component. */
  endpoint: Pick<McpEndpointController, "status" | "subscribe" | "start" | "stop" | "restart">;
  /** Asks HackMD who the stored token belongs to (one GET /me). */
  testConnection(): Promise<ConnectionTestResult>;
  /** Automatic sync: the month's requests on this device. */
  autoSync?: Pick<AutoSyncHost, "usage" | "subscribe">;
  /** The agent activity log. */
  activityLog: ActivityLog;
  /** Opens the activity log view. */
  openActivityLog(): Promise<void>;
  /** Asks for a confirmation; defaults to the confirmation modal (tests inject an answer). */
  confirm?: (options: ConfirmOptions) => Promise<boolean>;
  /** Copies text to the clipboard; defaults to the system clipboard. */
  copy?: (text: string) => Promise<void>;
  /** The vault's mirrors (src/obsidian/mirror-actions.ts); absent: no "Mirrors" section. */
  mirrors?: MirrorSettings;
}

/** One row of the tab: a name, a description, and what it adds to its `Setting`. */
interface Row {
  name: string;
  desc?: string;
  /** Fills the setting; may return a cleanup (subscriptions) run when the tab hides. */
  render: (setting: Setting) => void | (() => void);
  /** Whether the row shows now (re-evaluated by `refreshVisibility`); absent: always. */
  visible?: () => boolean;
}

/** A section under one heading. */
interface Section {
  heading: string;
  rows: Row[];
}

/** What the confirmation before turning the endpoint on says (docs/style.md rule 14). */
export const ENABLE_ENDPOINT_CONFIRMATION: ConfirmOptions = {
  title: "Turn on the MCP endpoint?",
  paragraphs: [
    "Local AI agents on this computer (Claude Code, Codex, Claude Desktop or any other MCP client) that have the endpoint token will be able to act for you:",
  ],
  bullets: [
    "Read, create, change and delete your HackMD notes and folders, with your HackMD token.",
    "Write Markdown files in this vault when they pull a note, and read tracked files when they push.",
    "Upload images to HackMD.",
  ],
  confirmText: "Turn on",
};

/** Paragraph added to the confirmation: the safeguards. */
export const ENDPOINT_SAFEGUARDS =
  "The endpoint listens only on 127.0.0.1, refuses web pages (Host and Origin checks) and requires the token. This switch applies to this device only. Every call is listed in the activity log.";

/** Labels of HackMD's permission values. */
const PERMISSION_LABELS: Record<Permission, string> = {
  owner: "Only me",
  signed_in: "Signed-in users",
  guest: "Everyone with the link",
};

/** What each tool lets an agent do, as a setting's name. */
const TOOL_SETTING_NAMES: Readonly<Record<string, string>> = {
  hackmd_get_me: "Read your HackMD profile",
  hackmd_list_notes: "List notes",
  hackmd_get_note: "Read a note",
  hackmd_list_folders: "List folders",
  hackmd_create_note: "Create a note",
  hackmd_update_note: "Change a note",
  hackmd_delete_note: "Delete or restore a note",
  hackmd_upload_note_image: "Upload an image",
  hackmd_create_folder: "Create a folder",
  hackmd_update_folder: "Change a folder",
  hackmd_delete_folder: "Delete a folder",
  hackmd_pull_note: "Pull a note into the vault",
  hackmd_push_note: "Push a file to HackMD",
  hackmd_untrack_note: "Untrack a note",
  hackmd_list_versions: "List a note's versions",
  hackmd_get_version: "Read a version of a note",
  hackmd_create_version: "Save a version of a note",
  hackmd_list_comments: "List a note's comments",
  hackmd_list_journal: "Read the sync journal",
  hackmd_resolve_comment: "Resolve or reopen a comment",
  hackmd_search_notes: "Search the tracked notes",
};

/** Labels of the tool policies. */
const POLICY_LABELS: Record<ToolPolicy, string> = { allow: "Allow", ask: "Ask me first", deny: "Deny" };

/** Choices of the approval timeout, in seconds (all under the 60 s most MCP clients wait). */
const APPROVAL_TIMEOUTS = [15, 30, 45, 55];

/** Choices of the background check interval, in minutes (0 is off). */
const CHECK_INTERVALS = [0, 5, 15, 30, 60, 240, 1440];

/** What the confirmation before regenerating the endpoint token says. */
export const REGENERATE_TOKEN_CONFIRMATION: ConfirmOptions = {
  title: "Regenerate the endpoint token?",
  paragraphs: [
    "Every MCP client set up with the current token stops working at once, until you copy the new configuration into it. The endpoint restarts with the new token.",
  ],
  confirmText: "Regenerate",
  warning: true,
};

/** What the confirmation before clearing the API token says. */
export function clearTokenConfirmation(secretId: string): ConfirmOptions {
  return {
    title: "Clear the HackMD API token?",
    paragraphs: [
      `The secret "${secretId}" in Obsidian's keychain is emptied, and HackMD Bridge cannot reach HackMD until a token is set again.`,
      "Other plugins that use this secret lose it too. To stop only HackMD Bridge from using it, pick another secret instead.",
    ],
    confirmText: "Clear token",
    warning: true,
  };
}

/** The plugin's settings tab. */
/** The settings that are plain switches. */
type BooleanSetting = { [K in keyof Settings]: Settings[K] extends boolean ? K : never }[keyof Settings];

export class HackmdBridgeSettingTab extends PluginSettingTab {
  private cleanups: Array<() => void> = [];
  /** Rows rendered by `display()` that can hide, with their settings (Obsidian before 1.13). */
  private conditional: Array<{ row: Row; setting: Setting }> = [];

  constructor(
    app: App,
    plugin: Plugin,
    private readonly services: SettingsTabServices,
  ) {
    super(app, plugin);
  }

  /** Renders the tab imperatively (Obsidian before 1.13). */
  override display(): void {
    this.runCleanups();
    const { containerEl } = this;
    containerEl.empty();
    containerEl.addClass("hackmd-bridge-settings");
    for (const section of this.sections()) {
      new Setting(containerEl).setName(section.heading).setHeading();
      for (const row of section.rows) {
        const setting = new Setting(containerEl).setName(row.name);
        if (row.desc) setting.setDesc(row.desc);
        this.cleanups.push(this.renderRow(row, setting));
      }
    }
  }

  /**
   * Renders a row and, when it can hide, tracks its element. Visibility is applied to the row's
   * element directly on both rendering paths: the declarative `visible` predicate would need
   * `refreshDomState`, which Obsidian only has since 1.13 (minAppVersion is 1.11.4).
   */
  private renderRow(row: Row, setting: Setting): () => void {
    const cleanup = row.render(setting);
    if (!row.visible) return cleanup ?? (() => undefined);
    const entry = { row, setting };
    this.conditional.push(entry);
    setting.settingEl.toggle(row.visible());
    return () => {
      this.conditional = this.conditional.filter((other) => other !== entry);
      cleanup?.();
    };
  }

  /** Shows or hides the rows whose visibility depends on state. */
  private refreshVisibility(): void {
    for (const { row, setting } of this.conditional) setting.settingEl.toggle(row.visible?.() ?? true);
  }

  /** The same rows as declarative definitions (Obsidian 1.13+ renders and indexes these). */
  override getSettingDefinitions(): SettingDefinitionItem[] {
    return this.sections().map((section) => ({
      type: "group" as const,
      heading: section.heading,
      items: section.rows.map((row) => ({
        name: row.name,
        ...(row.desc ? { desc: row.desc } : {}),
        render: (setting: Setting) => this.renderRow(row, setting),
      })),
    }));
  }

  override hide(): void {
    this.runCleanups();
    super.hide();
  }

  private runCleanups(): void {
    const cleanups = this.cleanups;
    this.cleanups = [];
    for (const cleanup of cleanups) cleanup();
  }

  /** The whole tab as data. */
  private sections(): Section[] {
    return [
      { heading: "HackMD account", rows: [this.tokenRow(), this.testConnectionRow(), this.apiUrlRow()] },
      {
        heading: "New notes",
        rows: [this.pullFolderRow(), this.workspaceRow(), this.permissionRow("read"), this.permissionRow("write")],
      },
      {
        heading: "Sync",
        rows: [
          this.autoMergeRow(),
          this.convertRow(),
          this.downloadImagesRow(),
          this.requireVersionRow(),
          this.backgroundCheckRow(),
          this.quotaRow(),
          this.untrackedRow(),
        ],
      },
      {
        heading: "Automatic sync",
        rows: [this.autoSyncRow(), this.autoSyncStartupRow(), this.autoSyncResumeRow(), this.budgetRow()],
      },
      ...(this.services.mirrors === undefined
        ? []
        : [{ heading: "Mirrors", rows: [this.mirrorsRow(this.services.mirrors)] }]),
      { heading: "Agents", rows: [this.protectAgentFilesRow(), ...this.endpointRows()] },
      {
        heading: "Agent permissions",
        rows: [
          this.readOnlyRow(),
          this.approvalTimeoutRow(),
          this.agentVersionsRow(),
          this.bulkGuardRow(),
          ...ALL_TOOL_NAMES.map((tool) => this.toolPolicyRow(tool)),
        ],
      },
    ];
  }

  // ---- HackMD account ----

  /** A switch bound to one boolean setting. */
  private toggleRow(name: string, desc: string, key: BooleanSetting): Row {
    return {
      name,
      desc,
      render: (setting) =>
        void setting.addToggle((toggle) =>
          toggle.setValue(this.services.getSettings()[key]).onChange(async (value) => {
            await this.services.saveSettings({ [key]: value });
          }),
        ),
    };
  }

  private tokenRow(): Row {
    const secret = this.services.secrets.hackmdToken;
    return {
      name: "API token",
      desc: "The secret in Obsidian's keychain that holds your HackMD API token (create one on HackMD under Settings, API). Pick a secret or create one; other plugins can share it. It never goes into the plugin's data file.",
      render: (setting) => {
        const state = setting.descEl.createDiv({ cls: "hackmd-bridge-setting-state" });
        const showState = (): void => {
          const id = secret.id;
          state.setText(
            id === ""
              ? "No secret is picked."
              : secret.isSet()
                ? `The secret "${id}" holds a token.`
                : `The secret "${id}" is empty; set its value in the keychain.`,
          );
        };
        showState();
        setting.addComponent((el) =>
          new SecretComponent(this.app, el)
            .setValue(this.services.getSettings().apiTokenSecret)
            .onChange(async (id) => {
              await this.services.saveSettings({ apiTokenSecret: id });
              showState();
            }),
        );
        setting.addButton((button) =>
          button.setButtonText("Clear").onClick(async () => {
            if (!secret.isSet()) return;
            if (!(await this.ask(clearTokenConfirmation(secret.id)))) return;
            secret.clear();
            showState();
          }),
        );
      },
    };
  }

  private testConnectionRow(): Row {
    return {
      name: "Test connection",
      desc: "Asks HackMD who the stored token belongs to.",
      render: (setting) => {
        const result = setting.descEl.createDiv({ cls: "hackmd-bridge-setting-state" });
        setting.addButton((button) =>
          button.setButtonText("Test connection").onClick(async () => {
            button.setDisabled(true);
            result.setText("Checking…");
            result.removeClass("hackmd-bridge-error");
            try {
              const outcome = await this.services.testConnection();
              if (outcome.ok) {
                const teams = outcome.teams.length > 0 ? ` Teams: ${outcome.teams.join(", ")}.` : "";
                result.setText(`Connected as ${outcome.name} (@${outcome.user_path}).${teams}`);
              } else {
                result.setText(outcome.message);
                result.addClass("hackmd-bridge-error");
              }
            } finally {
              button.setDisabled(false);
            }
          }),
        );
      },
    };
  }

  private apiUrlRow(): Row {
    return {
      name: "API URL",
      desc: "Advanced. Leave blank for HackMD's public API; change it only for a self-hosted HackMD.",
      render: (setting) => {
        const error = setting.descEl.createDiv({ cls: "hackmd-bridge-error" });
        setting.addText((text) => {
          text.setValue(this.services.getSettings().apiUrl);
          text.inputEl.addEventListener("change", () => {
            void (async () => {
              try {
                const apiUrl = apiUrlForSaving(text.getValue());
                error.setText("");
                await this.services.saveSettings({ apiUrl });
              } catch (failure) {
                error.setText(failure instanceof Error ? failure.message : String(failure));
              }
            })();
          });
        });
      },
    };
  }

  // ---- New notes ----

  private pullFolderRow(): Row {
    return {
      name: "Folder for pulled notes",
      desc: "Where notes pulled by URL are saved. Leave blank for the vault root.",
      render: (setting) =>
        void setting.addText((text) =>
          text
            .setPlaceholder("Example: HackMD")
            .setValue(this.services.getSettings().defaultPullFolder)
            .onChange(async (value) => {
              const folder = value.trim() === "" ? "" : normalizePath(value.trim());
              await this.services.saveSettings({ defaultPullFolder: folder === "/" ? "" : folder });
            }),
        ),
    };
  }

  private workspaceRow(): Row {
    return {
      name: "Workspace for published notes",
      desc: "A team path to publish new notes in that team; leave blank for your personal workspace.",
      render: (setting) =>
        void setting.addText((text) =>
          text
            .setPlaceholder("Personal workspace")
            .setValue(this.services.getSettings().defaultWorkspace ?? "")
            .onChange(async (value) => {
              const team = value.trim().replace(/^@/, "");
              await this.services.saveSettings({ defaultWorkspace: team === "" ? null : team });
            }),
        ),
    };
  }

  private permissionRow(kind: "read" | "write"): Row {
    const field = kind === "read" ? "defaultReadPermission" : "defaultWritePermission";
    return {
      name: kind === "read" ? "Who can read published notes" : "Who can edit published notes",
      desc: kind === "read" ? "Private by default." : "Never more than who can read.",
      render: (setting) =>
        void setting.addDropdown((dropdown) => {
          for (const permission of PERMISSIONS) dropdown.addOption(permission, PERMISSION_LABELS[permission]);
          dropdown.setValue(this.services.getSettings()[field]).onChange(async (value) => {
            const permission = value as Permission;
            const settings = this.services.getSettings();
            // Write access wider than read access is refused by HackMD; keep the pair consistent.
            const change: Partial<Settings> =
              kind === "read"
                ? {
                    defaultReadPermission: permission,
                    defaultWritePermission: narrower(settings.defaultWritePermission, permission),
                  }
                : { defaultWritePermission: narrower(permission, settings.defaultReadPermission) };
            await this.services.saveSettings(change);
            if (kind === "write" && change.defaultWritePermission !== permission)
              dropdown.setValue(change.defaultWritePermission ?? permission);
          });
        }),
    };
  }

  // ---- Sync ----

  private backgroundCheckRow(): Row {
    return {
      name: "Background check",
      desc: `How often tracked notes are compared with HackMD (one request per workspace). Off by default; HackMD allows 100 requests per 5 minutes.`,
      render: (setting) =>
        void setting.addDropdown((dropdown) => {
          const current = this.services.getSettings().backgroundCheckMinutes;
          const choices = CHECK_INTERVALS.includes(current)
            ? CHECK_INTERVALS
            : [...CHECK_INTERVALS, current].sort((a, b) => a - b);
          for (const minutes of choices) dropdown.addOption(String(minutes), intervalLabel(minutes));
          dropdown.setValue(String(current)).onChange(async (value) => {
            const minutes = Number(value);
            const valid =
              minutes === 0 || (minutes >= MIN_BACKGROUND_CHECK_MINUTES && minutes <= MAX_BACKGROUND_CHECK_MINUTES);
            if (valid) await this.services.saveSettings({ backgroundCheckMinutes: minutes });
          });
        }),
    };
  }

  private autoSyncRow(): Row {
    return this.toggleRow(
      "Sync automatically",
      "Pulls HackMD's changes into tracked notes and pushes your edits a while after you stop typing, within the monthly request budget. Notes open with recent typing are left alone; real conflicts are left for you. When on, the plugin sends requests to HackMD on its own.",
      "autoSync",
    );
  }

  private autoSyncStartupRow(): Row {
    return this.toggleRow(
      "Sync on startup",
      "With automatic sync: a round shortly after Obsidian starts. Off: the first round waits for the schedule.",
      "autoSyncOnStartup",
    );
  }

  private autoSyncResumeRow(): Row {
    return this.toggleRow(
      "Sync on resume",
      "With automatic sync: a round when Obsidian comes back after five minutes or more in the background (sleep, another app on mobile), when the budget allows.",
      "autoSyncOnResume",
    );
  }

  private budgetRow(): Row {
    return {
      name: "Monthly request budget",
      desc: "How many requests automatic sync may send per month from this device; it slows down as the month's budget runs low and never sends more than HackMD's 100 per 5 minutes. Give each device a share when several sync.",
      render: (setting) => {
        const state = setting.descEl.createDiv({ cls: "hackmd-bridge-setting-state" });
        const error = setting.descEl.createDiv({ cls: "hackmd-bridge-error" });
        const showUsage = (): void => {
          const usage = this.services.autoSync?.usage();
          if (usage === undefined) return state.setText("");
          const budget = usage.monthly === "unlimited" ? "no monthly limit" : usage.monthly.toLocaleString("en-US");
          state.setText(`Requests used this month: ${usage.used.toLocaleString("en-US")} of ${budget}.`);
        };
        showUsage();
        const current = this.services.getSettings().autoSyncBudget;
        let custom: { setDisabled(disabled: boolean): unknown; setValue(value: string): unknown } | undefined;
        setting.addDropdown((dropdown) => {
          dropdown.addOption("free", "Free plan: 2,000");
          dropdown.addOption("upgraded", "Upgraded plan: 10,000");
          dropdown.addOption("custom", "Custom");
          dropdown.addOption("unlimited", "Unlimited");
          dropdown.setValue(typeof current === "number" ? "custom" : current).onChange(async (value) => {
            if (value === "custom") {
              // A custom budget starts from the one in force (the free plan's after "unlimited").
              const inForce = monthlyBudgetOf(this.services.getSettings().autoSyncBudget);
              const start = typeof inForce === "number" ? inForce : FREE_PLAN_MONTHLY;
              custom?.setDisabled(false);
              custom?.setValue(String(start));
              await this.services.saveSettings({ autoSyncBudget: start });
            } else if (value === "free" || value === "upgraded" || value === "unlimited") {
              custom?.setDisabled(true);
              error.setText("");
              await this.services.saveSettings({ autoSyncBudget: value });
            }
            showUsage();
          });
        });
        setting.addText((text) => {
          custom = text;
          text.setPlaceholder("Requests per month");
          text.setValue(typeof current === "number" ? String(current) : "");
          text.setDisabled(typeof current !== "number");
          text.onChange(async (value) => {
            const number = Number(value.trim());
            if (!Number.isInteger(number) || number < MIN_AUTO_SYNC_BUDGET || number > MAX_AUTO_SYNC_BUDGET) {
              // Nothing is saved: the budget in force stays until the number is valid.
              error.setText(
                `Enter a whole number from ${MIN_AUTO_SYNC_BUDGET.toLocaleString("en-US")} to ${MAX_AUTO_SYNC_BUDGET.toLocaleString("en-US")}.`,
              );
              return;
            }
            error.setText("");
            await this.services.saveSettings({ autoSyncBudget: number });
            showUsage();
          });
        });
        return this.services.autoSync?.subscribe(showUsage);
      },
    };
  }

  private quotaRow(): Row {
    return this.toggleRow(
      "Show API quota in the status bar",
      "Only when less than a fifth of the quota HackMD reports is left.",
      "showQuotaInStatusBar",
    );
  }

  /** The mirrors: each with its folder, its exclude patterns (one per line) and a remove button. */
  private mirrorsRow(mirrors: MirrorSettings): Row {
    return {
      name: "Mirrored folders",
      desc: 'Folders kept as a HackMD workspace or folder. Start one with the command "Mirror a HackMD workspace". Removing a mirror keeps its files and their links.',
      render: (setting) => renderMirrorList(setting, mirrors),
    };
  }

  private untrackedRow(): Row {
    return this.toggleRow(
      "Show untracked files in the status bar",
      "Off: a file that is not linked to a HackMD note shows nothing in the status bar.",
      "showUntrackedInStatusBar",
    );
  }

  private convertRow(): Row {
    return this.toggleRow(
      "Convert Obsidian syntax",
      "Pulled notes are written with wikilinks, embeds, callouts and %%comments%%, and pushed as HackMD shows them: links to the notes' pages, :::containers, uploaded images, no readable comments. Off: notes are synced byte for byte.",
      "convertObsidianSyntax",
    );
  }

  private downloadImagesRow(): Row {
    return this.toggleRow(
      "Download images from HackMD",
      "With syntax conversion on, images a collaborator added on HackMD are saved in the attachment folder and embedded. Off: they stay links.",
      "downloadImages",
    );
  }

  private autoMergeRow(): Row {
    return this.toggleRow(
      "Merge edits automatically",
      "When a file and its note both changed in different places, sync merges the two and pushes the result. Changes to the same lines always open the conflict resolver.",
      "autoMerge",
    );
  }

  private requireVersionRow(): Row {
    return this.toggleRow(
      "Require a version before overwriting",
      "Before \"keep mine\", a restore or an agent's overwrite replaces the note's text, HackMD Bridge saves that text as a named version. When HackMD cannot save one, stop instead of going ahead.",
      "requireVersionBeforeOverwrite",
    );
  }

  // ---- Agents ----

  private protectAgentFilesRow(): Row {
    return this.toggleRow(
      "Protect agent instruction files",
      "Refuse to write files that coding agents load as instructions (such as AGENTS.md or CLAUDE.md) when pulling notes.",
      "protectAgentFiles",
    );
  }

  private readOnlyRow(): Row {
    return this.toggleRow(
      "Read-only for agents",
      "Agents can only read: every tool that changes a note, a folder, an image, a file or a sync record is refused, whatever its choice below.",
      "agentsReadOnly",
    );
  }

  private agentVersionsRow(): Row {
    return this.toggleRow(
      "Name a version before agent writes",
      "Before an agent changes a note's text, save HackMD's text as a version named after the agent, so collaborators can see and restore it on HackMD. Skipped while HackMD's request quota runs low.",
      "agentVersionsOnHackmd",
    );
  }

  private bulkGuardRow(): Row {
    return {
      name: "Pause an agent after many changes",
      desc: "When one agent session makes more than this many changes within the minutes chosen, it is paused and you are asked once, with the list of its changes so far.",
      render: (setting) =>
        void setting
          .addDropdown((dropdown) => {
            const current = this.services.getSettings().bulkGuardWrites;
            const choices = [0, 5, 10, 20, 50].includes(current) ? [0, 5, 10, 20, 50] : [0, 5, 10, 20, 50, current];
            for (const writes of choices.sort((a, b) => a - b))
              dropdown.addOption(String(writes), writes === 0 ? "Never" : `${writes} changes`);
            dropdown.setValue(String(current)).onChange(async (value) => {
              await this.services.saveSettings({ bulkGuardWrites: Number(value) });
            });
          })
          .addDropdown((dropdown) => {
            const current = this.services.getSettings().bulkGuardMinutes;
            const choices = [1, 5, 15, 60].includes(current) ? [1, 5, 15, 60] : [1, 5, 15, 60, current];
            for (const minutes of choices.sort((a, b) => a - b))
              dropdown.addOption(String(minutes), minutes === 1 ? "in 1 minute" : `in ${minutes} minutes`);
            dropdown.setValue(String(current)).onChange(async (value) => {
              await this.services.saveSettings({ bulkGuardMinutes: Number(value) });
            });
          }),
    };
  }

  private approvalTimeoutRow(): Row {
    return {
      name: "Approval timeout",
      desc: "How long a question waits for your answer. Unanswered, the agent's call fails and nothing is changed.",
      render: (setting) =>
        void setting.addDropdown((dropdown) => {
          const current = this.services.getSettings().approvalTimeoutSeconds;
          const choices = APPROVAL_TIMEOUTS.includes(current)
            ? APPROVAL_TIMEOUTS
            : [...APPROVAL_TIMEOUTS, current].sort((a, b) => a - b);
          for (const seconds of choices) dropdown.addOption(String(seconds), `${seconds} seconds`);
          dropdown.setValue(String(current)).onChange(async (value) => {
            await this.services.saveSettings({ approvalTimeoutSeconds: Number(value) });
          });
        }),
    };
  }

  /** One tool's choice: allow, ask first, or deny. */
  private toolPolicyRow(tool: string): Row {
    return {
      name: TOOL_SETTING_NAMES[tool] ?? tool,
      desc: `${tool}${isWriteTool(tool) ? "" : " (reads only)"}`,
      render: (setting) =>
        void setting.addDropdown((dropdown) => {
          for (const [policy, label] of Object.entries(POLICY_LABELS)) dropdown.addOption(policy, label);
          const current = this.services.getSettings().agentToolPolicies[tool] ?? DEFAULT_TOOL_POLICIES[tool] ?? "ask";
          dropdown.setValue(current).onChange(async (value) => {
            if (!isToolPolicy(value)) return;
            await this.services.saveSettings({
              agentToolPolicies: { ...this.services.getSettings().agentToolPolicies, [tool]: value },
            });
          });
        }),
    };
  }

  private endpointRows(): Row[] {
    if (!Platform.isDesktopApp) {
      return [
        {
          name: "MCP endpoint",
          desc: "The MCP endpoint runs only in Obsidian on desktop. Sync works on this device.",
          render: () => undefined,
        },
      ];
    }
    // While the endpoint is off its details would only be noise: they show once it is on.
    const whenOn = (): boolean => this.services.device.get().mcpEnabled;
    const details = [
      this.portRow(),
      this.statusRow(),
      this.endpointTokenRow(),
      ...this.configRows(),
      this.activityRow(),
    ].map((row) => ({ ...row, visible: whenOn }));
    return [this.enableRow(), ...details];
  }

  private enableRow(): Row {
    const { device, endpoint } = this.services;
    return {
      name: "MCP endpoint",
      desc: "Lets local AI agents use your HackMD notes and this vault over MCP. Off by default; applies to this device only. Its port, token and client setups show while it is on.",
      render: (setting) =>
        void setting.addToggle((toggle) =>
          toggle.setValue(device.get().mcpEnabled).onChange(async (value) => {
            if (!value) {
              device.setMcpEnabled(false);
              this.refreshVisibility();
              await endpoint.stop();
              return;
            }
            if (device.get().mcpEnabled) return;
            const confirmed = await this.ask({
              ...ENABLE_ENDPOINT_CONFIRMATION,
              paragraphs: [...ENABLE_ENDPOINT_CONFIRMATION.paragraphs, ENDPOINT_SAFEGUARDS],
            });
            if (!confirmed) {
              toggle.setValue(false);
              return;
            }
            device.setMcpEnabled(true);
            this.refreshVisibility();
            await endpoint.start();
          }),
        ),
    };
  }

  private portRow(): Row {
    const { device, endpoint } = this.services;
    return {
      name: "Port",
      desc: "The loopback port the endpoint listens on (1024 to 65535). Your MCP clients' configuration must use the same port.",
      render: (setting) => {
        const error = setting.descEl.createDiv({ cls: "hackmd-bridge-error" });
        setting.addText((text) => {
          text.inputEl.type = "number";
          text.setValue(String(device.get().mcpPort));
          text.inputEl.addEventListener("change", () => {
            const port = Number(text.getValue());
            if (!isValidPort(port)) {
              error.setText("Enter a whole number from 1024 to 65535.");
              return;
            }
            error.setText("");
            if (port === device.get().mcpPort) return;
            device.setMcpPort(port);
            void endpoint.restart();
          });
        });
      },
    };
  }

  private statusRow(): Row {
    return {
      name: "Status",
      render: (setting) => {
        const show = (status: EndpointStatus): void => {
          setting.setDesc(describeEndpointStatus(status));
          setting.descEl.toggleClass("hackmd-bridge-error", status.state === "port-in-use" || status.state === "error");
        };
        show(this.services.endpoint.status);
        return this.services.endpoint.subscribe(show);
      },
    };
  }

  private endpointTokenRow(): Row {
    const { secrets, endpoint } = this.services;
    return {
      name: "Endpoint token",
      desc: "MCP clients send it as a bearer token. Generated when the endpoint first starts.",
      render: (setting) => {
        const masked = setting.descEl.createDiv({ cls: "hackmd-bridge-token" });
        const show = (): void => {
          masked.setText(maskToken(secrets.endpointToken.getToken()));
        };
        show();
        setting.addExtraButton((button) =>
          button
            .setIcon("copy")
            .setTooltip("Copy token")
            .onClick(() => {
              const token = secrets.endpointToken.getToken();
              if (token) void this.copy(token);
            }),
        );
        setting.addButton((button) =>
          button.setButtonText("Regenerate").onClick(async () => {
            if (!(await this.ask(REGENERATE_TOKEN_CONFIRMATION))) return;
            secrets.regenerateEndpointToken();
            show();
            // The old token must stop working at once: restart with the new one.
            await endpoint.restart();
          }),
        );
        // The token changes on first start and on regenerate; both restart or start the endpoint.
        return endpoint.subscribe(show);
      },
    };
  }

  private configRows(): Row[] {
    const { secrets, endpoint, device } = this.services;
    const urlOf = (status: EndpointStatus): string =>
      status.state === "listening" ? status.url : `http://127.0.0.1:${device.get().mcpPort}/mcp`;
    const ids = clientConfigs("", "").map((config) => config.id);
    return ids.map((id) => ({
      name: clientConfigs("", "").find((config) => config.id === id)?.label ?? id,
      render: (setting: Setting) => {
        const preview = setting.descEl.createEl("pre", { cls: "hackmd-bridge-config" });
        const current = (): { where: string; text: string; masked: string } | undefined => {
          const token = secrets.endpointToken.getToken();
          const url = urlOf(endpoint.status);
          const config = clientConfigs(url, token ?? "").find((entry) => entry.id === id);
          if (!config) return undefined;
          const masked = token
            ? (clientConfigs(url, maskToken(token)).find((entry) => entry.id === id)?.text ?? "")
            : "Start the endpoint once to generate its token.";
          return { where: config.where, text: token ? config.text : "", masked };
        };
        const where = setting.descEl.createDiv();
        setting.descEl.prepend(where);
        const show = (): void => {
          const config = current();
          const hint = config?.where ?? "";
          where.setText(hint.charAt(0).toUpperCase() + hint.slice(1));
          preview.setText(config?.masked ?? "");
        };
        show();
        setting.addButton((button) =>
          button.setButtonText("Copy").onClick(() => {
            const text = current()?.text;
            if (text) void this.copy(text);
          }),
        );
        return endpoint.subscribe(show);
      },
    }));
  }

  private activityRow(): Row {
    return {
      name: "Activity log",
      desc: "Every agent call: time, client, tool, note and outcome, kept in the plugin's folder. Note changes can be undone there.",
      render: (setting) =>
        void setting.addButton((button) =>
          button.setButtonText("Open activity log").onClick(async () => {
            await this.services.openActivityLog();
          }),
        ),
    };
  }

  /** Asks through the injected confirmation, or the confirmation modal. */
  private ask(options: ConfirmOptions): Promise<boolean> {
    return (this.services.confirm ?? ((question: ConfirmOptions) => confirm(this.app, question)))(options);
  }

  private async copy(text: string): Promise<void> {
    const copy = this.services.copy ?? ((value: string) => navigator.clipboard.writeText(value));
    await copy(text);
  }
}

/** A token as the tab shows it: the first four characters, the rest hidden. */
export function maskToken(token: string | undefined): string {
  if (!token) return "No token yet; it is generated when the endpoint first starts.";
  return `${token.slice(0, 4)}${"•".repeat(12)}`;
}

/** The narrower of two permissions (owner < signed_in < guest). */
function narrower(a: Permission, b: Permission): Permission {
  return PERMISSIONS.indexOf(a) <= PERMISSIONS.indexOf(b) ? a : b;
}

function intervalLabel(minutes: number): string {
  if (minutes === 0) return "Off";
  if (minutes % 60 === 0) return minutes === 60 ? "Every hour" : `Every ${minutes / 60} hours`;
  return `Every ${minutes} minutes`;
}
