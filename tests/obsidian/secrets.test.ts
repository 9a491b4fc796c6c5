/** The plugin's secrets in the fake app's secret storage. */
import { inspect } from "node:util";
// The same module instance jest maps "obsidian" to (lint keeps tests from importing "obsidian").
import { App } from "../__mocks__/obsidian";
import { ENDPOINT_TOKEN_SECRET_ID, HACKMD_TOKEN_SECRET_ID, PluginSecrets } from "../../src/obsidian/secrets";

const TOKEN = "hmd-secret-token-value";

describe("PluginSecrets", () => {
  it("sets, reads at call time and clears the HackMD token; blank counts as missing", async () => {
    const app = new App();
    const secrets = new PluginSecrets({ app });
    expect(secrets.hackmdToken.getToken()).toBeUndefined();
    secrets.hackmdToken.set(`  ${TOKEN}\n`);
    expect(app.secretStorage.getSecret(HACKMD_TOKEN_SECRET_ID)).toBe(TOKEN);
    expect(secrets.hackmdToken.getToken()).toBe(TOKEN);
    expect(secrets.hackmdToken.isSet()).toBe(true);
    // Read at call time: a change made elsewhere (another settings tab) applies at once.
    app.secretStorage.setSecret(HACKMD_TOKEN_SECRET_ID, "other");
    expect(secrets.hackmdToken.getToken()).toBe("other");
    app.secretStorage.setSecret(HACKMD_TOKEN_SECRET_ID, "   ");
    expect(secrets.hackmdToken.getToken()).toBeUndefined();
    secrets.hackmdToken.set(TOKEN);
    secrets.hackmdToken.clear();
    expect(secrets.hackmdToken.getToken()).toBeUndefined();
    expect(secrets.hackmdToken.isSet()).toBe(false);
    secrets.hackmdToken.set("");
    expect(secrets.hackmdToken.getToken()).toBeUndefined();
  });

  it("reads an unavailable storage as no token", () => {
    const app = new App();
    jest.spyOn(app.secretStorage, "getSecret").mockImplementation(() => {
      throw new Error("keychain locked");
    });
    expect(new PluginSecrets({ app }).hackmdToken.getToken()).toBeUndefined();
  });

  it("never reveals a token by serialising or inspecting", () => {
    const app = new App();
    const secrets = new PluginSecrets({ app });
    secrets.hackmdToken.set(TOKEN);
    expect(JSON.stringify(secrets)).not.toContain(TOKEN);
    expect(JSON.stringify(secrets.hackmdToken)).toBe(JSON.stringify({ id: HACKMD_TOKEN_SECRET_ID }));
    expect(inspect(secrets, { depth: 10, showHidden: true })).not.toContain(TOKEN);
  });

  it("generates a 32-byte endpoint token once and regenerates it on request", () => {
    const app = new App();
    let fill = 0;
    const secrets = new PluginSecrets({ app, random: (bytes) => bytes.fill(++fill) });
    const first = secrets.ensureEndpointToken();
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secrets.ensureEndpointToken()).toBe(first);
    expect(app.secretStorage.getSecret(ENDPOINT_TOKEN_SECRET_ID)).toBe(first);
    const second = secrets.regenerateEndpointToken();
    expect(second).not.toBe(first);
    expect(secrets.endpointToken.getToken()).toBe(second);
    expect(new PluginSecrets({ app: new App() }).ensureEndpointToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
