/** The contract suite against the emulator (demo seed, rate-limit headers on), as CI runs it. */
import { NodeHttpTransport } from "../../src/node/http-transport";
import { DEMO_COMMENT_IDS, DEMO_NOTE_IDS, startEmulator, type Emulator } from "../../src/emulator";
import { makeClient } from "../hackmd/helpers";
import { describeContract, type ContractTarget } from "./scenarios";

let emu: Emulator;
let target: ContractTarget;

beforeAll(async () => {
  emu = await startEmulator({ seed: "demo", quirks: { rateLimit: { enabled: true } } });
  const { client, time } = makeClient({ url: emu.url, token: emu.token });
  target = {
    label: "emulator",
    client,
    apiUrl: emu.url,
    token: emu.token,
    transport: new NodeHttpTransport(),
    clock: time.clock,
    sleep: time.sleep,
    readableNote: () => Promise.resolve(DEMO_NOTE_IDS.weeklySync),
    etag: true,
  };
});
afterAll(async () => {
  await emu.close();
});

describe("the HackMD contract, against the emulator", () => {
  describeContract(() => target, {
    mutations: true,
    commentThread: { noteId: DEMO_NOTE_IDS.weeklySync, commentId: DEMO_COMMENT_IDS.headings },
  });
});
