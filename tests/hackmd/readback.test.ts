import { BridgeError } from "../../src/core/errors";
import { CallContext } from "../../src/hackmd/call-context";
import { pollUntil, readbackWindowMs } from "../../src/hackmd/readback";
import { checkNoTokenLeaks, failure, fakeTime } from "./helpers";

checkNoTokenLeaks();

const MIB = 1_048_576;

describe("read-back window (docs/tools.md §7)", () => {
  it("is 2 s plus 1 s per whole MiB, at most 30 s", () => {
    expect(readbackWindowMs(0)).toBe(2_000);
    expect(readbackWindowMs(MIB - 1)).toBe(2_000);
    expect(readbackWindowMs(10 * MIB)).toBe(12_000);
    expect(readbackWindowMs(50 * MIB)).toBe(30_000);
    expect(readbackWindowMs(500 * MIB)).toBe(30_000);
  });
});

describe("pollUntil", () => {
  it("reads at about 0, 0.1, 0.3, 0.7 and 1.5 s for a small write, then returns the last observation unconfirmed", async () => {
    const time = fakeTime();
    const start = time.clock.now();
    const readsAt: number[] = [];
    const context = new CallContext();
    const result = await pollUntil({
      context,
      clock: time.clock,
      sleep: time.sleep,
      writtenBytes: 10,
      read: () => {
        readsAt.push(time.clock.now() - start);
        return Promise.resolve(`old-${readsAt.length}`);
      },
      matches: (value) => value === "new",
    });
    expect(readsAt).toEqual([0, 100, 300, 700, 1500]);
    expect(result).toEqual({ confirmed: false, last: "old-5" });
    expect(context.snapshot()).toMatchObject({ readback_attempts: 5, readback_elapsed_seconds: 1.5 });
  });

  it("stops at the first matching read; old then new → readback_attempts 2", async () => {
    const time = fakeTime();
    const context = new CallContext();
    const values = ["old", "new", "never read"];
    const result = await pollUntil({
      context,
      clock: time.clock,
      sleep: time.sleep,
      writtenBytes: 0,
      read: () => Promise.resolve(values.shift() ?? "none"),
      matches: (value) => value === "new",
    });
    expect(result).toEqual({ confirmed: true, last: "new" });
    expect(context.snapshot()).toMatchObject({ attempts: 1, readback_attempts: 2, readback_elapsed_seconds: 0.1 });
  });

  it("spans 12 s for 10 MiB and 30 s for 50 MiB", async () => {
    for (const [bytes, lastRead] of [
      [10 * MIB, 6_300],
      [50 * MIB, 25_500],
    ] as const) {
      const time = fakeTime();
      const start = time.clock.now();
      let last = 0;
      await pollUntil({
        context: new CallContext(),
        clock: time.clock,
        sleep: time.sleep,
        writtenBytes: bytes,
        read: () => {
          last = time.clock.now() - start;
          return Promise.resolve(0);
        },
        matches: () => false,
      });
      expect(last).toBe(lastRead);
    }
  });

  it("passes each read the later of the window end and its start plus 30 s plus the transfer allowance", async () => {
    const time = fakeTime();
    const start = time.clock.now();
    const deadlines: number[] = [];
    await pollUntil({
      context: new CallContext(),
      clock: time.clock,
      sleep: time.sleep,
      writtenBytes: 262_144,
      read: (deadlineAt) => {
        deadlines.push(deadlineAt - start);
        return Promise.resolve(1);
      },
      matches: () => true,
    });
    expect(deadlines).toEqual([31_000]);
  });

  it("ends the poll with the kind of a failing read", async () => {
    const time = fakeTime();
    const context = new CallContext();
    const error = await failure(
      pollUntil({
        context,
        clock: time.clock,
        sleep: time.sleep,
        writtenBytes: 0,
        read: () => Promise.reject(new BridgeError("upstream", "GET /v1/notes/x: HackMD failed (500); retry later.")),
        matches: () => true,
      }),
    );
    expect(error.kind).toBe("upstream");
    expect(context.snapshot().readback_attempts).toBe(1);
  });

  it("turns a read that ran past its allowance into readback, keeping the request prefix", async () => {
    const time = fakeTime();
    const error = await failure(
      pollUntil({
        context: new CallContext(),
        clock: time.clock,
        sleep: time.sleep,
        writtenBytes: 0,
        read: (deadlineAt) => {
          time.advance(deadlineAt - time.clock.now());
          return Promise.reject(
            new BridgeError("network", "GET /v1/notes/x: HackMD did not answer in time (timed out)."),
          );
        },
        matches: () => true,
      }),
    );
    expect(error.kind).toBe("readback");
    expect(error.message.startsWith("GET /v1/notes/x: ")).toBe(true);
    expect(error.message).toMatch(/compare before writing again/);
  });

  it("keeps network for a read that failed quickly", async () => {
    const time = fakeTime();
    const error = await failure(
      pollUntil({
        context: new CallContext(),
        clock: time.clock,
        sleep: time.sleep,
        writtenBytes: 0,
        read: () => Promise.reject(new BridgeError("network", "GET /v1/notes/x: could not reach HackMD")),
        matches: () => true,
      }),
    );
    expect(error.kind).toBe("network");
  });
});
