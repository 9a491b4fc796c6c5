/**
 * The contract suite against the real HackMD (`npm run test:live`, never part of `npm test`).
 * Read-only unless HACKMD_LIVE_MUTATIONS=1; then it creates, edits and deletes only notes and
 * folders it made itself. HACKMD_LIVE_API_URL points it at another installation;
 * HACKMD_LIVE_NOTE_ID names the note the read-only scenarios read (else the first listed note).
 * HACKMD_LIVE_THREAD=<noteId>/<commentId> also resolves and reopens that open thread.
 */
import { silentLogger, systemClock, systemRandom, systemSleep } from "../../src/core/ports";
import { HackmdClient } from "../../src/hackmd/client";
import { CallContext } from "../../src/hackmd/call-context";
import { createClientConfig, DEFAULT_API_URL } from "../../src/hackmd/config";
import { NodeHttpTransport } from "../../src/node/http-transport";
import { describeContract, type ContractTarget } from "./scenarios";

const token = process.env.HACKMD_LIVE_TOKEN?.trim() ?? "";
const apiUrl = (process.env.HACKMD_LIVE_API_URL?.trim() || DEFAULT_API_URL).replace(/\/+$/, "");
const transport = new NodeHttpTransport();
const client = new HackmdClient({
  transport,
  config: createClientConfig({ apiUrl, tokenHint: "set HACKMD_LIVE_TOKEN" }),
  secrets: { getToken: () => token },
  clock: systemClock,
  sleep: systemSleep,
  random: systemRandom,
  logger: silentLogger,
});
const [threadNote, threadComment] = (process.env.HACKMD_LIVE_THREAD ?? "").split("/");

const target: ContractTarget = {
  label: "HackMD",
  client,
  apiUrl,
  token,
  transport,
  clock: systemClock,
  sleep: systemSleep,
  etag: "unknown",
  readableNote: async () => {
    const given = process.env.HACKMD_LIVE_NOTE_ID?.trim();
    if (given) return given;
    const notes = await client.listNotes(new CallContext(), { teamPath: null });
    const first = notes[0];
    if (!first) throw new Error("the account has no personal note to read; create one, or set HACKMD_LIVE_NOTE_ID");
    return first.id;
  },
};

describe(`the HackMD contract, against ${apiUrl}`, () => {
  describeContract(() => target, {
    mutations: process.env.HACKMD_LIVE_MUTATIONS === "1",
    ...(threadNote && threadComment ? { commentThread: { noteId: threadNote, commentId: threadComment } } : {}),
  });
});
