/**
 * Every write path adds exactly one sync-journal entry (src/sync/journal.ts), naming its actor, the
 * decision-table branch and where the text it replaced lives — and that place holds the text:
 * pull, push, merge, force push and a conflict through the agent tools, the command's door
 * (a call with no actor), every other MCP write tool, an automatic round and an outbox send.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { publishNote } from "../../src/app/publish";
import { CallContext } from "../../src/hackmd/call-context";
import { DEMO_COMMENT_IDS, DEMO_NOTE_IDS } from "../../src/emulator";
import type { JournalEntry } from "../../src/sync/journal";
import { ok, startBridge, type TestBridge } from "../helpers/bridge";
import { startAutoWorld, type AutoWorld } from "./helpers/auto-sync-world";

const NOTE = DEMO_NOTE_IDS.readingList;
const FILE = "reading.md";

describe("the sync journal records every write once", () => {
  let bridge: TestBridge;
  const local = (path: string): string => join(bridge.root, path);
  const remote = (id = NOTE): string => bridge.emu.inspect().notes.find((note) => note.id === id)?.content ?? "";
  const entries = async (): Promise<JournalEntry[]> => {
    await bridge.core.deps.journal.flushed();
    return bridge.core.deps.journal.read();
  };
  /** Runs `write` and returns the one entry it added (fails on none or more). */
  const one = async (write: () => Promise<unknown>): Promise<JournalEntry> => {
    const before = (await entries()).length;
    await write();
    const after = await entries();
    expect(after.length).toBe(before + 1);
    const entry = after.at(-1);
    if (entry === undefined) throw new Error("no entry");
    return entry;
  };
  const kept = async (entry: JournalEntry, side: "local" | "remote"): Promise<string | undefined> => {
    const place = entry.replaced?.find((replaced) => replaced.side === side && replaced.where === "journal");
    return place === undefined ? undefined : bridge.core.deps.journal.keptText(place.hash);
  };

  beforeEach(async () => {
    bridge = await startBridge();
  });
  afterEach(async () => {
    await bridge.close();
  });

  it("agent pull, push (S3), merge (G7), force push (O3) and conflict (S7): one entry each, the replaced text where it says", async () => {
    const pulled = await one(async () =>
      ok(await bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: FILE })),
    );
    expect(pulled).toMatchObject({
      kind: "pull",
      file: FILE,
      actor: { kind: "agent", door: "mcp", client: "test", tool: "hackmd_pull_note" },
      note: { team_path: null, note_id: NOTE },
    });
    const body = remote();

    await writeFile(local(FILE), `${body}mine\n`);
    const pushed = await one(async () => ok(await bridge.call("hackmd_push_note", { local_path: FILE })));
    expect(pushed).toMatchObject({ kind: "push", branch: "S3", outcome: "pushed" });
    expect(await kept(pushed, "remote")).toBe(body);
    expect(pushed.remote?.after).toBe(pushed.local?.after);

    const base = remote();
    await writeFile(local(FILE), `first\n${base}`);
    bridge.emu.collaboratorEdit(NOTE, { content: `${base}theirs\n` });
    const merged = await one(async () =>
      ok(await bridge.call("hackmd_push_note", { local_path: FILE, strategy: "merge" })),
    );
    expect(merged).toMatchObject({ kind: "merge", branch: "G7" });
    expect(await kept(merged, "local")).toBe(`first\n${base}`);
    expect(await kept(merged, "remote")).toBe(`${base}theirs\n`);

    const beforeForce = `${remote()}collaborator\n`;
    bridge.emu.collaboratorEdit(NOTE, { content: beforeForce });
    await writeFile(local(FILE), "forced\n");
    const forced = await one(async () =>
      ok(await bridge.call("hackmd_push_note", { local_path: FILE, strategy: "overwrite", confirm: true })),
    );
    expect(forced).toMatchObject({ kind: "force_push", branch: "O3" });
    expect(await kept(forced, "remote")).toBe(beforeForce);
    const version = forced.replaced?.find((replaced) => replaced.where === "version");
    expect(version?.version_id).toEqual(expect.any(String));
    const held = ok(await bridge.call("hackmd_get_version", { note_ref: NOTE, version_id: version?.version_id ?? "" }));
    expect(held.content).toBe(beforeForce);

    await writeFile(local(FILE), "forced\nmine again\n");
    bridge.emu.collaboratorEdit(NOTE, { content: "forced\ntheirs again\n" });
    const conflict = await one(async () => ok(await bridge.call("hackmd_push_note", { local_path: FILE })));
    expect(conflict).toMatchObject({ kind: "conflict", branch: "S7" });
    const snapshot = conflict.replaced?.find((replaced) => replaced.where === "remote_md");
    expect(snapshot?.path).toBe("reading.remote.md");
    expect(await readFile(local(snapshot?.path ?? ""), "utf8")).toBe("forced\ntheirs again\n");
  });

  it("the command's door (a call naming no actor) is the user's", async () => {
    const entry = await one(() =>
      bridge.core.deps.sync.pull({
        localPath: FILE,
        resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: null, noteId: NOTE }),
        overwriteLocal: false,
        discardLocalChanges: false,
        createParentDirs: false,
        confirmLargeFile: false,
        call: new CallContext(),
      }),
    );
    expect(entry.actor).toEqual({ kind: "user", door: "command" });
    // Untrack and publish through the doors the command and the plugin use: one entry each.
    const untracked = await one(() =>
      bridge.core.deps.sync.untrack({ teamPath: null, noteId: NOTE, confirm: true, call: new CallContext() }),
    );
    expect(untracked).toMatchObject({ kind: "untrack", file: FILE, actor: { kind: "user" } });
    const published = await one(() =>
      publishNote(bridge.core.deps, new CallContext(), null, { title: "Published", content: "# Published\n" }),
    );
    expect(published).toMatchObject({ kind: "create_note", branch: "publish", actor: { kind: "user" } });
  });

  it("every other MCP write tool adds one entry with the agent's name; a read adds none", async () => {
    const patchBefore = remote();
    const read = ok(await bridge.call("hackmd_get_note", { note_ref: NOTE }));
    const edited = await one(async () =>
      ok(
        await bridge.call("hackmd_update_note", {
          note_ref: NOTE,
          content: `${patchBefore}appended line\n`,
          expected_hash: read.body_hash,
        }),
      ),
    );
    expect(edited).toMatchObject({ kind: "update_note", actor: { kind: "agent", tool: "hackmd_update_note" } });
    expect(await kept(edited, "remote")).toBe(patchBefore);

    const created = await one(async () =>
      ok(await bridge.call("hackmd_create_note", { title: "Journal", content: "# Journal\n" })),
    );
    expect(created.kind).toBe("create_note");
    await one(async () => ok(await bridge.call("hackmd_create_folder", { name: "Journal folder" })));
    await one(async () => ok(await bridge.call("hackmd_create_version", { note_ref: NOTE, name: "v" })));
    await one(async () =>
      ok(
        await bridge.call("hackmd_resolve_comment", {
          note_ref: DEMO_NOTE_IDS.weeklySync,
          comment_id: DEMO_COMMENT_IDS.checklist,
        }),
      ),
    );
    await one(async () => ok(await bridge.call("hackmd_delete_note", { note_ref: created.note?.note_id ?? "" })));
    ok(await bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: FILE }));
    const untracked = await one(async () =>
      ok(await bridge.call("hackmd_untrack_note", { note_id: NOTE, confirm: true })),
    );
    expect(untracked).toMatchObject({ kind: "untrack", actor: { kind: "agent", tool: "hackmd_untrack_note" } });
    const count = (await entries()).length;
    ok(await bridge.call("hackmd_get_note", { note_ref: NOTE }));
    expect((await entries()).length).toBe(count);

    // The agent reads them back through the read-only tool (no request to HackMD), by session.
    bridge.mark();
    const listed = ok(await bridge.call("hackmd_list_journal", { limit: 1000 })).entries as JournalEntry[];
    expect(bridge.requestsSinceMark()).toEqual([]);
    expect(listed.map((entry) => entry.id)).toEqual((await entries()).map((entry) => entry.id));
    const session = edited.actor.session ?? "";
    expect(session).not.toBe("");
    const mine = ok(await bridge.call("hackmd_list_journal", { session, actor: "agent" })).entries as JournalEntry[];
    expect(mine.length).toBe(count);
    expect(mine.every((entry) => entry.actor.client === "test")).toBe(true);
  });
});

