/**
 * The plugin's host of automatic sync (docs/auto-sync.md): when the "Sync
 * automatically" setting is on, one `AutoSyncRunner` over the plugin's one core. The runner sets
 * no timer; this host calls `step(now)` from one window timer and sleeps until `nextWake(now)`,
 * feeds it the vault's `modify` events of tracked files (`fileChanged`, pushed after the quiet
 * time), tells it which files are being typed in (`isEditing`), and asks for a round shortly
 * after start-up and when Obsidian comes back after being hidden (each its own setting).
 *
 * Nothing happens at load: the runner is built once the workspace layout is ready, and its first
 * request is the first scheduled step. The budget's count is kept in the vault's local storage on
 * this device (`app.saveLocalStorage`), so it survives restarts and never syncs to other devices;
 * the outbox is the sync state folder's, shared with the command.
 *
 * Unload stops it: the timer is cleared, a step in progress finishes (every write it makes is
 * atomic: records by rename, the outbox one file per note), and nothing is scheduled after it.
 */
import {
  MarkdownView,
  TFile,
  type App,
  type Editor,
  type MarkdownFileInfo,
  type Plugin,
  type TAbstractFile,
} from "obsidian";
import type { Clock } from "../core/ports";
import {
  MIN_ROUND_DELAY_MS,
  monthOf,
  parseBudgetState,
  RequestBudget,
  type BudgetStorage,
  type MonthlyBudget,
} from "../sync/auto/budget";
import { Outbox, type OutboxEntry } from "../sync/auto/outbox";
import type { AutoSyncRunner, StepReport } from "../sync/auto/runner";
import { DEFAULT_DEBOUNCE_MS } from "../sync/limits";
import { monthlyBudgetOf } from "../settings/schema";
import { errorNoticeText, showInfo } from "./notices";
import { BridgeError } from "../core/errors";
import { isQueuedKind } from "../sync/auto/outbox";
import type { PluginServices } from "./plugin-services";

/** The vault-local storage key of the budget's count (this device only). */
export const BUDGET_STORAGE_KEY = "hackmd-bridge-auto-sync-budget";

/** The host's timings; the defaults are the product's (tests shorten them). */
export interface AutoSyncTuning {
  /** Quiet time after a file's last change before it is pushed (the runner's debounce). */
  debounceMs: number;
  /** Wait after the layout is ready before the start-up round. */
  startupDelayMs: number;
  /** Without the start-up round, the first round waits at least this long. */
  firstRoundWithoutStartupMs: number;
  /** How long Obsidian must have been hidden for its return to count as a resume. */
  resumeAfterHiddenMs: number;
  /** Shortest time between two rounds (the budget's minimum). */
  minRoundDelayMs: number;
  /** Longest single timer: the host looks again at least this often (a laptop's sleep stretches timers). */
  maxSleepMs: number;
}

/** The product's timings. */
export const DEFAULT_AUTO_SYNC_TUNING: Readonly<AutoSyncTuning> = Object.freeze({
  debounceMs: DEFAULT_DEBOUNCE_MS,
  startupDelayMs: 10_000,
  firstRoundWithoutStartupMs: 5 * 60_000,
  resumeAfterHiddenMs: 5 * 60_000,
  minRoundDelayMs: MIN_ROUND_DELAY_MS,
  maxSleepMs: 15 * 60_000,
});

/** What the status bar and the settings show. */
export interface AutoSyncSummary {
  used: number;
  monthly: MonthlyBudget;
  /** Queued pushes (outbox entries). */
  queued: number;
}

/** The budget's count in the vault's local storage on this device. */
export function localStorageBudgetStorage(app: Pick<App, "loadLocalStorage" | "saveLocalStorage">): BudgetStorage {
  return {
    load: () => {
      const value: unknown = app.loadLocalStorage(BUDGET_STORAGE_KEY);
      return Promise.resolve(typeof value === "string" ? value : undefined);
    },
    save: (text) => {
      app.saveLocalStorage(BUDGET_STORAGE_KEY, text);
      return Promise.resolve();
    },
  };
}

