/**
 * One core per plugin load. After the API URL and the token change, an agent's call
 * through the running MCP endpoint (on a session opened before the change) and the user's
 * commands both reach the new server, through one core: one queue and one memory of
 * unconfirmed writes. Real plugin, real loopback listener, two emulators.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DEMO_NOTE_IDS, type Emulator } from "../../src/emulator";
import { DeviceSettings } from "../../src/obsidian/device-settings";
import { ERROR_NOTICES } from "../../src/obsidian/notices";
import { HACKMD_TOKEN_SECRET_ID, PluginSecrets } from "../../src/obsidian/secrets";
import { createEmulatorFree } from "../helpers/emulator";
import { freePort } from "../helpers/ports";
import { startPlugin, waitFor, type PluginHarness } from "./helpers";

const NOTE = DEMO_NOTE_IDS.weeklySync;
const PATH = "HackMD/Weekly sync — Project Aurora.md";

interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
  _meta?: { error_kind?: string };
}

let h: PluginHarness;
let second: Emulator;
let agent: Client;

beforeEach(async () => {
  const port = await freePort();
  h = await startPlugin({
    data: { defaultPullFolder: "HackMD" },
    beforeLoad: (app) => {
      const device = new DeviceSettings({ app });
      device.setMcpEnabled(true);
      device.setMcpPort(port);
    },
  });
  // The endpoint starts once the layout is ready (at once in the fake), without waiting for onload.
  // (Probe by connecting: binding the port to test it would race the listener for it.)
  const url = `http://127.0.0.1:${port}/mcp`;
  await waitFor(() =>
    fetch(url).then(
      () => true,
      () => false,
    ),
  );
  const token = new PluginSecrets({ app: h.app }).endpointToken.getToken();
  agent = new Client({ name: "agent", version: "1" });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  second = await createEmulatorFree({ seed: "demo", token: "second-emulator-token-0123456789abcdef" });
});

afterEach(async () => {
  await agent.close().catch(() => undefined);
  await h.close();
  await second.close();
});

async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await agent.callTool({ name, arguments: args })) as ToolResult;
}

it("after the API URL and token change, the agent and the user reach the new server through one core", async () => {
  expect((await call("hackmd_get_me")).isError).toBeFalsy();
  expect(h.emu.requests({ route: "GET /me" })).toHaveLength(1);
  const core = await h.plugin.services.loadCore();

  h.app.secretStorage.setSecret(HACKMD_TOKEN_SECRET_ID, second.token);
  await h.plugin.saveSettings({ apiUrl: second.url });
  const first = h.emu.requests().length;

  // The user's command and the agent's call (same session as before the change) both reach the new server.
  h.plugin.ui.askNoteRef = () => Promise.resolve(NOTE);
  await h.run("pull-note");
  expect(await h.app.vault.adapter.exists(PATH)).toBe(true);
  const me = await call("hackmd_get_me");
  expect(me.isError).toBeFalsy();
  expect(second.requests({ route: "GET /me" })).toHaveLength(1);
  expect(second.requests({ route: "GET /notes/:noteId" }).length).toBeGreaterThan(0);
  expect(h.emu.requests()).toHaveLength(first);
  expect(await h.plugin.services.loadCore()).toBe(core);
  expect(h.plugin.services.deps).toBe(core.deps);

  // One memory of unconfirmed writes: the user's push is accepted but never shows…
  second.setQuirks({ visibilityDelayMs: 120_000 });
  second.injectFault({ match: { method: "PATCH" }, action: { drop: true }, when: "after-commit" });
  await h.write(PATH, `${await h.read(PATH)}- pushed by the user\n`);
  h.app.workspace.openPath(PATH);
  expect(await h.run("push-file")).toBe(ERROR_NOTICES.readback);
  expect(second.requests({ method: "PATCH" })).toHaveLength(1);

  // …so the agent's write to the same note is refused instead of overwriting it unseen.
  const refused = await call("hackmd_update_note", { note_ref: NOTE, content: "the agent's body\n" });
  expect(refused.isError).toBe(true);
  expect(refused._meta?.error_kind).toBe("readback");
  expect(refused.content[0]?.text).toMatch(/has not shown on HackMD yet/);
  expect(second.requests({ method: "PATCH" })).toHaveLength(1);
  expect(h.emu.requests({ method: "PATCH" })).toHaveLength(0);
});

it("a changed API URL empties the old server's caches but keeps the core", async () => {
  const core = await h.plugin.services.loadCore();
  expect((await call("hackmd_list_notes")).isError).toBeFalsy();
  await h.plugin.saveSettings({ apiUrl: second.url });
  h.app.secretStorage.setSecret(HACKMD_TOKEN_SECRET_ID, second.token);
  // Within the 60-second cache lifetime, yet the list comes from the new server.
  expect((await call("hackmd_list_notes")).isError).toBeFalsy();
  expect(second.requests({ route: "GET /notes" })).toHaveLength(1);
  expect(await h.plugin.services.loadCore()).toBe(core);
  expect(h.plugin.services.deps).toBe(core.deps);
  expect(core.deps.isDefaultApiUrl).toBe(false);
  expect(core.deps.apiOrigin).toBe(second.origin);
});
