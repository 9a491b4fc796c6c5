/**
 * Agents under the user's eye. The plugin's MCP endpoint (the endpoint controller with
 * the plugin's gate, approval modal and activity log, over the real loopback listener and a real
 * SDK client) against the emulator: the policy matrix (every tool × allow/ask/deny), approval,
 * denial, "allow for this session", the timeout (on an injected timer), one question at a time,
 * a note that changes while the user is asked, and Undo (done, and refused over a later edit).
 * The fake `obsidian` module's Modal answers as the user would: a test clicks its buttons.
 * A dom test, because the modal renders real DOM.
 */
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { App, Modal, Notice } from "../__mocks__/obsidian";
import { silentLogger } from "../../src/core/ports";
import { DEMO_COMMENT_IDS, DEMO_NOTE_IDS } from "../../src/emulator";
import { CallContext } from "../../src/hackmd/call-context";
import { ALL_TOOL_NAMES, READ_TOOL_NAMES, type ToolPolicy } from "../../src/mcp/policy";
import { TOOLS } from "../../src/mcp/tools";
import { ActivityLog, type ActivityStore } from "../../src/obsidian/activity-log";
import { undoAgentWrite } from "../../src/obsidian/activity-undo";
import { pluginGate } from "../../src/obsidian/agent-gate";
import { DeviceSettings } from "../../src/obsidian/device-settings";
import { McpEndpointController } from "../../src/obsidian/mcp-endpoint";
import { PluginSecrets } from "../../src/obsidian/secrets";
import { DEFAULT_SETTINGS, type Settings } from "../../src/settings/schema";
import { ACTIVITY_VIEW_TYPE, outcomeWords, type ActivityView } from "../../src/ui/activity-view";
import { ApprovalModal } from "../../src/ui/approval-modal";
import { ConfirmModal } from "../../src/ui/confirm-modal";
import { startBridge, type TestBridge } from "../helpers/bridge";
import { freePort } from "../helpers/ports";
import { startPlugin, waitFor } from "./helpers";

interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
  _meta?: { error_kind?: string; edited_by_user?: unknown };
}

/** A timer the test fires by hand: the approval timeout never depends on real time. */
class HandTimers {
  private next = 1;
  readonly pending = new Map<number, () => void>();
  setTimeout(callback: () => void, _ms: number): number {
    const id = this.next++;
    this.pending.set(id, callback);
    return id;
  }
  clearTimeout(id: number): void {
    this.pending.delete(id);
  }
  fireAll(): void {
    for (const [id, callback] of [...this.pending]) {
      this.pending.delete(id);
      callback();
    }
  }
}

/** The history store in memory. */
function memoryStore(): ActivityStore & { texts: Map<string, string>; log: () => string | undefined } {
  const texts = new Map<string, string>();
  let log: string | undefined;
  return {
    texts,
    log: () => log,
    loadLog: async () => log,
    saveLog: async (text) => {
      log = text;
    },
    readText: async (hash) => texts.get(hash),
    writeText: async (hash, text) => void texts.set(hash, text),
    removeText: async (hash) => void texts.delete(hash),
  };
}

const WEEKLY = DEMO_NOTE_IDS.weeklySync;
const READING = DEMO_NOTE_IDS.readingList;
const PIXEL = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2a2d0b40000000049454e44ae426082",
  "hex",
);

/** The endpoint as the plugin builds it, over a bridge core and a temporary root. */
interface Harness {
  bridge: TestBridge;
  settings: Settings;
  timers: HandTimers;
  log: ActivityLog;
  store: ReturnType<typeof memoryStore>;
  controller: McpEndpointController;
  url: string;
  token: string;
  connect(name?: string): Promise<Client>;
  connectModern(name?: string): Promise<ModernClient>;
  body(noteId: string): string;
  close(): Promise<void>;
}

