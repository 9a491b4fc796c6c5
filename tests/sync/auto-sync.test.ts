/**
 * Automatic sync on the emulator with a virtual clock (docs/auto-sync.md): debounced pushes, rounds that
 * pull, the outbox across a restart and an offline stretch, and the short window under a burst.
 * No assertion depends on real time; the clock moves only when the runner or the test says so.
 */
import { CallContext } from "../../src/hackmd/call-context";
import { PUSH_COST } from "../../src/sync/auto/runner";
import { LISTED_TRUST_MS } from "../../src/sync/service";
import type { StepReport } from "../../src/sync/auto/runner";
import { startAutoWorld, type AutoWorld } from "./helpers/auto-sync-world";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** 1 April 2027, 08:00 UTC. */
const START = Date.UTC(2027, 3, 1, 8);
const PATCH = /^PATCH /;

function patches(world: AutoWorld): number {
  return world.bridge.emu.requests().filter((entry) => PATCH.test(entry.route ?? entry.method)).length;
}

describe("automatic sync on the emulator", () => {
  let world: AutoWorld;
  afterEach(async () => {
    await world.close();
  });

  it("pushes an edit only once the file has been quiet for the debounce time, and pulls a collaborator's edit in a round", async () => {
    world = await startAutoWorld({ start: START, count: 4, runner: { debounceMs: 20_000 } });
    const [mine, theirs] = world.notes;
    if (mine === undefined || theirs === undefined) throw new Error("no notes");
    await world.runUntil(START + MINUTE); // the first round: two lists, nothing to do
    await world.editLocal(mine, "# Mine\n\nfirst keystrokes\n");
    world.clock.advance(15_000);
    await world.editLocal(mine, "# Mine\n\nstill typing\n");
    // 15 s after the last keystroke: not yet.
    world.clock.advance(15_000);
    await world.runner.step(world.clock.now());
    expect(patches(world)).toBe(0);
    world.clock.advance(5_000);
    const report = await world.runner.step(world.clock.now());
    expect(report.pushes).toEqual([{ local_path: mine.localPath, from_outbox: false, outcome: "pushed" }]);
    expect(world.remoteBody(mine)).toBe("# Mine\n\nstill typing\n");
    expect(patches(world)).toBe(1);

    world.bridge.emu.collaboratorEdit(theirs.id, { content: "# Theirs\n\nfrom HackMD\n" }, { as: "ada" });
    const rounds: StepReport[] = [];
    await world.runUntil(world.clock.now() + 6 * HOUR, (step) => {
      if (step.round !== undefined) rounds.push(step);
    });
    expect(await world.readLocal(theirs)).toBe("# Theirs\n\nfrom HackMD\n");
    expect(rounds.some((step) => step.round?.counts.pulled === 1)).toBe(true);
    // The budget counted exactly what the emulator received.
    expect(world.budget.used(world.clock.now())).toBe(world.bridge.emu.requests().length);
  });

  it("on a tight budget, sends a changed file with the next round, whose fresh list stands in for the push's GET", async () => {
    world = await startAutoWorld({ start: START, count: 4, monthly: 100 });
    const [mine] = world.notes;
    if (mine === undefined) throw new Error("no notes");
    await world.runUntil(START + MINUTE); // the first round: two lists
    // Requests an earlier run spent this month: the pace has no credit left for a push of its own.
    for (let i = 0; i < 8; i += 1) world.budget.record(START);
    expect(world.budget.credit(world.clock.now())).toBeLessThan(PUSH_COST);
    world.bridge.emu.clearRequests();
    await world.editLocal(mine, "# Mine\n\nedited on a tight budget\n");
    world.clock.advance(25_000);
    const quiet = await world.runner.step(world.clock.now());
    expect(quiet.pushes).toEqual([]);
    expect(world.remoteBody(mine)).not.toContain("tight budget");
    // The file waits for the round the pace allows, and goes out with it.
    await world.runUntil(world.clock.now() + 12 * HOUR);
    expect(world.remoteBody(mine)).toBe("# Mine\n\nedited on a tight budget\n");
    const sent = world.bridge.emu.requests().map((entry) => entry.route ?? entry.method);
    // Two lists, then PATCH and its read-back: no GET of the note before the PATCH.
    expect(sent.slice(0, 4)).toEqual([
      "GET /notes",
      "GET /teams/:teamPath/notes",
      "PATCH /notes/:noteId",
      "GET /notes/:noteId",
    ]);
    expect(sent.filter((route) => route.startsWith("PATCH"))).toHaveLength(1);
  });

  it("reads the note itself when the list is older than a moment, or shows another timestamp", async () => {
    world = await startAutoWorld({ start: START, count: 2 });
    const [mine] = world.notes;
    if (mine === undefined) throw new Error("no notes");
    const { client, sync } = world.bridge.core.deps;
    const [listed] = (await client.listNotes(new CallContext(), { teamPath: mine.teamPath })).filter(
      (note) => note.id === mine.id,
    );
    if (listed === undefined) throw new Error("not listed");
    const push = async (text: string, at: number, note = listed): Promise<string[]> => {
      await world.editLocal(mine, text);
      world.bridge.emu.clearRequests();
      await sync.push({
        localPath: mine.localPath,
        strategy: "merge",
        confirm: false,
        confirmLargeFile: false,
        call: new CallContext(),
        listed: { note, at },
      });
      return world.bridge.emu.requests().map((entry) => entry.method);
    };
    // A list older than LISTED_TRUST_MS: the push reads the note first.
    expect(await push("# Mine\n\nfirst\n", world.clock.now() - LISTED_TRUST_MS - 1)).toEqual(["GET", "PATCH", "GET"]);
    // The record now holds no settled timestamp (a write just landed): the list cannot stand in.
    world.clock.advance(60_000);
    expect(await push("# Mine\n\nsecond\n", world.clock.now())).toEqual(["GET", "PATCH", "GET"]);
    // A listed timestamp other than the record's: read first.
    world.clock.advance(60_000);
    expect(
      await push("# Mine\n\nthird\n", world.clock.now(), {
        ...listed,
        last_changed_at: (listed.last_changed_at ?? 0) + 1,
      }),
    ).toEqual(["GET", "PATCH", "GET"]);
    expect(world.remoteBody(mine)).toBe("# Mine\n\nthird\n");
  });

  it("never sends a push's write after waiting for the short window: the write is refused and queued, so a collaborator's edit made meanwhile is not overwritten", async () => {
    world = await startAutoWorld({ start: START, count: 2, windowLimit: 30 });
    const [mine] = world.notes;
    if (mine === undefined) throw new Error("no notes");
    // Between the push's read and its write, another watcher of the folder fills the shared
    // window and a collaborator edits the note: the write would have to wait minutes for room.
    // (This hook is added before the runner's, so it runs before the write is reserved.)
    let filled = false;
    const unhook = world.bridge.core.deps.client.beforeRequestSent((sent) => {
      if (filled || sent.method !== "PATCH") return Promise.resolve();
      filled = true;
      const saved = JSON.parse(world.storage.text ?? "{}") as { recent?: number[] };
      world.storage.text = JSON.stringify({
        ...saved,
        recent: [...(saved.recent ?? []), ...Array.from({ length: 30 }, () => sent.at)],
      });
      world.bridge.emu.collaboratorEdit(
        mine.id,
        { content: "# Auto 0\n\nFirst line of note 0.\n\nada's line\n" },
        { as: "ada" },
      );
      return Promise.resolve();
    });
    await world.restart();
    await world.runUntil(START + MINUTE); // the first round: two lists
    await world.editLocal(mine, "# Mine\n\nlocal edit\n");
    world.clock.advance(25_000);
    world.bridge.emu.clearRequests();
    const report = await world.runner.step(world.clock.now());
    unhook();
    expect(filled).toBe(true);
    expect(patches(world)).toBe(0);
    expect(report.pushes).toEqual([
      expect.objectContaining({ local_path: mine.localPath, outcome: "queued", error_kind: "rate_limited" }),
    ]);
    expect(world.remoteBody(mine)).toContain("ada's line");
    expect((await world.outbox.list()).map((entry) => entry.local_path)).toEqual([mine.localPath]);
  });

  it("holds back a file that is open in an editor: not pushed mid-typing, not pulled into", async () => {
    const editing = new Set<string>();
    world = await startAutoWorld({
      start: START,
      count: 2,
      runner: { debounceMs: 60_000, isEditing: (path) => editing.has(path) },
    });
    const [note] = world.notes;
    if (note === undefined) throw new Error("no notes");
    editing.add(note.localPath);
    await world.editLocal(note, "local words\n");
    world.bridge.emu.collaboratorEdit(note.id, { content: "remote words\n" }, { as: "ada" });
    await world.runUntil(START + HOUR);
    expect(patches(world)).toBe(0);
    expect(await world.readLocal(note)).toBe("local words\n");
    editing.delete(note.localPath);
    await world.runUntil(START + 2 * HOUR);
    // Both sides changed different lines of a one-line note: a conflict, reported, nothing lost.
    expect(await world.readLocal(note)).toBe("local words\n");
    expect(world.remoteBody(note)).toBe("remote words\n");
  });

  it("queues pushes while offline, keeps them across a restart, and sends them when back, re-reading the remote first", async () => {
    world = await startAutoWorld({ start: START, count: 6, runner: { debounceMs: 10_000 } });
    await world.runUntil(START + MINUTE);
    const offline = world.bridge.emu.injectFault({ match: {}, action: { drop: true }, times: 1_000_000 });
    const edited = world.notes.slice(0, 3);
    for (const [i, note] of edited.entries()) await world.editLocal(note, `# Offline edit ${i}\n`);
    const reports: StepReport[] = [];
    await world.runUntil(START + 6 * HOUR, (step) => reports.push(step));
    const queued = await world.outbox.list();
    expect(queued.map((entry) => entry.local_path).sort()).toEqual(edited.map((note) => note.localPath).sort());
    expect(queued.every((entry) => entry.last_error_kind === "network")).toBe(true);
    for (const note of edited) expect(world.remoteBody(note)).not.toContain("Offline edit");

    // A collaborator edits one of the queued notes on another line meanwhile: the queued push must see it.
    const shared = edited[0];
    if (shared === undefined) throw new Error("no note");
    world.bridge.emu.collaboratorEdit(
      shared.id,
      { content: "# Auto 0\n\nFirst line of note 0.\nAda was here.\n" },
      { as: "ada" },
    );

    await world.restart(); // the outbox lives in the state folder, not in the runner
    expect((await world.outbox.list()).length).toBe(3);
    offline.remove();
    world.bridge.emu.clearRequests();
    await world.runUntil(START + 9 * HOUR, (step) => reports.push(step));
    expect(await world.outbox.list()).toEqual([]);
    for (const [i, note] of edited.entries()) {
      if (note === shared) continue;
      expect(world.remoteBody(note)).toBe(`# Offline edit ${i}\n`);
    }
    // The collaborator's edit was not overwritten: the queued push read the note first and
    // found both sides changed the same line, so it is left as a conflict for the user.
    expect(world.remoteBody(shared)).toContain("Ada was here.");
    expect(await world.readLocal(shared)).toBe("# Offline edit 0\n");
    const firstWrite = world.bridge.emu.requests().findIndex((entry) => PATCH.test(entry.route ?? entry.method));
    const firstRead = world.bridge.emu
      .requests()
      .findIndex((entry) => entry.method === "GET" && /^\/v1\/(teams\/[^/]+\/)?notes\/auto-note/.test(entry.path));
    expect(firstRead).toBeGreaterThanOrEqual(0);
    expect(firstRead).toBeLessThan(firstWrite);
  });

  it("never replays a write whose outcome is unknown", async () => {
    world = await startAutoWorld({ start: START, count: 2, runner: { debounceMs: 10_000 } });
    const [note] = world.notes;
    if (note === undefined) throw new Error("no notes");
    await world.runUntil(START + MINUTE);
    // The PATCH lands, but the answer is lost: a readback.
    world.bridge.emu.injectFault({
      match: { method: "PATCH" },
      action: { drop: true },
      when: "after-commit",
      times: 1,
    });
    await world.editLocal(note, "# Landed, unconfirmed\n");
    const reports: StepReport[] = [];
    await world.runUntil(START + MINUTE + 10_000, (step) => reports.push(step));
    const pushes = reports.flatMap((step) => step.pushes);
    expect(pushes).toEqual([
      expect.objectContaining({ local_path: note.localPath, outcome: "failed", error_kind: "readback" }),
    ]);
    expect(await world.outbox.list()).toEqual([]);
    expect(patches(world)).toBe(1);
    // Later rounds see the write landed (remote equals local) and settle the baseline without a second PATCH.
    await world.runUntil(START + 3 * HOUR);
    expect(patches(world)).toBe(1);
    expect(world.remoteBody(note)).toBe("# Landed, unconfirmed\n");
  });

  it("a burst of edits never puts more requests into 5 minutes than HackMD allows (limit scaled down to 30; the emulator limits too)", async () => {
    const limit = 30;
    world = await startAutoWorld({
      start: START,
      count: 12,
      runner: { debounceMs: 5_000 },
      monthly: "unlimited",
      windowLimit: limit,
    });
    await world.runUntil(START + MINUTE);
    for (const [i, note] of world.notes.entries()) await world.editLocal(note, `# Burst ${i}\n`);
    await world.runUntil(START + 15 * MINUTE);
    for (const [i, note] of world.notes.entries()) expect(world.remoteBody(note)).toBe(`# Burst ${i}\n`);
    const log = world.bridge.emu.requests();
    expect(log.filter((entry) => entry.status === 429)).toEqual([]);
    // 12 pushes of 3 requests do not fit one window: the runner spread them.
    expect(log.length).toBeGreaterThan(12 * PUSH_COST);
    let worst = 0;
    for (const [i, entry] of log.entries()) {
      const inWindow = log.slice(i).filter((later) => later.at < entry.at + 5 * MINUTE).length;
      worst = Math.max(worst, inWindow);
    }
    expect(worst).toBeLessThanOrEqual(limit);
    expect(worst).toBeGreaterThan(limit / 2);
  });

  it("runs a round asked for (start-up, resume) at once when the pace covers its lists, and keeps the schedule when it does not", async () => {
    world = await startAutoWorld({ start: START, count: 2, monthly: 100 });
    const [theirs] = world.notes;
    if (theirs === undefined) throw new Error("no notes");
    await world.runUntil(START + MINUTE); // the first round: two lists
    // A host scheduled the next round far away (its first round waits for the schedule).
    world.runner.start(world.clock.now() + 6 * HOUR);
    world.bridge.emu.collaboratorEdit(theirs.id, { content: "# Theirs\n\nasked for\n" }, { as: "ada" });
    expect(await world.runner.nextWake(world.clock.now())).toBe(world.clock.now() + 6 * HOUR);
    expect(await world.runner.requestRound(world.clock.now())).toBe(true);
    expect(await world.runner.nextWake(world.clock.now())).toBe(world.clock.now());
    const report = await world.runner.step(world.clock.now());
    expect(report.round?.counts.pulled).toBe(1);
    expect(report.round?.items.find((item) => item.local_path === theirs.localPath)?.outcome).toBe("pulled");
    expect(await world.readLocal(theirs)).toBe("# Theirs\n\nasked for\n");

    // Requests an earlier run spent this month: no credit for another round's lists, so the
    // request is refused and the schedule stays.
    for (let i = 0; i < 12; i += 1) world.budget.record(world.clock.now());
    const scheduled = await world.runner.nextWake(world.clock.now());
    expect(await world.runner.requestRound(world.clock.now())).toBe(false);
    expect(await world.runner.nextWake(world.clock.now())).toBe(scheduled);
  });
});

