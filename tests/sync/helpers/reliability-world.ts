/**
 * The system under test of the reliability harness (tests/sync/reliability.test.ts): one case's
 * bridge — a core over a fresh ROOT and an MCP client through the SDK's in-memory transport —
 * against an emulator shared by all cases, plus the ground truth the invariants are checked
 * against. Every operation goes through MCP exactly as an agent or the plugin would drive it, and
 * checks what the engine reported against what the emulator's log and committed state show.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { bodyHash } from "../../../src/core/hash";
import { unavailableImageFetcher } from "../../../src/core/image";
import { silentLogger } from "../../../src/core/ports";
import {
  DEMO_NOTE_IDS,
  startEmulator,
  type Emulator,
  type FaultSpec,
  type RequestLogEntry,
} from "../../../src/emulator";
import { createClientConfig } from "../../../src/hackmd/config";
import { createBridgeCore, type BridgeCore } from "../../../src/mcp/core";
import { createMcpServer } from "../../../src/mcp/server";
import { NodeHttpTransport } from "../../../src/node/http-transport";
import { NodeLocalFiles } from "../../../src/node/local-files";
import { recordKey } from "../../../src/sync/store";
import { syncAll } from "../../../src/sync/sync-all";
import type { CallResult } from "../../helpers/bridge";
import { PENDING_WRITE_HORIZON_MS } from "../../../src/hackmd/pending-writes";
import { VirtualClock } from "./virtual-clock";

/** The one note every case tracks, its working file and the snapshot beside it. */
export const NOTE_ID = DEMO_NOTE_IDS.readingList;
export const FILE = "Notes/reading.md";
export const SNAPSHOT = "Notes/reading.remote.md";
const PATCH_PATH = `notes/${NOTE_ID}.md`;
const TRACKED = `.hackmd-bridge/sync/tracked/${recordKey(null, NOTE_ID)}`;
const PATCH_ROUTE = "PATCH /notes/:noteId";
const GET_ROUTE = "GET /notes/:noteId";
/** The core's note reads carry no query; the harness's own direct read does, so no fault hits it. */
const CORE_READ = /\/notes\/[^/?]+$/;

/** Where case ROOTs go: memory-backed when available, since every state save flushes to disk. */
const TEMP_PARENT = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();

/** A fresh, empty ROOT for one case. */
async function freshRoot(): Promise<string> {
  try {
    return await mkdtemp(join(TEMP_PARENT, "hb-reliability-"));
  } catch {
    return mkdtemp(join(tmpdir(), "hb-reliability-"));
  }
}

/** Longer than any visibility delay a case sets, so waiting this long makes every write visible. */
export const SETTLE_MS = 10_000;

/** Error kinds whose message says nothing was written: the log must show no committed write. */
const NOT_WRITTEN_KINDS = new Set([
  "conflict",
  "patch_rejected",
  "rate_limited",
  "invalid_input",
  "not_tracked",
  "sync_state",
  "confirmation_required",
]);

