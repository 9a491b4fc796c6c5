/** The settings schema and its pure migration (docs/style.md rule 14). */
import { DEFAULT_TOOL_POLICIES } from "../../src/mcp/policy";
import fc from "fast-check";
import { silentLogger, type Logger } from "../../src/core/ports";
import { apiUrlForSaving, DEFAULT_SETTINGS, SETTINGS_VERSION, type Settings } from "../../src/settings/schema";
import { extractLegacyToken, migrateSettings } from "../../src/settings/migrate";

const TOKEN = "hmd-legacy-token";

function recordingLogger(): Logger & { events: Array<[string, Record<string, unknown> | undefined]> } {
  const events: Array<[string, Record<string, unknown> | undefined]> = [];
  return { ...silentLogger, events, warn: (event, fields) => void events.push([event, fields]) };
}

describe("migrateSettings", () => {
  it("gives the defaults for nothing, {} and garbage; defaults are private and safe", () => {
    for (const raw of [undefined, null, {}, [], 42, "text", true, [1, 2]])
      expect(migrateSettings(raw)).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS).toMatchObject({
      version: SETTINGS_VERSION,
      apiUrl: "https://api.hackmd.io/v1",
      defaultReadPermission: "owner",
      defaultWritePermission: "owner",
      defaultWorkspace: null,
      backgroundCheckMinutes: 0,
      protectAgentFiles: true,
    });
  });

  it("replaces wrong types and unusable values field by field, drops unknown fields and logs what it repaired", () => {
    const logger = recordingLogger();
    const migrated = migrateSettings(
      {
        version: 1,
        apiUrl: "http://example.com/v1",
        defaultPullFolder: "../outside",
        defaultWorkspace: "..",
        defaultReadPermission: "everyone",
        defaultWritePermission: 3,
        backgroundCheckMinutes: "10",
        protectAgentFiles: "false",
        showQuotaInStatusBar: null,
        activityLogSize: Number.POSITIVE_INFINITY,
        extra: "dropped",
      },
      { logger },
    );
    expect(migrated).toEqual(DEFAULT_SETTINGS);
    expect(Object.keys(migrated)).not.toContain("extra");
    const [event, fields] = logger.events[0] ?? [];
    expect(event).toBe("settings_repaired");
    expect(JSON.stringify(fields)).not.toContain("example.com");
  });

  it("normalises and clamps usable values", () => {
    expect(
      migrateSettings({
        version: 1,
        apiUrl: " http://127.0.0.1:4000/v1 ",
        defaultPullFolder: "./HackMD//Inbox/",
        defaultWorkspace: "  my-team ",
        defaultReadPermission: "signed_in",
        defaultWritePermission: "guest",
        backgroundCheckMinutes: 2.4,
        autoMerge: false,
        convertObsidianSyntax: false,
        downloadImages: false,
        protectAgentFiles: false,
        showQuotaInStatusBar: false,
        activityLogSize: 5000,
      }),
    ).toEqual({
      version: 1,
      apiUrl: "http://127.0.0.1:4000/v1",
      defaultPullFolder: "HackMD/Inbox",
      defaultWorkspace: "my-team",
      defaultReadPermission: "signed_in",
      // Never more permissive than the read permission (docs/tools.md §5.4).
      defaultWritePermission: "signed_in",
      backgroundCheckMinutes: 5,
      autoMerge: false,
      convertObsidianSyntax: false,
      downloadImages: false,
      protectAgentFiles: false,
      showQuotaInStatusBar: false,
      showUntrackedInStatusBar: false,
      apiTokenSecret: "hackmd-bridge-api-token",
      activityLogSize: 1000,
      agentToolPolicies: { ...DEFAULT_TOOL_POLICIES },
      agentsReadOnly: false,
      approvalTimeoutSeconds: 45,
      requireVersionBeforeOverwrite: false,
      agentVersionsOnHackmd: true,
      bulkGuardWrites: 10,
      bulkGuardMinutes: 5,
      autoSync: false,
      autoSyncOnStartup: true,
      autoSyncOnResume: true,
      autoSyncBudget: "free",
    } satisfies Settings);
    expect(migrateSettings({ version: 1, requireVersionBeforeOverwrite: true }).requireVersionBeforeOverwrite).toBe(
      true,
    );
    expect(migrateSettings({ version: 1, requireVersionBeforeOverwrite: "yes" }).requireVersionBeforeOverwrite).toBe(
      false,
    );
    // The secret picker's id: a valid id or "" (none picked) is kept; anything else is the default.
    expect(migrateSettings({ version: 1, apiTokenSecret: "team-token" }).apiTokenSecret).toBe("team-token");
    expect(migrateSettings({ version: 1, apiTokenSecret: "" }).apiTokenSecret).toBe("");
    expect(migrateSettings({ version: 1, apiTokenSecret: "Not An Id" }).apiTokenSecret).toBe("hackmd-bridge-api-token");
    expect(migrateSettings({ version: 1, showUntrackedInStatusBar: true }).showUntrackedInStatusBar).toBe(true);
    // A version-1 object saved before autoMerge existed gets the default; a wrong type is repaired.
    expect(migrateSettings({ version: 1 }).autoMerge).toBe(true);
    expect(migrateSettings({ version: 1, autoMerge: "yes" }).autoMerge).toBe(true);
    expect(migrateSettings({ version: 1 }).convertObsidianSyntax).toBe(true);
    // Automatic sync (docs/auto-sync.md): off unless saved on; a budget is a plan, unlimited or a clamped number.
    expect(migrateSettings({ version: 1 })).toMatchObject({
      autoSync: false,
      autoSyncOnStartup: true,
      autoSyncOnResume: true,
      autoSyncBudget: "free",
    });
    expect(
      migrateSettings({ version: 1, autoSync: true, autoSyncOnResume: false, autoSyncBudget: "unlimited" }),
    ).toMatchObject({ autoSync: true, autoSyncOnResume: false, autoSyncBudget: "unlimited" });
    expect(migrateSettings({ version: 1, autoSyncBudget: 3 }).autoSyncBudget).toBe(10);
    expect(migrateSettings({ version: 1, autoSyncBudget: 1500.4 }).autoSyncBudget).toBe(1500);
    expect(migrateSettings({ version: 1, autoSyncBudget: "lots", autoSync: "yes" })).toMatchObject({
      autoSyncBudget: "free",
      autoSync: false,
    });
    expect(
      migrateSettings({ version: 1, backgroundCheckMinutes: -3, defaultPullFolder: "/", defaultWorkspace: "" }),
    ).toMatchObject({
      backgroundCheckMinutes: 0,
      defaultPullFolder: "",
      defaultWorkspace: null,
    });
  });

  it("keeps valid tool policies over the cautious defaults, repairs the rest, and clamps the approval timeout", () => {
    expect(DEFAULT_TOOL_POLICIES).toMatchObject({
      hackmd_get_note: "allow",
      hackmd_update_note: "ask",
      hackmd_delete_note: "ask",
      hackmd_untrack_note: "ask",
      hackmd_create_folder: "ask",
    });
    const migrated = migrateSettings({
      version: 1,
      agentToolPolicies: {
        hackmd_delete_note: "deny",
        hackmd_update_note: "maybe",
        hackmd_list_versions: "allow",
        "not a tool": "allow",
      },
      agentsReadOnly: true,
      approvalTimeoutSeconds: 1,
    });
    expect(migrated.agentToolPolicies).toEqual({
      ...DEFAULT_TOOL_POLICIES,
      hackmd_delete_note: "deny",
      hackmd_list_versions: "allow",
    });
    expect(migrated.agentsReadOnly).toBe(true);
    expect(migrated.approvalTimeoutSeconds).toBe(5);
    expect(migrateSettings({ version: 1, approvalTimeoutSeconds: 900 }).approvalTimeoutSeconds).toBe(120);
    expect(migrateSettings({ version: 1, agentToolPolicies: "all" }).agentToolPolicies).toEqual(DEFAULT_TOOL_POLICIES);
    expect(migrateSettings(migrated)).toEqual(migrated);
  });

  it("migrates the unversioned v0 shape and never carries its token over", () => {
    const v0 = {
      token: TOKEN,
      apiURL: "https://hackmd.example.org/api/v1",
      pullFolder: "Imported",
      teamPath: "lab",
      readPermission: "guest",
      writePermission: "signed_in",
      autoCheckInterval: 15,
      protectAgentFiles: false,
    };
    const migrated = migrateSettings(v0);
    expect(migrated).toEqual({
      ...DEFAULT_SETTINGS,
      apiUrl: "https://hackmd.example.org/api/v1",
      defaultPullFolder: "Imported",
      defaultWorkspace: "lab",
      defaultReadPermission: "guest",
      defaultWritePermission: "signed_in",
      backgroundCheckMinutes: 15,
      protectAgentFiles: false,
    });
    expect(JSON.stringify(migrated)).not.toContain(TOKEN);
    expect(extractLegacyToken(v0)).toBe(TOKEN);
    expect(extractLegacyToken({ token: "  " })).toBeUndefined();
    expect(extractLegacyToken("x")).toBeUndefined();
  });

  it("keeps the known fields of a newer version and logs it", () => {
    const logger = recordingLogger();
    const migrated = migrateSettings({ version: 7, defaultPullFolder: "Later", futureField: { x: 1 } }, { logger });
    expect(migrated).toEqual({ ...DEFAULT_SETTINGS, defaultPullFolder: "Later" });
    expect(logger.events.map(([event]) => event)).toEqual(["settings_from_newer_version"]);
  });

  it("is idempotent: migrating a migrated object is the identity (property)", () => {
    const field = fc.oneof(
      fc.anything(),
      fc.constantFrom("owner", "signed_in", "guest", "https://api.hackmd.io/v1/", "a/./b", " t "),
    );
    const shape = fc.record(
      {
        version: fc.oneof(fc.constantFrom(0, 1, 2), fc.anything()),
        apiUrl: field,
        apiURL: field,
        defaultPullFolder: field,
        pullFolder: field,
        defaultWorkspace: field,
        defaultReadPermission: field,
        defaultWritePermission: field,
        writePermission: field,
        backgroundCheckMinutes: fc.oneof(fc.double(), field),
        protectAgentFiles: field,
        activityLogSize: fc.oneof(fc.double(), field),
        token: field,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(shape, fc.anything()), (raw) => {
        const once = migrateSettings(raw);
        expect(migrateSettings(once)).toEqual(once);
        expect(migrateSettings(JSON.parse(JSON.stringify(once)))).toEqual(once);
        expect(Object.keys(once).sort()).toEqual(Object.keys(DEFAULT_SETTINGS).sort());
        expect(Object.keys(once)).not.toContain("token");
      }),
      { seed: 20261201, numRuns: 300 },
    );
  });
});

describe("apiUrlForSaving", () => {
  it("accepts https and loopback http, maps blank to the default, refuses the rest without echoing it", () => {
    expect(apiUrlForSaving(" https://hackmd.example.org/v1 ")).toBe("https://hackmd.example.org/v1");
    expect(apiUrlForSaving("http://localhost:3000/v1")).toBe("http://localhost:3000/v1");
    expect(apiUrlForSaving("  ")).toBe("https://api.hackmd.io/v1");
    for (const bad of ["http://example.com/v1", "not a url", "https://user:pw@example.com/v1"]) {
      let message = "";
      try {
        apiUrlForSaving(bad);
      } catch (error) {
        expect(error).toMatchObject({ kind: "invalid_input" });
        message = (error as Error).message;
      }
      expect(message).not.toBe("");
      expect(message).not.toContain(bad);
    }
  });
});