describe("a simulated month on the emulator (scaled down; the full month is `npm run bench -- autosync`)", () => {
  it("stays within the budget, counts exactly what HackMD received, and syncs every change within the delay the budget allows", async () => {
    const DAY = 24 * HOUR;
    // The last 10 days of April 2027 on a 140-request budget: a third of the month, about a third of 400.
    const monthStart = Date.UTC(2027, 3, 21);
    const days = 10;
    const monthly = 140;
    const debounceMs = 20_000;
    const world = await startAutoWorld({ start: monthStart, count: 12, monthly, runner: { debounceMs } });
    try {
      // Notes 0,1 (mod 4) are edited locally, notes 2,3 (mod 4) by a collaborator: no conflicts by construction.
      const localNotes = world.notes.filter((_, i) => i % 4 < 2);
      const remoteNotes = world.notes.filter((_, i) => i % 4 >= 2);
      let seed = 7;
      const random = (): number => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        return seed / 2_147_483_648;
      };
      type Event = { at: number; side: "local" | "remote"; note: (typeof world.notes)[number]; body: string };
      const events: Event[] = [];
      for (let day = 0; day < days; day += 1) {
        const workday = (hour: number): number => monthStart + day * DAY + 9 * HOUR + Math.floor(hour * 8 * HOUR);
        for (let k = 0; k < 2; k += 1) {
          const note = localNotes[Math.floor(random() * localNotes.length)] ?? localNotes[0];
          if (note !== undefined)
            events.push({ at: workday(random()), side: "local", note, body: `# Local day ${day} edit ${k}\n` });
        }
        const note = remoteNotes[Math.floor(random() * remoteNotes.length)] ?? remoteNotes[0];
        if (note !== undefined)
          events.push({ at: workday(random()), side: "remote", note, body: `# Remote day ${day}\n` });
      }
      events.sort((a, b) => a.at - b.at);
      const waiting: Array<Event & { seen?: number }> = [];
      let worstRemoteDelay = 0;
      let worstLocalDelay = 0;
      let longestAnnounced = 0;
      const settle = async (now: number): Promise<void> => {
        for (const event of [...waiting]) {
          const arrived =
            event.side === "remote"
              ? (await world.readLocal(event.note)) === event.body
              : world.remoteBody(event.note) === event.body;
          const superseded = waiting.some(
            (other) => other !== event && other.note === event.note && other.at > event.at,
          );
          if (arrived || superseded) {
            if (arrived) {
              if (event.side === "remote") worstRemoteDelay = Math.max(worstRemoteDelay, now - event.at);
              else worstLocalDelay = Math.max(worstLocalDelay, now - event.at);
            }
            waiting.splice(waiting.indexOf(event), 1);
          }
        }
      };
      const end = monthStart + days * DAY - 1;
      for (const event of [...events, undefined]) {
        const until = event?.at ?? end;
        await world.runUntil(until, async (report) => {
          longestAnnounced = Math.max(longestAnnounced, report.next.ms);
          await settle(report.at);
        });
        await settle(world.clock.now());
        if (event === undefined) break;
        if (event.side === "local") await world.editLocal(event.note, event.body);
        else world.bridge.emu.collaboratorEdit(event.note.id, { content: event.body }, { as: "ada" });
        waiting.push(event);
      }
      const used = world.budget.used(world.clock.now());
      expect(used).toBeLessThanOrEqual(monthly);
      expect(world.bridge.emu.requests()).toHaveLength(used);
      // Everything arrived before the month ended; the last edits of the month may still wait for a round.
      const late = waiting.filter((event) => event.at < end - longestAnnounced);
      expect(late).toEqual([]);
      // On this tight budget a local edit goes out with the next round after its quiet time, as a remote one arrives by it.
      expect(worstLocalDelay).toBeLessThanOrEqual(longestAnnounced + debounceMs);
      expect(worstRemoteDelay).toBeLessThanOrEqual(longestAnnounced + debounceMs);
      expect(await world.outbox.list()).toEqual([]);
    } finally {
      await world.close();
    }
  }, 60_000);
});