async function startHarness(policies: Partial<Record<string, ToolPolicy>> = {}): Promise<Harness> {
  const bridge = await startBridge({ cacheTtlMs: 0 });
  const app = new App();
  const secrets = new PluginSecrets({ app });
  secrets.hackmdToken.set(bridge.emu.token);
  const device = new DeviceSettings({ app });
  device.setMcpPort(await freePort());
  const harness = {
    settings: {
      ...DEFAULT_SETTINGS,
      // The bulk guard is off here (the policy matrix makes a dozen writes in one session); its own test turns it on.
      bulkGuardWrites: 0,
      agentToolPolicies: { ...DEFAULT_SETTINGS.agentToolPolicies, ...policies } as Record<string, ToolPolicy>,
    },
  } as Harness;
  const timers = new HandTimers();
  const store = memoryStore();
  const log = new ActivityLog({ capacity: 100, store });
  const gate = pluginGate({
    app: app as never,
    settings: () => harness.settings,
    timers,
    noteName: async () => undefined,
  });
  const controller = new McpEndpointController({
    getCore: () => bridge.core,
    secrets,
    device,
    logger: silentLogger,
    onActivity: (event, change) => log.record(event, change),
    gate,
    version: "test",
  });
  const status = await controller.start();
  if (status.state !== "listening") throw new Error(`endpoint not listening: ${JSON.stringify(status)}`);
  const token = secrets.endpointToken.getToken() ?? "";
  const clients: Array<{ close(): Promise<void> }> = [];
  return Object.assign(harness, {
    bridge,
    timers,
    log,
    store,
    controller,
    url: status.url,
    token,
    connect: async (name = "claude-code") => {
      const client = new Client({ name, version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(status.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      return client;
    },
    /** A 2026-07-28 client (the SDK's v2 client, pinned): no session, each call on its own. */
    connectModern: async (name = "claude-code") => {
      const client = new ModernClient({ name, version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await client.connect(
        new ModernHttp(new URL(status.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      clients.push(client);
      return client;
    },
    body: (noteId: string) => bridge.emu.inspect().notes.find((note) => note.id === noteId)?.content ?? "",
    close: async () => {
      for (const client of clients) await client.close().catch(() => undefined);
      await controller.stop();
      await bridge.close();
    },
  });
}

/** Either revision's client (the v1 SDK's for 2025-11-25, the v2 one for 2026-07-28). */
interface Caller {
  callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

function call(client: Caller, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return client.callTool({ name, arguments: args }) as Promise<ToolResult>;
}

function questions(): ApprovalModal[] {
  return (Modal.opened as unknown[]).filter((modal): modal is ApprovalModal => modal instanceof ApprovalModal);
}

/** Waits for the (one) open question and returns it. */
async function question(pending?: Promise<ToolResult>): Promise<ApprovalModal> {
  let settled: ToolResult | undefined;
  void pending?.then(
    (result) => (settled = result),
    () => undefined,
  );
  await waitFor(() => {
    if (settled !== undefined) throw new Error(`the call ended without a question: ${JSON.stringify(settled)}`);
    return questions().length > 0;
  });
  const open = questions();
  expect(open).toHaveLength(1);
  return open[0]!;
}

function answer(modal: ApprovalModal, button: "Approve" | "Deny" | "Allow this tool for this session"): void {
  const found = [...modal.contentEl.querySelectorAll("button")].find((element) => element.textContent === button);
  if (!found) throw new Error(`no ${button} button`);
  found.click();
}

function patch(noteId: string, from: string, to: string): string {
  return ["*** Begin Patch", `*** Update File: notes/${noteId}.md`, "@@", `-${from}`, `+${to}`, "*** End Patch"].join(
    "\n",
  );
}

const writes = (h: Harness, since: number): string[] =>
  h.bridge.emu
    .requests()
    .slice(since)
    .filter((entry) => entry.method !== "GET" && entry.method !== "HEAD")
    .map((entry) => `${entry.method} ${entry.path}`);

afterEach(() => {
  Modal.opened.length = 0;
});

describe("the policy matrix: every tool × allow, ask, deny", () => {
  let h: Harness;
  let agent: Client;
  const trackedFile = "Tracked/weekly.md";

  beforeAll(async () => {
    h = await startHarness(Object.fromEntries(ALL_TOOL_NAMES.map((name) => [name, "allow"])));
    agent = await h.connect();
    // A tracked file with a local edit, so that a push has something to send.
    const pulled = await call(agent, "hackmd_pull_note", {
      note_ref: WEEKLY,
      local_path: trackedFile,
      create_parent_dirs: true,
    });
    expect(pulled.isError).toBeFalsy();
    await writeFile(join(h.bridge.root, trackedFile), `${h.body(WEEKLY)}\n- a local line\n`);
    await writeFile(join(h.bridge.root, "pixel.png"), PIXEL);
    // A saved version for hackmd_get_version to read (the versions and comments tools).
    const saved = await call(agent, "hackmd_create_version", { note_ref: WEEKLY, name: "For the matrix" });
    ARGS.hackmd_get_version = {
      note_ref: WEEKLY,
      version_id: (saved.structuredContent as { version_id: string }).version_id,
    };
  });
  afterAll(async () => {
    await h.close();
  });

  // Arguments that reach each tool's change point; the allow rows run last and really write.
  const ARGS: Record<string, Record<string, unknown>> = {
    hackmd_get_me: {},
    hackmd_list_notes: {},
    hackmd_get_note: { note_ref: READING },
    hackmd_list_folders: {},
    hackmd_create_note: { title: "Matrix", content: "# Matrix\n" },
    hackmd_update_note: { note_ref: READING, content: "# Replaced\n" },
    hackmd_delete_note: { note_ref: DEMO_NOTE_IDS.cs101 },
    hackmd_upload_note_image: { note_ref: WEEKLY, image_path: "pixel.png" },
    hackmd_create_folder: { name: "Matrix folder" },
    hackmd_update_folder: {
      child_order: ["6a2d4e8f-1c3b-4d5e-8f7a-2b9c0d1e3f02", "3f1c2a9e-8b4d-4c6a-9e2f-1a7b5c3d9e01"],
    },
    hackmd_delete_folder: { folder_id: "9b3e5f7a-2d4c-4e6f-a08b-3c1d2e4f5a03" },
    hackmd_pull_note: {
      note_ref: DEMO_NOTE_IDS.spec,
      team_path: "sandbox-team",
      local_path: "Matrix/spec.md",
      create_parent_dirs: true,
    },
    hackmd_push_note: { local_path: trackedFile },
    hackmd_untrack_note: { note_id: WEEKLY, confirm: true },
    // The versions and comments tools, beside the 14.
    hackmd_list_versions: { note_ref: WEEKLY },
    hackmd_get_version: { note_ref: WEEKLY, version_id: "set in beforeAll" },
    hackmd_list_comments: { note_ref: WEEKLY },
    hackmd_create_version: { note_ref: WEEKLY, name: "Matrix version" },
    hackmd_resolve_comment: { note_ref: WEEKLY, comment_id: DEMO_COMMENT_IDS.checklist },
    // Search over the tracked and mirrored notes' files (src/app/search.ts).
    hackmd_search_notes: { query: "matrix" },
    // The sync journal (docs/sync-journal.md).
    hackmd_list_journal: {},
  };

  it("covers every tool the server lists, and the policy lists agree with the tools' readOnlyHint", () => {
    expect(Object.keys(ARGS).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
    expect(TOOLS.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name)).toEqual([
      ...READ_TOOL_NAMES,
    ]);
  });

  it("deny refuses before anything is read or written, with a message naming the setting", async () => {
    for (const name of ALL_TOOL_NAMES) {
      h.settings.agentToolPolicies[name] = "deny";
      const before = h.bridge.emu.requests().length;
      const result = await call(agent, name, ARGS[name]);
      expect([name, result._meta?.error_kind]).toEqual([name, "tool_denied"]);
      expect(result.content[0]?.text).toContain(`The user set ${name} to deny in HackMD Bridge's settings`);
      expect(h.bridge.emu.requests().length).toBe(before);
      expect(questions()).toHaveLength(0);
    }
  });

  it("ask puts the exact change to the user; denying it changes nothing", async () => {
    const tracked = h.body(WEEKLY);
    for (const name of ALL_TOOL_NAMES) {
      h.settings.agentToolPolicies[name] = "ask";
      const before = h.bridge.emu.requests().length;
      const pending = call(agent, name, ARGS[name]);
      const modal = await question(pending);
      const shown = modal.contentEl.textContent ?? "";
      expect(shown).toContain(name);
      expect(shown).toContain("claude-code");
      answer(modal, "Deny");
      const result = await pending;
      expect([name, result._meta?.error_kind]).toEqual([name, "approval_denied"]);
      expect([name, writes(h, before)]).toEqual([name, []]);
      expect(questions()).toHaveLength(0);
    }
    // Nothing was written locally either: no pulled file, the tracked file still tracked and as edited.
    expect(await h.bridge.core.deps.files.stat("Matrix/spec.md")).toMatchObject({ kind: "missing" });
    expect((await h.bridge.core.deps.sync.listTracked()).map((entry) => entry.note_id)).toEqual([WEEKLY]);
    expect(h.body(WEEKLY)).toBe(tracked);
  });

  it("allow runs every tool without a question", async () => {
    for (const name of ALL_TOOL_NAMES) {
      h.settings.agentToolPolicies[name] = "allow";
      const result = await call(agent, name, ARGS[name]);
      expect([name, result.isError ? result.content[0]?.text : "ok"]).toEqual([name, "ok"]);
      expect(questions()).toHaveLength(0);
    }
    expect(h.body(READING)).toBe("# Replaced\n");
    expect(h.body(WEEKLY)).toContain("- a local line");
  });

  it("read-only for agents denies every tool that writes, whatever its policy, and keeps reads", async () => {
    h.settings.agentsReadOnly = true;
    try {
      for (const name of ALL_TOOL_NAMES) {
        const result = await call(agent, name, ARGS[name]);
        const reads = (READ_TOOL_NAMES as readonly string[]).includes(name);
        expect([name, result._meta?.error_kind]).toEqual([name, reads ? undefined : "tool_denied"]);
        if (!reads) expect(result.content[0]?.text).toContain('turn off "Read-only for agents"');
      }
    } finally {
      h.settings.agentsReadOnly = false;
    }
  });
});

describe("asking about a change", () => {
  let h: Harness;
  let agent: Client;
  const original = (): string => h.body(READING);

  beforeEach(async () => {
    h = await startHarness();
    agent = await h.connect();
  });
  afterEach(async () => {
    await h.close();
  });

  it("the user edits the proposed text before approving: their text reaches HackMD, and the result says so with its hash", async () => {
    const pending = call(agent, "hackmd_update_note", {
      note_ref: READING,
      patch: patch(READING, "# Reading list", "# Reading list (agent)"),
    });
    const modal = await question();
    const proposed = h.body(READING)?.replace("# Reading list", "# Reading list (agent)") ?? "";
    [...modal.contentEl.querySelectorAll("button")].find((button) => button.textContent === "Edit text")?.click();
    const editor = modal.contentEl.querySelector<HTMLTextAreaElement>(".hackmd-bridge-approval-editor");
    expect(editor?.value).toBe(proposed);
    const mine = proposed.replace("# Reading list (agent)", "# Reading list (the user's words)");
    editor!.value = mine;
    answer(modal, "Approve");
    const result = await pending;
    expect(result.isError).toBeFalsy();
    expect(h.body(READING)).toBe(mine);
    const hash = `sha256:${createHash("sha256").update(mine).digest("hex")}`;
    expect(result._meta?.edited_by_user).toEqual({ body_hash: hash, bytes: Buffer.byteLength(mine) });
    expect(result.content[0]?.text).toContain(hash);
    // The journal records what was written: the user's text.
    const entry = (await h.bridge.core.deps.journal.read()).at(-1);
    expect(entry?.remote?.after).toBe(hash);
  });

  it("with the default settings an update waits for approval, shows the diff, and writes only once approved", async () => {
    const before = original();
    const start = h.bridge.emu.requests().length;
    const pending = call(agent, "hackmd_update_note", {
      note_ref: READING,
      patch: patch(READING, "# Reading list", "# Reading list (agent)"),
    });
    const modal = await question();
    // Nothing is written while the question is open.
    expect(writes(h, start)).toEqual([]);
    const diff = [...modal.contentEl.querySelectorAll(".hackmd-bridge-approval-diff > div")].map(
      (line) => line.textContent,
    );
    expect(diff).toContain("-# Reading list");
    expect(diff).toContain("+# Reading list (agent)");
    const diffText = modal.contentEl.querySelector(".hackmd-bridge-approval-diff")?.textContent ?? "";
    expect({
      title: modal.titleEl.textContent,
      text: modal.contentEl.textContent?.replace(diffText, "<diff>"),
    }).toMatchSnapshot();
    answer(modal, "Approve");
    const result = await pending;
    expect(result.isError).toBeFalsy();
    expect(h.body(READING)).toBe(before.replace("# Reading list", "# Reading list (agent)"));
    // The history names the client and the hashes before and after.
    await h.log.flushed();
    const entry = h.log.list().at(-1)!;
    expect(entry).toMatchObject({
      tool: "hackmd_update_note",
      client: "claude-code",
      noteId: READING,
      ok: true,
      action: "edit_note",
    });
    expect(entry.hashBefore).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(entry.hashAfter).not.toBe(entry.hashBefore);
    expect(h.store.log()).not.toContain(h.bridge.emu.token);
    expect(h.store.log()).not.toContain(h.token);
  });

  it("a denied or closed question is approval_denied and changes nothing", async () => {
    const before = original();
    const denied = call(agent, "hackmd_update_note", { note_ref: READING, content: "# Gone\n" });
    const modal = await question(denied);
    // A whole-text replacement shows the new text as the diff, and says that the whole text goes.
    expect(
      [...modal.contentEl.querySelectorAll(".hackmd-bridge-approval-diff > div")].map((line) => line.textContent),
    ).toContain("+# Gone");
    const diffText = modal.contentEl.querySelector(".hackmd-bridge-approval-diff")?.textContent ?? "";
    expect(modal.contentEl.textContent?.replace(diffText, "<diff>")).toMatchSnapshot();
    modal.close();
    const result = await denied;
    expect(result._meta?.error_kind).toBe("approval_denied");
    expect(result.content[0]?.text).toContain("nothing was changed");
    expect(h.body(READING)).toBe(before);
    expect(h.log.list().at(-1)).toMatchObject({ ok: false, errorKind: "approval_denied" });
  });

  it("shows a delete as the note's title with a warning", async () => {
    const pending = call(agent, "hackmd_delete_note", { note_ref: READING });
    const modal = await question();
    expect(modal.contentEl.textContent).toContain("Reading list");
    expect(modal.contentEl.querySelector(".hackmd-bridge-approval-warning")?.textContent).toContain("trash");
    answer(modal, "Deny");
    expect((await pending)._meta?.error_kind).toBe("approval_denied");
    expect(h.bridge.emu.inspect().notes.find((note) => note.id === READING)?.trashedAt ?? null).toBeNull();
  });

  it("an unanswered question times out with approval_timeout, is withdrawn, and changes nothing", async () => {
    const before = original();
    const pending = call(agent, "hackmd_update_note", { note_ref: READING, content: "# Late\n" });
    await question();
    h.timers.fireAll();
    const result = await pending;
    expect(result._meta?.error_kind).toBe("approval_timeout");
    expect(result.content[0]?.text).toContain("within 45 s");
    expect(questions()).toHaveLength(0);
    expect(h.body(READING)).toBe(before);
  });

  it("asks one question at a time; the next waits until the first is answered", async () => {
    const calls = {
      reading: call(agent, "hackmd_update_note", { note_ref: READING, content: "# One\n" }),
      weekly: call(agent, "hackmd_update_note", { note_ref: WEEKLY, content: "# Two\n" }),
    };
    const one = await question();
    // The second call is waiting, but only one modal is ever open.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(questions()).toEqual([one]);
    // Either call may reach its question first: approve the reading list's, deny the weekly note's.
    const firstIsReading = (one.contentEl.textContent ?? "").includes("# One");
    answer(one, firstIsReading ? "Approve" : "Deny");
    const firstResult = await (firstIsReading ? calls.reading : calls.weekly);
    expect(firstIsReading ? Boolean(firstResult.isError) : firstResult._meta?.error_kind).toBe(
      firstIsReading ? false : "approval_denied",
    );
    const two = await question();
    expect(two).not.toBe(one);
    answer(two, firstIsReading ? "Deny" : "Approve");
    const secondResult = await (firstIsReading ? calls.weekly : calls.reading);
    expect(firstIsReading ? secondResult._meta?.error_kind : Boolean(secondResult.isError)).toBe(
      firstIsReading ? "approval_denied" : false,
    );
    expect(h.body(READING)).toBe("# One\n");
    expect(h.body(WEEKLY)).not.toBe("# Two\n");
  });

  it("the bulk guard: more than N writes of one session in M minutes pause it and ask once, listing them", async () => {
    h.settings.agentToolPolicies.hackmd_update_note = "allow";
    h.settings.bulkGuardWrites = 3;
    h.settings.bulkGuardMinutes = 5;
    for (const n of [1, 2, 3])
      expect(
        (await call(agent, "hackmd_update_note", { note_ref: READING, content: `# Write ${n}\n` })).isError,
      ).toBeFalsy();
    expect(questions()).toHaveLength(0);
    const start = h.bridge.emu.requests().length;
    const fourth = call(agent, "hackmd_update_note", { note_ref: READING, content: "# Write 4\n" });
    const modal = await question(fourth);
    // Paused: nothing is written while the question is open; it lists the set so far.
    expect(writes(h, start)).toEqual([]);
    expect(modal.titleEl.textContent).toBe("Let claude-code go on?");
    const listed = [...modal.contentEl.querySelectorAll(".hackmd-bridge-approval-fields li")].map(
      (li) => li.textContent,
    );
    expect(listed.slice(0, 3)).toEqual([
      `1: hackmd_update_note: ${READING}`,
      `2: hackmd_update_note: ${READING}`,
      `3: hackmd_update_note: ${READING}`,
    ]);
    answer(modal, "Approve");
    expect((await fourth).isError).toBeFalsy();
    expect(h.body(READING)).toBe("# Write 4\n");
    // Asked once: the next writes go on until the count is reached again.
    for (const n of [5, 6])
      expect(
        (await call(agent, "hackmd_update_note", { note_ref: READING, content: `# Write ${n}\n` })).isError,
      ).toBeFalsy();
    expect(questions()).toHaveLength(0);
    // Denied: the write that would have gone on is refused and nothing is written.
    const seventh = call(agent, "hackmd_update_note", { note_ref: READING, content: "# Write 7\n" });
    answer(await question(seventh), "Deny");
    expect((await seventh)._meta?.error_kind).toBe("approval_denied");
    expect(h.body(READING)).toBe("# Write 6\n");
  });

  it("allow this tool for this session: later calls of that tool in the session are not asked", async () => {
    const first = call(agent, "hackmd_update_note", { note_ref: READING, content: "# First\n" });
    answer(await question(), "Allow this tool for this session");
    expect((await first).isError).toBeFalsy();
    expect((await call(agent, "hackmd_update_note", { note_ref: READING, content: "# Second\n" })).isError).toBeFalsy();
    expect(questions()).toHaveLength(0);
    expect(h.body(READING)).toBe("# Second\n");
    // Another tool, and another session, are still asked.
    const other = await h.connect("other-agent");
    const again = call(other, "hackmd_update_note", { note_ref: READING, content: "# Third\n" });
    const modal = await question();
    expect(modal.contentEl.textContent).toContain("other-agent");
    answer(modal, "Deny");
    expect((await again)._meta?.error_kind).toBe("approval_denied");
  });

  it("when the note changes while the user is asked, the user is asked again about the new text", async () => {
    const start = h.bridge.emu.requests().length;
    const pending = call(agent, "hackmd_update_note", {
      note_ref: READING,
      patch: patch(READING, "# Reading list", "# Reading list (agent)"),
    });
    const first = await question();
    // A collaborator adds a line under the title while the question is open.
    const changed = original().replace(
      "# Reading list\n\n",
      "# Reading list\n\n- [A new book](https://example.org/)\n",
    );
    expect(changed).not.toBe(original());
    h.bridge.emu.collaboratorEdit(READING, { content: changed }, { as: "ada" });
    answer(first, "Approve");
    const second = await question();
    expect(second).not.toBe(first);
    expect(
      [...second.contentEl.querySelectorAll(".hackmd-bridge-approval-diff > div")].map((line) => line.textContent),
    ).toContain(" - [A new book](https://example.org/)");
    // Still nothing written by the agent: the first approval was for text that no longer exists.
    expect(writes(h, start)).toEqual([]);
    answer(second, "Approve");
    expect((await pending).isError).toBeFalsy();
    expect(h.body(READING)).toBe(changed.replace("# Reading list", "# Reading list (agent)"));
  });

  it("undoes an agent's patch from the history, and refuses when someone edited the note after the agent", async () => {
    const before = original();
    const pending = call(agent, "hackmd_update_note", {
      note_ref: READING,
      patch: patch(READING, "# Reading list", "# Reading list (agent)"),
    });
    answer(await question(), "Approve");
    expect((await pending).isError).toBeFalsy();
    await h.log.flushed();
    const entry = h.log.list().at(-1)!;
    expect(h.log.canUndo(entry)).toBe(true);
    const undo = (target = entry) =>
      undoAgentWrite(
        { log: h.log, deps: h.bridge.core.deps, newCall: () => new CallContext(), confirm: async () => true },
        target,
      );
    const journal = h.bridge.core.deps.journal;
    const agentText = h.body(READING);
    const journaled = (await journal.read()).length;
    const done = await undo();
    expect(done).toEqual({ undone: true, message: "Restored the note's text from before the agent's change." });
    expect(h.body(READING)).toBe(before);
    // Undo is a write too: exactly one journal entry, keeping the agent's text it replaced.
    const undone = await journal.read();
    expect(undone.length).toBe(journaled + 1);
    expect(undone.at(-1)).toMatchObject({ kind: "undo", actor: { kind: "user", door: "obsidian" }, undoes: entry.id });
    expect(await journal.keptText(undone.at(-1)?.replaced?.[0]?.hash ?? "")).toBe(agentText);
    expect(h.log.canUndo(h.log.list().at(-1)!)).toBe(false);

    // Again, but a collaborator edits after the agent: Undo would overwrite that edit, so it writes nothing.
    const again = call(agent, "hackmd_update_note", {
      note_ref: READING,
      patch: patch(READING, "# Reading list", "# Reading list (agent 2)"),
    });
    answer(await question(), "Approve");
    expect((await again).isError).toBeFalsy();
    await h.log.flushed();
    const second = h.log.list().at(-1)!;
    const edited = `${h.body(READING)}\n- a collaborator's line\n`;
    h.bridge.emu.collaboratorEdit(READING, { content: edited }, { as: "ada" });
    const start = h.bridge.emu.requests().length;
    const refused = await undo(second);
    expect(refused.undone).toBe(false);
    expect(refused.message).toContain("The note changed after the agent's write, so Undo changed nothing");
    expect(writes(h, start)).toEqual([]);
    expect(h.body(READING)).toBe(edited);
    expect(h.log.canUndo(h.log.list().at(-1)!)).toBe(true);
  });
});

describe("asking under 2026-07-28 (no session: each call stands on its own)", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it("an update waits in the plugin's own modal, which names the client from the request's envelope; approved, it writes; denied, nothing", async () => {
    const agent = await h.connectModern("modern-agent");
    const start = h.bridge.emu.requests().length;
    const approved = call(agent, "hackmd_update_note", {
      note_ref: READING,
      patch: patch(READING, "# Reading list", "# Reading list (modern)"),
    });
    const modal = await question(approved);
    expect(writes(h, start)).toEqual([]);
    expect(modal.contentEl.textContent).toContain("modern-agent");
    answer(modal, "Approve");
    expect((await approved).isError).toBeFalsy();
    expect(h.body(READING)).toContain("# Reading list (modern)");

    const before = h.body(READING);
    const denied = call(agent, "hackmd_update_note", { note_ref: READING, content: "# Gone\n" });
    answer(await question(denied), "Deny");
    expect((await denied)._meta?.error_kind).toBe("approval_denied");
    expect(h.body(READING)).toBe(before);
    await h.log.flushed();
    expect(h.log.list().at(-1)).toMatchObject({ client: "modern-agent", ok: false, errorKind: "approval_denied" });
  });

  it("allow this tool for this session holds for that client name while the endpoint runs; another client is still asked", async () => {
    const agent = await h.connectModern("modern-agent");
    const first = call(agent, "hackmd_update_note", { note_ref: READING, content: "# First\n" });
    answer(await question(first), "Allow this tool for this session");
    expect((await first).isError).toBeFalsy();
    // A later request of the same client, on its own HTTP request and server, is not asked.
    expect((await call(agent, "hackmd_update_note", { note_ref: READING, content: "# Second\n" })).isError).toBeFalsy();
    expect(questions()).toHaveLength(0);
    expect(h.body(READING)).toBe("# Second\n");
    const other = await h.connectModern("other-agent");
    const again = call(other, "hackmd_update_note", { note_ref: READING, content: "# Third\n" });
    const modal = await question(again);
    expect(modal.contentEl.textContent).toContain("other-agent");
    answer(modal, "Deny");
    expect((await again)._meta?.error_kind).toBe("approval_denied");
    expect(h.body(READING)).toBe("# Second\n");
  });
});

describe("the plugin with its default settings", () => {
  it("an agent's update of a tracked note waits for approval, changes nothing when denied, and the activity view lists it and undoes it", async () => {
    const port = await freePort();
    const h = await startPlugin({
      data: { defaultPullFolder: "HackMD" },
      beforeLoad: (app) => {
        const device = new DeviceSettings({ app: app });
        device.setMcpEnabled(true);
        device.setMcpPort(port);
      },
    });
    const agent = new Client({ name: "claude-desktop", version: "1" });
    let closed = false;
    try {
      const url = `http://127.0.0.1:${port}/mcp`;
      await waitFor(() =>
        fetch(url).then(
          () => true,
          () => false,
        ),
      );
      const token = new PluginSecrets({ app: h.app }).endpointToken.getToken() ?? "";
      await agent.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      // The user tracks the note (their own command is never asked about).
      h.plugin.ui.askNoteRef = () => Promise.resolve(WEEKLY);
      expect(await h.run("pull-note")).toContain("Pulled");
      const original = h.emu.inspect().notes.find((note) => note.id === WEEKLY)?.content ?? "";
      const body = (): string => h.emu.inspect().notes.find((note) => note.id === WEEKLY)?.content ?? "";
      const edit = {
        note_ref: WEEKLY,
        patch: patch(WEEKLY, "# Weekly sync — Project Aurora", "# Weekly sync — Project Aurora (agent)"),
      };

      const denied = call(agent, "hackmd_update_note", edit);
      const first = await question(denied);
      // The question names the tracked file the user knows the note by.
      expect(first.contentEl.textContent).toContain("HackMD/Weekly sync — Project Aurora.md");
      answer(first, "Deny");
      expect((await denied)._meta?.error_kind).toBe("approval_denied");
      expect(body()).toBe(original);

      const approved = call(agent, "hackmd_update_note", edit);
      answer(await question(approved), "Approve");
      expect((await approved).isError).toBeFalsy();
      expect(body()).toContain("(agent)");

      // The activity view lists both calls with the client, filters by client, and undoes the approved one.
      h.fake.commands.find((command) => command.id === "open-mcp-activity-log")?.callback?.();
      await waitFor(() => h.app.workspace.getLeavesOfType(ACTIVITY_VIEW_TYPE).length > 0);
      const view = h.app.workspace.getLeavesOfType(ACTIVITY_VIEW_TYPE)[0]!.view as unknown as ActivityView;
      const items = (): HTMLElement[] => [
        ...view.contentEl.querySelectorAll<HTMLElement>(".hackmd-bridge-activity-list > li"),
      ];
      await waitFor(() => items().length >= 2);
      expect(
        items()
          .slice(0, 2)
          .map((item) => item.querySelector(".hackmd-bridge-activity-client")?.textContent),
      ).toEqual(["claude-desktop", "claude-desktop"]);
      expect(items()[1]?.querySelector(".hackmd-bridge-activity-outcome")?.textContent).toBe(
        outcomeWords({ ok: false, errorKind: "approval_denied" }),
      );
      view.setFilter({ client: "someone-else" });
      expect(items()).toHaveLength(0);
      view.setFilter({ client: "" });
      const undo = items()[0]?.querySelector<HTMLButtonElement>(".hackmd-bridge-activity-undo");
      expect(items()[1]?.querySelector(".hackmd-bridge-activity-undo")).toBeNull();
      undo!.click();
      await waitFor(() => (Modal.opened as unknown[]).some((modal) => modal instanceof ConfirmModal));
      const confirmModal = (Modal.opened as unknown[]).find(
        (modal): modal is ConfirmModal => modal instanceof ConfirmModal,
      )!;
      [...confirmModal.contentEl.querySelectorAll("button")].find((button) => button.textContent === "Undo")!.click();
      await waitFor(() => Notice.shown.includes("Restored the note's text from before the agent's change."));
      expect(body()).toBe(original);
      await waitFor(() => items()[0]?.querySelector(".hackmd-bridge-activity-undone") !== null);

      // The history is in the plugin's folder, without any token.
      const saved = await h.app.vault.adapter.read(".obsidian/plugins/hackmd-bridge/activity/log.json");
      expect(saved).toContain("claude-desktop");
      expect(saved).not.toContain(h.emu.token);
      expect(saved).not.toContain(token);

      // Unloading the plugin withdraws an open question (the waiting call is denied, nothing written).
      const atUnload = call(agent, "hackmd_update_note", edit);
      // (The SDK client keeps a call whose stream broke pending while it tries to reconnect; closing it ends the call.)
      atUnload.catch(() => undefined);
      await question(atUnload);
      await h.close();
      closed = true;
      expect(questions()).toHaveLength(0);
      expect(body()).toBe(original);
    } finally {
      await agent.close().catch(() => undefined);
      if (!closed) await h.close();
    }
  });
});
