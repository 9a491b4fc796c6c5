/**
 * The plugin's MCP endpoint component over the real loopback listener: token from secret storage,
 * port from device settings, full tool set over a real SDK client, activity events, port in use,
 * stop frees the port and closes sessions, and mobile refuses without loading the listener.
 */
import { TOOLS } from "../../src/mcp/tools";
import { request } from "node:http";
import { createServer, type Server } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { App, Notice, Platform } from "../__mocks__/obsidian";
import { silentLogger } from "../../src/core/ports";
import type { ToolCallEvent } from "../../src/mcp/server";
import { DeviceSettings } from "../../src/obsidian/device-settings";
import { DESKTOP_ONLY_MESSAGE, McpEndpointController, type EndpointStatus } from "../../src/obsidian/mcp-endpoint";
import { PluginSecrets } from "../../src/obsidian/secrets";
import { startBridge, type TestBridge } from "../helpers/bridge";
import { freePort, portIsFree } from "../helpers/ports";

describe("McpEndpointController", () => {
  let bridge: TestBridge;
  let app: App;
  let secrets: PluginSecrets;
  let device: DeviceSettings;
  let events: ToolCallEvent[];
  let statuses: EndpointStatus[];
  let controller: McpEndpointController;

  beforeAll(async () => {
    bridge = await startBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });
  beforeEach(async () => {
    Platform.isDesktopApp = true;
    Notice.shown.length = 0;
    app = new App();
    secrets = new PluginSecrets({ app });
    secrets.hackmdToken.set(bridge.emu.token);
    device = new DeviceSettings({ app });
    device.setMcpPort(await freePort());
    events = [];
    statuses = [];
    controller = new McpEndpointController({
      getCore: () => bridge.core,
      secrets,
      device,
      logger: silentLogger,
      onActivity: (event) => events.push(event),
      version: "test",
    });
    controller.subscribe((status) => statuses.push(status));
  });
  afterEach(async () => {
    await controller.stop();
    Platform.isDesktopApp = true;
  });

  it("serves the full tool set with a generated token, reports calls, and frees the port on stop", async () => {
    expect(secrets.endpointToken.isSet()).toBe(false);
    const status = await controller.start();
    expect(status).toEqual({
      state: "listening",
      url: `http://127.0.0.1:${device.get().mcpPort}/mcp`,
      port: device.get().mcpPort,
    });
    expect(statuses.map((s) => s.state)).toEqual(["starting", "listening"]);
    const token = secrets.endpointToken.getToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const client = new Client({ name: "test", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(status.state === "listening" ? status.url : ""), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    // The 14 tools of docs/tools.md and the 5 of docs/versions-and-comments.md.
    expect((await client.listTools()).tools.length).toBe(TOOLS.length);
    const me = await client.callTool({ name: "hackmd_get_me", arguments: {} });
    expect(me.isError).toBeFalsy();
    expect(events).toEqual([expect.objectContaining({ tool: "hackmd_get_me", ok: true })]);

    // Starting twice is a no-op.
    await controller.start();
    expect(statuses.filter((s) => s.state === "listening")).toHaveLength(1);

    await controller.stop();
    expect(controller.status).toEqual({ state: "stopped" });
    expect(await portIsFree(device.get().mcpPort)).toBe(true);
    await expect(client.listTools()).rejects.toThrow();
    await client.close().catch(() => undefined);
  });

  it("refuses a wrong token, and a regenerated token replaces the old one after restart", async () => {
    const started = await controller.start();
    if (started.state !== "listening") throw new Error(started.state);
    const old = secrets.endpointToken.getToken();
    // node:http without an agent: a fresh connection per request, since restart drops every socket.
    const post = (token: string | undefined) =>
      new Promise<{ status: number }>((resolve, reject) => {
        const body = JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
        });
        const req = request(
          started.url,
          {
            method: "POST",
            agent: false,
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              authorization: `Bearer ${token}`,
            },
          },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0 });
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    expect((await post("wrong")).status).toBe(401);
    expect((await post(old)).status).toBe(200);
    const fresh = secrets.regenerateEndpointToken();
    await controller.restart();
    expect((await post(old)).status).toBe(401);
    expect((await post(fresh)).status).toBe(200);
  });

  it("turns EADDRINUSE into a notice and a status line", async () => {
    const port = device.get().mcpPort;
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, "127.0.0.1", resolve));
    try {
      const status = await controller.start();
      expect(status.state).toBe("port-in-use");
      expect(Notice.shown.some((message) => message.includes(`Port ${port} is already in use`))).toBe(true);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
    // Once the port is free again a start succeeds.
    expect((await controller.start()).state).toBe("listening");
  });

  it("on mobile refuses with a notice and never loads the listener", async () => {
    Platform.isDesktopApp = false;
    const loadListener = jest.fn(() => import("../../src/mcp/http/listener"));
    const mobile = new McpEndpointController({
      getCore: () => bridge.core,
      secrets,
      device,
      logger: silentLogger,
      onActivity: () => undefined,
      loadListener,
    });
    expect(await mobile.start()).toEqual({ state: "unavailable", message: DESKTOP_ONLY_MESSAGE });
    expect(Notice.shown).toContain(DESKTOP_ONLY_MESSAGE);
    expect(loadListener).not.toHaveBeenCalled();
    expect(secrets.endpointToken.isSet()).toBe(false);
    // startIfEnabled stays quiet on mobile even when the (synced) switch says on.
    device.setMcpEnabled(true);
    Notice.shown.length = 0;
    expect((await mobile.startIfEnabled()).state).toBe("unavailable");
    expect(Notice.shown).toEqual([]);
  });

  it("startIfEnabled starts only when this device's switch is on; stop is idempotent", async () => {
    expect((await controller.startIfEnabled()).state).toBe("stopped");
    device.setMcpEnabled(true);
    expect((await controller.startIfEnabled()).state).toBe("listening");
    await Promise.all([controller.stop(), controller.stop()]);
    expect(controller.status.state).toBe("stopped");
  });
});
