/**
 * The conflict flow against the emulator through the real SyncService and a Node ROOT; only the
 * modal is replaced (the `openModal` seam answers as a user would).
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { bodyHash } from "../../src/core/hash";
import { silentLogger } from "../../src/core/ports";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { CallContext } from "../../src/hackmd/call-context";
import { SyncStateStore } from "../../src/sync/store";
import type { PushRequest } from "../../src/sync/types";
import { openConflictResolution, type ConflictFlowServices } from "../../src/ui/conflict-flow";
import type { ConflictChoice, ConflictViewModel } from "../../src/ui/conflict-view-model";
import { startBridge, type TestBridge } from "../helpers/bridge";

const NOTE = DEMO_NOTE_IDS.readingList;
const FILE = "plan.md";
const PATCH = "PATCH /notes/:noteId";
const BASE = Array.from({ length: 12 }, (_, i) => `line ${i + 1}\n`).join("");
/** BASE with some lines replaced (1-based). */
const edit = (change: Record<number, string>): string =>
  Array.from({ length: 12 }, (_, i) => `${change[i + 1] ?? `line ${i + 1}`}\n`).join("");

type Answer = (viewModel: ConflictViewModel) => ConflictChoice | Promise<ConflictChoice>;

describe("conflict flow (emulator, real sync engine)", () => {
  let bridge: TestBridge;
  let store: SyncStateStore;
  let notices: string[];
  let shown: ConflictViewModel[];
  let pushes: PushRequest[];

  const local = (path = FILE): string => join(bridge.root, path);
  const readLocal = (path = FILE): Promise<string> => readFile(local(path), "utf8");
  const remote = (): string => bridge.emu.inspect().notes.find((note) => note.id === NOTE)?.content ?? "";
  const patches = (): number => bridge.requestsSinceMark().filter((route) => route === PATCH).length;
  const baselineHash = async (): Promise<string | undefined> =>
    (await store.findByPath(FILE))?.record.baseline_body_hash;

  /** Services whose modal answers with `answers`, one per opening. */
  function services(...answers: Answer[]): ConflictFlowServices {
    const deps = bridge.core.deps;
    return {
      sync: {
        pull: (request) => deps.sync.pull(request),
        remoteFormOf: (found, text) => deps.sync.remoteFormOf(found, text),
        localFormOf: (found, text) => deps.sync.localFormOf(found, text),
        push: (request) => {
          pushes.push(request);
          return deps.sync.push(request);
        },
      },
      client: deps.client,
      files: deps.files,
      store,
      notify: (message) => notices.push(message),
      newCall: () => new CallContext(),
      openModal: async (viewModel) => {
        shown.push(viewModel);
        const answer = answers.shift();
        if (!answer) throw new Error("the modal opened more often than the test expected");
        return answer(viewModel);
      },
    };
  }

  /** Tracks FILE at BASE, then edits the file and the note as given. */
  async function conflict(mine: string, theirs: string): Promise<void> {
    bridge.emu.collaboratorEdit(NOTE, { content: BASE }, { as: "ada" });
    const pulled = await bridge.core.deps.sync.pull({
      localPath: FILE,
      resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: null, noteId: NOTE }),
      overwriteLocal: false,
      discardLocalChanges: false,
      createParentDirs: false,
      confirmLargeFile: false,
      call: new CallContext(),
    });
    if (pulled.kind !== "pulled") throw new Error("setup pull failed");
    await writeFile(local(), mine);
    bridge.emu.collaboratorEdit(NOTE, { content: theirs }, { as: "ada" });
    bridge.mark();
  }

  beforeEach(async () => {
    bridge = await startBridge();
    store = new SyncStateStore({ files: bridge.core.deps.files.state, logger: silentLogger });
    notices = [];
    shown = [];
    pushes = [];
  });
  afterEach(async () => {
    await bridge.close();
  });

  it("merges non-overlapping edits cleanly, pushes both and advances the baseline", async () => {
    const mine = edit({ 2: "line 2 (mine)" });
    const theirs = edit({ 10: "line 10 (theirs)" });
    await conflict(mine, theirs);
    const merged = edit({ 2: "line 2 (mine)", 10: "line 10 (theirs)" });

    const outcome = await openConflictResolution(
      services((vm) => ({ action: "merged", text: vm.clean ?? "not clean" })),
      FILE,
    );

    expect(outcome).toMatchObject({ outcome: "merged", push: { status: "pushed", body_hash: await bodyHash(merged) } });
    expect(shown[0]).toMatchObject({
      base: BASE,
      mine,
      theirs,
      clean: merged,
      remoteHash: await bodyHash(theirs),
      localPath: FILE,
      noteId: NOTE,
    });
    expect(remote()).toBe(merged);
    expect(await readLocal()).toBe(merged);
    expect(await baselineHash()).toBe(await bodyHash(merged));
    expect(patches()).toBe(1);
    expect(pushes.map((request) => [request.strategy, request.expectedRemoteHash])).toEqual([
      ["safe", await bodyHash(theirs)],
    ]);
    expect(notices).toEqual([`Merged ${FILE} and pushed it to HackMD.`]);
  });

  it("resolves overlapping edits hunk by hunk (both) and pushes the result", async () => {
    await conflict(edit({ 5: "mine 5" }), edit({ 5: "theirs 5" }));

    const outcome = await openConflictResolution(
      services((vm) => {
        expect(vm.clean).toBeUndefined();
        expect(vm.sections.find((section) => section.kind === "conflict")).toMatchObject({
          base: ["line 5"],
          mine: ["mine 5"],
          theirs: ["theirs 5"],
        });
        return { action: "merged", text: vm.result(["both"]) };
      }),
      FILE,
    );

    const merged = edit({ 5: "mine 5\ntheirs 5" });
    expect(outcome.outcome).toBe("merged");
    expect(remote()).toBe(merged);
    expect(await readLocal()).toBe(merged);
    expect(await baselineHash()).toBe(await bodyHash(merged));
    expect(patches()).toBe(1);
  });

  it("taking theirs in every hunk sends nothing and only advances the baseline", async () => {
    const theirs = edit({ 5: "theirs 5" });
    await conflict(edit({ 5: "mine 5" }), theirs);

    const outcome = await openConflictResolution(
      services((vm) => ({ action: "merged", text: vm.result(["remote"]) })),
      FILE,
    );

    expect(outcome).toMatchObject({ outcome: "merged", push: { status: "nothing_to_push" } });
    expect(await readLocal()).toBe(theirs);
    expect(await baselineHash()).toBe(await bodyHash(theirs));
    expect(patches()).toBe(0);
    expect(notices).toEqual([`Merged ${FILE}; HackMD already held that text.`]);
  });

  it("keep mine pushes the file exactly once, expecting the remote shown", async () => {
    const mine = edit({ 5: "mine 5" });
    const theirs = edit({ 5: "theirs 5" });
    await conflict(mine, theirs);

    const outcome = await openConflictResolution(
      services(() => ({ action: "keep-mine" })),
      FILE,
    );

    expect(outcome).toMatchObject({ outcome: "kept-mine", push: { status: "pushed" } });
    expect(pushes).toHaveLength(1);
    expect(pushes[0]).toMatchObject({ strategy: "safe", confirm: false, expectedRemoteHash: await bodyHash(theirs) });
    expect(patches()).toBe(1);
    expect(remote()).toBe(mine);
    expect(await readLocal()).toBe(mine);
    expect(await baselineHash()).toBe(await bodyHash(mine));
  });

  it("take theirs replaces the file with the note and moves the baseline, sending nothing", async () => {
    const theirs = edit({ 5: "theirs 5" });
    await conflict(edit({ 5: "mine 5" }), theirs);

    const outcome = await openConflictResolution(
      services(() => ({ action: "take-theirs" })),
      FILE,
    );

    expect(outcome).toMatchObject({ outcome: "took-theirs", pull: { body_hash: await bodyHash(theirs) } });
    expect(await readLocal()).toBe(theirs);
    expect(await baselineHash()).toBe(await bodyHash(theirs));
    expect(remote()).toBe(theirs);
    expect(patches()).toBe(0);
  });

  it("keep both leaves the file and writes HackMD's version to the .remote.md snapshot", async () => {
    const mine = edit({ 5: "mine 5" });
    const theirs = edit({ 5: "theirs 5" });
    await conflict(mine, theirs);
    const baseline = await baselineHash();

    const outcome = await openConflictResolution(
      services(() => ({ action: "keep-both" })),
      FILE,
    );

    expect(outcome).toEqual({ outcome: "kept-both", snapshotPath: "plan.remote.md" });
    expect(await readLocal()).toBe(mine);
    expect(await readLocal("plan.remote.md")).toBe(theirs);
    expect(remote()).toBe(theirs);
    expect(await baselineHash()).toBe(baseline);
    expect(patches()).toBe(0);
    expect(notices.at(-1)).toContain("plan.remote.md");
  });

  it("keep both never pushes, even when the note went back to the baseline meanwhile", async () => {
    const mine = edit({ 5: "mine 5" });
    await conflict(mine, edit({ 5: "theirs 5" }));

    const outcome = await openConflictResolution(
      services(() => {
        // A plain safe push would now send the file (R = B, table row 3); keep both must not.
        bridge.emu.collaboratorEdit(NOTE, { content: BASE }, { as: "ada" });
        return { action: "keep-both" };
      }),
      FILE,
    );

    expect(outcome).toEqual({ outcome: "kept-both", snapshotPath: "plan.remote.md" });
    expect(remote()).toBe(BASE);
    expect(await readLocal()).toBe(mine);
    expect(await readLocal("plan.remote.md")).toBe(BASE);
    expect(patches()).toBe(0);
    expect(notices).toMatchSnapshot();
  });

  it("keep both leaves a foreign .remote.md alone and says why there is no snapshot", async () => {
    const mine = edit({ 5: "mine 5" });
    await conflict(mine, edit({ 5: "theirs 5" }));
    await writeFile(local("plan.remote.md"), "my own notes\n");

    const outcome = await openConflictResolution(
      services(() => ({ action: "keep-both" })),
      FILE,
    );

    expect(outcome).toMatchObject({
      outcome: "kept-both",
      snapshotError: expect.stringContaining("is not the snapshot this tool wrote") as unknown,
    });
    expect(await readLocal("plan.remote.md")).toBe("my own notes\n");
    expect(await readLocal()).toBe(mine);
    expect(patches()).toBe(0);
  });

  it("cancel writes nothing: same file bytes, same baseline, no snapshot, no PATCH", async () => {
    const mine = edit({ 5: "mine 5" });
    const theirs = edit({ 5: "theirs 5" });
    await conflict(mine, theirs);
    const baseline = await baselineHash();

    const outcome = await openConflictResolution(
      services(() => ({ action: "cancel" })),
      FILE,
    );

    expect(outcome).toEqual({ outcome: "cancelled" });
    expect(await readLocal()).toBe(mine);
    expect(await baselineHash()).toBe(baseline);
    expect(existsSync(local("plan.remote.md"))).toBe(false);
    expect(remote()).toBe(theirs);
    expect(patches()).toBe(0);
    expect(pushes).toHaveLength(0);
    expect(bridge.requestsSinceMark()).toEqual(["GET /notes/:noteId"]);
  });

  it("when the note moves again while the editor is open, sends nothing and re-opens on the new remote with the result as mine", async () => {
    await conflict(edit({ 5: "mine 5", 2: "mine 2" }), edit({ 5: "theirs 5" }));
    const newer = edit({ 5: "theirs 5", 11: "theirs 11" });
    const result = edit({ 5: "mine 5\ntheirs 5", 2: "mine 2" });
    let secondRound: ConflictViewModel | undefined;
    let patchesBeforeSecondRound: number | undefined;

    const outcome = await openConflictResolution(
      services(
        (vm) => {
          bridge.emu.collaboratorEdit(NOTE, { content: newer }, { as: "ada" });
          expect(vm.result(["both"])).toBe(result);
          return { action: "merged", text: result };
        },
        (vm) => {
          secondRound = vm;
          patchesBeforeSecondRound = patches();
          // Line 5 still differs from the new remote (the baseline has not moved); line 11 merges.
          expect(vm.conflictCount).toBe(1);
          return { action: "merged", text: vm.result(["local"]) };
        },
      ),
      FILE,
    );

    expect(shown).toHaveLength(2);
    expect(secondRound).toMatchObject({ mine: result, theirs: newer, base: BASE, remoteHash: await bodyHash(newer) });
    expect(patchesBeforeSecondRound).toBe(0);
    expect(notices).toHaveLength(2);
    expect(notices).toMatchSnapshot();
    const merged = edit({ 5: "mine 5\ntheirs 5", 2: "mine 2", 11: "theirs 11" });
    expect(outcome.outcome).toBe("merged");
    expect(remote()).toBe(merged);
    expect(await readLocal()).toBe(merged);
    expect(patches()).toBe(1);
  });

  it("keeps the losing side before a whole-file choice, and writes nothing when it cannot", async () => {
    const mine = edit({ 5: "mine 5" });
    const theirs = edit({ 5: "theirs 5" });
    await conflict(mine, theirs);
    const kept: Array<[string, string, string]> = [];
    const withCopies = (answer: Answer, fail = false): ConflictFlowServices => ({
      ...services(answer),
      keepCopy: async (path, text, side) => {
        if (fail) throw new Error("disk full");
        kept.push([path, text, side]);
        return "A copy is kept.";
      },
    });

    await expect(
      openConflictResolution(
        withCopies(() => ({ action: "take-theirs" }), true),
        FILE,
      ),
    ).rejects.toThrow("disk full");
    expect(await readLocal()).toBe(mine);
    expect(patches()).toBe(0);

    const outcome = await openConflictResolution(
      withCopies(() => ({ action: "take-theirs" })),
      FILE,
    );
    expect(outcome.outcome).toBe("took-theirs");
    expect(kept).toEqual([[FILE, mine, "mine"]]);
    expect(await readLocal()).toBe(theirs);
    // The notice ends with what keepCopy said about the copy.
    expect(notices.at(-1)).toMatch(/A copy is kept\.$/);
    expect(notices).toMatchSnapshot();
  });

  it("keep mine keeps HackMD's version first", async () => {
    const theirs = edit({ 5: "theirs 5" });
    await conflict(edit({ 5: "mine 5" }), theirs);
    const kept: string[] = [];
    const outcome = await openConflictResolution(
      {
        ...services(() => ({ action: "keep-mine" })),
        keepCopy: async (_path, text, side) => {
          kept.push(`${side}:${text}`);
          return "Kept.";
        },
      },
      FILE,
    );
    expect(outcome.outcome).toBe("kept-mine");
    expect(kept).toEqual([`theirs:${theirs}`]);
    // HackMD's text is also named as a version on HackMD before it is replaced (docs/versions-and-comments.md).
    const version = outcome.outcome === "kept-mine" ? outcome.version : undefined;
    expect(version).toMatchObject({
      made: true,
      name: expect.stringMatching(/^Before keep mine from hackmd-bridge, \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/),
    });
    const id = version?.made === true ? version.id : "";
    expect(bridge.emu.inspect().versions.find((v) => v.id === id)?.content).toBe(theirs);
    // The notice names the version that keeps HackMD's text, then what keepCopy said.
    const told = notices.at(-1) ?? "";
    expect(told).toContain(`"${version?.name ?? ""}" (${id})`);
    expect(told).toMatch(/Kept\.$/);
    expect(told.replace(version?.name ?? "", "<version name>").replace(id, "<version id>")).toMatchSnapshot();
  });

  it("keep mine does not overwrite a newer remote: the push reports the conflict and the modal re-opens", async () => {
    await conflict(edit({ 5: "mine 5" }), edit({ 5: "theirs 5" }));
    const newer = edit({ 5: "theirs 5 again" });

    const outcome = await openConflictResolution(
      services(
        () => {
          bridge.emu.collaboratorEdit(NOTE, { content: newer }, { as: "ada" });
          return { action: "keep-mine" };
        },
        (vm) => {
          expect(vm.theirs).toBe(newer);
          return { action: "cancel" };
        },
      ),
      FILE,
    );

    expect(outcome).toEqual({ outcome: "cancelled" });
    expect(remote()).toBe(newer);
    expect(patches()).toBe(0);
    expect(notices).toHaveLength(1);
    expect(notices).toMatchSnapshot();
  });

  it("re-opens when the file changes while the modal is open, without writing the merge", async () => {
    await conflict(edit({ 5: "mine 5" }), edit({ 5: "theirs 5" }));
    const edited = edit({ 5: "mine 5", 1: "a longer local line 1 typed meanwhile" });

    const outcome = await openConflictResolution(
      services(
        async (vm) => {
          await writeFile(local(), edited);
          return { action: "merged", text: vm.result(["remote"]) };
        },
        (vm) => {
          expect(vm.mine).toBe(edited);
          return { action: "cancel" };
        },
      ),
      FILE,
    );

    expect(outcome).toEqual({ outcome: "cancelled" });
    expect(await readLocal()).toBe(edited);
    expect(patches()).toBe(0);
    expect(notices).toHaveLength(1);
    expect(notices).toMatchSnapshot();
  });

  it("gives up after three rounds when the note keeps changing", async () => {
    const mine = edit({ 5: "mine 5" });
    await conflict(mine, edit({ 5: "theirs 5" }));
    let round = 0;
    const moving: Answer = (vm) => {
      round++;
      bridge.emu.collaboratorEdit(NOTE, { content: edit({ 5: `theirs 5 (${round})` }) }, { as: "ada" });
      return { action: "merged", text: vm.result(["local"]) };
    };

    const outcome = await openConflictResolution(services(moving, moving, moving), FILE);

    expect(outcome).toEqual({ outcome: "gave-up", rounds: 3 });
    expect(shown).toHaveLength(3);
    expect(await readLocal()).toBe(mine);
    expect(patches()).toBe(0);
    expect(notices).toMatchSnapshot();
  });

  it("says so and opens nothing when there is no conflict", async () => {
    await conflict(edit({ 5: "mine 5" }), BASE);

    const outcome = await openConflictResolution(services(), FILE);

    expect(outcome).toEqual({ outcome: "no-conflict", status: "local_changed" });
    expect(shown).toHaveLength(0);
    expect(notices).toHaveLength(1);
    expect(notices).toMatchSnapshot();
    expect(patches()).toBe(0);
  });

  it("refuses an untracked file before any request", async () => {
    await writeFile(local("loose.md"), "text\n");
    bridge.mark();
    await expect(openConflictResolution(services(), "loose.md")).rejects.toMatchObject({ kind: "not_tracked" });
    expect(bridge.requestsSinceMark()).toEqual([]);
  });
});