/** What the host needs. */
export interface AutoSyncHostOptions {
  plugin: Plugin;
  services: PluginServices;
  tuning?: Partial<AutoSyncTuning>;
  clock?: Clock;
}

/** Words for an outbox entry's last failure (sentence case). */
export const QUEUED_REASONS: Readonly<Record<string, string>> = {
  network: "HackMD could not be reached",
  rate_limited: "HackMD's rate limit",
  upstream: "HackMD had a problem",
};

/** The plugin's automatic sync. */
export class AutoSyncHost {
  private readonly plugin: Plugin;
  private readonly services: PluginServices;
  private readonly tuning: AutoSyncTuning;
  private readonly clock: Clock;
  private readonly listeners = new Set<() => void>();
  /** Last keystroke per path, from the editors' `editor-change`. */
  private readonly typedAt = new Map<string, number>();
  /** Conflicts already told about, by path and HackMD's hash (one notice per new conflict). */
  private readonly toldConflicts = new Map<string, string>();
  private runner: AutoSyncRunner | undefined;
  private budget: RequestBudget | undefined;
  private outbox: Outbox | undefined;
  /** The configuration the runner was built with (enabled, budget, merge). */
  private config: string | undefined;
  private timer: number | undefined;
  private timerAt: number | undefined;
  private inFlight: Promise<void> | undefined;
  /** Start, stop and restart one after another. */
  private lifecycle: Promise<void> = Promise.resolve();
  private layoutReady = false;
  /** Whether the settings were applied once since the layout was ready. */
  private started = false;
  private unloaded = false;
  private hiddenAt: number | undefined;
  /** The kind of the round failure already told about (a missing token: once, not every round). */
  private toldFailure: string | undefined;
  private last: AutoSyncSummary | undefined;

  constructor(options: AutoSyncHostOptions) {
    this.plugin = options.plugin;
    this.services = options.services;
    this.tuning = { ...DEFAULT_AUTO_SYNC_TUNING, ...options.tuning };
    this.clock = options.clock ?? { now: () => Date.now() };
  }

  /**
   * Registers the window events and the cleanup; the runner starts once the layout is ready (and
   * the setting is on). The vault's `modify` and the editors' `editor-change` come from main.ts,
   * which hears them from onload on: `modified` and `typed`.
   */
  register(): void {
    const { workspace } = this.plugin.app;
    // Desktop: the window loses and regains focus (and a laptop's sleep); mobile: the app goes to
    // the background and back. Absent outside the app (tests call visibilityChanged).
    if (typeof activeWindow !== "undefined" && typeof activeDocument !== "undefined") {
      const win = activeWindow;
      const doc = activeDocument;
      this.plugin.registerDomEvent(win, "blur", () => this.visibilityChanged(true));
      this.plugin.registerDomEvent(win, "focus", () => this.visibilityChanged(false));
      this.plugin.registerDomEvent(doc, "visibilitychange", () =>
        this.visibilityChanged(doc.visibilityState === "hidden"),
      );
    }
    this.plugin.register(() => this.unload());
    workspace.onLayoutReady(() => {
      this.layoutReady = true;
      this.applySettings();
    });
  }

  /** Starts, stops or restarts the runner after a settings change. */
  applySettings(): void {
    if (this.unloaded || !this.layoutReady) return;
    const settings = this.services.settings;
    const config = settings.autoSync ? JSON.stringify([settings.autoSyncBudget, settings.autoMerge]) : undefined;
    const atStartup = !this.started;
    this.started = true;
    if (config === this.config) return;
    // At start-up the setting decides; switched on by the user, a round comes soon too.
    const startup = this.config === undefined && (atStartup ? settings.autoSyncOnStartup : true);
    this.config = config;
    this.lifecycle = this.lifecycle
      .then(async () => {
        await this.halt();
        if (config !== undefined && !this.unloaded && this.config === config) await this.begin(startup);
      })
      .catch((error: unknown) => {
        // Nothing was scheduled; the next settings change tries again.
        this.services.logger.warn("auto_sync.start_failed", { error: error instanceof Error ? error.name : "unknown" });
        this.config = undefined;
      })
      .finally(() => this.changed());
  }