describe("the sync journal records automatic sync", () => {
  let world: AutoWorld;
  afterEach(async () => {
    await world.close();
  });

  it("a round's push and an outbox send are one entry each, by the automatic actor", async () => {
    const START = Date.UTC(2026, 5, 10, 9);
    world = await startAutoWorld({ start: START, count: 2, runner: { debounceMs: 10_000 } });
    const [mine, other] = world.notes;
    if (mine === undefined || other === undefined) throw new Error("no notes");
    const journal = world.bridge.core.deps.journal;
    await world.runUntil(START + 60_000);
    const start = (await journal.read()).length;
    await world.editLocal(mine, "# Mine\n\nedited\n");
    world.clock.advance(11_000);
    await world.runner.step(world.clock.now());
    const afterPush = await journal.read();
    expect(afterPush.length).toBe(start + 1);
    expect(afterPush.at(-1)).toMatchObject({ kind: "push", actor: { kind: "auto" }, file: mine.localPath });

    const offline = world.bridge.emu.injectFault({ match: {}, action: { drop: true }, times: 1_000_000 });
    await world.editLocal(other, "# Other\n\nqueued\n");
    world.clock.advance(11_000);
    await world.runner.step(world.clock.now());
    expect((await world.outbox.list()).length).toBe(1);
    expect((await journal.read()).length).toBe(start + 1); // nothing was written
    offline.remove();
    await world.runUntil(world.clock.now() + 6 * 3_600_000);
    expect(await world.outbox.list()).toEqual([]);
    const sent = (await journal.read()).filter((entry) => entry.file === other.localPath && entry.kind !== "pull");
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ kind: "push", actor: { kind: "auto" } });
  });
});
