/**
 * The one home of "write a body and confirm it" (src/hackmd/write-body.ts), against the emulator:
 * one PATCH carrying `content`, never retried, then GETs until the note shows it; a write that
 * never shows fails with the caller's error and is remembered, so the next write is refused.
 */
import { BridgeError } from "../../src/core/errors";
import { systemClock, systemSleep } from "../../src/core/ports";
import { DEMO_NOTE_IDS, type Emulator } from "../../src/emulator";
import { CallContext } from "../../src/hackmd/call-context";
import { PendingWrites } from "../../src/hackmd/pending-writes";
import { writeBody } from "../../src/hackmd/write-body";
import { createEmulatorFree } from "../helpers/emulator";
import { failure, makeClient } from "./helpers";

const READING = DEMO_NOTE_IDS.readingList;
const address = { teamPath: null, noteId: READING };

describe("writeBody", () => {
  let emu: Emulator;
  beforeEach(async () => {
    emu = await createEmulatorFree({ seed: "demo" });
  });
  afterEach(async () => {
    await emu.close();
  });
  const routes = (since: number): string[] =>
    emu
      .requests({ since })
      .filter((entry) => entry.seq > since)
      .map((entry) => entry.route ?? `${entry.method} ${entry.path}`);
  const remote = (): string | undefined => emu.inspect().notes.find((note) => note.id === READING)?.content;
  const unconfirmed = (): BridgeError => new BridgeError("readback", "the door's own words");

  it("sends one PATCH carrying content and reads back until the body shows", async () => {
    // Real time: the emulator shows the write only after 250 ms.
    const { client } = makeClient({
      url: emu.url,
      token: emu.token,
      time: { clock: systemClock, sleep: systemSleep, sleeps: [], advance: () => undefined },
    });
    const pending = new PendingWrites(systemClock);
    emu.setQuirks({ visibilityDelayMs: 250 });
    const since = emu.requests().at(-1)?.seq ?? 0;
    const call = new CallContext();
    const last = await writeBody({ client, pending, clock: systemClock, sleep: systemSleep }, call, {
      address,
      content: "shown later\n",
      unconfirmed,
    });
    expect(last.content).toBe("shown later\n");
    const sent = routes(since);
    expect(sent[0]).toBe("PATCH /notes/:noteId");
    expect(sent.slice(1).every((route) => route === "GET /notes/:noteId")).toBe(true);
    expect(sent.length).toBeGreaterThan(2);
    expect(emu.requests({ method: "PATCH" })[0]?.bodyKeys).toEqual(["content"]);
    expect(call.snapshot().readback_attempts).toBe(sent.length - 1);
    // Confirmed: nothing is remembered, the next write may go.
    expect(() => pending.assertClear(address, "anything")).not.toThrow();
  });

  it("fails a write that never shows with the caller's error, and refuses the next write until the body shows", async () => {
    const { client, time } = makeClient({ url: emu.url, token: emu.token });
    const pending = new PendingWrites(time.clock);
    emu.setQuirks({ visibilityDelayMs: 600_000 });
    const before = remote();
    const error = await failure(
      writeBody({ client, pending, clock: time.clock, sleep: time.sleep }, new CallContext(), {
        address,
        content: "never shown\n",
        unconfirmed,
      }),
    );
    expect(error.kind).toBe("readback");
    expect(error.message).toBe("the door's own words");
    expect(emu.requests({ method: "PATCH" })).toHaveLength(1);
    let refused: unknown;
    try {
      pending.assertClear(address, before);
    } catch (caught) {
      refused = caught;
    }
    expect(refused instanceof BridgeError && refused.kind).toBe("readback");
    expect(() => pending.assertClear(address, "never shown\n")).not.toThrow();
  });

  it("waits for what waitsFor names without requiring it, and sends the other fields in the same PATCH", async () => {
    const { client, time } = makeClient({ url: emu.url, token: emu.token });
    const pending = new PendingWrites(time.clock);
    const since = emu.requests().at(-1)?.seq ?? 0;
    const last = await writeBody({ client, pending, clock: time.clock, sleep: time.sleep }, new CallContext(), {
      address,
      content: "with a title\n",
      fields: { title: "Renamed" },
      waitsFor: () => false,
      unconfirmed,
    });
    expect(last.content).toBe("with a title\n");
    expect(emu.requests({ method: "PATCH" })[0]?.bodyKeys?.sort()).toEqual(["content", "title"]);
    // The whole read-back window was spent waiting, and no error came of it.
    expect(routes(since).filter((route) => route === "GET /notes/:noteId").length).toBeGreaterThan(2);
  });
});
