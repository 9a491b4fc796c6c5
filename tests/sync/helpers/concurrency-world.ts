/**
 * The system under test of the concurrency harness (tests/sync/concurrency.test.ts): two cores
 * (the plugin's, "A", and the standalone command's, "B") over ONE ROOT and one state folder, each
 * with its own MCP client over the in-memory transport, against the shared emulator; 2–3 tracked
 * notes; and the ground truth the invariants are checked against: every body HackMD committed
 * (and who wrote it), every body a read showed (and who read it), every edit made and whether
 * its actor was told it succeeded.
 *
 * Every port of both cores waits at a gate of tests/sync/helpers/scheduled-ports.ts, so the
 * operations the actors start at once interleave at the granularity of single requests, file
 * operations and sleeps, in an order fast-check's scheduler chooses.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type fc from "fast-check";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { isBridgeError } from "../../../src/core/errors";
import { bodyHash } from "../../../src/core/hash";
import { unavailableImageFetcher } from "../../../src/core/image";
import { remoteSnapshotPath } from "../../../src/core/paths";
import { silentLogger } from "../../../src/core/ports";
import type { HttpRequest, HttpResponse } from "../../../src/core/ports";
import { DEMO_NOTE_IDS } from "../../../src/emulator";
import { CallContext } from "../../../src/hackmd/call-context";
import { createClientConfig } from "../../../src/hackmd/config";
import { PENDING_WRITE_HORIZON_MS } from "../../../src/hackmd/pending-writes";
import { createBridgeCore, type BridgeCore } from "../../../src/mcp/core";
import { createMcpServer } from "../../../src/mcp/server";
import { NodeHttpTransport } from "../../../src/node/http-transport";
import { NodeLocalFiles } from "../../../src/node/local-files";
import { recordKey } from "../../../src/sync/store";
import { LocalHashCache, syncAll, type SyncAllItem } from "../../../src/sync/sync-all";
import type { PushResult } from "../../../src/sync/types";
import type { CallResult } from "../../helpers/bridge";
import { addLine, FAULTS, SETTLE_MS, unionLines, type FaultKind, type SharedEnvironment } from "./reliability-world";
import {
  actorContext,
  Gates,
  GatedFiles,
  GatedTransport,
  gatedSleep,
  noteIdOf,
  type ActorContext,
  type TransportObserver,
} from "./scheduled-ports";

/** A note the user tracks, its working file as first pulled. */
export interface NoteSpec {
  name: string;
  id: string;
  file: string;
}

/** The notes a schedule may track (personal notes of the demo seed); a schedule takes 2 or 3. */
export const ALL_NOTES: readonly NoteSpec[] = [
  { name: "reading", id: DEMO_NOTE_IDS.readingList, file: "Notes/reading.md" },
  { name: "weekly", id: DEMO_NOTE_IDS.weeklySync, file: "Notes/weekly.md" },
  { name: "cs101", id: DEMO_NOTE_IDS.cs101, file: "Notes/cs101.md" },
];

/** The two cores: the plugin's and the standalone command's. */
export type CoreName = "A" | "B";

/** One operation of one actor, as fast-check generates it. `note` is taken modulo the notes. */
export type OpSpec =
  /** The user types a unique line at the start or the end of the working file. */
  | { kind: "edit"; note: number; at: "start" | "end" }
  /** A collaborator types a unique line in HackMD's editor, at the start or the end. */
  | { kind: "collab"; note: number; at: "start" | "end" }
  /** Pull the tracked file (overwrite_local, never discard). */
  | { kind: "pull"; note: number; core: CoreName; fault: FaultKind | null }
  /** A safe push of the tracked file. */
  | { kind: "push"; note: number; core: CoreName; fault: FaultKind | null }
  /**
   * The plugin's "sync file": a sync check, then push or pull; on conflict a push with strategy
   * merge, which merges edits that do not overlap and otherwise reports the conflict.
   */
  | { kind: "syncFile"; note: number; core: CoreName; fault: FaultKind | null }
  /** Fold the last conflict's snapshot into the file and push with its hash (push first if none). */
  | { kind: "merge"; note: number; core: CoreName; fault: FaultKind | null }
  /** Sync all tracked notes (src/sync/sync-all.ts), with the core's hash cache. */
  | { kind: "syncAll"; core: CoreName; fault: FaultKind | null }
  /** The user renames the working file; the plugin follows it while a pull of the old path runs. */
  | { kind: "rename"; note: number; pullCore: CoreName }
  /** The agent reads the note (its body_hash becomes the agent's "stale" expected_hash). */
  | { kind: "agentGet"; note: number; core: CoreName }
  /** The agent appends a unique line with a patch (expected_hash: none, a fresh read, or stale). */
  | { kind: "agentPatch"; note: number; core: CoreName; expected: "none" | "fresh" | "stale"; fault: FaultKind | null }
  /** The agent reads the note and replaces the whole body with it plus a unique line (expected_hash). */
  | { kind: "agentUpdate"; note: number; core: CoreName; fault: FaultKind | null }
  /** The agent pushes the file at the path it knows (the first path, even after a rename). */
  | { kind: "agentPush"; note: number; core: CoreName; strategy: "safe" | "merge"; fault: FaultKind | null }
  /** The agent pulls the note to the path it knows (the first path, even after a rename). */
  | { kind: "agentPull"; note: number; core: CoreName }
  /** The agent asks for the sync state of the path it knows. */
  | { kind: "agentCheck"; note: number; core: CoreName };

