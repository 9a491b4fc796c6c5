/**
 * Agent writes visible on HackMD (src/obsidian/agent-versions.ts): with the setting on, every
 * allowed agent write of a note's text is preceded by a named version "Before <client>: <tool>,
 * <time>" holding HackMD's text; off, or with HackMD's quota low, none is made. Real MCP client,
 * real gate, emulator on loopback.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { DEFAULT_TOOL_POLICIES } from "../../src/mcp/policy";
import { createMcpServer } from "../../src/mcp/server";
import type { ToolGate } from "../../src/mcp/gate";
import { agentVersionBefore, quotaAllowsVersion } from "../../src/obsidian/agent-versions";
import { ok, startBridge, type TestBridge } from "../helpers/bridge";

const NOTE = DEMO_NOTE_IDS.readingList;

describe("a named version before each agent write", () => {
  let bridge: TestBridge;
  let agent: Client;
  let enabled = true;
  const body = () => bridge.emu.inspect().notes.find((note) => note.id === NOTE)?.content ?? "";
  const versions = () =>
    bridge.emu.inspect().versions.filter((version) => version.noteId === NOTE && version.name.startsWith("Before"));

  beforeEach(async () => {
    bridge = await startBridge({ cacheTtlMs: 0 });
    enabled = true;
    const gate: ToolGate = {
      policies: () => Object.fromEntries(Object.keys(DEFAULT_TOOL_POLICIES).map((name) => [name, "allow"])),
      readOnly: () => false,
      timeoutMs: () => 1000,
      wait: () => new Promise(() => undefined),
      recordsBefore: true,
      words: { denied: () => "denied", cannotAsk: () => "cannot ask" },
      beforeWrite: agentVersionBefore({ deps: () => Promise.resolve(bridge.core.deps), enabled: () => enabled }),
    };
    const server = createMcpServer(
      bridge.core.mcpHost({ name: "hackmd-bridge", version: "test", secrets: () => [bridge.emu.token], gate }),
      { clientName: () => "claude-code" }, // the name the client below sends (in memory, nobody reads it)
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    agent = new Client({ name: "claude-code", version: "1" });
    await agent.connect(clientSide);
  });
  afterEach(async () => {
    await agent.close();
    await bridge.close();
  });

  const update = async (content: string) => {
    const read = (await agent.callTool({ name: "hackmd_get_note", arguments: { note_ref: NOTE } })) as never;
    const hash = ok(read).body_hash;
    return ok(
      (await agent.callTool({
        name: "hackmd_update_note",
        arguments: { note_ref: NOTE, content, expected_hash: hash },
      })) as never,
    );
  };

  it("on: the version holds HackMD's text from before, named after the client and the tool", async () => {
    const before = body();
    const count = versions().length;
    await update("# Reading list\n\nby the agent\n");
    expect(body()).toBe("# Reading list\n\nby the agent\n");
    const made = versions().slice(count);
    expect(made).toHaveLength(1);
    expect(made[0]?.name).toMatch(/^Before claude-code: hackmd_update_note, \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(made[0]?.content).toBe(before);
  });

  it("off: no version", async () => {
    enabled = false;
    const count = versions().length;
    await update("# Reading list\n\nby the agent, no version\n");
    expect(versions().length).toBe(count);
  });

  it("skips the version while HackMD's quota runs low, and when it is unknown makes it", () => {
    expect(quotaAllowsVersion(null)).toBe(true);
    expect(quotaAllowsVersion({ limit: 2000, remaining: null })).toBe(true);
    expect(quotaAllowsVersion({ limit: 2000, remaining: 1000 })).toBe(true);
    expect(quotaAllowsVersion({ limit: 2000, remaining: 200 })).toBe(false);
    expect(quotaAllowsVersion({ limit: null, remaining: 40 })).toBe(false);
  });
});
