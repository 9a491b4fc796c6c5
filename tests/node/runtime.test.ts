import { inspect } from "node:util";
import { makeSettings, readSettings } from "../../src/node/runtime";

describe("standalone settings", () => {
  const secret = "hmd-secret-token-1234567890";

  it("read the token once, trimmed, and a blank token counts as missing", () => {
    expect(readSettings({ HACKMD_API_TOKEN: `  ${secret}\n` }, {}).token).toBe(secret);
    expect(readSettings({ HACKMD_API_TOKEN: "   " }, {}).token).toBeUndefined();
    expect(readSettings({}, { root: "/r" }).root).toBe("/r");
    expect(readSettings({ HACKMD_BRIDGE_ROOT: "/env" }, { root: "/flag" }).root).toBe("/flag");
    expect(readSettings({}, {}).protectAgentFiles).toBe(true);
  });

  it("never reveal the token when serialised, spread or inspected", () => {
    const settings = readSettings(
      { HACKMD_API_TOKEN: secret, HACKMD_API_URL: "http://127.0.0.1:1/v1" },
      { root: "/r" },
    );
    expect(JSON.stringify(settings)).not.toContain(secret);
    expect(inspect(settings, { depth: 5 })).not.toContain(secret);
    expect(JSON.stringify({ ...settings })).not.toContain(secret);
    const copy = makeSettings({ ...settings, root: "/other" }, settings.token);
    expect(copy.token).toBe(secret);
    expect(copy.root).toBe("/other");
    expect(JSON.stringify(copy)).not.toContain(secret);
  });
});
