/**
 * A simulated month of automatic sync (run with `npm run bench -- autosync`; see bench/README.md).
 *
 * The emulator and the core share a virtual clock, so a month runs in minutes. Defaults follow
 * the typical use of docs/auto-sync.md: 500 tracked notes over two workspaces (personal and a team), and per
 * day 50 notes opened (opening sends no request, so it only picks where the edits fall),
 * 20 local edits and 10 collaborator edits between 09:00 and 17:00 UTC, on a 2,000-request
 * monthly budget. Local edits change one line of a note and collaborator edits another, so both
 * sides merge; a note edited on both sides before a sync is merged, never lost.
 *
 * Reported: requests per simulated day (from the emulator's log), requests by route, the worst
 * and median delay from an edit to its arrival on the other side, the scheduler's longest
 * announced wait, conflicts, queued pushes at the end. `--offline-day D` drops every request on
 * day D (0-based) to show the outbox at work. Nothing here asserts a timing.
 */
import process from "node:process";
import { setImmediate } from "node:timers";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { unavailableImageFetcher } from "../src/core/image";
import { silentLogger, type Clock, type Sleep } from "../src/core/ports";
import { startEmulator } from "../src/emulator";
import { createClientConfig } from "../src/hackmd/config";
import { createBridgeCore } from "../src/mcp/core";
import { NodeHttpTransport } from "../src/node/http-transport";
import { NodeLocalFiles } from "../src/node/local-files";
import { RequestBudget, type MonthlyBudget } from "../src/sync/auto/budget";
import { Outbox } from "../src/sync/auto/outbox";
import { AutoSyncRunner, type StepReport } from "../src/sync/auto/runner";
import { machineInfo, table } from "./lib/report";
import { writeTrackedNotes, type SeededNote } from "./lib/sync-seed";

const USAGE = `usage: npm run bench -- autosync [--days 30] [--notes 500] [--budget 2000|unlimited] [--local 20] [--remote 10] [--opened 50] [--debounce 20000] [--offline-day D]`;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TEAM = "sandbox-team";

