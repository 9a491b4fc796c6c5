/** The requestUrl transport against the fake `obsidian` module. */
// The same module instance jest maps "obsidian" to (lint keeps tests from importing "obsidian").
import { requestUrl, type RequestUrlParam, type RequestUrlResponse } from "../__mocks__/obsidian";
import { TransportError, type HttpRequest } from "../../src/core/ports";
import { RequestUrlTransport, type TransportTimers } from "../../src/obsidian/request-url-transport";
import { CallContext } from "../../src/hackmd/call-context";
import { checkNoTokenLeaks, failure, makeClient } from "../hackmd/helpers";

checkNoTokenLeaks();

const mockedRequestUrl = requestUrl;

const timers: TransportTimers & { cleared: number[] } = {
  cleared: [],
  setTimeout: (callback, ms) => setTimeout(callback, ms) as unknown as number,
  clearTimeout: (id) => {
    timers.cleared.push(id);
    clearTimeout(id as unknown as NodeJS.Timeout);
  },
};

function reply(status: number, body: string, headers: Record<string, string> = {}): RequestUrlResponse {
  const bytes = new TextEncoder().encode(body);
  return { status, headers, arrayBuffer: bytes.buffer, text: body, json: undefined };
}

function request(partial: Partial<HttpRequest> = {}): HttpRequest {
  return {
    method: "GET",
    url: "https://api.hackmd.io/v1/me",
    headers: { authorization: "Bearer t" },
    timeouts: { connectMs: 10_000, headersMs: 30_000, idleMs: 30_000, totalMs: 60_000 },
    maxResponseBytes: 1000,
    ...partial,
  };
}

async function rejection(promise: Promise<unknown>): Promise<TransportError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TransportError) return error;
    throw error;
  }
  throw new Error("expected a TransportError");
}

beforeEach(() => {
  mockedRequestUrl.mockReset();
  timers.cleared.length = 0;
});

describe("RequestUrlTransport", () => {
  it("calls requestUrl with throw: false, the content type apart, and the body as an ArrayBuffer", async () => {
    mockedRequestUrl.mockResolvedValue(reply(202, ""));
    const transport = new RequestUrlTransport({ timers });
    const body = new TextEncoder().encode('{"content":"x"}');
    await transport.request(
      request({ method: "PATCH", headers: { authorization: "Bearer t", "content-type": "application/json" }, body }),
    );
    const param = mockedRequestUrl.mock.calls[0]?.[0] as RequestUrlParam;
    expect(param).toMatchObject({
      url: "https://api.hackmd.io/v1/me",
      method: "PATCH",
      headers: { authorization: "Bearer t" },
      contentType: "application/json",
      throw: false,
    });
    expect(param.body).toBeInstanceOf(ArrayBuffer);
    expect(new TextDecoder().decode(param.body as ArrayBuffer)).toBe('{"content":"x"}');
    expect(timers.cleared).toHaveLength(1);
  });

  it("returns error statuses as responses with lower-cased headers", async () => {
    mockedRequestUrl.mockResolvedValue(
      reply(404, '{"error":"Note not found"}', { "Content-Type": "application/json", "X-RateLimit-UserLimit": "100" }),
    );
    const response = await new RequestUrlTransport({ timers }).request(request());
    expect(response.status).toBe(404);
    expect(response.headers).toEqual({ "content-type": "application/json", "x-ratelimit-userlimit": "100" });
    expect(new TextDecoder().decode(response.body)).toBe('{"error":"Note not found"}');
  });

  it("checks the size cap on the received body", async () => {
    mockedRequestUrl.mockResolvedValue(reply(200, "x".repeat(1001)));
    const error = await rejection(new RequestUrlTransport({ timers }).request(request()));
    expect(error).toMatchObject({ failure: "too_large", sent: true });
  });

  it("races an overall timeout against the request and assumes it may have been sent", async () => {
    mockedRequestUrl.mockReturnValue(new Promise<RequestUrlResponse>(() => undefined));
    const error = await rejection(
      new RequestUrlTransport({ timers }).request(
        request({ timeouts: { connectMs: 10, headersMs: 10, idleMs: 10, totalMs: 40 } }),
      ),
    );
    expect(error).toMatchObject({ failure: "timeout", sent: true });
  });

  it("classifies connection errors as not sent and other errors as possibly sent", async () => {
    const transport = new RequestUrlTransport({ timers });
    mockedRequestUrl.mockRejectedValueOnce(new Error("net::ERR_CONNECTION_REFUSED"));
    expect(await rejection(transport.request(request()))).toMatchObject({ failure: "connect", sent: false });
    mockedRequestUrl.mockRejectedValueOnce(new Error("getaddrinfo ENOTFOUND api.hackmd.io"));
    expect(await rejection(transport.request(request()))).toMatchObject({ failure: "connect", sent: false });
    mockedRequestUrl.mockRejectedValueOnce(new Error("net::ERR_CONNECTION_RESET"));
    expect(await rejection(transport.request(request()))).toMatchObject({ failure: "reset", sent: true });
    mockedRequestUrl.mockRejectedValueOnce("weird");
    expect(await rejection(transport.request(request()))).toMatchObject({ failure: "reset", sent: true });
  });

  it("drives the HackMD client: a status maps as over Node, a lost write is readback", async () => {
    const transport = new RequestUrlTransport({ timers });
    const { client } = makeClient({ url: "https://api.hackmd.io/v1", transport, config: { maxRetries: 0 } });
    mockedRequestUrl.mockResolvedValueOnce(reply(200, '{"id":"n1","content":"hi"}'));
    const note = await client.getNote(new CallContext(), { teamPath: null, noteId: "n1" });
    expect(note).toMatchObject({ id: "n1", content: "hi", note_url: "https://hackmd.io/n1" });
    mockedRequestUrl.mockResolvedValueOnce(reply(404, '{"error":"Note not found"}'));
    expect((await failure(client.getNote(new CallContext(), { teamPath: null, noteId: "n2" }))).kind).toBe("not_found");
    mockedRequestUrl.mockRejectedValueOnce(new Error("net::ERR_CONNECTION_RESET"));
    expect(
      (await failure(client.updateNote(new CallContext(), { teamPath: null, noteId: "n1", body: { content: "x" } })))
        .kind,
    ).toBe("readback");
  });
});