  /** Resolves once a start, stop or step in progress has finished (tests, unload). */
  async idle(): Promise<void> {
    await this.lifecycle;
    await this.inFlight;
  }

  /** Whether a runner is running. */
  get running(): boolean {
    return this.runner !== undefined;
  }

  /** Whether a step is in progress. */
  get busy(): boolean {
    return this.inFlight !== undefined;
  }

  /** Whether a timer is waiting (tests: none after unload). */
  get scheduled(): boolean {
    return this.timer !== undefined;
  }

  /** Requests used this month and the budget, with the queued pushes, as last seen. */
  summary(): AutoSyncSummary | undefined {
    return this.runner === undefined ? undefined : this.last;
  }

  /** Requests used this month on this device (also when automatic sync is off: the saved count). */
  usage(): { used: number; monthly: MonthlyBudget } {
    const now = this.clock.now();
    const monthly = monthlyBudgetOf(this.services.settings.autoSyncBudget);
    if (this.budget !== undefined) return { used: this.budget.used(now), monthly };
    const saved: unknown = this.plugin.app.loadLocalStorage(BUDGET_STORAGE_KEY);
    const state = parseBudgetState(typeof saved === "string" ? saved : undefined, now);
    return { used: state.month === monthOf(now) ? state.used : 0, monthly };
  }

  /** Calls `listener` after every step and start or stop; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The queued pushes (outbox entries), oldest first; no request. */
  queued(): Promise<OutboxEntry[]> {
    return (this.outbox ?? new Outbox(this.services.files.state)).list();
  }

  /** Drops one queued push: the outbox entry only, never the file or its record. */
  async drop(entry: OutboxEntry): Promise<boolean> {
    const removed = await (this.outbox ?? new Outbox(this.services.files.state)).remove(entry.team_path, entry.note_id);
    await this.refreshSummary();
    return removed;
  }

  /**
   * Obsidian was hidden (true) or shown again (false): blur and focus of the window, the
   * document's visibility (mobile apps going to the background). Back after a while: a round,
   * when the setting is on and the month's pace allows it.
   */
  visibilityChanged(hidden: boolean): void {
    const now = this.clock.now();
    if (hidden) {
      this.hiddenAt ??= now;
      return;
    }
    const since = this.hiddenAt;
    this.hiddenAt = undefined;
    if (since === undefined || now - since < this.tuning.resumeAfterHiddenMs) return;
    if (!this.services.settings.autoSyncOnResume) return;
    void this.requestRound();
  }

  /** Whether a tracked file is being typed in: open in an editor, with a keystroke within the quiet time. */
  isEditing(path: string): boolean {
    const at = this.typedAt.get(path);
    if (at === undefined) return false;
    if (this.clock.now() - at >= this.tuning.debounceMs || !this.isOpen(path)) {
      this.typedAt.delete(path);
      return false;
    }
    return true;
  }

  private isOpen(path: string): boolean {
    let open = false;
    this.plugin.app.workspace.iterateAllLeaves((leaf) => {
      if (leaf.view instanceof MarkdownView && leaf.view.file?.path === path) open = true;
    });
    return open;
  }

  /** An editor changed (a keystroke): the file counts as being typed in. */
  typed(_editor: Editor, info: MarkdownView | MarkdownFileInfo): void {
    const path = info.file?.path;
    if (path !== undefined) this.typedAt.set(path, this.clock.now());
  }

  /** The vault's `modify` of a file: a tracked file is pushed after the quiet time. */
  async modified(file: TAbstractFile): Promise<void> {
    const runner = this.runner;
    if (runner === undefined || !(file instanceof TFile) || file.extension !== "md") return;
    try {
      // The record index only: no request and, once warm, no record read.
      if ((await this.services.store.peekPath(file.path)).kind === "none") return;
    } catch {
      return;
    }
    if (runner !== this.runner) return;
    const now = this.clock.now();
    runner.fileChanged(file.path, now);
    this.wakeBy(now + this.tuning.debounceMs);
  }