function options(): {
  days: number;
  notes: number;
  budget: MonthlyBudget;
  local: number;
  remote: number;
  opened: number;
  debounce: number;
  offlineDay: number | undefined;
} {
  const { values } = parseArgs({
    options: {
      days: { type: "string", default: "30" },
      notes: { type: "string", default: "500" },
      budget: { type: "string", default: "2000" },
      local: { type: "string", default: "20" },
      remote: { type: "string", default: "10" },
      opened: { type: "string", default: "50" },
      debounce: { type: "string", default: "20000" },
      "offline-day": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const int = (name: string, text: string, min: number): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) {
      process.stderr.write(`--${name} must be an integer ≥ ${min}\n${USAGE}\n`);
      process.exit(2);
    }
    return value;
  };
  const days = int("days", values.days, 1);
  if (days > 30) {
    process.stderr.write(`--days is at most 30 (one calendar month)\n`);
    process.exit(2);
  }
  return {
    days,
    notes: int("notes", values.notes, 2),
    budget: values.budget === "unlimited" ? "unlimited" : int("budget", values.budget, 10),
    local: int("local", values.local, 0),
    remote: int("remote", values.remote, 0),
    opened: int("opened", values.opened, 1),
    debounce: int("debounce", values.debounce, 0),
    offlineDay: values["offline-day"] === undefined ? undefined : int("offline-day", values["offline-day"], 0),
  };
}

class VirtualClock implements Clock {
  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  advanceTo(at: number): void {
    this.current = Math.max(this.current, at);
  }
  readonly sleep: Sleep = async (ms) => {
    this.current += Math.max(0, ms);
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
}

/** A deterministic random source (a linear congruential generator). */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

function body(i: number, local: string, remote: string): string {
  return `# Note ${i}\n\nL: ${local}\n\nThe middle of note ${i} stays as it is.\nSo does this line.\n\nR: ${remote}\n`;
}

function replaceLine(text: string, prefix: string, value: string): string {
  return text.replace(new RegExp(`^${prefix}: .*$`, "m"), `${prefix}: ${value}`);
}

type Edit = { at: number; side: "local" | "remote"; note: number; value: string };

async function main(): Promise<void> {
  const opts = options();
  // A 30-day month, so --days 30 is the whole month.
  const monthStart = Date.UTC(2027, 3, 1);
  const clock = new VirtualClock(monthStart - HOUR);
  const emu = await startEmulator({ port: 0, seed: "demo", clock: () => clock.now() });
  const root = await mkdtemp(join(tmpdir(), "hb-bench-autosync-"));
  try {
    const files = await NodeLocalFiles.open({ root });
    const core = createBridgeCore({
      transport: new NodeHttpTransport(),
      config: createClientConfig({ apiUrl: emu.url, tokenHint: "set HACKMD_API_TOKEN" }),
      secrets: { getToken: () => emu.token },
      files,
      images: unavailableImageFetcher,
      clock,
      sleep: clock.sleep,
      random: () => 0,
      logger: silentLogger,
      cacheTtlMs: 0,
    });
    const past = monthStart - DAY;
    const seededNotes: SeededNote[] = Array.from({ length: opts.notes }, (_, i) => ({
      id: `bench-auto-${String(i).padStart(5, "0")}`,
      teamPath: i % 2 === 0 ? null : TEAM,
      localPath: `notes/note-${i}.md`,
      body: body(i, "start", "start"),
      timestamp: past,
    }));
    emu.seed({
      notes: seededNotes.map((note, i) => ({
        id: note.id,
        title: `Note ${i}`,
        content: note.body,
        createdAt: past,
        lastChangedAt: past,
        ...(note.teamPath === null ? {} : { workspace: { team: note.teamPath } }),
      })),
    });
    await writeTrackedNotes({ root, stateFolder: files.root.stateFolder, notes: seededNotes });
    emu.clearRequests();
    clock.advanceTo(monthStart);

    const storage = {
      text: undefined as string | undefined,
      load: () => Promise.resolve(storage.text),
      save: (text: string) => Promise.resolve(void (storage.text = text)),
    };
    const budget = new RequestBudget({ monthly: opts.budget, storage });
    await budget.load(clock.now());
    const outbox = new Outbox(files.state);
    const { client, sync } = core.deps;
    const runner = new AutoSyncRunner(
      { client, files, sync, clock, sleep: clock.sleep, budget, outbox },
      { debounceMs: opts.debounce },
    );
    runner.start(clock.now());

    // The month's edits: each day, `opened` notes are opened; local edits fall on them, collaborator edits anywhere else.
    const random = seeded(15);
    const edits: Edit[] = [];
    for (let day = 0; day < opts.days; day += 1) {
      const at = (): number => monthStart + day * DAY + 9 * HOUR + Math.floor(random() * 8 * HOUR);
      const opened = new Set<number>();
      while (opened.size < Math.min(opts.opened, opts.notes)) opened.add(Math.floor(random() * opts.notes));
      const openedList = [...opened];
      for (let k = 0; k < opts.local; k += 1)
        edits.push({
          at: at(),
          side: "local",
          note: openedList[Math.floor(random() * openedList.length)] ?? 0,
          value: `day ${day} local ${k}`,
        });
      for (let k = 0; k < opts.remote; k += 1)
        edits.push({
          at: at(),
          side: "remote",
          note: Math.floor(random() * opts.notes),
          value: `day ${day} remote ${k}`,
        });
    }
    edits.sort((a, b) => a.at - b.at);

    const waiting: Edit[] = [];
    const delays: { local: number[]; remote: number[] } = { local: [], remote: [] };
    let longestAnnounced = 0;
    let conflicts = 0;
    let steps = 0;
    let rounds = 0;
    const localText = (i: number): Promise<string> => readFile(join(root, `notes/note-${i}.md`), "utf8");
    const remoteText = (i: number): string =>
      emu.inspect().notes.find((note) => note.id === seededNotes[i]?.id)?.content ?? "";
    const settle = async (now: number): Promise<void> => {
      if (waiting.length === 0) return;
      // One snapshot of the emulator per step: inspect() copies every note.
      const remote = waiting.some((edit) => edit.side === "local")
        ? new Map(emu.inspect().notes.map((note) => [note.id, note.content]))
        : new Map<string, string>();
      for (const edit of [...waiting]) {
        const other =
          edit.side === "local" ? (remote.get(seededNotes[edit.note]?.id ?? "") ?? "") : await localText(edit.note);
        const prefix = edit.side === "local" ? "L" : "R";
        const line = new RegExp(`^${prefix}: (.*)$`, "m").exec(other)?.[1];
        if (line === edit.value) {
          delays[edit.side].push(now - edit.at);
          waiting.splice(waiting.indexOf(edit), 1);
        }
      }
    };
    const onStep = async (report: StepReport): Promise<void> => {
      steps += 1;
      if (report.round !== undefined) {
        rounds += 1;
        conflicts += report.round.counts.conflicts;
      }
      longestAnnounced = Math.max(longestAnnounced, report.next.ms);
      await settle(report.at);
    };
    const runUntil = async (until: number): Promise<void> => {
      for (;;) {
        const wake = await runner.nextWake(clock.now());
        if (wake > until) break;
        clock.advanceTo(wake);
        await onStep(await runner.step(clock.now()));
      }
      clock.advanceTo(until);
    };

    const started = performance.now();
    const end = monthStart + opts.days * DAY - 1;
    let offline: { remove(): void } | undefined;
    const offlineStart = opts.offlineDay === undefined ? Infinity : monthStart + opts.offlineDay * DAY;
    const timeline: Array<{ at: number; run: () => Promise<void> | void }> = [
      ...edits.map((edit) => ({
        at: edit.at,
        run: async () => {
          if (edit.side === "local") {
            const path = `notes/note-${edit.note}.md`;
            await writeFile(join(root, path), replaceLine(await localText(edit.note), "L", edit.value));
            runner.fileChanged(path, clock.now());
          } else {
            const id = seededNotes[edit.note]?.id ?? "";
            emu.collaboratorEdit(id, { content: replaceLine(remoteText(edit.note), "R", edit.value) }, { as: "ada" });
          }
          // A later edit of the same line replaces an earlier one still on its way: only the last one is awaited.
          for (const earlier of waiting.filter((e) => e.note === edit.note && e.side === edit.side))
            waiting.splice(waiting.indexOf(earlier), 1);
          waiting.push(edit);
        },
      })),
      ...(opts.offlineDay === undefined
        ? []
        : [
            {
              at: offlineStart,
              run: () => void (offline = emu.injectFault({ match: {}, action: { drop: true }, times: 100_000_000 })),
            },
            { at: offlineStart + DAY, run: () => offline?.remove() },
          ]),
    ].sort((a, b) => a.at - b.at);
    for (const event of timeline) {
      await runUntil(event.at);
      await event.run();
    }
    await runUntil(end);
    const wallMs = performance.now() - started;

    const log = emu.requests();
    const perDay = Array.from(
      { length: opts.days },
      (_, day) =>
        log.filter((entry) => entry.at >= monthStart + day * DAY && entry.at < monthStart + (day + 1) * DAY).length,
    );
    const byRoute = new Map<string, number>();
    for (const entry of log) {
      const route = entry.route ?? `${entry.method} ${entry.path}`;
      byRoute.set(route, (byRoute.get(route) ?? 0) + 1);
    }
    let worstWindow = 0;
    for (let i = 0, j = 0; i < log.length; i += 1) {
      while (j < log.length && (log[j]?.at ?? 0) < (log[i]?.at ?? 0) + 5 * MINUTE) j += 1;
      worstWindow = Math.max(worstWindow, j - i);
    }
    const hours = (ms: number): string => (ms / HOUR).toFixed(2);
    const stats = (values: number[]): string[] => {
      if (values.length === 0) return ["0", "-", "-"];
      const sorted = [...values].sort((a, b) => a - b);
      return [String(values.length), hours(sorted[Math.floor(sorted.length / 2)] ?? 0), hours(sorted.at(-1) ?? 0)];
    };
    process.stdout.write(`${machineInfo()}\n\n`);
    process.stdout.write(
      `Simulated ${opts.days} days: ${opts.notes} tracked notes in 2 workspaces; per day ${opts.opened} opened, ${opts.local} local and ${opts.remote} collaborator edits; budget ${String(opts.budget)}; debounce ${opts.debounce / 1000} s${opts.offlineDay === undefined ? "" : `; offline all of day ${opts.offlineDay}`}.\n`,
    );
    process.stdout.write(`Wall time ${(wallMs / 1000).toFixed(1)} s, ${steps} steps, ${rounds} rounds.\n\n`);
    process.stdout.write(
      `Requests: ${log.length} sent (budget counted ${budget.used(end)}), worst 5-minute window ${worstWindow}, ${conflicts} conflicts reported, ${(await outbox.list()).length} pushes queued at the end, ${waiting.length} edits not yet on the other side at the end.\n`,
    );
    const daily = [...perDay].sort((a, b) => a - b);
    process.stdout.write(
      `Requests per simulated day: min ${daily[0] ?? 0}, median ${daily[Math.floor(daily.length / 2)] ?? 0}, max ${daily.at(-1) ?? 0}; by day: ${perDay.join(" ")}\n\n`,
    );
    process.stdout.write(
      table(
        ["edit", "count", "median delay (h)", "worst delay (h)"],
        [
          ["local → HackMD", ...stats(delays.local)],
          ["HackMD → local", ...stats(delays.remote)],
        ],
      ),
    );
    process.stdout.write(`\nLongest wait the scheduler announced between rounds: ${hours(longestAnnounced)} h.\n\n`);
    process.stdout.write(
      table(
        ["route", "requests"],
        [...byRoute].sort((a, b) => b[1] - a[1]).map(([route, n]) => [route, String(n)]),
      ),
    );
    runner.stop();
    await emu.close();
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
