/**
 * What the actors of the concurrency harness do, as fast-check arbitraries: the user on the
 * plugin's core A (local edits, pull, push, sync file, merge after a conflict, Sync all, renames),
 * an agent on either core through MCP (get, patch, full update, push, pull, sync check), a
 * collaborator in HackMD's editor, and the standalone command on core B (pull, push, Sync all).
 * Write operations arm one of the emulator's faults about one time in four.
 */
import fc from "fast-check";
import type { CoreName, OpSpec, SchedulePlan } from "./concurrency-world";
import { FAULT_KINDS, type FaultKind } from "./reliability-world";

const note = fc.nat({ max: 2 });
const at = fc.constantFrom<"start" | "end">("end", "start");
const anyCore = fc.constantFrom<CoreName>("B", "A");
const fault: fc.Arbitrary<FaultKind | null> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom(...FAULT_KINDS) },
);

/** The user, on the plugin's core. */
const userOp: fc.Arbitrary<OpSpec> = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(note, at).map(([n, where]): OpSpec => ({ kind: "edit", note: n, at: where })) },
  {
    weight: 2,
    arbitrary: fc.tuple(note, fault).map(([n, f]): OpSpec => ({ kind: "pull", note: n, core: "A", fault: f })),
  },
  {
    weight: 3,
    arbitrary: fc.tuple(note, fault).map(([n, f]): OpSpec => ({ kind: "push", note: n, core: "A", fault: f })),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(note, fault).map(([n, f]): OpSpec => ({ kind: "syncFile", note: n, core: "A", fault: f })),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(note, fault).map(([n, f]): OpSpec => ({ kind: "merge", note: n, core: "A", fault: f })),
  },
  { weight: 2, arbitrary: fault.map((f): OpSpec => ({ kind: "syncAll", core: "A", fault: f })) },
  { weight: 2, arbitrary: fc.tuple(note, anyCore).map(([n, c]): OpSpec => ({ kind: "rename", note: n, pullCore: c })) },
);

/** An agent, through the MCP server of either core (the plugin's endpoint or the command's). */
const agentOp: fc.Arbitrary<OpSpec> = fc.oneof(
  { weight: 1, arbitrary: fc.tuple(note, anyCore).map(([n, c]): OpSpec => ({ kind: "agentGet", note: n, core: c })) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(note, anyCore, fc.constantFrom<"none" | "fresh" | "stale">("fresh", "none", "stale"), fault)
      .map(([n, c, expected, f]): OpSpec => ({ kind: "agentPatch", note: n, core: c, expected, fault: f })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(note, anyCore, fault)
      .map(([n, c, f]): OpSpec => ({ kind: "agentUpdate", note: n, core: c, fault: f })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(note, anyCore, fc.constantFrom<"safe" | "merge">("safe", "merge"), fault)
      .map(([n, c, strategy, f]): OpSpec => ({ kind: "agentPush", note: n, core: c, strategy, fault: f })),
  },
  { weight: 1, arbitrary: fc.tuple(note, anyCore).map(([n, c]): OpSpec => ({ kind: "agentPull", note: n, core: c })) },
  { weight: 1, arbitrary: fc.tuple(note, anyCore).map(([n, c]): OpSpec => ({ kind: "agentCheck", note: n, core: c })) },
);

/** A collaborator in HackMD's web editor. */
const collaboratorOp: fc.Arbitrary<OpSpec> = fc
  .tuple(note, at)
  .map(([n, where]): OpSpec => ({ kind: "collab", note: n, at: where }));

/** The standalone command beside the plugin: a second core over the same ROOT and state folder. */
const cliOp: fc.Arbitrary<OpSpec> = fc.oneof(
  { weight: 2, arbitrary: fault.map((f): OpSpec => ({ kind: "syncAll", core: "B", fault: f })) },
  {
    weight: 2,
    arbitrary: fc.tuple(note, fault).map(([n, f]): OpSpec => ({ kind: "push", note: n, core: "B", fault: f })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(note, fault).map(([n, f]): OpSpec => ({ kind: "pull", note: n, core: "B", fault: f })),
  },
);

/** Visibility delays: 0–300 ms inside the read-back window, 2.5 s past it. */
const visibility = fc.tuple(
  fc.oneof({ weight: 8, arbitrary: fc.constantFrom(0, 0, 50, 150, 300) }, { weight: 1, arbitrary: fc.constant(2_500) }),
  fc.constantFrom<"all" | "content">("all", "content"),
);

/** One schedule: 2–3 tracked notes, a visibility delay, and each actor's operations. */
export const schedulePlan: fc.Arbitrary<SchedulePlan> = fc.record({
  noteCount: fc.constantFrom<2 | 3>(2, 3),
  visibility,
  user: fc.array(userOp, { minLength: 1, maxLength: 4 }),
  agent: fc.array(agentOp, { maxLength: 3 }),
  collaborator: fc.array(collaboratorOp, { maxLength: 3 }),
  cli: fc.array(cliOp, { maxLength: 2 }),
});
