import { CallContext } from "../../src/hackmd/call-context";
import type { Quota } from "../../src/hackmd/quota";
import type { SentRequest } from "../../src/hackmd/request";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isBridgeError } from "../../src/core/errors";
import { NodeLocalFiles } from "../../src/node/local-files";
import {
  FREE_PLAN_MONTHLY,
  MIN_ROUND_DELAY_MS,
  RequestBudget,
  WINDOW_MS,
  defaultBudget,
  monthEnd,
  monthOf,
  parseBudgetState,
  readBudgetState,
  type BudgetStorage,
} from "../../src/sync/auto/budget";
import { BUDGET_FILE, BUDGET_LOCK, stateFileBudgetStorage } from "../../src/sync/auto/budget-file";
import { FIRST_RETRY_MS, retryAt } from "../../src/sync/auto/outbox";
import { startBridge } from "../helpers/bridge";

const DAY = 24 * 3_600_000;
/** 1 April 2027, 00:00 UTC: a 30-day month. */
const APRIL = Date.UTC(2027, 3, 1);

function memoryStorage(initial?: string): BudgetStorage & { text: string | undefined; saves: number } {
  const store = {
    text: initial,
    saves: 0,
    load: () => Promise.resolve(store.text),
    save: (text: string) => {
      store.text = text;
      store.saves += 1;
      return Promise.resolve();
    },
  };
  return store;
}

async function budgetAt(
  now: number,
  monthly: number | "unlimited" = FREE_PLAN_MONTHLY,
  storage = memoryStorage(),
): Promise<RequestBudget> {
  const budget = new RequestBudget({ monthly, storage });
  await budget.load(now);
  return budget;
}