/** The actors, each running its operations one after another, all actors at once. */
export interface SchedulePlan {
  noteCount: 2 | 3;
  /** Visibility delay of HackMD's writes (ms, virtual) and its scope. */
  visibility: [number, "all" | "content"];
  user: OpSpec[];
  agent: OpSpec[];
  collaborator: OpSpec[];
  /** The user's second core: the standalone command run beside the plugin. */
  cli: OpSpec[];
}

/** One edit: a unique line, who made it, and whether its actor was told it succeeded. */
interface Marker {
  note: NoteSpec;
  actor: string;
  told: boolean;
}

/** Who made a commit or a read. */
interface Who {
  op: string;
  core: string;
  label: string;
}

/** A body HackMD committed for a note. */
interface Commit {
  seq: number;
  content: string;
  /** `collaborator` for a web-editor edit, `seed` for the first body. */
  by: Who | "collaborator" | "seed";
}

/** A body a read showed to an operation. */
interface Seen {
  seq: number;
  op: string;
  noteId: string;
  content: string;
}

/** What an invariant check found. */
export interface Violation {
  /** lost: gone everywhere; stranded: only in a file no record names. */
  kind: "lost" | "stranded" | "unconfirmed_baseline" | "views" | "untracked" | "error" | "reconcile";
  message: string;
}

/** A loss HackMD's lack of a conditional write explains: two writers' read→write windows overlapped across cores. */
export interface InherentLoss {
  marker: string;
  why: string;
}

const HARNESS: Who = { op: "harness", core: "A", label: "harness" };
const STATE_FOLDER = ".hackmd-bridge";
const MARKER = /~[LRA]\d+~/g;
const TEMP_PARENT = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
const decoder = new TextDecoder();

/** A core with its MCP client. */
interface CoreHandle {
  name: CoreName;
  core: BridgeCore;
  client: Client;
  hashCache: LocalHashCache;
  close: () => Promise<void>;
}

/** The unique lines in a text, for the trace. */
function markersIn(text: string): string {
  const found = text.match(MARKER) ?? [];
  return found.length === 0 ? "[]" : `[${found.join(" ")}]`;
}

function describeError(error: unknown): string {
  if (isBridgeError(error)) return `error ${error.kind}`;
  return `THREW ${error instanceof Error ? error.message : String(error)}`;
}

function kindOf(result: CallResult): string {
  const kind = result._meta?.error_kind;
  return typeof kind === "string" ? kind : "unknown";
}

/** The name of an operation for traces and counterexamples. */
export function describeOp(spec: OpSpec, notes: readonly NoteSpec[] = ALL_NOTES): string {
  const note = "note" in spec ? (notes[spec.note % notes.length]?.name ?? "?") : "";
  const fault = "fault" in spec && spec.fault !== null ? ` +${spec.fault}` : "";
  switch (spec.kind) {
    case "edit":
      return `LocalEdit(${note}, ${spec.at})`;
    case "collab":
      return `CollaboratorEdit(${note}, ${spec.at})`;
    case "syncAll":
      return `${spec.core}:SyncAll${fault}`;
    case "rename":
      return `Rename(${note}) with a pull on ${spec.pullCore}`;
    case "agentPatch":
      return `${spec.core}:AgentPatch(${note}, expected ${spec.expected})${fault}`;
    case "agentPush":
      return `${spec.core}:AgentPush(${note}, ${spec.strategy})${fault}`;
    default: {
      const name = spec.kind.charAt(0).toUpperCase() + spec.kind.slice(1);
      return `${spec.core}:${name}(${note})${fault}`;
    }
  }
}

/** One schedule's world. */
export class ConcurrentWorld implements TransportObserver {
  readonly gates: Gates;
  readonly violations: Violation[] = [];
  readonly inherent: InherentLoss[] = [];
  /**
   * Files the product told the user are no longer tracked, with their text kept: a rename target
   * when the other core pulled the note to the old path meanwhile (followRename answered
   * `recreated`; the plugin shows a notice), or the file a pull moved the record away from while
   * the user typed into it (the pull's error says so). An edit kept only there is reported, not lost.
   */
  private readonly reportedRenames = new Set<string>();

  /** Remembers the file an error names as "no longer tracked". */
  private noteReported(message: string): void {
    for (const match of message.matchAll(/(\S+\.md) (?:was edited meanwhile and )?is no longer tracked/g))
      if (match[1] !== undefined) this.reportedRenames.add(match[1]);
  }
  readonly trace: string[] = [];
  /** Edits that were made: marker → what it is. */
  private readonly markers = new Map<string, Marker>();
  private readonly commits = new Map<string, Commit[]>();
  private readonly seen: Seen[] = [];
  private readonly shown = new Map<string, Set<string>>();
  /** Where the user's working file of each note is (renames move it). */
  private readonly userPath = new Map<string, string>();
  private readonly conflictHash = new Map<string, string>();
  private readonly agentSeen = new Map<string, string>();
  private readonly cores = new Map<CoreName, CoreHandle>();
  private seq = 0;
  private markerCount = 0;
  /** Edits found lost or stranded, and notes found with a bad baseline, at either check. */
  private readonly lostMarkers = new Set<string>();
  private readonly badBaselines = new Set<string>();
  /** Notes whose reconcile stopped early (their final state is not required to converge). */
  private readonly unreconciled = new Set<string>();

  private constructor(
    readonly env: SharedEnvironment,
    readonly root: string,
    readonly notes: readonly NoteSpec[],
    private readonly ignored: ReadonlySet<string>,
  ) {
    this.gates = new Gates(env.clock);
  }

