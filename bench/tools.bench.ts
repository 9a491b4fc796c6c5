/**
 * Benchmark of the MCP tools (run with `npm run bench -- tools`; see bench/README.md).
 *
 * 1. Requests per operation: every tool in the registry, per scenario, counted from the
 *    emulator's request log and checked against the request budgets of docs/tools.md §17.
 * 2. Latency of `hackmd_get_note` through the loopback HTTP endpoint (Streamable HTTP client),
 *    through the in-memory MCP transport, and as a direct `HackmdClient.getNote` call, with the
 *    emulator's injected latency at 0 and 50 ms; the endpoint/direct ratio is its own overhead.
 *
 * Nothing here asserts a timing: the numbers are printed for a human to read.
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import { appendFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { DEMO_NOTE_IDS } from "../src/emulator";
import { CallContext } from "../src/hackmd/call-context";
import { TOOLS } from "../src/mcp/tools";
import { errorKindOf, okOutput, startBenchBridge, type BenchBridge, type CallResult } from "./lib/bridge";
import { loadNow, machineInfo, ms, ratio, summarize, table, type Summary } from "./lib/report";

const USAGE = `usage: npm run bench -- tools [--calls N] [--warmup N] [--latency 0,50] [--skip-requests] [--skip-latency]
  --calls N        timed hackmd_get_note calls per path and latency (default 300)
  --warmup N       untimed calls per path before each latency (default 20)
  --latency LIST   emulator latencies in ms, comma-separated (default 0,50)
  --skip-requests  skip the requests-per-operation table
  --skip-latency   skip the latency measurement`;

function options(): { calls: number; warmup: number; latencies: number[]; requests: boolean; latency: boolean } {
  const { values } = parseArgs({
    options: {
      calls: { type: "string", default: "300" },
      warmup: { type: "string", default: "20" },
      latency: { type: "string", default: "0,50" },
      "skip-requests": { type: "boolean", default: false },
      "skip-latency": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const count = (name: string, text: string, min: number): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) {
      process.stderr.write(`--${name} must be an integer ≥ ${min}\n${USAGE}\n`);
      process.exit(2);
    }
    return value;
  };
  return {
    calls: count("calls", values.calls, 1),
    warmup: count("warmup", values.warmup, 0),
    latencies: values.latency.split(",").map((part) => count("latency", part.trim(), 0)),
    requests: !values["skip-requests"],
    latency: !values["skip-latency"],
  };
}

// ---------------------------------------------------------------------------------------------
// 1. Requests per operation
// ---------------------------------------------------------------------------------------------

const WEEKLY = DEMO_NOTE_IDS.weeklySync;
const READING = DEMO_NOTE_IDS.readingList;
const SPEC = DEMO_NOTE_IDS.spec;
const TEAM = "sandbox-team";

type Args = Record<string, unknown>;

/** One measured tool call. */
interface Scenario {
  tool: string;
  label: string;
  /** False: continue on the bridge of the scenario run just before (registry order, then list order); default: a fresh one (cold caches). */
  fresh?: boolean;
  /** Untimed, uncounted preparation; returns the call's arguments. */
  prepare?: (bridge: BenchBridge) => Promise<Args>;
  args?: Args;
  /** The error kind the call should end with; default: success. */
  expectError?: string;
  /**
   * The budget of docs/tools.md §17 for this branch, in order. A step ending in "…" is a read-back
   * poll: one or more of it.
   */
  budget: string[];
  /** A caveat printed under the table. */
  note?: string;
}

/** A 1×1 PNG. */
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

const patchFor = (id: string, from: string, to: string): string =>
  ["*** Begin Patch", `*** Update File: notes/${id}.md`, "@@", `-${from}`, `+${to}`, "*** End Patch"].join("\n");
const contextPatch = (id: string, line: string): string =>
  ["*** Begin Patch", `*** Update File: notes/${id}.md`, "@@", ` ${line}`, "*** End Patch"].join("\n");

