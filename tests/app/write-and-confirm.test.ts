/**
 * Both doors that write a note body — an agent's `hackmd_update_note` and a push of the sync
 * engine — write and confirm it through the one home (src/hackmd/write-body.ts): the same
 * requests in the emulator's log, and the same memory of a write that never showed.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { errorKind, ok, startBridge, type CallResult, type TestBridge } from "../helpers/bridge";

const READING = DEMO_NOTE_IDS.readingList;
const GET = "GET /notes/:noteId";
const PATCH = "PATCH /notes/:noteId";

describe("one write-and-confirm home for every door", () => {
  let bridge: TestBridge;
  beforeEach(async () => {
    bridge = await startBridge();
  });
  afterEach(async () => {
    await bridge.close();
  });

  /** The read hash the agent's edit names, so the tool reads first as the push does. */
  const hash = async (): Promise<string> =>
    ok(await bridge.call("hackmd_get_note", { note_ref: READING })).body_hash as string;
  const edit = async (content: string): Promise<CallResult> =>
    bridge.call("hackmd_update_note", { note_ref: READING, content, expected_hash: await hash() });
  const push = async (content: string): Promise<CallResult> => {
    await mkdir(bridge.root, { recursive: true });
    await writeFile(join(bridge.root, "reading.md"), content);
    return bridge.call("hackmd_push_note", { local_path: "reading.md" });
  };
  const pull = async (): Promise<void> => {
    ok(await bridge.call("hackmd_pull_note", { note_ref: READING, local_path: "reading.md", overwrite_local: true }));
  };

  it("reads, sends one PATCH, then reads back until the body shows, for the tool and the push alike", async () => {
    await pull();
    bridge.emu.setQuirks({ visibilityDelayMs: 250 });
    const logs: string[][] = [];
    // The push first: it follows the baseline the pull left, which the agent's edit would move.
    for (const write of [() => push("from the file\n"), () => edit("from the agent\n")]) {
      bridge.mark();
      const result = await write();
      ok(result);
      logs.push(bridge.requestsSinceMark());
      // Let the write show before the next door reads.
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    for (const log of logs) {
      // The read that decided the write (the tool's expected_hash check, the push's decision), one PATCH, then read-backs only.
      const at = log.indexOf(PATCH);
      expect(log[at - 1]).toBe(GET);
      expect(log.filter((route) => route === PATCH)).toHaveLength(1);
      expect(log.slice(at + 1).length).toBeGreaterThan(1);
      expect(log.slice(at + 1).every((route) => route === GET)).toBe(true);
    }
  });

  it("remembers a write that never showed, so the next write through either door sends nothing", async () => {
    await pull();
    bridge.emu.setQuirks({ visibilityDelayMs: 600_000 });
    expect(errorKind(await edit("lost in the agent's write\n"))).toBe("readback");
    expect(bridge.emu.requests({ method: "PATCH" })).toHaveLength(1);
    bridge.mark();
    // The push reads the note, sees the old body while an unconfirmed write may still land, and stops.
    expect(errorKind(await push("from the file\n"))).toBe("readback");
    expect(bridge.requestsSinceMark()).toEqual([GET]);
  }, 15_000);
});