describe("the request budget (pure, clock injected)", () => {
  it("defaults to the plan's monthly quota", () => {
    expect(defaultBudget("free")).toBe(2_000);
    expect(defaultBudget("upgraded")).toBe(10_000);
  });

  it("counts per calendar month in UTC and starts afresh in the next month", async () => {
    const budget = await budgetAt(APRIL);
    budget.record(APRIL + 10);
    budget.record(APRIL + 20);
    expect(budget.used(APRIL + 30)).toBe(2);
    expect(budget.remaining(APRIL + 30)).toBe(1_998);
    const may = monthEnd(APRIL);
    expect(monthOf(may - 1)).toBe("2027-04");
    expect(monthOf(may)).toBe("2027-05");
    expect(budget.used(may)).toBe(0);
  });

  it("survives a restart through its storage, and ignores a damaged file", async () => {
    const storage = memoryStorage();
    const first = await budgetAt(APRIL, FREE_PLAN_MONTHLY, storage);
    for (let i = 0; i < 7; i += 1) first.record(APRIL + i);
    await first.flush();
    await first.flush(); // nothing changed: no second write
    expect(storage.saves).toBe(1);
    const second = await budgetAt(APRIL + DAY, FREE_PLAN_MONTHLY, storage);
    expect(second.used(APRIL + DAY)).toBe(7);
    expect(parseBudgetState("{not json", APRIL).used).toBe(0);
    expect(parseBudgetState(JSON.stringify({ month: "2027-04", used: -3 }), APRIL).used).toBe(0);
  });

  it("never lets more than 100 requests into 5 minutes", async () => {
    // Unlimited, so the window is what holds the next round back.
    const budget = await budgetAt(APRIL, "unlimited");
    for (let i = 0; i < 99; i += 1) budget.record(APRIL + i * 1000);
    const now = APRIL + 100_000;
    expect(budget.windowWait(now, 1)).toBe(0);
    expect(budget.mayPush(now, 1)).toBe(true);
    // Three more need the two oldest gone: the second oldest leaves at 1 s + 5 min.
    expect(budget.windowWait(now, 3)).toBe(1000 + WINDOW_MS - 100_000);
    expect(budget.mayPush(now, 3)).toBe(false);
    expect(budget.nextDelay(now, 3)).toEqual({ ms: 1000 + WINDOW_MS - 100_000, reason: "window" });
    expect(budget.windowWait(APRIL + 1000 + WINDOW_MS, 3)).toBe(0);
  });

  it("keeps the month's spending on its even pace, with a small slack ahead of it", async () => {
    const budget = await budgetAt(APRIL);
    // 2,000 requests over 30 days: 66.7 a day are earned, and 20 (1%) may be spent ahead of that.
    expect(budget.credit(APRIL)).toBe(20);
    expect(budget.credit(APRIL + 3 * DAY)).toBeCloseTo(220, 6);
    // Two lists a round fit at once, then rounds wait for the pace.
    expect(budget.nextDelay(APRIL, 2)).toEqual({ ms: MIN_ROUND_DELAY_MS, reason: "minimum" });
    for (let i = 0; i < 20; i += 1) budget.record(APRIL + i);
    expect(budget.credit(APRIL + 100)).toBeLessThan(0.01);
    // Two more requests are earned in 2 / 2,000 of the month: 43.2 minutes.
    expect(budget.paceWait(APRIL + 100, 2)).toBe(Math.ceil(((2 - budget.credit(APRIL + 100)) * 30 * DAY) / 2000));
    expect(budget.nextDelay(APRIL + 100, 2).reason).toBe("spread");
    expect(budget.nextDelay(APRIL + 100, 2).ms).toBeGreaterThan(43 * 60_000);
    expect(budget.nextDelay(APRIL + 100, 2).ms).toBeLessThan(44 * 60_000);
  });

  it("makes a costly round delay the next one by what it cost beyond the pace", async () => {
    const budget = await budgetAt(APRIL);
    const mid = APRIL + 15 * DAY;
    // Half the month gone: 1,000 earned. 1,100 spent is 80 beyond pace and slack: 80 / 2,000 of the month.
    for (let i = 0; i < 1100; i += 1) budget.record(APRIL + i * 60_000);
    expect(budget.credit(mid)).toBeCloseTo(-80, 6);
    expect(budget.nextDelay(mid, 2)).toEqual({ ms: Math.ceil((82 * 30 * DAY) / 2000), reason: "spread" });
    // Spent below the pace, rounds only keep the minimum delay.
    const thrifty = await budgetAt(APRIL);
    for (let i = 0; i < 500; i += 1) thrifty.record(APRIL + i * 60_000);
    expect(thrifty.nextDelay(mid, 2)).toEqual({ ms: MIN_ROUND_DELAY_MS, reason: "minimum" });
  });

  it("waits for the next month once the budget cannot pay for one more round, but a push may still spend the rest", async () => {
    const budget = await budgetAt(APRIL, 10);
    for (let i = 0; i < 9; i += 1) budget.record(APRIL + i);
    const now = APRIL + DAY / 2;
    expect(budget.nextDelay(now, 2)).toEqual({ ms: monthEnd(APRIL) - now, reason: "exhausted" });
    expect(budget.mayPush(now, 1)).toBe(true);
    expect(budget.mayPush(now, 3)).toBe(false);
  });

  it("keeps a minimum delay, and 'unlimited' is bounded by the window only", async () => {
    const rich = await budgetAt(APRIL, 10_000_000);
    expect(rich.nextDelay(APRIL, 2)).toEqual({ ms: MIN_ROUND_DELAY_MS, reason: "minimum" });
    const unlimited = await budgetAt(APRIL, "unlimited");
    expect(unlimited.remaining(APRIL)).toBe(Infinity);
    expect(unlimited.nextDelay(APRIL, 2)).toEqual({ ms: MIN_ROUND_DELAY_MS, reason: "minimum" });
  });

  it("backs off when HackMD's own headers say the quota is spent", async () => {
    const budget = await budgetAt(APRIL);
    const quota: Quota = { limit: 100, remaining: 1, reset_seconds: 120, observed_at: APRIL };
    budget.observeQuota(quota);
    expect(budget.quotaWait(APRIL + 20_000, 2)).toBe(100_000);
    expect(budget.nextDelay(APRIL + 20_000, 2)).toEqual({ ms: 100_000, reason: "quota" });
    expect(budget.mayPush(APRIL + 20_000, 3)).toBe(false);
    expect(budget.mayPush(APRIL + 120_000, 3)).toBe(true);
  });
});