async function folderId(bridge: BenchBridge, name: string | null, teamPath?: string): Promise<string> {
  const listed = okOutput(
    await bridge.call(
      "hackmd_list_folders",
      teamPath === undefined ? { limit: 100 } : { team_path: teamPath, limit: 100 },
    ),
  );
  const folders = listed.folders as Array<{ id: string; name: string; parent_folder_id: string | null }>;
  const found = name === null ? folders[0] : folders.find((folder) => folder.name === name);
  if (!found) throw new Error(`bench setup: no folder ${name ?? "(first)"} in the demo seed`);
  return found.id;
}

async function firstLine(bridge: BenchBridge, noteId: string): Promise<{ line: string; hash: unknown }> {
  const note = okOutput(await bridge.call("hackmd_get_note", { note_ref: noteId }));
  return { line: (note.content as string).split("\n")[0] ?? "", hash: note.body_hash };
}

const SCENARIOS: Scenario[] = [
  { tool: "hackmd_get_me", label: "profile and teams", budget: ["GET /me"] },

  { tool: "hackmd_list_notes", label: "workspace, cold cache", args: {}, budget: ["GET /notes"] },
  {
    tool: "hackmd_list_notes",
    label: "workspace, warm cache (next page)",
    fresh: false,
    args: { offset: 2, limit: 2 },
    budget: [],
  },
  {
    tool: "hackmd_list_notes",
    label: "workspace, refresh: true",
    fresh: false,
    args: { refresh: true },
    budget: ["GET /notes"],
  },
  {
    tool: "hackmd_list_notes",
    label: "team workspace, cold cache",
    args: { team_path: TEAM },
    budget: ["GET /teams/:teamPath/notes"],
  },
  { tool: "hackmd_list_notes", label: "history", args: { source: "history" }, budget: ["GET /history"] },
  { tool: "hackmd_list_notes", label: "trash", args: { source: "trash" }, budget: ["GET /trash"] },
  {
    tool: "hackmd_list_notes",
    label: "tracked",
    prepare: async (bridge) => {
      okOutput(await bridge.call("hackmd_pull_note", { note_ref: READING, local_path: "reading.md" }));
      return { source: "tracked" };
    },
    budget: [],
  },

  { tool: "hackmd_get_note", label: "direct id", args: { note_ref: READING }, budget: ["GET /notes/:noteId"] },
  {
    tool: "hackmd_get_note",
    label: "direct id, team_path",
    args: { note_ref: SPEC, team_path: TEAM },
    budget: ["GET /teams/:teamPath/notes/:noteId"],
  },
  {
    tool: "hackmd_get_note",
    label: "scoped @sandbox/cs101-sorting, cold",
    args: { note_ref: "https://hackmd.io/@sandbox/cs101-sorting" },
    budget: ["GET /me", "GET /notes", "GET /notes/:noteId"],
  },
  {
    tool: "hackmd_get_note",
    label: "scoped @sandbox/cs101-sorting, warm",
    fresh: false,
    args: { note_ref: "https://hackmd.io/@sandbox/cs101-sorting" },
    budget: ["GET /notes/:noteId"],
  },
  {
    tool: "hackmd_get_note",
    label: "local_path (sync state)",
    prepare: async (bridge) => {
      okOutput(await bridge.call("hackmd_pull_note", { note_ref: READING, local_path: "reading.md" }));
      return { local_path: "reading.md" };
    },
    budget: ["GET /notes/:noteId"],
  },
  { tool: "hackmd_get_note", label: "bad arguments (refused)", args: {}, expectError: "invalid_input", budget: [] },

  {
    tool: "hackmd_create_note",
    label: "plain",
    args: { title: "Bench plain", content: "# Bench plain\n" },
    budget: ["POST /notes"],
  },
  {
    tool: "hackmd_create_note",
    label: "with parent_folder_id",
    prepare: async (bridge) => ({
      title: "Bench placed",
      content: "# Bench placed\n",
      parent_folder_id: await folderId(bridge, "Meetings"),
    }),
    budget: ["POST /notes", "GET /notes/:noteId"],
  },
  {
    tool: "hackmd_create_note",
    label: "parent_folder_id ignored by POST (quirk)",
    prepare: async (bridge) => {
      bridge.emu.setQuirks({ createHonoursParentFolderId: false });
      return {
        title: "Bench fallback",
        content: "# Bench fallback\n",
        parent_folder_id: await folderId(bridge, "Meetings"),
      };
    },
    budget: ["POST /notes", "GET /notes/:noteId", "PATCH /notes/:noteId", "GET /notes/:noteId…"],
  },
  {
    tool: "hackmd_create_note",
    label: "team, cold cache",
    args: { team_path: TEAM, title: "Bench team note" },
    budget: ["GET /teams", "POST /teams/:teamPath/notes"],
  },

  {
    tool: "hackmd_update_note",
    label: "patch edit",
    prepare: async (bridge) => {
      const { line, hash } = await firstLine(bridge, WEEKLY);
      return { note_ref: WEEKLY, patch: patchFor(WEEKLY, line, "# Weekly sync (bench)"), expected_hash: hash };
    },
    budget: ["GET /notes/:noteId", "PATCH /notes/:noteId", "GET /notes/:noteId…"],
  },
  {
    tool: "hackmd_update_note",
    label: "no-op patch",
    prepare: async (bridge) => ({
      note_ref: WEEKLY,
      patch: contextPatch(WEEKLY, (await firstLine(bridge, WEEKLY)).line),
    }),
    budget: ["GET /notes/:noteId"],
  },
  {
    tool: "hackmd_update_note",
    label: "stale expected_hash (conflict)",
    args: { note_ref: WEEKLY, patch: patchFor(WEEKLY, "x", "y"), expected_hash: `sha256:${"0".repeat(64)}` },
    expectError: "conflict",
    budget: ["GET /notes/:noteId"],
  },
  {
    tool: "hackmd_update_note",
    label: "metadata (title, tags, description)",
    args: { note_ref: READING, title: "Reading list (bench)", tags: ["links"], description: "bench" },
    budget: ["GET /notes/:noteId", "PATCH /notes/:noteId", "GET /notes/:noteId…"],
  },
  {
    tool: "hackmd_update_note",
    label: "content replacement",
    args: { note_ref: READING, content: "# Replaced\n\nby the bench\n" },
    budget: ["PATCH /notes/:noteId", "GET /notes/:noteId…"],
  },
  {
    tool: "hackmd_update_note",
    label: "move to folder",
    prepare: async (bridge) => ({ note_ref: READING, parent_folder_id: await folderId(bridge, "Meetings") }),
    budget: ["GET /notes/:noteId", "PATCH /notes/:noteId", "GET /notes/:noteId…"],
  },

  {
    tool: "hackmd_delete_note",
    label: "personal (to trash)",
    args: { note_ref: READING },
    budget: ["DELETE /notes/:noteId"],
  },
  {
    tool: "hackmd_delete_note",
    label: "restore from trash",
    fresh: false,
    args: { note_ref: READING, restore: true },
    budget: ["PUT /trash/:noteId/restore"],
  },
  {
    tool: "hackmd_delete_note",
    label: "team note",
    args: { note_ref: SPEC, team_path: TEAM },
    budget: ["DELETE /teams/:teamPath/notes/:noteId"],
  },

  {
    tool: "hackmd_upload_note_image",
    label: "image_path (local PNG)",
    prepare: async (bridge) => {
      await writeFile(join(bridge.root, "bench.png"), Buffer.from(PNG_1X1, "base64"));
      return { note_ref: READING, image_path: "bench.png" };
    },
    budget: ["POST /notes/:noteId/images"],
    note: "the signed-out HEAD of the image link (§16.8) goes to the emulator's /_uploads/, which its request log does not record",
  },

  { tool: "hackmd_list_folders", label: "personal", args: {}, budget: ["GET /folders"] },
  { tool: "hackmd_list_folders", label: "team", args: { team_path: TEAM }, budget: ["GET /teams/:teamPath/folders"] },

  {
    tool: "hackmd_create_folder",
    label: "personal, top level",
    args: { name: "Bench folder", icon: "1F600" },
    budget: ["POST /folders"],
  },
  {
    tool: "hackmd_create_folder",
    label: "team, cold cache",
    args: { team_path: TEAM, name: "Bench team folder" },
    budget: ["GET /teams", "POST /teams/:teamPath/folders"],
  },

  {
    tool: "hackmd_update_folder",
    label: "team folder fields",
    prepare: async (bridge) => ({
      team_path: TEAM,
      folder_id: await folderId(bridge, null, TEAM),
      name: "Specifications",
      color: null,
    }),
    budget: ["PATCH /teams/:teamPath/folders/:folderId", "GET /teams/:teamPath/folders/:folderId…"],
  },
  {
    tool: "hackmd_update_folder",
    label: "child order (top level)",
    prepare: async (bridge) => {
      const listed = okOutput(await bridge.call("hackmd_list_folders", { limit: 100 }));
      const top = (listed.folders as Array<{ id: string; parent_folder_id: string | null }>).filter(
        (folder) => folder.parent_folder_id === null,
      );
      return { child_order: top.map((folder) => folder.id).reverse() };
    },
    budget: ["GET /folders/folder-order", "PUT /folders/folder-order", "GET /folders/folder-order…"],
  },

  {
    tool: "hackmd_delete_folder",
    label: "empty folder",
    prepare: async (bridge) => {
      const created = okOutput(await bridge.call("hackmd_create_folder", { name: "Bench doomed" }));
      return { folder_id: (created.folder as { id: string }).id };
    },
    budget: ["GET /folders", "DELETE /folders/:folderId"],
  },
  {
    tool: "hackmd_delete_folder",
    label: "with child folders, unconfirmed",
    prepare: async (bridge) => ({ folder_id: await folderId(bridge, "Teaching") }),
    budget: ["GET /folders"],
  },
  {
    tool: "hackmd_delete_folder",
    label: "with child folders, confirm: true",
    prepare: async (bridge) => ({ folder_id: await folderId(bridge, "Teaching"), confirm: true }),
    budget: ["GET /folders", "DELETE /folders/:folderId"],
  },

  {
    tool: "hackmd_pull_note",
    label: "direct id, new file",
    args: { note_ref: READING, local_path: "reading.md" },
    budget: ["GET /notes/:noteId"],
  },
  {
    tool: "hackmd_pull_note",
    label: "scoped @sandbox/cs101-sorting, cold",
    args: { note_ref: "https://hackmd.io/@sandbox/cs101-sorting", local_path: "cs101.md" },
    budget: ["GET /me", "GET /notes", "GET /notes/:noteId"],
  },
  {
    tool: "hackmd_push_note",
    label: "unchanged file (nothing to push)",
    fresh: false,
    args: { local_path: "cs101.md" },
    budget: ["GET /notes/:noteId"],
  },
  {
    tool: "hackmd_push_note",
    label: "local edit",
    fresh: false,
    prepare: async (bridge) => {
      await appendFile(join(bridge.root, "cs101.md"), "\n4. Added by the bench.\n");
      return { local_path: "cs101.md" };
    },
    budget: ["GET /notes/:noteId", "PATCH /notes/:noteId", "GET /notes/:noteId…"],
  },
  {
    tool: "hackmd_push_note",
    label: "note_ref cross-check after a write",
    fresh: false,
    args: { local_path: "cs101.md", note_ref: "https://hackmd.io/@sandbox/cs101-sorting" },
    // The previous push invalidated the list cache, so resolving the scoped URL lists again.
    budget: ["GET /notes", "GET /notes/:noteId"],
  },
  {
    tool: "hackmd_untrack_note",
    label: "tracked note",
    fresh: false,
    args: { note_id: DEMO_NOTE_IDS.cs101, confirm: true },
    budget: [],
  },
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Whether a request sequence follows a budget (steps ending in "…" repeat one or more times). */
function withinBudget(sequence: readonly string[], budget: readonly string[]): boolean {
  const pattern = budget
    .map((step) => (step.endsWith("…") ? `(?:${escapeRegExp(step.slice(0, -1))}\\n)+` : `${escapeRegExp(step)}\\n`))
    .join("");
  return new RegExp(`^${pattern}$`).test(sequence.map((entry) => `${entry}\n`).join(""));
}

function budgetLabel(budget: readonly string[]): string {
  return `${budget.length}${budget.some((step) => step.endsWith("…")) ? "+" : ""}`;
}

async function requestsPerOperation(): Promise<void> {
  process.stdout.write("\n## Requests per operation (emulator request log; budgets of docs/tools.md §17)\n\n");
  const rows: string[][] = [];
  const notes: string[] = [];
  const skipped: string[] = [];
  let bridge: BenchBridge | undefined;
  try {
    for (const tool of TOOLS) {
      const scenarios = SCENARIOS.filter((scenario) => scenario.tool === tool.name);
      if (scenarios.length === 0) {
        skipped.push(tool.name);
        continue;
      }
      for (const scenario of scenarios) {
        if (scenario.fresh !== false || bridge === undefined) {
          await bridge?.close();
          bridge = await startBenchBridge();
        }
        const label = `${tool.name} / ${scenario.label}`;
        let sequence: string[];
        let kind: string | undefined;
        let text = "";
        try {
          const args = scenario.prepare ? await scenario.prepare(bridge) : (scenario.args ?? {});
          bridge.mark();
          const result = await bridge.call(tool.name, args);
          sequence = bridge.requestsSinceMark();
          kind = errorKindOf(result);
          text = result.content[0]?.text ?? "";
        } catch (error) {
          // A scenario that cannot run is reported, not fatal: the tools are still being built.
          rows.push([tool.name, scenario.label, "-", budgetLabel(scenario.budget), "✗", "(not measured)"]);
          notes.push(
            `✗ ${label}: the scenario failed to run: ${error instanceof Error ? error.message : String(error)}`,
          );
          await bridge.close();
          bridge = undefined;
          continue;
        } finally {
          bridge?.emu.setQuirks({ createHonoursParentFolderId: true });
        }
        const outcomeOk = kind === scenario.expectError;
        const ok = outcomeOk && withinBudget(sequence, scenario.budget);
        rows.push([
          tool.name,
          scenario.label + (kind === undefined ? "" : ` [${kind}]`),
          String(sequence.length),
          budgetLabel(scenario.budget),
          ok ? "✓" : "✗",
          sequence.length === 0 ? "(none)" : sequence.join(" → "),
        ]);
        if (scenario.note) notes.push(`· ${label}: ${scenario.note}`);
        if (!outcomeOk)
          notes.push(`✗ ${label}: expected ${scenario.expectError ?? "success"}, got ${kind ?? "success"}: ${text}`);
        else if (!ok) notes.push(`✗ ${label}: the §17 budget is ${scenario.budget.join(" → ") || "(none)"}`);
      }
    }
  } finally {
    await bridge?.close();
  }
  process.stdout.write(`${table(["tool", "scenario", "#", "budget", "ok", "requests, in order"], rows, [2, 3])}\n`);
  process.stdout.write(
    "\n# = requests sent; budget = §17 count for that branch (+: read-back polls may add GETs); ok = sequence and outcome match §17.\n",
  );
  for (const note of notes) process.stdout.write(`${note}\n`);
  const known = new Set(TOOLS.map((tool) => tool.name));
  const orphaned = [...new Set(SCENARIOS.map((scenario) => scenario.tool))].filter((name) => !known.has(name));
  if (skipped.length > 0)
    process.stdout.write(
      `Not measured (registered, but no scenario in bench/tools.bench.ts yet): ${skipped.join(", ")}\n`,
    );
  if (orphaned.length > 0)
    process.stdout.write(`Scenarios for tools not in the registry (skipped): ${orphaned.join(", ")}\n`);
  if (skipped.length === 0)
    process.stdout.write(`Every registered tool (${TOOLS.length}) has at least one scenario.\n`);
}

// ---------------------------------------------------------------------------------------------
// 2. Latency of hackmd_get_note
// ---------------------------------------------------------------------------------------------

type Path = "direct client.getNote" | "in-memory MCP" | "HTTP endpoint";
const PATHS: readonly Path[] = ["direct client.getNote", "in-memory MCP", "HTTP endpoint"];

async function latency(calls: number, warmup: number, latencies: readonly number[]): Promise<void> {
  process.stdout.write(
    `\n## hackmd_get_note latency (${calls} timed calls per path and latency, ${warmup} warm-up calls each)\n\n`,
  );
  const noteId = WEEKLY;
  const perPhase = PATHS.length * (calls + warmup);
  const bridge = await startBenchBridge({ emulator: { logCapacity: Math.max(10_000, perPhase + 100) } });
  const http = await bridge.startHttp();
  const checked = (result: CallResult): void => {
    if (result.isError || (result.structuredContent as { id?: string } | undefined)?.id !== noteId) {
      throw new Error(`hackmd_get_note failed during the benchmark: ${result.content[0]?.text ?? "?"}`);
    }
  };
  const run: Record<Path, () => Promise<void>> = {
    "direct client.getNote": async () => {
      const note = await bridge.core.deps.client.getNote(new CallContext(), { teamPath: null, noteId });
      if (note.id !== noteId) throw new Error("direct getNote returned another note");
    },
    "in-memory MCP": async () => checked(await bridge.call("hackmd_get_note", { note_ref: noteId })),
    "HTTP endpoint": async () => checked(await http.call("hackmd_get_note", { note_ref: noteId })),
  };
  const rows: string[][] = [];
  const sanity: string[] = [];
  try {
    for (const latencyMs of latencies) {
      bridge.emu.setQuirks({ latencyMs });
      for (let i = 0; i < warmup; i += 1) for (const path of PATHS) await run[path]();
      bridge.emu.clearRequests();
      const samples: Record<Path, number[]> = { "direct client.getNote": [], "in-memory MCP": [], "HTTP endpoint": [] };
      const loadBefore = loadNow();
      // Interleaved, with the order rotating every round, so background load and drift hit every path alike.
      for (let i = 0; i < calls; i += 1) {
        for (let j = 0; j < PATHS.length; j += 1) {
          const path = PATHS[(i + j) % PATHS.length]!;
          const started = performance.now();
          await run[path]();
          samples[path].push(performance.now() - started);
        }
      }
      const sent = bridge.emu.requests().length;
      sanity.push(
        `latency ${latencyMs} ms: ${sent} emulator requests for ${PATHS.length * calls} calls (${(sent / (PATHS.length * calls)).toFixed(2)} per call); load ${loadBefore} → ${loadNow()}`,
      );
      const direct = summarize(samples["direct client.getNote"]);
      for (const path of PATHS) {
        const s: Summary = summarize(samples[path]);
        rows.push([
          `${latencyMs} ms`,
          path,
          ms(s.p50),
          ms(s.p95),
          ms(s.mean),
          ms(s.min),
          ms(s.max),
          ratio(s.p50 / direct.p50),
          ratio(s.p95 / direct.p95),
          ratio(s.mean / direct.mean),
          ms(s.p50 - direct.p50),
        ]);
      }
    }
  } finally {
    await bridge.close();
  }
  process.stdout.write(
    `${table(["emulator latency", "path", "p50 ms", "p95 ms", "mean ms", "min ms", "max ms", "p50 ×direct", "p95 ×direct", "mean ×direct", "p50 overhead ms"], rows, [2, 3, 4, 5, 6, 7, 8, 9, 10])}\n\n`,
  );
  for (const line of sanity) process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  const opts = options();
  process.stdout.write(
    `${machineInfo()}\ncommand: ${["npm run bench -- tools", ...process.argv.slice(2)].join(" ")}\n`,
  );
  if (opts.requests) await requestsPerOperation();
  if (opts.latency) await latency(opts.calls, opts.warmup, opts.latencies);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