  private async requestRound(): Promise<void> {
    await this.lifecycle;
    const runner = this.runner;
    if (runner === undefined || this.unloaded) return;
    await this.inFlight;
    if (runner !== this.runner) return;
    const now = this.clock.now();
    // Without credit for a round, still look at once: a sleep may have held the timer back.
    if (await runner.requestRound(now)) this.wakeBy(now);
    else this.wakeBy(await runner.nextWake(now));
  }

  private async begin(startup: boolean): Promise<void> {
    const { services } = this;
    // The runner and the engine load here, not at plugin load (docs/architecture.md §5).
    const [{ AutoSyncRunner }, deps] = await Promise.all([import("../sync/auto/runner"), services.loadDeps()]);
    const now = this.clock.now();
    const budget = new RequestBudget({
      monthly: monthlyBudgetOf(services.settings.autoSyncBudget),
      storage: localStorageBudgetStorage(this.plugin.app),
      minRoundDelayMs: this.tuning.minRoundDelayMs,
    });
    await budget.load(now);
    const outbox = new Outbox(services.files.state);
    const runner = new AutoSyncRunner(
      {
        client: deps.client,
        files: deps.files,
        sync: deps.sync,
        clock: deps.clock,
        sleep: deps.sleep,
        budget,
        outbox,
        logger: services.logger,
        // Mirrors load only when a round finds one (src/app/mirror-sync.ts).
        roundMirrors: async () => {
          const entries = await deps.files.state.list("mirrors");
          if (!entries.some((entry) => entry.name.endsWith(".json"))) return undefined;
          const [{ mirrorRoundHook }, { vaultTrash }] = await Promise.all([
            import("../app/mirror-sync"),
            import("./mirror-actions"),
          ]);
          return mirrorRoundHook(deps, {
            host: vaultTrash(services.app),
            permissions: {
              read: services.settings.defaultReadPermission,
              write: services.settings.defaultWritePermission,
            },
          });
        },
      },
      {
        debounceMs: this.tuning.debounceMs,
        autoMerge: services.settings.autoMerge,
        isEditing: (path) => this.isEditing(path),
      },
    );
    // The start-up round, too, only when the month's pace has credit for a list: restarting
    // Obsidian often must not run the month ahead of its budget.
    const first =
      startup && budget.paceWait(now, 1) === 0
        ? now + this.tuning.startupDelayMs
        : now + Math.max(this.tuning.firstRoundWithoutStartupMs, budget.nextDelay(now, 1).ms);
    runner.start(first);
    this.budget = budget;
    this.outbox = outbox;
    this.runner = runner;
    await this.refreshSummary();
    this.wakeBy(await runner.nextWake(now).catch(() => first));
  }

  /** Stops the runner: no timer is left, and a step in progress finishes first. */
  private async halt(): Promise<void> {
    this.clearTimer();
    await this.inFlight;
    const { runner, budget } = this;
    this.runner = undefined;
    this.budget = undefined;
    this.outbox = undefined;
    runner?.stop();
    await budget?.flush().catch(() => undefined);
  }

  private unload(): void {
    this.unloaded = true;
    this.config = undefined;
    this.clearTimer();
    this.lifecycle = this.lifecycle.then(() => this.halt()).catch(() => undefined);
    this.listeners.clear();
  }

