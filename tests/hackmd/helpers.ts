/** Shared helpers of the HackMD client tests: fake time, client wiring and the token-leak check. */
import { BridgeError } from "../../src/core/errors";
import {
  silentLogger,
  type Clock,
  type HttpTransport,
  type LogFields,
  type Logger,
  type Sleep,
} from "../../src/core/ports";
import { HackmdClient } from "../../src/hackmd/client";
import { createClientConfig, STANDALONE_TOKEN_HINT, type ClientConfigOptions } from "../../src/hackmd/config";
import { NodeHttpTransport } from "../../src/node/http-transport";

/** A token distinctive enough to find anywhere it leaks. */
export const TEST_TOKEN = "hmdTOKEN_3c9f1e7a5b2d4f60SECRET";

/** A fake clock whose sleeps advance it instantly and are recorded. */
export interface FakeTime {
  clock: Clock;
  sleep: Sleep;
  sleeps: number[];
  advance(ms: number): void;
}

/** Fake time starting at a fixed epoch. */
export function fakeTime(start = 1_750_000_000_000): FakeTime {
  let now = start;
  const sleeps: number[] = [];
  return {
    clock: { now: () => now },
    sleep: (ms) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
    sleeps,
    advance: (ms) => {
      now += ms;
    },
  };
}

/** A logger that records every event (to check that tokens and bodies are never logged). */
export function recordingLogger(): Logger & { lines: Array<{ level: string; event: string; fields?: LogFields }> } {
  const lines: Array<{ level: string; event: string; fields?: LogFields }> = [];
  const log =
    (level: string) =>
    (event: string, fields?: LogFields): void => {
      lines.push(fields === undefined ? { level, event } : { level, event, fields });
    };
  return { lines, debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

/** Options of `makeClient`. */
export interface MakeClientOptions {
  url: string;
  token?: string | undefined;
  time?: FakeTime;
  transport?: HttpTransport;
  logger?: Logger;
  random?: () => number;
  config?: Partial<ClientConfigOptions>;
}

/** A client against a loopback URL with fake time by default and the real Node transport. */
export function makeClient(options: MakeClientOptions): { client: HackmdClient; time: FakeTime } {
  const time = options.time ?? fakeTime();
  const token = "token" in options ? options.token : TEST_TOKEN;
  const client = new HackmdClient({
    transport: options.transport ?? new NodeHttpTransport(),
    config: createClientConfig({ apiUrl: options.url, tokenHint: STANDALONE_TOKEN_HINT, ...options.config }),
    secrets: { getToken: () => token },
    clock: time.clock,
    sleep: time.sleep,
    random: options.random ?? (() => 0.5),
    logger: options.logger ?? silentLogger,
  });
  return { client, time };
}

/** Every error message produced in this test file. */
export const seenMessages: string[] = [];

/** Awaits a promise that must reject with a BridgeError; records its message for the leak check. */
export async function failure(promise: Promise<unknown>): Promise<BridgeError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof BridgeError) {
      seenMessages.push(error.message);
      return error;
    }
    throw error;
  }
  throw new Error("expected the call to fail");
}

/** Registers an afterAll that asserts no recorded message contains any given secret. */
export function checkNoTokenLeaks(...secrets: string[]): void {
  afterAll(() => {
    expect(seenMessages.length).toBeGreaterThan(0);
    for (const message of seenMessages) {
      for (const secret of [TEST_TOKEN, ...secrets]) expect(message).not.toContain(secret);
    }
  });
}