/** Faults the emulator injects for the next matching request (docs/hackmd-api.md §2.10). */
export const FAULT_KINDS = [
  "patch-500-before-commit",
  "patch-500-after-commit",
  "patch-502-after-commit",
  "patch-drop-before-commit",
  "patch-drop-after-commit",
  "patch-429",
  "get-503-once",
  "get-503-exhausting",
  "readback-503-exhausting",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const FAULTS: Record<FaultKind, FaultSpec> = {
  "patch-500-before-commit": { match: { route: PATCH_ROUTE }, action: { status: 500 } },
  "patch-500-after-commit": { match: { route: PATCH_ROUTE }, action: { status: 500 }, when: "after-commit" },
  "patch-502-after-commit": { match: { route: PATCH_ROUTE }, action: { status: 502 }, when: "after-commit" },
  "patch-drop-before-commit": { match: { route: PATCH_ROUTE }, action: { drop: true } },
  "patch-drop-after-commit": { match: { route: PATCH_ROUTE }, action: { drop: true }, when: "after-commit" },
  "patch-429": { match: { route: PATCH_ROUTE }, action: { status: 429, body: { error: "Too Many Requests" } } },
  // Reads are retried (up to 4 attempts): one 503 is absorbed, four end the read with `upstream`.
  "get-503-once": { match: { route: GET_ROUTE, path: CORE_READ }, action: { status: 503 } },
  "get-503-exhausting": { match: { route: GET_ROUTE, path: CORE_READ }, action: { status: 503 }, times: 4 },
  // Lets the next GET through (a push's or a patch's first read), then fails the read-back.
  "readback-503-exhausting": {
    match: { route: GET_ROUTE, path: CORE_READ },
    action: { status: 503 },
    times: 4,
    skip: 1,
  },
};

/** The emulator and the clock every case shares. */
export interface SharedEnvironment {
  emu: Emulator;
  clock: VirtualClock;
}

/** Starts the shared emulator on a virtual clock. */
export async function startShared(): Promise<SharedEnvironment> {
  const clock = new VirtualClock(Date.UTC(2026, 0, 5, 9, 0, 0));
  const emu = await startEmulator({ port: 0, seed: "demo", clock });
  return { emu, clock };
}

/** What a tool call did: its result and the emulator requests it caused. */
interface Step {
  result: CallResult;
  requests: RequestLogEntry[];
}

/** The outcome of an operation that may write to HackMD, as the model needs it. */
export type WriteOutcome =
  | { ok: true; status: string; remoteHash?: string }
  /** `unknown`: a PATCH was sent and the engine could not say whether it landed. */
  | { ok: false; kind: string; unknown: boolean };

/** Appends a line (adding the missing final newline first) or puts it first. */
export function addLine(text: string, line: string, position: "start" | "end"): string {
  if (position === "start") return `${line}\n${text}`;
  return `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${line}\n`;
}

/** The local text with every line of `other` it lacks appended: the harness's manual merge. */
export function unionLines(local: string, other: string): string {
  const have = new Set(local.split("\n"));
  let merged = local;
  for (const line of other.split("\n")) {
    if (line === "" || have.has(line)) continue;
    merged = addLine(merged, line, "end");
    have.add(line);
  }
  return merged;
}

/** One case: a fresh ROOT and core over the shared emulator, and the ground truth. */
export class ReliabilityWorld {
  /** Every edit that was made on either side: marker → who made it. */
  readonly required = new Map<string, string>();
  /** Hashes of every body HackMD committed for the note, observed after each step. */
  private readonly committedHistory = new Set<string>();
  /** The body hash the engine last reported as pulled or pushed: the baseline must hold it. */
  private expectedBaselineHash = "";
  /** The body hash the agent saw when it last read the note (used for stale `expected_hash`). */
  private agentSeenHash = "";
  /** What happened so far, for failure messages. */
  readonly trace: string[] = [];
  private markers = 0;

  private constructor(
    readonly env: SharedEnvironment,
    readonly root: string,
    private readonly core: BridgeCore,
    private readonly client: Client,
    private readonly close_: () => Promise<void>,
  ) {}

  /** Resets the emulator to the demo seed, builds a core over a fresh ROOT and pulls the note. */
  static async open(env: SharedEnvironment): Promise<ReliabilityWorld> {
    env.emu.reset("demo");
    const root = await freshRoot();
    const files = await NodeLocalFiles.open({ root });
    const token = env.emu.token;
    const core = createBridgeCore({
      transport: new NodeHttpTransport(),
      config: createClientConfig({ apiUrl: env.emu.url, tokenHint: "set HACKMD_API_TOKEN" }),
      secrets: { getToken: () => token },
      files,
      images: unavailableImageFetcher,
      clock: env.clock,
      sleep: env.clock.sleep,
      random: () => 0,
      logger: silentLogger,
    });
    const server = createMcpServer(core.mcpHost({ name: "hackmd-bridge", version: "test", secrets: () => [token] }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "reliability", version: "1" });
    await client.connect(clientSide);
    const world = new ReliabilityWorld(env, root, core, client, async () => {
      await client.close();
      await server.close();
      await rm(root, { recursive: true, force: true });
    });
    const initial = env.emu.inspect().notes.find((note) => note.id === NOTE_ID)?.content ?? "";
    world.committedHistory.add(await bodyHash(initial));
    const pulled = await world.call("hackmd_pull_note", {
      note_ref: NOTE_ID,
      local_path: FILE,
      create_parent_dirs: true,
    });
    if (pulled.result.isError) throw new Error(`initial pull failed: ${pulled.result.content[0]?.text ?? "?"}`);
    world.expectedBaselineHash = String(pulled.result.structuredContent?.body_hash);
    world.agentSeenHash = world.expectedBaselineHash;
    await world.checkInvariants("initial pull");
    return world;
  }

  /** Closes the MCP pair and removes the ROOT (the emulator stays for the next case). */
  close(): Promise<void> {
    return this.close_();
  }

  // ---------------------------------------------------------------- observations

  /** The working file's text. */
  local(): Promise<string> {
    return readFile(join(this.root, FILE), "utf8");
  }

  /** The `.remote.md` snapshot's text, if one exists. */
  async snapshot(): Promise<string | undefined> {
    try {
      return await readFile(join(this.root, SNAPSHOT), "utf8");
    } catch {
      return undefined;
    }
  }

  /** The note's committed body, ignoring visibility delays. */
  remote(): string {
    const note = this.env.emu.inspect().notes.find((entry) => entry.id === NOTE_ID);
    if (!note) throw new Error("the tracked note vanished from the emulator");
    return note.content;
  }

  /** The body a GET shows now (visibility delays applied), read directly, not through the core. */
  async visible(): Promise<string> {
    const reply = await fetch(`${this.env.emu.url}/notes/${NOTE_ID}?harness=visible`, {
      headers: { authorization: `Bearer ${this.env.emu.token}` },
    });
    const note = (await reply.json()) as { content?: unknown };
    if (reply.status !== 200 || typeof note.content !== "string")
      this.fail(`reading the visible note directly answered ${reply.status}`);
    return note.content;
  }

  /** A fresh unique marker line such as `~L3~`. */
  marker(prefix: "L" | "R" | "A"): string {
    this.markers += 1;
    return `~${prefix}${this.markers}~`;
  }

  // ---------------------------------------------------------------- operations

  /** A local edit: the user adds a line to the working file. */
  async localEdit(position: "start" | "end"): Promise<void> {
    const marker = this.marker("L");
    const path = join(this.root, FILE);
    await writeFile(path, addLine(await this.local(), marker, position));
    this.required.set(marker, "local edit");
    this.trace.push(`local edit ${marker} at ${position}`);
  }

  /** A collaborator adds a line in HackMD's web editor (committed and visible at once). */
  collaboratorEdit(position: "start" | "end"): void {
    const marker = this.marker("R");
    this.env.emu.collaboratorEdit(NOTE_ID, { content: addLine(this.remote(), marker, position) });
    this.required.set(marker, "collaborator edit");
    this.trace.push(`collaborator edit ${marker} at ${position}`);
  }

  /** Arms a fault for the next matching request. */
  injectFault(kind: FaultKind): void {
    this.env.emu.injectFault(FAULTS[kind]);
    this.trace.push(`fault armed: ${kind}`);
  }

  /** Changes how long HackMD takes to show writes. */
  setVisibility(delayMs: number, scope: "all" | "content"): void {
    this.env.emu.setQuirks({ visibilityDelayMs: delayMs, visibilityScope: scope });
    this.trace.push(`visibility delay ${delayMs} ms (${scope})`);
  }

  /**
   * What a readback error tells the caller to do before writing again: wait for HackMD to show
   * the write, then read the note and compare (a sync check of the file).
   */
  async look(): Promise<void> {
    this.env.clock.advance(SETTLE_MS);
    const step = await this.call("hackmd_get_note", { local_path: FILE });
    const out = step.result.structuredContent;
    this.expectNoPatch(step, "a sync check");
    if (!step.result.isError && out?.baseline_body_hash !== this.expectedBaselineHash) {
      this.fail(
        `the sync check reported baseline ${String(out?.baseline_body_hash)}, expected ${this.expectedBaselineHash}`,
      );
    }
    this.trace.push(`look: ${describe(step.result)}`);
  }

  /** An agent appends a marker line through `hackmd_update_note` with a patch. */
  async agentPatch(style: "end" | "anchored", expected: "none" | "fresh" | "stale"): Promise<WriteOutcome> {
    const marker = this.marker("A");
    let expectedHash: string | undefined;
    if (expected === "stale") expectedHash = this.agentSeenHash;
    if (expected === "fresh") {
      const read = await this.call("hackmd_get_note", { note_ref: NOTE_ID });
      this.expectNoPatch(read, "a note read");
      if (read.result.isError) {
        this.trace.push(`agent patch ${marker}: the read failed (${describe(read.result)}), nothing sent`);
        return { ok: false, kind: errorKindOf(read.result), unknown: false };
      }
      expectedHash = String(read.result.structuredContent?.body_hash);
      this.agentSeenHash = expectedHash;
    }
    const hunk = style === "end" ? ["@@", `+${marker}`, "*** End of File"] : ["@@ # Reading list", `+${marker}`];
    const patch = ["*** Begin Patch", `*** Update File: ${PATCH_PATH}`, ...hunk, "*** End Patch"].join("\n");
    const step = await this.call("hackmd_update_note", {
      note_ref: NOTE_ID,
      patch,
      ...(expectedHash === undefined ? {} : { expected_hash: expectedHash }),
    });
    const outcome = this.writeOutcome(step, `agent patch ${marker}`);
    // Ground truth decides what counts as an edit made: a committed PATCH, whatever was reported.
    if (commits(step) > 0)
      this.required.set(marker, outcome.ok ? "agent patch" : `agent patch reported ${outcome.kind}`);
    if (outcome.ok) {
      if (!this.remote().includes(marker))
        this.fail(`agent patch ${marker} reported success but the committed body lacks it`);
      if (!(await this.visible()).includes(marker))
        this.fail(`agent patch ${marker} reported success but HackMD does not show it (never confirmed)`);
      if (patches(step) !== 1)
        this.fail(`agent patch ${marker} reported success after ${patches(step)} PATCH requests`);
    }
    this.trace.push(`agent patch ${marker} (${style}, expected_hash ${expected}): ${describe(step.result)}`);
    return outcome;
  }

  /** A safe push, optionally with the `expected_remote_hash` of a merge. */
  async push(expectedRemoteHash?: string): Promise<WriteOutcome> {
    const before = await this.local();
    const step = await this.call("hackmd_push_note", {
      local_path: FILE,
      ...(expectedRemoteHash === undefined ? {} : { expected_remote_hash: expectedRemoteHash }),
    });
    const label = expectedRemoteHash === undefined ? "push" : "merge push";
    const outcome = this.writeOutcome(step, label);
    if ((await this.local()) !== before) this.fail(`${label} changed the working file`);
    const out = step.result.structuredContent ?? {};
    if (outcome.ok) {
      const localHash = await bodyHash(before);
      switch (outcome.status) {
        case "pushed":
          if (patches(step) !== 1) this.fail(`${label} reported pushed after ${patches(step)} PATCH requests`);
          if (this.remote() !== before) this.fail(`${label} reported pushed but HackMD holds a different body`);
          if ((await this.visible()) !== before)
            this.fail(`${label} reported pushed but HackMD does not show the body (never confirmed)`);
          if (out.body_hash !== localHash)
            this.fail(`${label} reported body_hash ${String(out.body_hash)} for a local body hashing to ${localHash}`);
          this.expectedBaselineHash = localHash;
          break;
        case "nothing_to_push":
          this.expectNoPatch(step, `${label} (nothing_to_push)`);
          if (out.body_hash !== localHash)
            this.fail(`${label} reported nothing_to_push with body_hash ${String(out.body_hash)} ≠ local ${localHash}`);
          this.expectedBaselineHash = localHash;
          break;
        case "remote_changed":
          this.expectNoPatch(step, `${label} (remote_changed)`);
          break;
        case "conflict": {
          this.expectNoPatch(step, `${label} (conflict)`);
          if (typeof out.snapshot_path !== "string")
            this.fail(`${label} conflict wrote no snapshot: ${String(out.snapshot_error)}`);
          const snapshot = await this.snapshot();
          if (snapshot === undefined || (await bodyHash(snapshot)) !== out.remote_body_hash)
            this.fail(`${label} conflict: the snapshot does not hold the reported remote body`);
          break;
        }
        default:
          this.fail(`${label} reported an unknown status ${outcome.status}`);
      }
    }
    this.trace.push(`${label}: ${describe(step.result)}`);
    return outcome.ok && outcome.status === "conflict"
      ? { ...outcome, remoteHash: String(out.remote_body_hash) }
      : outcome;
  }

  /**
   * The user resolves the last conflict: folds the snapshot's lines in and pushes with its hash.
   * With `collaboratorRace`, a collaborator edits the note while the user is merging.
   */
  async mergePush(remoteHash: string, collaboratorRace = false): Promise<WriteOutcome> {
    const snapshot = await this.snapshot();
    if (snapshot === undefined) this.fail("a conflict was reported but there is no snapshot to merge");
    const merged = unionLines(await this.local(), snapshot ?? "");
    await mkdir(dirname(join(this.root, FILE)), { recursive: true });
    await writeFile(join(this.root, FILE), merged);
    this.trace.push("merged the snapshot into the working file");
    if (collaboratorRace) this.collaboratorEdit("end");
    return this.push(remoteHash);
  }

  /** A pull over the tracked file without `discard_local_changes` (may be refused). */
  async pull(): Promise<void> {
    const before = await this.local();
    const step = await this.call("hackmd_pull_note", { note_ref: NOTE_ID, local_path: FILE, overwrite_local: true });
    this.expectNoPatch(step, "a pull");
    const after = await this.local();
    if (step.result.isError) {
      if (after !== before) this.fail(`a refused pull (${describe(step.result)}) changed the working file`);
    } else {
      const hash = String(step.result.structuredContent?.body_hash);
      if ((await bodyHash(after)) !== hash) this.fail("the pulled file does not hold the body the pull reported");
      this.expectedBaselineHash = hash;
    }
    this.trace.push(`pull: ${describe(step.result)}`);
  }

  /**
   * Sync-all (src/sync/sync-all.ts) over every tracked note — here the one note — as the plugin
   * and the `sync` command run it, checked with the rules of `push` and `pull`.
   */
  async syncAll(): Promise<WriteOutcome> {
    const before = await this.local();
    const since = this.env.emu.requests().at(-1)?.seq ?? 0;
    const result = await syncAll(this.core.deps);
    const step: Step = { result: { content: [] }, requests: this.env.emu.requests({ since }) };
    if (commits(step) > 1) this.fail("sync-all committed more than one write to the note");
    const item = result.items.find((entry) => entry.note_id === NOTE_ID);
    if (item === undefined || result.items.length !== 1)
      this.fail(`sync-all reported ${result.items.length} items for one tracked note`);
    const after = await this.local();
    // A merge writes the file before its PATCH, so a merge whose PATCH then failed leaves the merged text:
    // allowed only if it kept every line the file had.
    const mergedThenFailed =
      item.outcome === "error" && before.split("\n").every((line) => after.split("\n").includes(line));
    if (item.outcome !== "pulled" && item.outcome !== "merged" && !mergedThenFailed && after !== before)
      this.fail(`sync-all (${item.outcome}) changed the working file`);
    if (["unchanged", "pulled", "baseline_advanced", "conflict"].includes(item.outcome))
      this.expectNoPatch(step, `sync-all (${item.outcome})`);
    this.trace.push(`sync-all: ${item.outcome}${item.error_kind === undefined ? "" : ` ${item.error_kind}`}`);
    const localHash = await bodyHash(after);
    switch (item.outcome) {
      case "pushed":
        if (patches(step) !== 1) this.fail(`sync-all reported pushed after ${patches(step)} PATCH requests`);
        if (this.remote() !== before || (await this.visible()) !== before)
          this.fail("sync-all reported pushed but HackMD does not hold and show the local body");
        this.expectedBaselineHash = localHash;
        return { ok: true, status: "pushed" };
      case "merged":
        // Both sides' edits in the file, and HackMD holds and shows exactly the file (one PATCH at most).
        if (this.remote() !== after || (await this.visible()) !== after)
          this.fail("sync-all reported merged but HackMD does not hold and show the merged file");
        this.expectedBaselineHash = localHash;
        return { ok: true, status: "pushed" };
      case "pulled":
      case "baseline_advanced":
        this.expectedBaselineHash = localHash;
        return { ok: true, status: item.outcome };
      case "unchanged": {
        // An identical body may refresh the record (baseline = that body = the file).
        const baseline = await bodyHash(await readFile(join(this.root, `${TRACKED}.baseline.md`), "utf8"));
        if (baseline === localHash) this.expectedBaselineHash = localHash;
        return { ok: true, status: "unchanged" };
      }
      case "conflict": {
        const snapshot = await this.snapshot();
        if (
          item.snapshot_path === undefined ||
          snapshot === undefined ||
          (await bodyHash(snapshot)) !== item.remote_body_hash
        ) {
          this.fail("sync-all reported a conflict without a snapshot of the reported remote body");
        }
        return { ok: true, status: "conflict", remoteHash: String(item.remote_body_hash) };
      }
      case "error":
      case "skipped": {
        const kind = item.error_kind ?? "unknown";
        if (NOT_WRITTEN_KINDS.has(kind) && commits(step) > 0)
          this.fail(`sync-all reported ${kind} (nothing written) but HackMD committed its PATCH`);
        return { ok: false, kind, unknown: patches(step) > 0 && !NOT_WRITTEN_KINDS.has(kind) };
      }
      default:
        return this.fail(`sync-all reported ${item.outcome} for a note and file that both exist`);
    }
  }

  /**
   * Drives the documented workflow to a fixed point with faults off (push; on conflict merge the
   * snapshot and push with its hash; on remote_changed pull), then requires every edit ever made
   * on both sides.
   */
  async reconcile(): Promise<void> {
    this.env.emu.clearFaults();
    this.env.emu.setQuirks({ visibilityDelayMs: 0 });
    // Past the engine's memory of unconfirmed writes too: a write that never landed blocks the
    // next write to its note until then (the refusal tells the caller to wait that long).
    this.env.clock.advance(Math.max(SETTLE_MS, PENDING_WRITE_HORIZON_MS));
    this.trace.push("reconcile");
    let conflictHash: string | undefined;
    for (let round = 0; ; round++) {
      if (round === 6) this.fail("reconcile did not converge in 6 rounds");
      const outcome = conflictHash === undefined ? await this.push() : await this.mergePush(conflictHash);
      await this.checkInvariants("reconcile");
      if (!outcome.ok) this.fail(`reconcile: a push failed without faults (${outcome.kind})`);
      if (outcome.status === "pushed" || outcome.status === "nothing_to_push") break;
      conflictHash = outcome.remoteHash;
      if (outcome.status === "remote_changed") {
        await this.pull();
        await this.checkInvariants("reconcile pull");
      }
    }
    const [local, remote] = [await this.local(), this.remote()];
    if (local !== remote) this.fail("after reconcile the working file and HackMD differ");
    for (const [marker, origin] of this.required) {
      if (!local.includes(marker)) this.fail(`after reconcile the ${origin} ${marker} is missing from both sides`);
    }
  }

  // ---------------------------------------------------------------- invariants

  /**
   * After every step: (1) every edit made is in the working file, HackMD's committed body or the
   * snapshot; (2) the baseline is a body HackMD committed and the one the engine last reported as
   * pulled or pushed, and the record's hash matches it.
   */
  async checkInvariants(after: string): Promise<void> {
    const remote = this.remote();
    this.committedHistory.add(await bodyHash(remote));
    const local = await this.local();
    const snapshot = (await this.snapshot()) ?? "";
    for (const [marker, origin] of this.required) {
      if (!local.includes(marker) && !remote.includes(marker) && !snapshot.includes(marker)) {
        this.fail(`after ${after}: the ${origin} ${marker} is in neither the working file, HackMD nor the snapshot`);
      }
    }
    const baseline = await readFile(join(this.root, `${TRACKED}.baseline.md`), "utf8");
    const baselineHash = await bodyHash(baseline);
    if (baselineHash !== this.expectedBaselineHash) {
      this.fail(
        `after ${after}: the baseline hashes to ${baselineHash}, but the engine last reported ${this.expectedBaselineHash} as pulled or pushed`,
      );
    }
    if (!this.committedHistory.has(baselineHash))
      this.fail(`after ${after}: the baseline holds a body HackMD never committed`);
    const record = JSON.parse(await readFile(join(this.root, `${TRACKED}.json`), "utf8")) as {
      baseline_body_hash?: unknown;
    };
    if (record.baseline_body_hash !== baselineHash)
      this.fail(`after ${after}: the record's baseline_body_hash does not match the baseline file`);
  }

  /** Throws with the trace of the case. */
  fail(message: string): never {
    throw new Error(`${message}\n  trace:\n    ${this.trace.join("\n    ")}`);
  }

  // ---------------------------------------------------------------- plumbing

  private async call(name: string, args: Record<string, unknown>): Promise<Step> {
    const since = this.env.emu.requests().at(-1)?.seq ?? 0;
    const result = (await this.client.callTool({ name, arguments: args })) as CallResult;
    const requests = this.env.emu.requests({ since });
    if (commits({ result, requests }) > 1) this.fail(`${name} committed more than one write`);
    return { result, requests };
  }

  /** Classifies a write's result and checks that refusals wrote nothing. */
  private writeOutcome(step: Step, label: string): WriteOutcome {
    if (!step.result.isError) return { ok: true, status: text(step.result.structuredContent?.status, "patched") };
    const kind = errorKindOf(step.result);
    if (NOT_WRITTEN_KINDS.has(kind) && commits(step) > 0)
      this.fail(`${label} reported ${kind} (nothing written) but HackMD committed its PATCH`);
    return { ok: false, kind, unknown: patches(step) > 0 && !NOT_WRITTEN_KINDS.has(kind) };
  }

  private expectNoPatch(step: Step, label: string): void {
    if (patches(step) > 0) this.fail(`${label} sent ${patches(step)} PATCH requests`);
  }
}

function patches(step: Step): number {
  return step.requests.filter((entry) => entry.method === "PATCH").length;
}

/** Committed writes to the note; a named version made before an overwrite keeps text, it writes none. */
function commits(step: Step): number {
  return step.requests.filter((entry) => entry.committed && entry.route !== "POST /notes/:noteId/versions").length;
}

/** A string field of a tool result, or the fallback. */
function text(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

function errorKindOf(result: CallResult): string {
  return text(result._meta?.error_kind, "unknown");
}

/** A one-line summary of a tool result for the trace. */
function describe(result: CallResult): string {
  if (result.isError) return `error ${errorKindOf(result)}`;
  const out = result.structuredContent ?? {};
  return text(out.status, text(out.mode, "ok"));
}
