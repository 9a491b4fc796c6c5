/** Shared helpers of the emulator tests: a fake clock and small fetch wrappers. */
import type { Emulator } from "../../src/emulator";

/** A clock tests move by hand. */
export interface FakeClock {
  now(): number;
  advance(ms: number): void;
}

/** A fake clock starting at a fixed instant (2024-06-01T00:00:00Z). */
export function fakeClock(start = Date.UTC(2024, 5, 1)): FakeClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}

/**
 * Parsed JSON of a reply, typed as JSON.parse returns it: tests read arbitrary wire shapes and
 * assert them with expect(), so a typed model would only restate the assertions.
 */
export type Json = ReturnType<typeof JSON.parse>;

/** The parts of a response tests look at. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: Json;
}

/** Calls the emulator's API with its primary token (or `token`), JSON in and out. */
export async function api(
  emu: Emulator,
  method: string,
  path: string,
  body?: unknown,
  options: { token?: string | null; headers?: Record<string, string>; raw?: string } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? emu.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let payload: string | undefined = options.raw;
  if (body !== undefined) {
    payload = JSON.stringify(body);
    headers["content-type"] = "application/json";
  }
  const res = await fetch(`${emu.url}${path}`, { method, headers, body: payload });
  const text = await res.text();
  let json: Json = undefined;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
