import { isBridgeError } from "../../src/core/errors";
import {
  CLIENT_DEFAULTS,
  createClientConfig,
  DEFAULT_API_URL,
  isLoopbackHost,
  isValidApiUrl,
  parseApiUrl,
  PLUGIN_TOKEN_HINT,
} from "../../src/hackmd/config";

describe("API URL (docs/tools.md §2.2)", () => {
  it("accepts the default URL, with or without one trailing slash, and marks it default", () => {
    for (const value of [DEFAULT_API_URL, `${DEFAULT_API_URL}/`]) {
      const api = parseApiUrl(value);
      expect(api).toEqual({
        base: "https://api.hackmd.io/v1",
        origin: "https://api.hackmd.io",
        basePath: "/v1",
        isDefault: true,
      });
    }
  });

  it("accepts other https URLs as non-default and keeps a non-default port in api_origin", () => {
    expect(parseApiUrl("https://hackmd.example.com:8443/api/v1")).toEqual({
      base: "https://hackmd.example.com:8443/api/v1",
      origin: "https://hackmd.example.com:8443",
      basePath: "/api/v1",
      isDefault: false,
    });
    expect(parseApiUrl("https://api.hackmd.io:443/v1").origin).toBe("https://api.hackmd.io");
    expect(parseApiUrl("https://api.hackmd.io/v1//").isDefault).toBe(false);
  });

  it("accepts plain http only for loopback hosts", () => {
    for (const value of [
      "http://127.0.0.1:4321/v1",
      "http://localhost:9/v1",
      "http://127.9.8.7/v1",
      "http://[::1]:80/v1",
      "http://127.1/v1",
    ]) {
      expect(isValidApiUrl(value)).toBe(true);
    }
    expect(parseApiUrl("http://127.0.0.1:4321/v1").origin).toBe("http://127.0.0.1:4321");
    for (const value of ["http://api.hackmd.io/v1", "http://10.0.0.1/v1", "http://[::2]/v1", "http://128.0.0.1/v1"]) {
      expect(isValidApiUrl(value)).toBe(false);
    }
  });

  it("refuses unparsable, non-http(s) and credential-carrying URLs without echoing them", () => {
    const secretish = "https://user:hunter2@api.example.com/v1";
    for (const value of [
      "not a url",
      "ftp://api.hackmd.io/v1",
      "api.hackmd.io/v1",
      secretish,
      "https://a.b/v1?x=1",
      "",
    ]) {
      let caught: unknown;
      try {
        parseApiUrl(value);
      } catch (error) {
        caught = error;
      }
      expect(isBridgeError(caught, "invalid_input")).toBe(true);
      const message = (caught as Error).message;
      if (value !== "") expect(message).not.toContain(value);
      expect(message).not.toContain("hunter2");
    }
  });

  it("classifies loopback host names", () => {
    expect(isLoopbackHost("LOCALHOST")).toBe(true);
    expect(isLoopbackHost("127.0.0.1")).toBe(true);
    expect(isLoopbackHost("[::1]")).toBe(true);
    expect(isLoopbackHost("localhost.example.com")).toBe(false);
    expect(isLoopbackHost("0.0.0.0")).toBe(false);
  });
});

describe("client configuration", () => {
  it("has the documented defaults", () => {
    const config = createClientConfig({ tokenHint: PLUGIN_TOKEN_HINT });
    expect(config.requestTimeoutMs).toBe(30_000);
    expect(config.connectTimeoutMs).toBe(10_000);
    expect(config.maxRetries).toBe(3);
    expect(config.retryBaseMs).toBe(500);
    expect(config.retryCapMs).toBe(5_000);
    expect(config.maxResponseBytes).toBe(105_906_176);
    expect(config.transferBytesPerSecond).toBe(262_144);
    expect(config.transportRetryMaxBodyBytes).toBe(1_048_576);
    expect(config.api.isDefault).toBe(true);
    expect(config.tokenHint).toBe(PLUGIN_TOKEN_HINT);
    expect(CLIENT_DEFAULTS.maxResponseBytes).toBe(101 * 1_048_576);
  });

  it("takes overrides, ignores undefined ones, treats a blank URL as the default, and is frozen", () => {
    const config = createClientConfig({ apiUrl: "  ", tokenHint: "x", maxRetries: 1, retryCapMs: undefined });
    expect(config.maxRetries).toBe(1);
    expect(config.retryCapMs).toBe(5_000);
    expect(config.api.base).toBe(DEFAULT_API_URL);
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => createClientConfig({ apiUrl: "http://example.com/v1", tokenHint: "x" })).toThrow(/API URL/);
  });
});
