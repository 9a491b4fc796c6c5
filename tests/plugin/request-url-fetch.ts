/**
 * The fake `requestUrl` (tests/__mocks__/obsidian.ts) made to send real HTTP with Node's fetch,
 * as Obsidian's would: headers and content type passed on, a status of 400 or more throws unless
 * `throw: false`. Takes the mock itself, so a test holding its own copy of the fake module (a
 * bundle loaded in isolation) can program that copy.
 */
import type { RequestUrlParam, RequestUrlResponse } from "../__mocks__/obsidian";

/** The part of the fake `requestUrl` this programs. */
interface RequestUrlMock {
  mockImplementation(run: (request: RequestUrlParam | string) => Promise<RequestUrlResponse>): unknown;
}

/** Programs `requestUrl` to send every request with Node's fetch. */
export function forwardToFetch(requestUrl: RequestUrlMock): void {
  requestUrl.mockImplementation(async (request) => {
    const param = typeof request === "string" ? { url: request } : request;
    const headers: Record<string, string> = { ...param.headers };
    if (param.contentType !== undefined) headers["content-type"] = param.contentType;
    const response = await fetch(param.url, { method: param.method ?? "GET", headers, body: param.body ?? null });
    const arrayBuffer = await response.arrayBuffer();
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      out[name] = value;
    });
    if (param.throw !== false && response.status >= 400) throw new Error(`Request failed, status ${response.status}`);
    return {
      status: response.status,
      headers: out,
      arrayBuffer,
      text: new TextDecoder().decode(arrayBuffer),
      json: undefined,
    };
  });
}
