/**
 * Configuration of the HackMD client (docs/tools.md §2.2, §6.1, §6.2): the validated API URL and the
 * numeric defaults. The token is not part of it (it comes from a SecretSource at call time), so
 * serialising a configuration can never reveal it.
 */
import { BridgeError } from "../core/errors";
import type { Words } from "../core/wording";

/** The API URL used when none is configured. */
export const DEFAULT_API_URL = "https://api.hackmd.io/v1";

/** Hint for a missing or rejected token in the standalone command. */
export const STANDALONE_TOKEN_HINT = "set the HACKMD_API_TOKEN environment variable and restart hackmd-bridge";

/** Hint for a missing or rejected token in the Obsidian plugin. */
export const PLUGIN_TOKEN_HINT = "set the token in the HackMD Bridge plugin settings";

/** A validated API URL. */
export interface ApiUrl {
  /** The URL without a trailing slash, e.g. `https://api.hackmd.io/v1`. */
  readonly base: string;
  /** Scheme, host and non-default port, e.g. `https://api.hackmd.io`. */
  readonly origin: string;
  /** The base path without a trailing slash, e.g. `/v1` (empty for a URL without a path). */
  readonly basePath: string;
  /** Whether this is exactly the default API URL (only then do results carry `note_url`). */
  readonly isDefault: boolean;
}

/** Everything the client needs besides its ports. Times in milliseconds, sizes in bytes. */
export interface ClientConfig {
  readonly api: ApiUrl;
  /** Where to set the token; quoted in `auth` errors. */
  readonly tokenHint: string;
  /** Where to fix the API URL, quoted when nothing at it answers like HackMD (default: "fix the API URL setting"). */
  readonly apiUrlHint?: string;
  /** The vocabulary of the next steps errors name (default: the tools' words). */
  readonly words?: Words;
  /**
   * What a failed connection to the API URL means, when the host knows better than "could not
   * reach HackMD" (the standalone command on a sandbox folder: the sandbox is not running).
   */
  readonly unreachableHint?: string;
  /** Request timeout: until headers (plus upload allowance) and between body chunks. */
  readonly requestTimeoutMs: number;
  /** Connect timeout. */
  readonly connectTimeoutMs: number;
  /** Retries of a retryable request (attempts = retries + 1). */
  readonly maxRetries: number;
  /** Base of the full-jitter back-off. */
  readonly retryBaseMs: number;
  /** Cap of the back-off and of any server wait hint that is obeyed. */
  readonly retryCapMs: number;
  /** Largest request body whose transport failure is still retried. */
  readonly transportRetryMaxBodyBytes: number;
  /** Response body cap. */
  readonly maxResponseBytes: number;
  /** Transfer allowance used to extend timeouts by body size. */
  readonly transferBytesPerSecond: number;
}

/** The documented defaults (docs/tools.md §6.1–§6.2, checked by §18). */
export const CLIENT_DEFAULTS = {
  requestTimeoutMs: 30_000,
  connectTimeoutMs: 10_000,
  maxRetries: 3,
  retryBaseMs: 500,
  retryCapMs: 5_000,
  transportRetryMaxBodyBytes: 1_048_576,
  maxResponseBytes: 2 * 52_428_800 + 1_048_576,
  transferBytesPerSecond: 262_144,
} as const;

/** The message of an unusable API URL; it never repeats the value (it may hold credentials). */
export const INVALID_API_URL_MESSAGE =
  "The HackMD API URL is not usable: it must be an absolute https URL without credentials, " +
  "query or fragment (plain http only for a loopback host such as 127.0.0.1); fix the API URL setting.";

/** Parses and checks an API URL (docs/tools.md §2.2); throws `invalid_input` without echoing it. */
export function parseApiUrl(value: string): ApiUrl {
  const raw = value.trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BridgeError("invalid_input", INVALID_API_URL_MESSAGE);
  }
  const schemeOk = url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
  // Credentials would be sent nowhere and shown nowhere; a query or fragment would corrupt paths.
  const extrasOk = url.username === "" && url.password === "" && url.search === "" && url.hash === "";
  if (!schemeOk || !extrasOk || url.hostname === "") {
    throw new BridgeError("invalid_input", INVALID_API_URL_MESSAGE);
  }
  const basePath = url.pathname.replace(/\/+$/, "");
  return {
    base: `${url.origin}${basePath}`,
    origin: url.origin,
    basePath,
    isDefault: raw === DEFAULT_API_URL || raw === `${DEFAULT_API_URL}/`,
  };
}

/** Whether `parseApiUrl` accepts the value. */
export function isValidApiUrl(value: string): boolean {
  try {
    parseApiUrl(value);
    return true;
  } catch {
    return false;
  }
}

/** Whether a URL host (as `URL.hostname` spells it) is a loopback address or `localhost`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host === "[::1]") return true;
  // URL parsing has already normalised IPv4 shorthand (127.1 → 127.0.0.1).
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Options of `createClientConfig`: the API URL and token hint, plus overrides (tests). */
export interface ClientConfigOptions extends Partial<Omit<ClientConfig, "api" | "tokenHint">> {
  /** The configured API URL; `DEFAULT_API_URL` when omitted or blank. */
  apiUrl?: string | undefined;
  /** Where the token is set; see `STANDALONE_TOKEN_HINT` and `PLUGIN_TOKEN_HINT`. */
  tokenHint: string;
}

/** Builds a frozen client configuration; throws `invalid_input` for an unusable API URL. */
export function createClientConfig(options: ClientConfigOptions): ClientConfig {
  const { apiUrl, tokenHint, ...overrides } = options;
  const api = parseApiUrl(apiUrl === undefined || apiUrl.trim() === "" ? DEFAULT_API_URL : apiUrl);
  const config: ClientConfig = { ...CLIENT_DEFAULTS, ...definedOnly(overrides), api, tokenHint };
  return Object.freeze(config);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