describe("the client's request hook (emulator)", () => {
  it("reports every request sent, as the emulator logs them", async () => {
    const bridge = await startBridge();
    try {
      const seen: SentRequest[] = [];
      const stop = bridge.core.deps.client.onRequestSent((sent) => seen.push(sent));
      bridge.mark();
      const call = new CallContext();
      await bridge.core.deps.client.me(call);
      await bridge.core.deps.client.listNotes(call, { teamPath: null });
      await bridge.core.deps.client.listNotes(call, { teamPath: "sandbox-team" });
      stop();
      await bridge.core.deps.client.me(call);
      expect(seen.map((sent) => `${sent.method} ${sent.path}`)).toEqual([
        "GET /v1/me",
        "GET /v1/notes",
        "GET /v1/teams/sandbox-team/notes",
      ]);
      expect(bridge.requestsSinceMark()).toHaveLength(4);
      expect(JSON.stringify(seen)).not.toContain(bridge.emu.token);
    } finally {
      await bridge.close();
    }
  });
});

describe("reserving before sending (the count saved before a request leaves)", () => {
  it("requests reserved at once by several steps never pass the month's budget: the one too many is refused, nothing counted", async () => {
    const storage = memoryStorage(JSON.stringify({ format: 1, month: "2027-04", used: 7, rounds: 0, recent: [] }));
    const budget = await budgetAt(APRIL, 10, storage);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => budget.reserve(APRIL + 5, { inRound: true, enforce: true })),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(3);
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    expect(refused).toHaveLength(7);
    expect(refused.every((outcome) => isBridgeError(outcome.reason, "rate_limited"))).toBe(true);
    expect(JSON.parse(storage.text ?? "{}")).toMatchObject({ used: 10, rounds: 3 });
    // Not held to the budget (an agent's call between steps): counted all the same.
    await budget.reserve(APRIL + 6, { inRound: false, enforce: false });
    expect(budget.used(APRIL + 6)).toBe(11);
  });

  it("a full short window reserves nothing and answers the wait; the saved window survives a restart", async () => {
    const storage = memoryStorage();
    const budget = new RequestBudget({ monthly: "unlimited", storage, windowLimit: 3, windowMs: 60_000 });
    await budget.load(APRIL);
    for (let i = 0; i < 3; i += 1) expect(await budget.reserve(APRIL + i, { inRound: false, enforce: true })).toBe(0);
    expect(await budget.reserve(APRIL + 10, { inRound: false, enforce: true })).toBe(60_000 - 10);
    const restarted = new RequestBudget({ monthly: "unlimited", storage, windowLimit: 3, windowMs: 60_000 });
    await restarted.load(APRIL + 20);
    expect(restarted.used(APRIL + 20)).toBe(3);
    expect(await restarted.reserve(APRIL + 20, { inRound: false, enforce: true })).toBe(60_000 - 20);
    expect(await restarted.reserve(APRIL + 60_000, { inRound: false, enforce: true })).toBe(0);
  });

  it("a budget file too large or not UTF-8 is reported as such, not as 'not JSON', and written anew", async () => {
    const root = await mkdtemp(join(tmpdir(), "hb-budget-file-"));
    try {
      const files = await NodeLocalFiles.open({ root });
      const mid = APRIL + 15 * DAY;
      for (const [bytes, why] of [
        [
          new TextEncoder().encode(
            JSON.stringify({ format: 1, month: "2027-04", used: 5, recent: Array.from({ length: 10_000 }, () => mid) }),
          ),
          "it is larger than a budget file can be",
        ],
        [new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), "it is not UTF-8 text"],
      ] as const) {
        await files.state.write(BUDGET_FILE, bytes);
        const budget = new RequestBudget({
          monthly: 2000,
          storage: stateFileBudgetStorage(files.state, { owner: "1@here" }),
        });
        await budget.load(mid);
        expect(budget.takeDamage()).toBe(why);
        expect(JSON.parse(await readFile(join(root, files.root.stateFolder, BUDGET_FILE), "utf8"))).toMatchObject({
          month: "2027-04",
          used: 1000,
        });
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("two budgets over one state file (two processes) add to one count under the file's lock, never overwriting", async () => {
    const root = await mkdtemp(join(tmpdir(), "hb-budget-file-"));
    try {
      const files = await NodeLocalFiles.open({ root });
      const one = new RequestBudget({
        monthly: "unlimited",
        storage: stateFileBudgetStorage(files.state, { owner: "1@here" }),
      });
      const two = new RequestBudget({
        monthly: "unlimited",
        storage: stateFileBudgetStorage(files.state, { owner: "2@here" }),
      });
      const now = Date.now();
      await Promise.all([one.load(now), two.load(now)]);
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 === 0 ? one : two).reserve(now + i, { inRound: false, enforce: false }),
        ),
      );
      const saved = JSON.parse(await readFile(join(root, files.root.stateFolder, BUDGET_FILE), "utf8")) as {
        used: number;
        recent: number[];
      };
      expect(saved.used).toBe(40);
      expect(saved.recent).toHaveLength(40);
      // Each sees the other's requests at its next read.
      await one.refresh(now + 100);
      expect(one.used(now + 100)).toBe(40);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("a lock left by a process that is gone is broken at once; a live owner's lock is waited for", async () => {
    const root = await mkdtemp(join(tmpdir(), "hb-budget-lock-"));
    try {
      const files = await NodeLocalFiles.open({ root });
      const alive = new Set(["live@here"]);
      const storage = stateFileBudgetStorage(files.state, { owner: "me@here", isAlive: (owner) => alive.has(owner) });
      expect(await files.state.create(BUDGET_LOCK, `token ${Date.now()} dead@here\n`)).toBe(true);
      await storage.update(() => "{}");
      expect(await files.state.read(BUDGET_LOCK, { maxBytes: 256 })).toBeUndefined();
      expect(await files.state.create(BUDGET_LOCK, `token ${Date.now()} live@here\n`)).toBe(true);
      let done = false;
      const waiting = storage.update(() => '{"x":1}').then(() => (done = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(done).toBe(false);
      await files.state.remove(BUDGET_LOCK);
      await waiting;
      expect(done).toBe(true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("saved send times and a month after now (a clock set back) are read as now and written back so; they then age normally", async () => {
    const later = APRIL + 10 * DAY;
    const storage = memoryStorage(
      JSON.stringify({ format: 1, month: "2027-05", used: 12, rounds: 0, recent: [later, later + 1, later + 2] }),
    );
    const budget = new RequestBudget({ monthly: 2000, storage, windowLimit: 3, windowMs: WINDOW_MS });
    await budget.load(APRIL);
    expect(budget.used(APRIL)).toBe(12); // the count is kept as this month's
    expect(JSON.parse(storage.text ?? "{}")).toMatchObject({
      month: "2027-04",
      used: 12,
      recent: [APRIL, APRIL, APRIL],
    });
    expect(budget.windowWait(APRIL + 1000, 1)).toBe(WINDOW_MS - 1000);
    await budget.refresh(APRIL + WINDOW_MS + 1);
    expect(budget.windowWait(APRIL + WINDOW_MS + 1, 1)).toBe(0);
    // A queued push's retry, saved after now, is due from now.
    expect(
      retryAt(
        {
          team_path: null,
          note_id: "n",
          local_path: "n.md",
          queued_at: later,
          attempts: 1,
          last_attempt_at: later,
          last_error_kind: "network",
        },
        APRIL,
      ),
    ).toBe(APRIL + FIRST_RETRY_MS);
  });

  it("a damaged saved count is reported once and restarts at the month's even pace, not at zero", async () => {
    const mid = APRIL + 15 * DAY;
    const read = readBudgetState("{not json", mid, 2000);
    expect(read.damage).toBe("it is not JSON");
    expect(read.state.used).toBe(1000);
    expect(readBudgetState(JSON.stringify({ month: "2027-04", used: -3 }), mid, 2000).damage).toBe(
      "its count is not a whole number",
    );
    expect(readBudgetState("{not json", mid, "unlimited").state.used).toBe(0);
    const storage = memoryStorage("{not json");
    const budget = await budgetAt(mid, 2000, storage);
    expect(budget.takeDamage()).toBe("it is not JSON");
    expect(budget.takeDamage()).toBeUndefined();
    expect(JSON.parse(storage.text ?? "{}")).toMatchObject({ month: "2027-04", used: 1000 });
    expect(budget.nextDelay(mid, 2).reason).toBe("minimum"); // never a stall
  });
});