  /** Makes sure the host wakes up by `at` (an earlier timer stays). */
  private wakeBy(at: number): void {
    if (this.unloaded || this.runner === undefined || this.inFlight !== undefined) return;
    if (this.timer !== undefined && this.timerAt !== undefined && this.timerAt <= at) return;
    this.clearTimer();
    const now = this.clock.now();
    const wait = Math.min(this.tuning.maxSleepMs, Math.max(0, at - now));
    this.timerAt = now + wait;
    this.timer = this.services.timers.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = undefined;
      this.tick();
    }, wait);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.services.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = undefined;
  }

  /** One step, then the next wake-up; never two steps at once. */
  private tick(): void {
    const runner = this.runner;
    if (runner === undefined || this.unloaded || this.inFlight !== undefined) return;
    this.inFlight = (async () => {
      let next: number | undefined;
      try {
        const now = this.clock.now();
        const report = await runner.step(now);
        await this.handle(report);
        next = await runner.nextWake(this.clock.now());
      } catch (error) {
        this.services.logger.warn("auto_sync.step_failed", { error: error instanceof Error ? error.name : "unknown" });
        next = this.clock.now() + this.tuning.debounceMs;
      } finally {
        this.inFlight = undefined;
      }
      if (runner === this.runner && next !== undefined) this.wakeBy(next);
    })();
  }

  /** Status memory, one notice for the step's new conflicts, the summary. */
  private async handle(report: StepReport): Promise<void> {
    const { status, hashCache, store } = this.services;
    const conflicts: Array<{ path: string; remote: string | undefined }> = [];
    for (const item of report.round?.items ?? []) {
      if (item.outcome === "conflict") conflicts.push({ path: item.local_path, remote: item.remote_body_hash });
      else if (item.outcome !== "skipped" && item.outcome !== "error") {
        this.toldConflicts.delete(item.local_path);
        status.forget(item.local_path);
        hashCache.forget(item.local_path);
      }
    }
    for (const push of report.pushes) {
      if (push.outcome === "conflict") conflicts.push({ path: push.local_path, remote: push.remote_body_hash });
      else if (push.outcome === "pushed" || push.outcome === "nothing_to_push") {
        this.toldConflicts.delete(push.local_path);
        status.forget(push.local_path);
        hashCache.forget(push.local_path);
      }
    }
    const fresh: string[] = [];
    for (const { path, remote } of conflicts) {
      // The status bar shows the conflict: what HackMD holds against the record's baseline.
      if (remote !== undefined) {
        const found = await store.findByPath(path).catch(() => undefined);
        if (found !== undefined)
          status.observe(path, { baseline_body_hash: found.record.baseline_body_hash, remote_body_hash: remote });
      }
      const key = remote ?? "";
      if (this.toldConflicts.get(path) === key) continue;
      this.toldConflicts.set(path, key);
      fresh.push(path);
    }
    if (fresh.length > 0) showInfo(conflictNotice(fresh));
    // A round that could not even list (no token, a refused token, a wrong API URL) says so once;
    // being offline is not news: the status bar counts the queued pushes.
    const failure =
      report.round?.error_kind ?? report.round?.items.find((item) => item.error_kind === "auth")?.error_kind;
    if (report.round !== undefined && (failure === undefined || isQueuedKind(failure))) this.toldFailure = undefined;
    else if (failure !== undefined && failure !== this.toldFailure) {
      this.toldFailure = failure;
      showInfo(`Automatic sync: ${errorNoticeText(new BridgeError(failure, ""), "sync")}`);
    }
    this.last = { used: report.used, monthly: report.monthly, queued: report.queued };
    this.changed();
  }

  private async refreshSummary(): Promise<void> {
    const budget = this.budget;
    if (budget === undefined || this.outbox === undefined) return;
    const queued = (await this.outbox.list().catch(() => [])).length;
    this.last = { used: budget.used(this.clock.now()), monthly: budget.monthly, queued };
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** One notice for the conflicts a step found (never one per file). */
export function conflictNotice(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(", ");
  const more = paths.length > 3 ? ` and ${paths.length - 3} more` : "";
  const what =
    paths.length === 1
      ? `${shown} and its note both changed`
      : `${paths.length} notes changed on both sides: ${shown}${more}`;
  return `Automatic sync: ${what}. HackMD's version is in the .remote.md file beside each; merge, then run "Resolve conflict in current file".`;
}
