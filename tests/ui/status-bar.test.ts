/** The status bar's words: quiet for untracked files unless asked, the quota only when it runs low. */
import type { Quota } from "../../src/hackmd/quota";
import { autoSyncTooltip, quotaMatters, STATUS_CLICK, statusBarText, StatusBarView } from "../../src/ui/status-bar";

const quota = (remaining: number | null, limit: number | null): Quota => ({
  remaining,
  limit,
  reset_seconds: null,
  observed_at: 0,
});

describe("status bar text", () => {
  const none = { quota: null, showUntracked: false } as const;
  const auto = (queued: number, monthly: number | "unlimited" = 2000) => ({ used: 1234, monthly, queued });

  it("says nothing for an untracked file unless the setting asks for it", () => {
    expect(statusBarText({ state: "untracked", ...none })).toBe("");
    expect(statusBarText({ state: "untracked", quota: null, showUntracked: true })).not.toBe("");
    expect(statusBarText({ state: "conflict", ...none })).not.toBe("");
  });

  it("shows the quota only below a fifth of the limit (or below 20 when no limit is known)", () => {
    expect(quotaMatters(quota(1500, 2000))).toBe(false);
    expect(quotaMatters(quota(400, 2000))).toBe(false);
    expect(quotaMatters(quota(399, 2000))).toBe(true);
    expect(quotaMatters(quota(19, null))).toBe(true);
    expect(quotaMatters(quota(20, null))).toBe(false);
    expect(quotaMatters(quota(null, 100))).toBe(false);
    const plain = statusBarText({ state: "in_sync", ...none });
    expect(statusBarText({ state: "in_sync", quota: quota(50, 100), showUntracked: false })).toBe(plain);
    expect(statusBarText({ state: "in_sync", quota: quota(12, 100), showUntracked: false })).toContain("12 of 100");
    expect(statusBarText({ state: "untracked", quota: quota(3, 100), showUntracked: false })).toContain("3 of 100");
  });

  it("counts the open comment threads the comments view saw, and says nothing of none", () => {
    const plain = statusBarText({ state: "in_sync", ...none });
    expect(statusBarText({ state: "in_sync", ...none, openThreads: 2 })).toMatch(/2 open threads$/);
    expect(statusBarText({ state: "local_changes", ...none, openThreads: 1 })).toMatch(/1 open thread$/);
    expect(statusBarText({ state: "in_sync", ...none, openThreads: 0 })).toBe(plain);
  });

  it("counts queued pushes of automatic sync, and tells the month's requests in the tooltip", () => {
    expect(statusBarText({ state: "local_changes", ...none, autoSync: auto(2) })).toMatch(/2 queued$/);
    expect(statusBarText({ state: "in_sync", ...none, autoSync: auto(0) })).toBe(
      statusBarText({ state: "in_sync", ...none }),
    );
    expect(autoSyncTooltip(auto(0))).toContain("1,234");
    const attrs = new Map<string, string | null>();
    const view = new StatusBarView({
      setText: () => undefined,
      setAttr: (name, value) => attrs.set(name, value),
      toggleClass: () => undefined,
    });
    view.render({ state: "in_sync", quota: null, showUntracked: false, autoSync: auto(3) });
    // The click's tooltip, then the automatic-sync line.
    expect(attrs.get("aria-label")).toBe(`${STATUS_CLICK.in_sync?.tip}\n${autoSyncTooltip(auto(3))}`);
    expect(view.tooltip).toBe(attrs.get("aria-label"));
  });

  it("says these words for each state (one snapshot of the status bar's texts)", () => {
    const texts: Record<string, string> = {};
    for (const state of Object.keys(STATUS_CLICK) as Array<keyof typeof STATUS_CLICK>)
      texts[state] = statusBarText({ state, quota: null, showUntracked: true });
    texts["in_sync, quota low"] = statusBarText({ state: "in_sync", quota: quota(12, 100), showUntracked: false });
    texts["untracked, quota low"] = statusBarText({ state: "untracked", quota: quota(3, 100), showUntracked: false });
    texts["in_sync, 2 open threads"] = statusBarText({ state: "in_sync", ...none, openThreads: 2 });
    texts["local_changes, 1 open thread"] = statusBarText({ state: "local_changes", ...none, openThreads: 1 });
    texts["local_changes, 2 queued"] = statusBarText({ state: "local_changes", ...none, autoSync: auto(2) });
    texts["no state, 1 queued"] = statusBarText({ state: null, ...none, autoSync: auto(1) });
    texts["tooltip, none queued"] = autoSyncTooltip(auto(0));
    texts["tooltip, unlimited, 1 queued"] = autoSyncTooltip(auto(1, "unlimited"));
    texts["tooltip, 3 queued"] = autoSyncTooltip(auto(3));
    for (const [state, click] of Object.entries(STATUS_CLICK)) texts[`click tooltip, ${state}`] = click?.tip ?? "";
    expect(texts).toMatchSnapshot();
  });
});

describe("status bar view", () => {
  it("is clickable exactly where a click does something, with the tooltip saying what", () => {
    const calls: Array<[string, unknown]> = [];
    const el = {
      setText: (text: string) => calls.push(["text", text]),
      setAttr: (name: string, value: string | null) => calls.push([name, value]),
      toggleClass: (cls: string | string[], on: boolean) => calls.push([String(cls), on]),
    };
    const view = new StatusBarView(el);
    view.render({ state: "local_changes", quota: null, showUntracked: false });
    expect(calls).toEqual([
      ["text", "HackMD: local changes"],
      ["aria-label", "Show changes since last sync"],
      ["mod-clickable", true],
    ]);
    calls.length = 0;
    view.render({ state: "local_changes", quota: null, showUntracked: false });
    expect(calls).toEqual([]);
    view.render({ state: "untracked", quota: null, showUntracked: false });
    expect(calls).toEqual([
      ["text", ""],
      ["aria-label", null],
      ["mod-clickable", false],
    ]);
    expect(STATUS_CLICK.conflict?.click).toBe("resolve");
    expect(STATUS_CLICK.checking).toBeUndefined();
  });
});
