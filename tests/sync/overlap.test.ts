/**
 * Regression tests for overlapping operations (docs/adr/0004-one-queue.md): each one
 * lost an edit or damaged a record on the code before the one serialisation rule
 * (docs/architecture.md §3). The overlap is made real, not simulated: the emulator holds one
 * request back (a latency fault) while a second operation starts, over real loopback HTTP, with
 * the MCP tools driven through the SDK's client and two cores over one ROOT where a second
 * process is the point.
 */
import { link, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { sha256Hex } from "../../src/core/hash";
import { unavailableImageFetcher } from "../../src/core/image";
import { silentLogger, systemClock, systemSleep } from "../../src/core/ports";
import { DEMO_NOTE_IDS, type FaultHandle } from "../../src/emulator";
import { createClientConfig } from "../../src/hackmd/config";
import { CallContext } from "../../src/hackmd/call-context";
import { createBridgeCore, type BridgeCore } from "../../src/mcp/core";
import { createMcpServer } from "../../src/mcp/server";
import { NodeHttpTransport } from "../../src/node/http-transport";
import { NodeLocalFiles } from "../../src/node/local-files";
import { recordKey } from "../../src/sync/store";
import { syncAll } from "../../src/sync/sync-all";
import { errorKind, ok, startBridge, type CallResult, type TestBridge } from "../helpers/bridge";

const NOTE = DEMO_NOTE_IDS.readingList;
const FILE = "reading.md";
const STATE = ".hackmd-bridge/sync/tracked";
const HOLD_MS = 400;

/** Waits until a fault has caught its request (the request is then held by the emulator). */
async function caught(fault: FaultHandle): Promise<void> {
  for (let i = 0; i < 500 && fault.hits === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  if (fault.hits === 0) throw new Error("the held request never arrived");
}

/** A second core (another process, in effect) over the same ROOT and emulator, with its own MCP client. */
async function secondCore(bridge: TestBridge): Promise<{
  core: BridgeCore;
  call: (name: string, args: Record<string, unknown>) => Promise<CallResult>;
  close: () => Promise<void>;
}> {
  const core = createBridgeCore({
    transport: new NodeHttpTransport(),
    config: createClientConfig({ apiUrl: bridge.emu.url, tokenHint: "set HACKMD_API_TOKEN" }),
    secrets: { getToken: () => bridge.emu.token },
    files: await NodeLocalFiles.open({ root: bridge.root }),
    images: unavailableImageFetcher,
    clock: systemClock,
    sleep: systemSleep,
    random: () => 0,
    logger: silentLogger,
  });
  const server = createMcpServer(core.mcpHost({ name: "second", version: "test", secrets: () => [bridge.emu.token] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "second", version: "1" });
  await client.connect(clientSide);
  return {
    core,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallResult,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

describe("overlapping operations lose nothing", () => {
  let bridge: TestBridge;
  const local = (path: string): string => join(bridge.root, path);
  const remote = (): string => bridge.emu.inspect().notes.find((note) => note.id === NOTE)?.content ?? "";
  const holdNext = (route: string): FaultHandle =>
    bridge.emu.injectFault({ match: { route }, action: { latencyMs: HOLD_MS }, when: "before-commit", times: 1 });

  beforeEach(async () => {
    bridge = await startBridge();
    ok(await bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: FILE }));
  });
  afterEach(async () => {
    await bridge.close();
  });

  it("1: an agent's confirmed patch is never overwritten by a push whose PATCH was slow", async () => {
    await writeFile(local(FILE), `${await readFile(local(FILE), "utf8")}user line\n`);
    const held = holdNext("PATCH /notes/:noteId");
    const push = bridge.call("hackmd_push_note", { local_path: FILE });
    await caught(held);
    // The agent reads while the push's PATCH is held, then patches with the hash it just read.
    const read = ok(await bridge.call("hackmd_get_note", { note_ref: NOTE }));
    const patch = `*** Begin Patch\n*** Update File: ${String(read.patch_path)}\n@@\n+agent line\n*** End Patch`;
    const agent = await bridge.call("hackmd_update_note", { note_ref: NOTE, patch, expected_hash: read.body_hash });
    expect(ok(await push).status).toBe("pushed");
    // Waiting for the push, the agent's write saw the pushed body and refused: nothing was lost unseen.
    expect(errorKind(agent)).toBe("conflict");
    expect(remote()).toContain("user line");
    expect(remote()).not.toContain("agent line");
  });

  it("2: a push started during Sync all's pull pushes what the pull wrote, never the text it replaced", async () => {
    bridge.emu.collaboratorEdit(NOTE, { content: `${remote()}collaborator line\n` });
    const held = holdNext("GET /notes/:noteId");
    const all = syncAll(bridge.core.deps, { call: new CallContext() });
    await caught(held);
    const push = await bridge.call("hackmd_push_note", { local_path: FILE });
    const result = await all;
    expect(result.items.map((item) => item.outcome)).toEqual(["pulled"]);
    expect(ok(push).status).toBe("nothing_to_push");
    expect(remote()).toContain("collaborator line");
    expect(await readFile(local(FILE), "utf8")).toContain("collaborator line");
  });

  it("3: a rename during a pull keeps the record with the text it matches, so no later push deletes the collaborator's line", async () => {
    bridge.emu.collaboratorEdit(NOTE, { content: `${remote()}collaborator line\n` });
    const held = holdNext("GET /notes/:noteId");
    const pull = bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: FILE, overwrite_local: true });
    await caught(held);
    await rename(local(FILE), local("renamed.md"));
    const follow = bridge.core.deps.sync.followRename({ from: FILE, to: "renamed.md" });
    expect(errorKind(await pull)).toBe("conflict");
    expect(await follow).toBe("followed");
    const pushed = ok(await bridge.call("hackmd_push_note", { local_path: "renamed.md" }));
    expect(pushed.status).toBe("remote_changed");
    expect(remote()).toContain("collaborator line");
  });

  it("4: a conflict report in one process never rewrites the record another process just saved", async () => {
    const other = await secondCore(bridge);
    try {
      await writeFile(local(FILE), `${await readFile(local(FILE), "utf8")}user line\n`);
      bridge.emu.collaboratorEdit(NOTE, { content: `${remote()}collaborator line\n` });
      const held = holdNext("GET /notes/:noteId");
      const push = bridge.call("hackmd_push_note", { local_path: FILE });
      await caught(held);
      ok(
        await other.call("hackmd_pull_note", {
          note_ref: NOTE,
          local_path: FILE,
          overwrite_local: true,
          discard_local_changes: true,
        }),
      );
      // The push redid its decision on the record the other process saved: the file now equals HackMD.
      expect(ok(await push).status).toBe("nothing_to_push");
      const key = recordKey(null, NOTE);
      const record = JSON.parse(await readFile(local(`${STATE}/${key}.json`), "utf8")) as {
        baseline_body_hash: string;
      };
      const baseline = await readFile(local(`${STATE}/${key}.baseline.md`));
      expect(record.baseline_body_hash).toBe(`sha256:${await sha256Hex(baseline)}`);
      const check = await bridge.core.deps.sync.check({ localPath: FILE, call: new CallContext() });
      expect(check.status).toBe("in_sync");
    } finally {
      await other.close();
    }
  });

  it("6: a baseline that does not match its hash is reported the same way by the sync check and by Sync all", async () => {
    await writeFile(local(`${STATE}/${recordKey(null, NOTE)}.baseline.md`), "written by a crashed save\n");
    await expect(bridge.core.deps.sync.check({ localPath: FILE, call: new CallContext() })).rejects.toMatchObject({
      kind: "sync_state",
    });
    for (const dryRun of [true, false]) {
      const result = await syncAll(bridge.core.deps, { dryRun });
      expect(result.items).toEqual([
        expect.objectContaining({ outcome: "error", error_kind: "sync_state", branch: "E1" }),
      ]);
      expect(result.items[0]?.message).toContain("does not match its recorded hash");
    }
  });

  it("7: pulling a tracked note to a second path is refused while the first file has unpushed edits", async () => {
    await writeFile(local(FILE), `${await readFile(local(FILE), "utf8")}unpushed line\n`);
    const refused = await bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: "second.md" });
    expect(errorKind(refused)).toBe("unpushed_changes");
    expect(refused.content[0]?.text).toContain(FILE);
    // Nothing moved: the first file is still tracked and its edit can be pushed.
    expect(ok(await bridge.call("hackmd_push_note", { local_path: FILE })).status).toBe("pushed");
    expect(remote()).toContain("unpushed line");
  });

  it("7: with discard_local_changes the record moves and the first file is left as it was", async () => {
    await writeFile(local(FILE), `${await readFile(local(FILE), "utf8")}dropped line\n`);
    ok(await bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: "second.md", discard_local_changes: true }));
    expect(await readFile(local(FILE), "utf8")).toContain("dropped line");
    expect(errorKind(await bridge.call("hackmd_push_note", { local_path: FILE }))).toBe("not_tracked");
    expect(ok(await bridge.call("hackmd_push_note", { local_path: "second.md" })).status).toBe("nothing_to_push");
  });

  it("3: a rename followed while a pull of the old path starts never restores the old file over the moved edits", async () => {
    await writeFile(local(FILE), `${await readFile(local(FILE), "utf8")}typed before the rename\n`);
    const held = holdNext("GET /notes/:noteId");
    await rename(local(FILE), local("moved.md"));
    // The plugin's rename handler calls this at once; the pull starts right after.
    const follow = bridge.core.deps.sync.followRename({ from: FILE, to: "moved.md" });
    const pull = bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: FILE, overwrite_local: true });
    const refused = await pull;
    expect(["conflict", "unpushed_changes"]).toContain(errorKind(refused));
    expect(held.hits).toBeLessThanOrEqual(1);
    expect(await follow).toBe("followed");
    const pushed = ok(await bridge.call("hackmd_push_note", { local_path: "moved.md" }));
    expect(pushed.status).toBe("pushed");
    expect(remote()).toContain("typed before the rename");
  });

  it("3: a rename whose old path another process pulled the note to meanwhile leaves the record with that pull, and says so", async () => {
    const other = await secondCore(bridge);
    try {
      await rename(local(FILE), local("moved.md"));
      // The command, in its own process, saw the file missing and pulled the note back to it.
      ok(await other.call("hackmd_pull_note", { note_ref: NOTE, local_path: FILE }));
      expect(await bridge.core.deps.sync.followRename({ from: FILE, to: "moved.md" })).toBe("recreated");
      const record = JSON.parse(await readFile(local(`${STATE}/${recordKey(null, NOTE)}.json`), "utf8")) as {
        local_path: string;
      };
      expect(record.local_path).toBe(FILE);
      expect((await bridge.core.deps.sync.check({ localPath: FILE, call: new CallContext() })).status).toBe("in_sync");
    } finally {
      await other.close();
    }
  });

  it("two processes pushing the same edit at once both succeed: the later save finds the baseline already where it would put it", async () => {
    const other = await secondCore(bridge);
    try {
      await writeFile(local(FILE), `${await readFile(local(FILE), "utf8")}same edit\n`);
      const held = holdNext("PATCH /notes/:noteId");
      const first = bridge.call("hackmd_push_note", { local_path: FILE });
      await caught(held);
      expect(ok(await other.call("hackmd_push_note", { local_path: FILE })).status).toBe("pushed");
      // Without the check this push reported partial_write although its baseline was saved by the other.
      expect(ok(await first).status).toBe("pushed");
      expect((await bridge.core.deps.sync.check({ localPath: FILE, call: new CallContext() })).status).toBe("in_sync");
    } finally {
      await other.close();
    }
  });

  it("3: the same file under both names (a case-only rename on a case-insensitive disk) is followed", async () => {
    await rename(local(FILE), local("moved.md"));
    await link(local("moved.md"), local(FILE));
    expect(await bridge.core.deps.sync.followRename({ from: FILE, to: "moved.md" })).toBe("followed");
  });

  it("views agree after a pull that saw a write's new timestamp before its body (an unconfirmed agent write)", async () => {
    bridge.emu.setQuirks({ visibilityDelayMs: 2_500, visibilityScope: "content" });
    const content = `${remote()}agent line\n`;
    expect(errorKind(await bridge.call("hackmd_update_note", { note_ref: NOTE, content }))).toBe("readback");
    // The pull reads the old body (the agent's is not visible yet) under the note's new lastChangedAt.
    ok(await bridge.call("hackmd_pull_note", { note_ref: NOTE, local_path: FILE, overwrite_local: true }));
    await new Promise((resolve) => setTimeout(resolve, 2_600));
    const check = await bridge.core.deps.sync.check({ localPath: FILE, call: new CallContext() });
    expect(check.status).toBe("remote_changed");
    const plan = await syncAll(bridge.core.deps, { dryRun: true });
    expect(plan.items).toEqual([expect.objectContaining({ plan: "pull" })]);
    const real = await syncAll(bridge.core.deps, {});
    expect(real.items).toEqual([expect.objectContaining({ outcome: "pulled" })]);
    expect(await readFile(local(FILE), "utf8")).toContain("agent line");
  });
});
