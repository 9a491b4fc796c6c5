import { BridgeError } from "../../src/core/errors";
import { PendingWrites } from "../../src/hackmd/pending-writes";

const note = { teamPath: null, noteId: "n1" };

function kindOf(run: () => void): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof BridgeError ? error.kind : "other";
  }
  return undefined;
}

describe("PendingWrites", () => {
  let now = 0;
  const clock = { now: () => now };

  it("remembers only writes whose outcome is unknown, and refuses the next write until the body shows", async () => {
    const pending = new PendingWrites(clock, 60_000);
    await expect(
      pending.track(note, "refused", {
        send: () => Promise.reject(new BridgeError("rate_limited", "no")),
        confirm: () => Promise.resolve(),
      }),
    ).rejects.toThrow("no");
    expect(kindOf(() => pending.assertClear(note, "old"))).toBeUndefined();
    await expect(
      pending.track(note, "sent", {
        send: () => Promise.reject(new BridgeError("readback", "unknown")),
        confirm: () => Promise.resolve(),
      }),
    ).rejects.toThrow("unknown");
    expect(kindOf(() => pending.assertClear(note, "old"))).toBe("readback");
    expect(kindOf(() => pending.assertClear(note, undefined))).toBe("readback");
    expect(kindOf(() => pending.assertClear({ teamPath: "t", noteId: "n1" }, "old"))).toBeUndefined();
    // The write landed: the next read shows it, and the note is clear again.
    expect(kindOf(() => pending.assertClear(note, "sent"))).toBeUndefined();
    expect(kindOf(() => pending.assertClear(note, "old"))).toBeUndefined();
  });

  it("remembers a write whose send was accepted but whose confirming read failed, whatever the kind", async () => {
    const pending = new PendingWrites(clock, 60_000);
    await expect(
      pending.track(note, "landed", {
        send: () => Promise.resolve(),
        confirm: () => Promise.reject(new BridgeError("upstream", "read-back 503")),
      }),
    ).rejects.toThrow("read-back 503");
    expect(kindOf(() => pending.assertClear(note, "old"))).toBe("readback");
  });

  it("forgets an unconfirmed write after the horizon, and a confirmed write clears the note", async () => {
    const pending = new PendingWrites(clock, 60_000);
    now = 1_000;
    await expect(
      pending.track(note, "sent", {
        send: () => Promise.reject(new BridgeError("readback", "unknown")),
        confirm: () => Promise.resolve(),
      }),
    ).rejects.toThrow();
    now = 60_999;
    expect(kindOf(() => pending.assertClear(note, "old"))).toBe("readback");
    now = 61_000;
    expect(kindOf(() => pending.assertClear(note, "old"))).toBeUndefined();
    await expect(
      pending.track(note, "sent", {
        send: () => Promise.reject(new BridgeError("readback", "unknown")),
        confirm: () => Promise.resolve(),
      }),
    ).rejects.toThrow();
    await expect(
      pending.track(note, "next", { send: () => Promise.resolve(), confirm: () => Promise.resolve("ok") }),
    ).resolves.toBe("ok");
    expect(kindOf(() => pending.assertClear(note, "old"))).toBeUndefined();
  });
});
