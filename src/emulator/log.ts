/** The request log of §2.11: a ring buffer that never stores credentials or bodies. */
import type { IncomingHttpHeaders } from "node:http";
import type { RequestFilter, RequestLogEntry } from "./types";

const SECRET_HEADERS = new Set(["authorization", "cookie", "proxy-authorization"]);

/** Request headers without credentials, values joined as received. */
export function loggableHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (SECRET_HEADERS.has(key) || value === undefined) continue;
    out[key] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** A bounded, ordered log of `/v1` requests. */
export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private seq = 0;

  constructor(private readonly capacity: number) {}

  /** Opens an entry; the server fills it in as the request proceeds. */
  open(fields: Omit<RequestLogEntry, "seq">): RequestLogEntry {
    const entry: RequestLogEntry = { seq: ++this.seq, ...fields };
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    return entry;
  }

  /** Copies of the entries that pass the filter, oldest first. */
  list(filter: RequestFilter = {}): RequestLogEntry[] {
    return this.entries
      .filter((e) => filter.method === undefined || e.method === filter.method.toUpperCase())
      .filter((e) => filter.route === undefined || e.route === filter.route)
      .filter((e) => filter.since === undefined || e.seq > filter.since)
      .map((e) => ({ ...e, headers: { ...e.headers }, bodyKeys: e.bodyKeys ? [...e.bodyKeys] : null }));
  }

  /** Empties the log; with `restart`, numbering starts again at 1. */
  clear(restart = false): void {
    this.entries = [];
    if (restart) this.seq = 0;
  }
}
