/** The status bar's words: quiet for untracked files unless asked, the quota only when it runs low. */
import type { Quota } from "../../src/hackmd/quota";
import { autoSyncTooltip, quotaMatters, STATUS_CLICK, statusBarText, StatusBarView } from "../../src/ui/status-bar";

const quota = (remaining: number | null, limit: number | null): Quota => ({ remaining, limit, reset_seconds: null, observed_at: 0 });

describe("status bar text", () => {
  it("says nothing for an untracked file unless the setting asks for it", () => {
    expect(statusBarText({ state: "untracked", quota: null, showUntracked: false })).toBe("");
    expect(statusBarText({ state: "untracked", quota: null, showUntracked: true })).toBe("HackMD: untracked");
    expect(statusBarText({ state: "conflict", quota: null, showUntracked: false })).toBe("HackMD: conflict");
  });

  it("shows the quota only below a fifth of the limit (or below 20 when no limit is known)", () => {
    expect(quotaMatters(quota(1500, 2000))).toBe(false);
    expect(quotaMatters(quota(400, 2000))).toBe(false);
    expect(quotaMatters(quota(399, 2000))).toBe(true);
    expect(quotaMatters(quota(19, null))).toBe(true);
    expect(quotaMatters(quota(20, null))).toBe(false);
    expect(quotaMatters(quota(null, 100))).toBe(false);
    expect(statusBarText({ state: "in_sync", quota: quota(12, 100), showUntracked: false })).toBe("HackMD: in sync · quota: 12 of 100 left");
    expect(statusBarText({ state: "in_sync", quota: quota(50, 100), showUntracked: false })).toBe("HackMD: in sync");
    expect(statusBarText({ state: "untracked", quota: quota(3, 100), showUntracked: false })).toBe("HackMD quota: 3 of 100 left");
  });

  it("counts the open comment threads the comments view saw, and says nothing of none", () => {
    expect(statusBarText({ state: "in_sync", quota: null, showUntracked: false, openThreads: 2 })).toBe("HackMD: in sync · 2 open threads");
    expect(statusBarText({ state: "local_changes", quota: null, showUntracked: false, openThreads: 1 })).toMatch(/ · 1 open thread$/);
    expect(statusBarText({ state: "in_sync", quota: null, showUntracked: false, openThreads: 0 })).toBe("HackMD: in sync");
  });

  it("counts queued pushes of automatic sync, and tells the month's requests in the tooltip", () => {
    const auto = (queued: number, monthly: number | "unlimited" = 2000) => ({ used: 1234, monthly, queued });
    expect(statusBarText({ state: "local_changes", quota: null, showUntracked: false, autoSync: auto(2) })).toBe("HackMD: local changes · 2 queued");
    expect(statusBarText({ state: "in_sync", quota: null, showUntracked: false, autoSync: auto(0) })).toBe("HackMD: in sync");
    expect(statusBarText({ state: null, quota: null, showUntracked: false, autoSync: auto(1) })).toBe("HackMD: 1 queued");
    expect(autoSyncTooltip(auto(0))).toBe("Automatic sync: 1,234 requests used this month of 2,000; no pushes queued");
    expect(autoSyncTooltip(auto(1, "unlimited"))).toBe("Automatic sync: 1,234 requests used this month of no monthly limit; 1 push queued");
    const attrs = new Map<string, string | null>();
    const view = new StatusBarView({ setText: () => undefined, setAttr: (name, value) => attrs.set(name, value), toggleClass: () => undefined });
    view.render({ state: "in_sync", quota: null, showUntracked: false, autoSync: auto(3) });
    expect(attrs.get("aria-label")).toBe("Compare with HackMD\nAutomatic sync: 1,234 requests used this month of 2,000; 3 pushes queued");
    expect(view.tooltip).toBe(attrs.get("aria-label"));
  });

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
