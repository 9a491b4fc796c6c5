/**
 * The settings tab rendered with Obsidian's DOM helpers: sections, the token kept only in secret
 * storage, the connection test, API URL validation, and the MCP switch behind its confirmation.
 */
import { App, Platform, Plugin } from "../__mocks__/obsidian";
import { DEFAULT_SETTINGS, type Settings } from "../../src/settings/schema";
import { ActivityLog } from "../../src/obsidian/activity-log";
import { DeviceSettings } from "../../src/obsidian/device-settings";
import type { EndpointStatus } from "../../src/obsidian/mcp-endpoint";
import { PluginSecrets } from "../../src/obsidian/secrets";
import { clientConfigs } from "../../src/mcp/client-configs";
import { ALL_TOOL_NAMES } from "../../src/mcp/policy";
import type { ConfirmOptions } from "../../src/ui/confirm-modal";
import { HackmdBridgeSettingTab, type SettingsTabServices } from "../../src/ui/settings-tab";

function fakeEndpoint() {
  let status: EndpointStatus = { state: "stopped" };
  const listeners = new Set<(status: EndpointStatus) => void>();
  const set = (next: EndpointStatus): EndpointStatus => {
    status = next;
    for (const listener of listeners) listener(next);
    return next;
  };
  return {
    get status() {
      return status;
    },
    subscribe: (listener: (status: EndpointStatus) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start: jest.fn(async () => set({ state: "listening", url: "http://127.0.0.1:27183/mcp", port: 27183 })),
    stop: jest.fn(async () => {
      set({ state: "stopped" });
    }),
    restart: jest.fn(async () => status),
    set,
    listenerCount: () => listeners.size,
  };
}

function setup(overrides: Partial<SettingsTabServices> = {}) {
  const app = new App();
  let settings: Settings = { ...DEFAULT_SETTINGS };
  const saved: Array<Partial<Settings>> = [];
  const secrets = new PluginSecrets({ app, tokenSecretId: () => settings.apiTokenSecret });
  const device = new DeviceSettings({ app });
  const endpoint = fakeEndpoint();
  const confirm = jest.fn(async (_options: ConfirmOptions) => false);
  const copied: string[] = [];
  const services: SettingsTabServices = {
    getSettings: () => settings,
    saveSettings: async (change) => {
      saved.push(change);
      settings = { ...settings, ...change };
    },
    secrets,
    device,
    endpoint,
    testConnection: async () => ({ ok: true, name: "Ada", user_path: "ada", teams: ["sandbox"] }),
    activityLog: new ActivityLog({ capacity: 10 }),
    openActivityLog: jest.fn(async () => undefined),
    confirm,
    copy: async (text) => {
      copied.push(text);
    },
    ...overrides,
  };
  const tab = new HackmdBridgeSettingTab(app as never, new Plugin(app, {}) as never, services);
  renderBefore113(tab);
  const row = (name: string): HTMLElement => {
    const found = [...tab.containerEl.querySelectorAll<HTMLElement>(".setting-item")].find(
      (el) => el.querySelector(".setting-item-name")?.textContent === name,
    );
    if (!found) throw new Error(`no setting named ${name}`);
    return found;
  };
  return { app, tab, services, saved, secrets, device, endpoint, confirm, copied, row, settings: () => settings };
}

/** Renders like Obsidian before 1.13 does (minAppVersion is 1.11.4): through display(). */
function renderBefore113(tab: { display(): void }): void {
  tab.display();
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("settings tab", () => {
  afterEach(() => {
    Platform.isDesktopApp = true;
  });

  it("names every tool's permission in words, not by its tool name", () => {
    const { tab } = setup();
    const names = [...tab.containerEl.querySelectorAll<HTMLElement>(".setting-item")].map((el) => ({
      name: el.querySelector(".setting-item-name")?.textContent ?? "",
      description: el.querySelector(".setting-item-description")?.textContent ?? "",
    }));
    for (const tool of ALL_TOOL_NAMES) {
      const row = names.find((entry) => entry.description.startsWith(tool));
      expect({ tool, found: row !== undefined, named: row !== undefined && row.name !== tool }).toEqual({
        tool,
        found: true,
        named: true,
      });
    }
  });

  it("renders sentence-case headings with Setting.setHeading, and the same groups declaratively", () => {
    const { tab } = setup();
    const headings = [...tab.containerEl.querySelectorAll(".setting-item-heading .setting-item-name")].map(
      (el) => el.textContent,
    );
    expect(headings).toEqual(["HackMD account", "New notes", "Sync", "Automatic sync", "Agents", "Agent permissions"]);
    expect(tab.containerEl.querySelector("h1, h2, h3, h4, h5, h6")).toBeNull();
    const groups = tab.getSettingDefinitions() as Array<{ heading: string; items: Array<{ name: string }> }>;
    expect(groups.map((group) => group.heading)).toEqual(headings);
    expect(groups[3]?.items.map((item) => item.name)).toEqual([
      "Sync automatically",
      "Sync on startup",
      "Sync on resume",
      "Monthly request budget",
    ]);
    expect(groups[4]?.items.map((item) => item.name)).toEqual([
      "Protect agent instruction files",
      "MCP endpoint",
      "Port",
      "Status",
      "Endpoint token",
      ...clientConfigs("", "").map((config) => config.label),
      "Activity log",
    ]);
  });

  it("offers allow, ask or deny per tool with the cautious defaults, the read-only switch and the approval timeout", async () => {
    const { row, saved, settings } = setup();
    const select = (name: string): HTMLSelectElement => row(name).querySelector("select")!;
    expect(select("Read a note").value).toBe("allow");
    expect(row("Read a note").textContent).toContain("hackmd_get_note");
    expect(select("Change a note").value).toBe("ask");
    expect(select("Delete or restore a note").value).toBe("ask");
    expect(select("Untrack a note").value).toBe("ask");
    expect([...select("Change a note").options].map((option) => option.textContent)).toEqual([
      "Allow",
      "Ask me first",
      "Deny",
    ]);
    const del = select("Delete or restore a note");
    del.value = "deny";
    del.dispatchEvent(new Event("change"));
    await flush();
    expect(settings().agentToolPolicies).toMatchObject({ hackmd_delete_note: "deny", hackmd_update_note: "ask" });
    row("Read-only for agents").querySelector<HTMLElement>(".checkbox-container")?.click();
    await flush();
    expect(saved.at(-1)).toEqual({ agentsReadOnly: true });
    const timeout = select("Approval timeout");
    expect(timeout.value).toBe("45");
    timeout.value = "30";
    timeout.dispatchEvent(new Event("change"));
    await flush();
    expect(settings().approvalTimeoutSeconds).toBe(30);
  });

  it("picks the HackMD token's secret from the keychain, keeps only its id in the settings, and tests the connection", async () => {
    const { app, row, secrets, saved, tab } = setup();
    const token = row("API token");
    // The id used before the picker is the default: a token stored there keeps working.
    const empty = token.textContent;
    expect(empty).toContain('"hackmd-bridge-api-token"');
    expect(token.querySelector("input")).toBeNull();
    app.secretStorage.setSecret("shared-hackmd", "secret-token-123");
    renderBefore113(tab);
    const picker = tab.containerEl.querySelector<HTMLSelectElement>(".fake-secret-component")!;
    picker.value = "shared-hackmd";
    picker.dispatchEvent(new Event("change"));
    await flush();
    expect(saved).toEqual([{ apiTokenSecret: "shared-hackmd" }]);
    expect(secrets.hackmdToken.getToken()).toBe("secret-token-123");
    const holding = row("API token").textContent;
    expect(holding).toContain('"shared-hackmd"');
    expect(holding).not.toBe(empty?.replace("hackmd-bridge-api-token", "shared-hackmd"));
    expect(JSON.stringify(saved)).not.toContain("secret-token-123");

    const test = row("Test connection");
    test.querySelector("button")!.click();
    await flush();
    // The connection test names the account and its teams.
    expect(test.textContent).toMatch(/Ada \(@ada\).*sandbox/);
    expect({ empty, holding, connected: test.textContent }).toMatchSnapshot();
  });

  it("clears the token only after a warning that names the shared secret", async () => {
    const { app, row, secrets, confirm } = setup();
    const emptyRow = row("API token").textContent;
    app.secretStorage.setSecret("hackmd-bridge-api-token", "secret-token-123");
    const clear = (): void =>
      [...row("API token").querySelectorAll("button")].find((b) => b.textContent === "Clear")!.click();
    clear();
    await flush();
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(confirm.mock.calls[0]?.[0]).toMatchObject({ warning: true });
    // The warning names the shared secret.
    expect(confirm.mock.calls[0]?.[0]?.paragraphs?.join(" ")).toContain('"hackmd-bridge-api-token"');
    expect(confirm.mock.calls[0]?.[0]).toMatchSnapshot();
    expect(secrets.hackmdToken.getToken()).toBe("secret-token-123");
    confirm.mockResolvedValueOnce(true);
    clear();
    await flush();
    expect(secrets.hackmdToken.getToken()).toBeUndefined();
    expect(row("API token").textContent).toBe(emptyRow);
  });

  it("shows the untracked-files switch in the Sync section", async () => {
    const { row, saved } = setup();
    row("Show untracked files in the status bar").querySelector<HTMLElement>(".checkbox-container")!.click();
    await flush();
    expect(saved).toEqual([{ showUntrackedInStatusBar: true }]);
  });

  it("turns automatic sync on with one switch, picks the budget, and shows the month's requests", async () => {
    let usage = { used: 12, monthly: 2000 as number | "unlimited" };
    const listeners = new Set<() => void>();
    const autoSync = {
      usage: () => usage,
      subscribe: (listener: () => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const { row, saved, tab } = setup({ autoSync });
    row("Sync automatically").querySelector<HTMLElement>(".checkbox-container")!.click();
    await flush();
    expect(saved).toEqual([{ autoSync: true }]);
    const budget = row("Monthly request budget");
    expect(budget.textContent).toContain("12 of 2,000");
    const select = budget.querySelector("select")!;
    const input = budget.querySelector("input")!;
    expect(select.value).toBe("free");
    expect(input.disabled).toBe(true);
    select.value = "unlimited";
    select.dispatchEvent(new Event("change"));
    await flush();
    select.value = "custom";
    select.dispatchEvent(new Event("change"));
    await flush();
    expect(input.disabled).toBe(false);
    input.value = "900";
    input.dispatchEvent(new Event("input"));
    await flush();
    input.value = "3";
    input.dispatchEvent(new Event("input"));
    await flush();
    const refused = budget.querySelector(".hackmd-bridge-error")?.textContent;
    // The message names the allowed range.
    expect(refused).toMatch(/10 to 1,000,000/);
    input.value = "900";
    input.dispatchEvent(new Event("input"));
    await flush();
    expect(budget.querySelector(".hackmd-bridge-error")?.textContent).toBe("");
    expect(saved.slice(1)).toEqual([
      { autoSyncBudget: "unlimited" },
      { autoSyncBudget: 2000 },
      { autoSyncBudget: 900 },
      { autoSyncBudget: 900 },
    ]);
    // A step's new count shows without re-rendering the tab.
    usage = { used: 40, monthly: 900 };
    for (const listener of listeners) listener();
    expect(budget.textContent).toContain("40 of 900");
    expect({ budget: budget.textContent, refused }).toMatchSnapshot();
    tab.hide();
    expect(listeners.size).toBe(0);
  });

  it("collapses the Agents section while the endpoint is off", async () => {
    const { row, confirm } = setup();
    const details = [
      "Port",
      "Status",
      "Endpoint token",
      ...clientConfigs("", "").map((config) => config.label),
      "Activity log",
    ];
    for (const name of details) expect(row(name).style.display).toBe("none");
    expect(row("MCP endpoint").style.display).not.toBe("none");
    confirm.mockResolvedValueOnce(true);
    row("MCP endpoint").querySelector<HTMLElement>(".checkbox-container")!.click();
    await flush();
    for (const name of details) expect(row(name).style.display).not.toBe("none");
    row("MCP endpoint").querySelector<HTMLElement>(".checkbox-container")!.click();
    await flush();
    for (const name of details) expect(row(name).style.display).toBe("none");
  });

  it("regenerates the endpoint token only after a warning", async () => {
    const { row, confirm, secrets, endpoint, device } = setup();
    device.setMcpEnabled(true);
    const first = secrets.regenerateEndpointToken();
    const regenerate = (): void =>
      [...row("Endpoint token").querySelectorAll("button")].find((b) => b.textContent === "Regenerate")!.click();
    regenerate();
    await flush();
    expect(confirm.mock.calls[0]?.[0]).toMatchObject({ warning: true });
    expect(confirm.mock.calls[0]?.[0]).toMatchSnapshot();
    expect(secrets.endpointToken.getToken()).toBe(first);
    expect(endpoint.restart).not.toHaveBeenCalled();
    confirm.mockResolvedValueOnce(true);
    regenerate();
    await flush();
    expect(secrets.endpointToken.getToken()).not.toBe(first);
    expect(endpoint.restart).toHaveBeenCalledTimes(1);
  });

  it("validates the API URL before saving it", async () => {
    const { row, saved } = setup();
    const input = row("API URL").querySelector("input")!;
    input.value = "ftp://example.com";
    input.dispatchEvent(new Event("change"));
    await flush();
    expect(saved).toEqual([]);
    expect(row("API URL").querySelector(".hackmd-bridge-error")?.textContent).not.toBe("");
    input.value = "https://hackmd.example.com/v1";
    input.dispatchEvent(new Event("change"));
    await flush();
    expect(saved).toEqual([{ apiUrl: "https://hackmd.example.com/v1" }]);
  });

  it("keeps write permission no wider than read permission", async () => {
    const { row, settings } = setup();
    const read = row("Who can read published notes").querySelector("select")!;
    read.value = "guest";
    read.dispatchEvent(new Event("change"));
    await flush();
    const write = row("Who can edit published notes").querySelector("select")!;
    write.value = "guest";
    write.dispatchEvent(new Event("change"));
    await flush();
    expect(settings()).toMatchObject({ defaultReadPermission: "guest", defaultWritePermission: "guest" });
    read.value = "owner";
    read.dispatchEvent(new Event("change"));
    await flush();
    expect(settings()).toMatchObject({ defaultReadPermission: "owner", defaultWritePermission: "owner" });
  });

  it("turns the endpoint on only after the confirmation, device-locally, and shows its status", async () => {
    const { row, confirm, device, endpoint, saved, secrets, copied } = setup();
    const toggle = row("MCP endpoint").querySelector<HTMLElement>(".checkbox-container")!;
    toggle.click();
    await flush();
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(confirm.mock.calls[0]?.[0]).toMatchSnapshot();
    expect(device.get().mcpEnabled).toBe(false);
    expect(endpoint.start).not.toHaveBeenCalled();
    expect(toggle.classList.contains("is-enabled")).toBe(false);

    confirm.mockResolvedValueOnce(true);
    toggle.click();
    await flush();
    expect(device.get().mcpEnabled).toBe(true);
    expect(endpoint.start).toHaveBeenCalledTimes(1);
    expect(saved).toEqual([]);
    const listening = row("Status").textContent;
    expect(listening).toContain("http://127.0.0.1:27183/mcp");

    endpoint.set({ state: "port-in-use", port: 27183, message: "x" });
    const inUse = row("Status").textContent;
    expect(inUse).toContain("27183");
    expect(inUse).not.toBe(listening);
    expect({ listening, inUse }).toMatchSnapshot();

    // The token is masked on screen; copy gives the real one, and configurations carry it.
    const token = secrets.regenerateEndpointToken();
    endpoint.set({ state: "listening", url: "http://127.0.0.1:27183/mcp", port: 27183 });
    expect(row("Endpoint token").textContent).not.toContain(token);
    row("Endpoint token").querySelector<HTMLElement>(".extra-setting-button")!.click();
    await flush();
    expect(copied).toEqual([token]);
    expect(row("Claude Code").textContent).not.toContain(token);
    [...row("Claude Code").querySelectorAll("button")].find((b) => b.textContent === "Copy")!.click();
    await flush();
    expect(copied[1]).toBe(
      `claude mcp add --transport http hackmd http://127.0.0.1:27183/mcp --header "Authorization: Bearer ${token}"`,
    );

    toggle.click();
    await flush();
    expect(device.get().mcpEnabled).toBe(false);
    expect(endpoint.stop).toHaveBeenCalled();
  });

  it("says these words (one snapshot of every setting's name and description)", () => {
    const desktop = setup().tab.containerEl;
    Platform.isDesktopApp = false;
    const mobile = setup().tab.containerEl;
    const rows = (container: HTMLElement): string[] =>
      [...container.querySelectorAll<HTMLElement>(".setting-item")].map((item) =>
        [
          item.querySelector(".setting-item-name")?.textContent ?? "",
          item.querySelector(".setting-item-description")?.textContent ?? "",
        ]
          .filter((text) => text !== "")
          .join(": "),
      );
    expect({
      desktop: rows(desktop),
      mobile: rows(mobile).filter((text) => !rows(desktop).includes(text)),
    }).toMatchSnapshot();
  });

  it("releases its subscriptions when hidden", () => {
    const { tab, endpoint } = setup();
    expect(endpoint.listenerCount()).toBeGreaterThan(0);
    tab.hide();
    expect(endpoint.listenerCount()).toBe(0);
  });

  it("on mobile shows the endpoint as desktop only", () => {
    Platform.isDesktopApp = false;
    const { tab } = setup();
    expect(tab.containerEl.textContent).not.toContain("Endpoint token");
    expect(tab.containerEl.textContent).not.toContain("Activity log");
  });
});