  /** Resets the emulator, builds both cores over a fresh ROOT and pulls every note (unscheduled). */
  static async open(
    env: SharedEnvironment,
    plan: SchedulePlan,
    ignored: ReadonlySet<string> = new Set(),
  ): Promise<ConcurrentWorld> {
    env.emu.reset("demo");
    const root = await mkdtemp(join(TEMP_PARENT, "hb-concurrency-"));
    const world = new ConcurrentWorld(env, root, ALL_NOTES.slice(0, plan.noteCount), ignored);
    for (const note of world.notes) {
      world.commits.set(note.id, [{ seq: 0, content: world.committed(note.id), by: "seed" }]);
      world.shown.set(note.id, new Set([world.committed(note.id)]));
      world.userPath.set(note.name, note.file);
    }
    for (const name of ["A", "B"] as const) world.cores.set(name, await world.startCore(name));
    for (const note of world.notes) {
      const pulled = await world.core("A").deps.sync.pull({
        localPath: note.file,
        resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: null, noteId: note.id }),
        overwriteLocal: false,
        discardLocalChanges: false,
        createParentDirs: true,
        confirmLargeFile: false,
        call: new CallContext(),
      });
      if (pulled.kind !== "pulled") throw new Error(`the first pull of ${note.name} did not resolve`);
    }
    const [delayMs, scope] = plan.visibility;
    env.emu.setQuirks({ visibilityDelayMs: delayMs, visibilityScope: scope });
    world.trace.push(`visibility ${delayMs} ms (${scope}); notes ${world.notes.map((note) => note.name).join(", ")}`);
    return world;
  }

  private async startCore(name: CoreName): Promise<CoreHandle> {
    const { emu, clock } = this.env;
    const token = emu.token;
    const files = new GatedFiles(await NodeLocalFiles.open({ root: this.root }), this.gates, (path, data) =>
      this.fileWritten(path, data),
    );
    const core = createBridgeCore({
      transport: new GatedTransport(new NodeHttpTransport(), this.gates, this),
      config: createClientConfig({ apiUrl: emu.url, tokenHint: "set HACKMD_API_TOKEN" }),
      secrets: { getToken: () => token },
      files,
      images: unavailableImageFetcher,
      clock,
      sleep: gatedSleep(this.gates, clock),
      random: () => 0,
      logger: silentLogger,
    });
    const server = createMcpServer(core.mcpHost({ name: "hackmd-bridge", version: "test", secrets: () => [token] }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: `concurrency-${name}`, version: "1" });
    await client.connect(clientSide);
    return {
      name,
      core,
      client,
      hashCache: new LocalHashCache(),
      close: async () => {
        await client.close();
        await server.close();
      },
    };
  }

  /** Closes both MCP pairs and removes the ROOT (the emulator stays for the next schedule). */
  async close(): Promise<void> {
    for (const handle of this.cores.values()) await handle.close();
    await rm(this.root, { recursive: true, force: true });
  }

  private core(name: CoreName): BridgeCore {
    const handle = this.cores.get(name);
    if (!handle) throw new Error(`no core ${name}`);
    return handle.core;
  }

  private handle(name: CoreName): CoreHandle {
    const handle = this.cores.get(name);
    if (!handle) throw new Error(`no core ${name}`);
    return handle;
  }

  private noteOf(index: number): NoteSpec {
    const note = this.notes[index % this.notes.length];
    if (!note) throw new Error("no notes");
    return note;
  }

  // ---------------------------------------------------------------- ground truth

  /** The note's committed body (visibility ignored). */
  committed(noteId: string): string {
    const note = this.env.emu.inspect().notes.find((entry) => entry.id === noteId);
    if (!note) throw new Error(`note ${noteId} vanished from the emulator`);
    return note.content;
  }

  beforeRequest(): void {
    // Nothing to note before the request: the commit is seen after it.
  }

  afterRequest(request: HttpRequest, response: HttpResponse | undefined): void {
    const noteId = noteIdOf(request.url);
    if (noteId === undefined || !this.commits.has(noteId)) return;
    const who = this.who();
    if (request.method === "GET" && response?.status === 200) {
      const note = JSON.parse(decoder.decode(response.body)) as { content?: unknown };
      if (typeof note.content === "string") {
        this.seen.push({ seq: ++this.seq, op: who.op, noteId, content: note.content });
        this.shown.get(noteId)?.add(note.content);
      }
    }
    if (request.method === "PATCH") this.noteCommit(noteId, who);
  }

  private who(): Who {
    const context: ActorContext | undefined = actorContext.getStore();
    return context === undefined ? HARNESS : { op: context.op, core: context.core, label: context.label };
  }

  /** Records the committed body of a note when it changed. */
  private noteCommit(noteId: string, by: Commit["by"]): void {
    const list = this.commits.get(noteId);
    const content = this.committed(noteId);
    if (!list || list.at(-1)?.content === content) return;
    list.push({ seq: ++this.seq, content, by });
    const name = this.notes.find((note) => note.id === noteId)?.name ?? noteId;
    const author = typeof by === "string" ? by : `${by.core}#${by.op}`;
    this.trace.push(`  HackMD ${name} ← ${author}: ${markersIn(content)}`);
  }

  private fileWritten(path: string, data: Uint8Array | string): void {
    if (!path.endsWith(".md")) return;
    const who = this.who();
    this.trace.push(
      `  ${who.core}#${who.op} wrote ${path}: ${markersIn(typeof data === "string" ? data : decoder.decode(data))}`,
    );
  }

  private marker(prefix: "L" | "R" | "A"): string {
    this.markerCount += 1;
    return `~${prefix}${this.markerCount}~`;
  }

  private abs(path: string): string {
    return join(this.root, path);
  }

  // ---------------------------------------------------------------- the schedule

  /** Runs every actor's operations at once under `scheduler`; returns how many gates opened. */
  async run(scheduler: fc.Scheduler, plan: SchedulePlan, maxSteps: number): Promise<number> {
    const lanes: Array<[string, OpSpec[]]> = [
      ["user", plan.user],
      ["agent", plan.agent],
      ["collaborator", plan.collaborator],
      ["cli", plan.cli],
    ];
    let count = 0;
    const numbered = lanes.map(([actor, ops]) => ops.map((spec) => ({ actor, spec, op: String(++count) })));
    this.gates.start(scheduler);
    const runs = numbered.map(async (lane) => {
      for (const { actor, spec, op } of lane) {
        const core = "core" in spec ? spec.core : "A";
        const label = `${actor} ${describeOp(spec, this.notes)}`;
        await actorContext.run({ op, core, label }, async () => {
          await this.gates.pass(`start ${label}`);
          this.trace.push(`#${op} ${label}: start`);
          let outcome: string;
          try {
            outcome = await this.perform(spec, op);
          } catch (error) {
            outcome = describeError(error);
            this.noteReported(error instanceof Error ? error.message : "");
            if (!isBridgeError(error) || error.kind === "internal") this.violate("error", `#${op} ${label} ${outcome}`);
          }
          this.trace.push(`#${op} ${label}: ${outcome}`);
        });
      }
    });
    const all = Promise.all(runs);
    try {
      return await this.gates.drive(scheduler, all, maxSteps);
    } finally {
      // After a hang, open whatever still waits so no operation outlives its schedule.
      this.gates.stop();
      while (scheduler.count() > 0) await scheduler.waitNext(1);
      await all.catch(() => undefined);
    }
  }

  /** Runs one operation; returns what it reported, for the trace. */
  private async perform(spec: OpSpec, op: string): Promise<string> {
    if ("fault" in spec && spec.fault !== null) this.env.emu.injectFault(FAULTS[spec.fault]);
    switch (spec.kind) {
      case "edit":
        return this.localEdit(this.noteOf(spec.note), spec.at);
      case "collab":
        return this.collaboratorEdit(this.noteOf(spec.note), spec.at);
      case "pull":
        return this.pull(spec.core, this.noteOf(spec.note), this.pathOf(this.noteOf(spec.note)));
      case "push":
        return this.push(spec.core, this.noteOf(spec.note));
      case "syncFile":
        return this.syncFile(spec.core, this.noteOf(spec.note));
      case "merge":
        return this.mergePush(spec.core, this.noteOf(spec.note));
      case "syncAll":
        return this.syncAll(spec.core);
      case "rename":
        return this.renameDuringPull(this.noteOf(spec.note), spec.pullCore, op);
      case "agentGet":
        return this.agentGet(spec.core, this.noteOf(spec.note));
      case "agentPatch":
        return this.agentPatch(spec.core, this.noteOf(spec.note), spec.expected);
      case "agentUpdate":
        return this.agentUpdate(spec.core, this.noteOf(spec.note));
      case "agentPush":
        return this.agentCall(
          spec.core,
          "hackmd_push_note",
          { local_path: this.noteOf(spec.note).file, strategy: spec.strategy },
          this.noteOf(spec.note),
        );
      case "agentPull":
        return this.agentCall(
          spec.core,
          "hackmd_pull_note",
          {
            note_ref: this.noteOf(spec.note).id,
            local_path: this.noteOf(spec.note).file,
            overwrite_local: true,
            create_parent_dirs: true,
          },
          this.noteOf(spec.note),
        );
      case "agentCheck":
        return this.agentCall(
          spec.core,
          "hackmd_get_note",
          { local_path: this.noteOf(spec.note).file },
          this.noteOf(spec.note),
        );
    }
  }

  private pathOf(note: NoteSpec): string {
    return this.userPath.get(note.name) ?? note.file;
  }

  // ---------------------------------------------------------------- user and collaborator

  /** The user types a unique line into the working file (one atomic save). */
  private async localEdit(note: NoteSpec, at: "start" | "end"): Promise<string> {
    const path = this.pathOf(note);
    const marker = this.marker("L");
    const typed = await this.gates.io(null, async () => {
      let text: string;
      try {
        text = await readFile(this.abs(path), "utf8");
      } catch {
        return false;
      }
      await writeFile(this.abs(path), addLine(text, marker, at));
      return true;
    });
    if (!typed) return `no file at ${path}, nothing typed`;
    this.markers.set(marker, { note, actor: "user", told: true });
    return `typed ${marker} into ${path}`;
  }

  /** A collaborator types a unique line in HackMD's editor (committed and shown at once). */
  private collaboratorEdit(note: NoteSpec, at: "start" | "end"): string {
    const marker = this.marker("R");
    this.env.emu.collaboratorEdit(note.id, { content: addLine(this.committed(note.id), marker, at) });
    this.markers.set(marker, { note, actor: "collaborator", told: true });
    this.noteCommit(note.id, "collaborator");
    return `typed ${marker}`;
  }

  private pull(core: CoreName, note: NoteSpec, path: string): Promise<string> {
    return this.pullCounted(core, note, path);
  }

  private async pullCounted(core: CoreName, note: NoteSpec, path: string): Promise<string> {
    const result = await this.core(core).deps.sync.pull({
      localPath: path,
      resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: null, noteId: note.id }),
      overwriteLocal: true,
      discardLocalChanges: false,
      createParentDirs: true,
      confirmLargeFile: false,
      call: new CallContext(),
    });
    if (result.kind !== "pulled") return result.kind;
    this.followPull(note, result.output.local_path);
    return `pulled to ${result.output.local_path}`;
  }

  /** After a pull the user works in the file the note is now tracked in (the status bar shows it). */
  private followPull(note: NoteSpec, path: string): void {
    this.userPath.set(note.name, path);
  }

  private async push(
    core: CoreName,
    note: NoteSpec,
    expectedRemoteHash?: string,
    strategy: "safe" | "merge" = "safe",
  ): Promise<string> {
    const result = await this.core(core).deps.sync.push({
      localPath: this.pathOf(note),
      strategy,
      confirm: false,
      confirmLargeFile: false,
      ...(expectedRemoteHash === undefined ? {} : { expectedRemoteHash }),
      call: new CallContext(),
    });
    return this.pushed(note, result);
  }

  private pushed(note: NoteSpec, result: PushResult): string {
    if (result.kind !== "pushed") return result.kind;
    const out = result.output;
    if (out.status === "conflict" && out.remote_body_hash !== undefined)
      this.conflictHash.set(note.name, out.remote_body_hash);
    if (out.status === "pushed") this.conflictHash.delete(note.name);
    return (
      out.status + (out.merged === true ? " (merged)" : "") + (out.snapshot_error === undefined ? "" : " (no snapshot)")
    );
  }

  private async syncFile(core: CoreName, note: NoteSpec): Promise<string> {
    const check = await this.core(core).deps.sync.check({ localPath: this.pathOf(note), call: new CallContext() });
    switch (check.status) {
      case "in_sync":
        return "in_sync";
      case "local_changed":
        return `local_changed → ${await this.push(core, note)}`;
      case "remote_changed":
        return `remote_changed → ${await this.pull(core, note, this.pathOf(note))}`;
      case "conflict":
        return `conflict → ${await this.push(core, note, undefined, "merge")}`;
    }
  }

  /** Folds the last conflict's snapshot into the working file (one atomic save), then pushes with its hash. */
  private async mergePush(core: CoreName, note: NoteSpec): Promise<string> {
    let prefix = "";
    if (!this.conflictHash.has(note.name)) {
      prefix = `push → ${await this.push(core, note)}`;
      if (!this.conflictHash.has(note.name)) return prefix;
      prefix += ", ";
    }
    const expected = this.conflictHash.get(note.name) ?? "";
    const path = this.pathOf(note);
    const merged = await this.gates.io("user merges the snapshot", async () => {
      try {
        const [local, snapshot] = [
          await readFile(this.abs(path), "utf8"),
          await readFile(this.abs(remoteSnapshotPath(path)), "utf8"),
        ];
        await writeFile(this.abs(path), unionLines(local, snapshot));
        return true;
      } catch {
        return false;
      }
    });
    if (!merged) return `${prefix}no file or snapshot to merge`;
    return `${prefix}merged, push → ${await this.push(core, note, expected)}`;
  }

  private async syncAll(core: CoreName): Promise<string> {
    const handle = this.handle(core);
    const result = await syncAll(handle.core.deps, { hashCache: handle.hashCache, call: new CallContext() });
    for (const item of result.items) {
      const note = this.notes.find((entry) => entry.id === item.note_id);
      if (note && item.outcome === "conflict" && item.remote_body_hash !== undefined)
        this.conflictHash.set(note.name, item.remote_body_hash);
      if (item.outcome === "error" && item.error_kind === "internal")
        this.violate("error", `sync-all reported internal for ${item.local_path}: ${item.message ?? ""}`);
    }
    return result.items
      .map(
        (item) => `${this.nameOf(item)} ${item.outcome}${item.error_kind === undefined ? "" : ` ${item.error_kind}`}`,
      )
      .join(", ");
  }

  private nameOf(item: SyncAllItem): string {
    return this.notes.find((note) => note.id === item.note_id)?.name ?? item.note_id;
  }

  /**
   * The user renames the working file (the vault's rename) and the plugin follows it
   * (followRename on core A, as src/obsidian/rename-tracking.ts does), while a pull of the old
   * path, started at the same moment, runs on `pullCore`.
   */
  private async renameDuringPull(note: NoteSpec, pullCore: CoreName, op: string): Promise<string> {
    const from = this.pathOf(note);
    const to = from.replace(/\.md$/, `-${op}.md`);
    const renaming = actorContext.run({ op, core: "A", label: `rename ${from} → ${to}` }, () =>
      this.renameAndFollow(note, from, to),
    );
    const pulling = actorContext.run(
      { op: `${op}p`, core: pullCore, label: `pull ${from} during the rename` },
      async () => {
        try {
          return await this.pull(pullCore, note, from);
        } catch (error) {
          this.noteReported(error instanceof Error ? error.message : "");
          if (!isBridgeError(error) || error.kind === "internal")
            this.violate("error", `#${op}p pull during the rename ${describeError(error)}`);
          return describeError(error);
        }
      },
    );
    const [renamed, pulled] = await Promise.all([renaming, pulling]);
    return `${renamed}; pull on ${pullCore}: ${pulled}`;
  }

  /** The vault's rename, then the plugin's followRename on core A. */
  private async renameAndFollow(note: NoteSpec, from: string, to: string): Promise<string> {
    {
      const renamed = await this.gates.io(`rename ${from} → ${to}`, async () => {
        try {
          await rename(this.abs(from), this.abs(to));
          return true;
        } catch {
          return false;
        }
      });
      if (!renamed) return `no file at ${from}`;
      this.userPath.set(note.name, to);
      this.trace.push(`  renamed ${from} → ${to}`);
      const followed = await this.core("A").deps.sync.followRename({ from, to });
      if (followed === "recreated") this.reportedRenames.add(to);
      return followed === "followed" ? "record followed" : `record NOT followed (${followed})`;
    }
  }

  // ---------------------------------------------------------------- the agent (MCP)

  private async call(core: CoreName, name: string, args: Record<string, unknown>): Promise<CallResult> {
    return (await this.handle(core).client.callTool({ name, arguments: args })) as CallResult;
  }

  private describeResult(result: CallResult): string {
    if (result.isError) return `error ${kindOf(result)}`;
    const out = result.structuredContent ?? {};
    return typeof out.status === "string" ? out.status : typeof out.mode === "string" ? out.mode : "ok";
  }

  private async agentCall(
    core: CoreName,
    name: string,
    args: Record<string, unknown>,
    note: NoteSpec,
  ): Promise<string> {
    const result = await this.call(core, name, args);
    if (result.isError) this.noteReported(result.content[0]?.text ?? "");
    if (result.isError && kindOf(result) === "internal")
      this.violate("error", `${name} on ${core} answered internal: ${result.content[0]?.text ?? ""}`);
    const out = result.structuredContent ?? {};
    if (!result.isError && name === "hackmd_pull_note" && typeof out.local_path === "string")
      this.followPull(note, out.local_path);
    if (
      !result.isError &&
      name === "hackmd_push_note" &&
      out.status === "conflict" &&
      typeof out.remote_body_hash === "string"
    ) {
      this.conflictHash.set(note.name, out.remote_body_hash);
    }
    return this.describeResult(result);
  }

  private async agentGet(core: CoreName, note: NoteSpec): Promise<string> {
    const read = await this.call(core, "hackmd_get_note", { note_ref: note.id });
    if (!read.isError) this.agentSeen.set(note.name, String(read.structuredContent?.body_hash));
    return this.describeResult(read);
  }

  private async agentPatch(core: CoreName, note: NoteSpec, expected: "none" | "fresh" | "stale"): Promise<string> {
    const marker = this.marker("A");
    let expectedHash: string | undefined;
    if (expected === "stale") expectedHash = this.agentSeen.get(note.name);
    if (expected === "fresh") {
      const read = await this.call(core, "hackmd_get_note", { note_ref: note.id });
      if (read.isError) return `read ${this.describeResult(read)}, nothing sent`;
      expectedHash = String(read.structuredContent?.body_hash);
      this.agentSeen.set(note.name, expectedHash);
    }
    const patch = [
      "*** Begin Patch",
      `*** Update File: notes/${note.id}.md`,
      "@@",
      `+${marker}`,
      "*** End of File",
      "*** End Patch",
    ].join("\n");
    const result = await this.call(core, "hackmd_update_note", {
      note_ref: note.id,
      patch,
      ...(expectedHash === undefined ? {} : { expected_hash: expectedHash }),
    });
    if (!result.isError) this.markers.set(marker, { note, actor: "agent", told: true });
    else if (kindOf(result) === "internal")
      this.violate("error", `hackmd_update_note answered internal: ${result.content[0]?.text ?? ""}`);
    return `${marker}: ${this.describeResult(result)}`;
  }

  private async agentUpdate(core: CoreName, note: NoteSpec): Promise<string> {
    const marker = this.marker("A");
    const read = await this.call(core, "hackmd_get_note", { note_ref: note.id });
    if (read.isError) return `read ${this.describeResult(read)}, nothing sent`;
    const body = String(read.structuredContent?.content);
    const hash = String(read.structuredContent?.body_hash);
    this.agentSeen.set(note.name, hash);
    const result = await this.call(core, "hackmd_update_note", {
      note_ref: note.id,
      content: addLine(body, marker, "end"),
      expected_hash: hash,
    });
    if (!result.isError) this.markers.set(marker, { note, actor: "agent", told: true });
    else if (kindOf(result) === "internal")
      this.violate("error", `hackmd_update_note answered internal: ${result.content[0]?.text ?? ""}`);
    return `${marker}: ${this.describeResult(result)}`;
  }

  // ---------------------------------------------------------------- invariants

  private violate(kind: Violation["kind"], message: string): void {
    if (this.ignored.has(kind)) return;
    this.violations.push({ kind, message });
  }

  /** HackMD settles: faults off, every write shown, time past every visibility delay. */
  settleRemote(): void {
    this.env.emu.clearFaults();
    this.env.emu.setQuirks({ visibilityDelayMs: 0 });
    this.env.emu.flushPending();
    this.env.clock.advance(SETTLE_MS);
  }

  /** The record and baseline of a note as stored (read directly, not through a core). */
  private async stored(
    note: NoteSpec,
  ): Promise<{ record: { local_path: string; baseline_body_hash: string }; baseline: string | undefined } | undefined> {
    const base = this.abs(`${STATE_FOLDER}/sync/tracked/${recordKey(null, note.id)}`);
    let record: { local_path: string; baseline_body_hash: string };
    try {
      record = JSON.parse(await readFile(`${base}.json`, "utf8")) as typeof record;
    } catch {
      return undefined;
    }
    let baseline: string | undefined;
    try {
      baseline = await readFile(`${base}.baseline.md`, "utf8");
    } catch {
      baseline = undefined;
    }
    return { record, baseline };
  }

  /** Every Markdown file under the ROOT outside the state folder, with its text. */
  private async userFiles(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const walk = async (folder: string): Promise<void> => {
      for (const entry of await readdir(this.abs(folder), { withFileTypes: true })) {
        const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
        if (entry.isDirectory() && path !== STATE_FOLDER) await walk(path);
        else if (entry.isFile() && path.endsWith(".md")) out.set(path, await readFile(this.abs(path), "utf8"));
      }
    };
    await walk("");
    return out;
  }

  /**
   * The invariants, checked when nothing runs (after the schedule, and after the reconcile):
   *  - every edit an actor was told succeeded is on HackMD, in a file under the ROOT or in a
   *    snapshot, unless two writers' read→write windows overlapped across cores (HackMD has no
   *    conditional write; counted apart as inherent);
   *  - an edit that is not on HackMD lives in its note's tracked file or snapshot, not only in a
   *    file no record names (a tracked file left untracked);
   *  - every note has a record naming an existing file, its baseline matches the record's hash and
   *    is a body some read of HackMD showed (a baseline moves only after a confirmed write);
   *  - the sync check on both cores and sync-all's dry run report each record the same way.
   */
  async checkInvariants(phase: "after the schedule" | "after the reconcile"): Promise<void> {
    const files = await this.userFiles();
    const records = new Map<string, string>();
    for (const note of this.notes) {
      const stored = await this.stored(note);
      if (stored === undefined) {
        this.violate("untracked", `${phase}: ${note.name} has no sync record any more`);
        continue;
      }
      const { record, baseline } = stored;
      records.set(note.id, record.local_path);
      if (!files.has(record.local_path))
        this.violate(
          "untracked",
          `${phase}: the record of ${note.name} names ${record.local_path}, which does not exist`,
        );
      if (baseline === undefined) {
        this.badBaselines.add(note.id);
        this.violate("unconfirmed_baseline", `${phase}: the baseline of ${note.name} is missing`);
        continue;
      }
      if ((await bodyHash(baseline)) !== record.baseline_body_hash) {
        this.badBaselines.add(note.id);
        this.violate(
          "unconfirmed_baseline",
          `${phase}: the baseline file of ${note.name} ${markersIn(baseline)} does not match the record's baseline_body_hash`,
        );
      }
      if (!this.shown.get(note.id)?.has(baseline)) {
        this.badBaselines.add(note.id);
        this.violate(
          "unconfirmed_baseline",
          `${phase}: the baseline of ${note.name} ${markersIn(baseline)} is a body no read of HackMD ever showed`,
        );
      }
    }
    await this.checkViews(phase, records, files);
    for (const [marker, { note, actor, told }] of this.markers) {
      if (!told || this.committed(note.id).includes(marker)) continue;
      const where = [...files].filter(([, text]) => text.includes(marker)).map(([path]) => path);
      const tracked = records.get(note.id);
      const owned = where.filter(
        (path) => path === tracked || (tracked !== undefined && path === remoteSnapshotPath(tracked)),
      );
      if (where.length > 0 && owned.length > 0) {
        if (phase === "after the reconcile" && !this.unreconciled.has(note.id) && where.includes(tracked ?? "")) {
          this.violate(
            "reconcile",
            `${phase}: the ${actor} edit ${marker} of ${note.name} is in ${tracked ?? "?"} but not on HackMD`,
          );
        }
        continue;
      }
      const reported = where.length > 0 && where.every((path) => this.reportedRenames.has(path));
      const cause = reported
        ? {
            inherent: true,
            why: "kept in a renamed file the plugin said is no longer tracked (B pulled the note to the old path meanwhile)",
          }
        : this.lossCause(marker, note);
      if (cause.inherent) {
        if (!this.inherent.some((loss) => loss.marker === marker)) this.inherent.push({ marker, why: cause.why });
        continue;
      }
      this.lostMarkers.add(marker);
      if (where.length === 0)
        this.violate("lost", `${phase}: the ${actor} edit ${marker} of ${note.name} is gone everywhere (${cause.why})`);
      else
        this.violate(
          "stranded",
          `${phase}: the ${actor} edit ${marker} of ${note.name} survives only in ${where.join(", ")}, which no record names (${cause.why})`,
        );
    }
  }

  /**
   * Why an edit is not on HackMD: the last write that dropped it, and whether that writer had
   * seen it. An overlap explains the loss (inherent) only when the writer never saw the edit and
   * the edit came from a collaborator or the other core; the same core must serialise its writes.
   */
  private lossCause(marker: string, note: NoteSpec): { inherent: boolean; why: string } {
    const commits = this.commits.get(note.id) ?? [];
    let added: Commit | undefined;
    let dropped: Commit | undefined;
    let present = false;
    for (const commit of commits) {
      const has = commit.content.includes(marker);
      if (has && !present) [added, dropped] = [commit, undefined];
      if (!has && present) dropped = commit;
      present = has;
    }
    if (added === undefined) return { inherent: false, why: "it never reached HackMD" };
    if (dropped === undefined || typeof dropped.by === "string")
      return { inherent: false, why: "HackMD still holds it (?)" };
    const dropper = dropped.by;
    const sawIt = this.seen.some(
      (read) =>
        read.op === dropper.op &&
        read.noteId === note.id &&
        read.seq < (dropped?.seq ?? 0) &&
        read.content.includes(marker),
    );
    const adder = typeof added.by === "string" ? added.by : `${added.by.core}#${added.by.op} ${added.by.label}`;
    const why = `written by ${adder}, overwritten on HackMD by ${dropper.core}#${dropper.op} ${dropper.label}${sawIt ? ", which had read it" : ""}`;
    if (sawIt) return { inherent: false, why };
    const otherWriter = added.by === "collaborator" || (typeof added.by !== "string" && added.by.core !== dropper.core);
    return {
      inherent: otherWriter,
      why: otherWriter ? `${why} (read→write windows overlapped; HackMD has no conditional write)` : why,
    };
  }

  /** The sync check on core A, on core B (through MCP) and sync-all's dry run must agree per record. */
  private async checkViews(phase: string, records: Map<string, string>, files: Map<string, string>): Promise<void> {
    const dry = await syncAll(this.core("A").deps, { dryRun: true });
    for (const note of this.notes) {
      const path = records.get(note.id);
      if (path === undefined || !files.has(path)) continue;
      const item = dry.items.find((entry) => entry.note_id === note.id);
      let checkA: string;
      try {
        checkA = (await this.core("A").deps.sync.check({ localPath: path, call: new CallContext() })).status;
      } catch (error) {
        checkA = isBridgeError(error) ? `error ${error.kind}` : describeError(error);
      }
      const viaB = await this.call("B", "hackmd_get_note", { local_path: path });
      const checkB = viaB.isError ? `error ${kindOf(viaB)}` : String(viaB.structuredContent?.status);
      const dryView =
        item === undefined ? "no item" : item.outcome === "error" ? `error ${item.error_kind ?? "?"}` : item.plan;
      const expected: Record<string, string[]> = {
        in_sync: ["in_sync", "same_change"],
        local_changed: ["push"],
        remote_changed: ["pull"],
        conflict: ["conflict"],
        "error sync_state": ["error sync_state"],
      };
      const agrees = checkA === checkB && (expected[checkA]?.includes(dryView) ?? dryView === checkA);
      if (!agrees)
        this.violate(
          "views",
          `${phase}: ${note.name} (${path}): the sync check says ${checkA} on A and ${checkB} on B, sync-all's dry run says ${dryView}`,
        );
    }
  }

  /**
   * The documented workflow per note, unscheduled, with faults off and past every unconfirmed
   * write's horizon: push; on conflict fold the snapshot in and push with expected_remote_hash;
   * on remote_changed pull with overwrite_local.
   */
  async reconcile(): Promise<void> {
    this.settleRemote();
    this.env.clock.advance(PENDING_WRITE_HORIZON_MS);
    this.trace.push("reconcile");
    const sync = this.core("A").deps.sync;
    for (const note of this.notes) {
      const stored = await this.stored(note);
      if (stored === undefined) {
        this.unreconciled.add(note.id);
        continue;
      }
      const path = stored.record.local_path;
      if (!existsSync(this.abs(path))) {
        this.unreconciled.add(note.id);
        continue;
      }
      let expected: string | undefined;
      let done = false;
      for (let round = 0; round < 6 && !done; round++) {
        try {
          if (expected !== undefined) {
            const snapshot = await readFile(this.abs(remoteSnapshotPath(path)), "utf8");
            await writeFile(this.abs(path), unionLines(await readFile(this.abs(path), "utf8"), snapshot));
          }
          const result = await sync.push({
            localPath: path,
            strategy: "safe",
            confirm: false,
            confirmLargeFile: false,
            ...(expected === undefined ? {} : { expectedRemoteHash: expected }),
            call: new CallContext(),
          });
          if (result.kind !== "pushed") throw new Error("a push without note_ref did not resolve");
          const out = result.output;
          this.trace.push(`  reconcile ${note.name}: ${out.status}`);
          expected = undefined;
          if (out.status === "pushed" || out.status === "nothing_to_push") done = true;
          else if (out.status === "conflict") {
            expected = out.remote_body_hash;
            // A snapshot the engine may not replace (not the one it wrote last): fold it in and move it aside, as its message says.
            if (out.snapshot_error !== undefined && existsSync(this.abs(remoteSnapshotPath(path)))) {
              const stale = remoteSnapshotPath(path);
              await writeFile(
                this.abs(path),
                unionLines(await readFile(this.abs(path), "utf8"), await readFile(this.abs(stale), "utf8")),
              );
              await rename(this.abs(stale), this.abs(stale.replace(/\.remote\.md$/, `.remote-moved-${round}.md`)));
              expected = undefined;
            }
          } else await this.pull("A", note, path);
        } catch (error) {
          this.trace.push(`  reconcile ${note.name}: ${describeError(error)}`);
          if (isBridgeError(error, "readback")) {
            this.env.clock.advance(PENDING_WRITE_HORIZON_MS);
            continue;
          }
          this.violate(
            "reconcile",
            `reconcile of ${note.name} (${path}) failed without faults: ${describeError(error)}`,
          );
          break;
        }
      }
      if (!done) {
        this.unreconciled.add(note.id);
        if (!this.violations.some((v) => v.kind === "reconcile"))
          this.violate("reconcile", `reconcile of ${note.name} did not converge in 6 rounds`);
        continue;
      }
      const local = await readFile(this.abs(path), "utf8").catch(() => undefined);
      if (local !== this.committed(note.id)) this.violate("reconcile", `after the reconcile ${path} and HackMD differ`);
    }
  }

  /** Counts for the summary line: edits lost or stranded, notes with a bad baseline (each once). */
  tally(): { lost: number; baselines: number } {
    return { lost: this.lostMarkers.size, baselines: this.badBaselines.size };
  }

  /** The failure report: violations, then the trace. */
  report(plan: SchedulePlan): string {
    const lanes = (["user", "agent", "collaborator", "cli"] as const)
      .map((actor) => `${actor}: ${plan[actor].map((spec) => describeOp(spec, this.notes)).join(" ; ") || "(idle)"}`)
      .join("\n    ");
    return [
      `${this.violations.length} violation(s):`,
      ...this.violations.map((v) => `  [${v.kind}] ${v.message}`),
      ...(this.inherent.length === 0
        ? []
        : [`inherent (not counted): ${this.inherent.map((loss) => `${loss.marker} ${loss.why}`).join("; ")}`]),
      `actors:\n    ${lanes}`,
      "trace:",
      ...this.trace.map((line) => `  ${line}`),
    ].join("\n");
  }
}
