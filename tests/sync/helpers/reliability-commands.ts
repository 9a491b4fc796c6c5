/**
 * The command model of the reliability harness: what the user, a collaborator, an agent and
 * HackMD's failures can do to one tracked note, as fast-check commands over a ReliabilityWorld.
 * Every command checks the invariants after it runs.
 */
import fc from "fast-check";
import { FAULT_KINDS, type FaultKind, type ReliabilityWorld, type WriteOutcome } from "./reliability-world";

/** What the model remembers between commands. */
export interface ReliabilityModel {
  /**
   * A write ended with an unknown outcome (readback, or a read-back that failed) and may still
   * be invisible. The model no longer looks before the next write (the engine must refuse it by
   * itself; see the header of tests/sync/reliability.test.ts); set HB_RELIABILITY_LOOK=1 to model
   * a caller that follows docs/tools.md §4.2 and looks first.
   */
  unsettled: boolean;
  /** The `remote_body_hash` of the last conflict, whose snapshot a merge folds in. */
  conflictHash: string | undefined;
}

/** A fresh model: settled, no conflict. */
export function initialModel(): ReliabilityModel {
  return { unsettled: false, conflictHash: undefined };
}

/** One command of the model. */
export type ReliabilityCommand = fc.AsyncCommand<ReliabilityModel, ReliabilityWorld>;

/** Before a write: after an unknown outcome, look first, as a readback error instructs. */
async function lookIfUnsettled(model: ReliabilityModel, world: ReliabilityWorld): Promise<void> {
  if (!model.unsettled || process.env.HB_RELIABILITY_LOOK !== "1") return;
  await world.look();
  model.unsettled = false;
}

/** Updates the model from a write's outcome. */
function afterWrite(model: ReliabilityModel, outcome: WriteOutcome): void {
  if (!outcome.ok) {
    if (outcome.unknown) model.unsettled = true;
    return;
  }
  if (outcome.status === "conflict") model.conflictHash = outcome.remoteHash;
  if (outcome.status === "pushed") model.conflictHash = undefined;
}

class LocalEdit implements ReliabilityCommand {
  constructor(private readonly position: "start" | "end") {}
  check = (): boolean => true;
  async run(_model: ReliabilityModel, world: ReliabilityWorld): Promise<void> {
    await world.localEdit(this.position);
    await world.checkInvariants(this.toString());
  }
  toString = (): string => `LocalEdit(${this.position})`;
}

class CollaboratorEdit implements ReliabilityCommand {
  constructor(private readonly position: "start" | "end") {}
  check = (): boolean => true;
  async run(_model: ReliabilityModel, world: ReliabilityWorld): Promise<void> {
    world.collaboratorEdit(this.position);
    await world.checkInvariants(this.toString());
  }
  toString = (): string => `CollaboratorEdit(${this.position})`;
}

/** ` with <fault>` for a write command's description. */
function withFault(fault: FaultKind | null): string {
  return fault === null ? "" : ` with ${fault}`;
}

class AgentPatch implements ReliabilityCommand {
  constructor(
    private readonly style: "end" | "anchored",
    private readonly expected: "none" | "fresh" | "stale",
    private readonly fault: FaultKind | null,
  ) {}
  check = (): boolean => true;
  async run(model: ReliabilityModel, world: ReliabilityWorld): Promise<void> {
    await lookIfUnsettled(model, world);
    if (this.fault !== null) world.injectFault(this.fault);
    afterWrite(model, await world.agentPatch(this.style, this.expected));
    await world.checkInvariants(this.toString());
  }
  toString = (): string => `AgentPatch(${this.style}, expected_hash: ${this.expected})${withFault(this.fault)}`;
}

class Push implements ReliabilityCommand {
  constructor(private readonly fault: FaultKind | null) {}
  check = (): boolean => true;
  async run(model: ReliabilityModel, world: ReliabilityWorld): Promise<void> {
    await lookIfUnsettled(model, world);
    if (this.fault !== null) world.injectFault(this.fault);
    afterWrite(model, await world.push());
    await world.checkInvariants(this.toString());
  }
  toString = (): string => `Push${withFault(this.fault)}`;
}

/**
 * The user resolves a conflict: folds the snapshot into the file and pushes with the conflict's
 * `remote_body_hash`. Without a known conflict it pushes first, and merges if that conflicts.
 */
class MergePush implements ReliabilityCommand {
  constructor(
    private readonly fault: FaultKind | null,
    private readonly collaboratorRace: boolean,
  ) {}
  check = (): boolean => true;
  async run(model: ReliabilityModel, world: ReliabilityWorld): Promise<void> {
    await lookIfUnsettled(model, world);
    if (model.conflictHash === undefined) {
      afterWrite(model, await world.push());
      await world.checkInvariants(`${this.toString()}, its first push`);
      if (model.conflictHash === undefined) return;
    }
    if (this.fault !== null) world.injectFault(this.fault);
    afterWrite(model, await world.mergePush(model.conflictHash, this.collaboratorRace));
    await world.checkInvariants(this.toString());
  }
  toString = (): string =>
    `MergePush${this.collaboratorRace ? "(collaborator edits meanwhile)" : ""}${withFault(this.fault)}`;
}

class Pull implements ReliabilityCommand {
  check = (): boolean => true;
  async run(_model: ReliabilityModel, world: ReliabilityWorld): Promise<void> {
    await world.pull();
    await world.checkInvariants(this.toString());
  }
  toString = (): string => "Pull";
}

class InjectFault implements ReliabilityCommand {
  constructor(private readonly kind: FaultKind) {}
  check = (): boolean => true;
  run(_model: ReliabilityModel, world: ReliabilityWorld): Promise<void> {
    world.injectFault(this.kind);
    return Promise.resolve();
  }
  toString = (): string => `InjectFault(${this.kind})`;
}

class SetVisibility implements ReliabilityCommand {
  constructor(
    private readonly delayMs: number,
    private readonly scope: "all" | "content",
  ) {}
  check = (): boolean => true;
  run(_model: ReliabilityModel, world: ReliabilityWorld): Promise<void> {
    world.setVisibility(this.delayMs, this.scope);
    return Promise.resolve();
  }
  toString = (): string => `SetVisibility(${this.delayMs} ms, ${this.scope})`;
}

class Look implements ReliabilityCommand {
  check = (): boolean => true;
  async run(model: ReliabilityModel, world: ReliabilityWorld): Promise<void> {
    await world.look();
    model.unsettled = false;
    await world.checkInvariants(this.toString());
  }
  toString = (): string => "Look";
}

/** Sync-all (src/sync/sync-all.ts) as the plugin and the `sync` command run it. */
class SyncAll implements ReliabilityCommand {
  constructor(private readonly fault: FaultKind | null) {}
  check = (): boolean => true;
  async run(model: ReliabilityModel, world: ReliabilityWorld): Promise<void> {
    await lookIfUnsettled(model, world);
    if (this.fault !== null) world.injectFault(this.fault);
    afterWrite(model, await world.syncAll());
    await world.checkInvariants(this.toString());
  }
  toString = (): string => `SyncAll${withFault(this.fault)}`;
}

/**
 * A visibility delay and scope: 0–300 ms stays inside the read-back window; 2.5 s outruns it, so
 * the engine's read-back gives up and reports `readback`.
 */
export const visibilityArbitrary = fc.tuple(
  fc.oneof({ weight: 8, arbitrary: fc.constantFrom(0, 50, 150, 300) }, { weight: 1, arbitrary: fc.constant(2_500) }),
  fc.constantFrom<"all" | "content">("all", "content"),
);

const position = fc.constantFrom<"start" | "end">("end", "start");
/** A fault armed just before a write command, about one time in three. */
const fault = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom(...FAULT_KINDS) },
);

/** The weighted command mix. */
export const commandArbitraries: Array<fc.Arbitrary<ReliabilityCommand>> = [
  fc.oneof(
    { weight: 4, arbitrary: position.map((at): ReliabilityCommand => new LocalEdit(at)) },
    { weight: 3, arbitrary: position.map((at): ReliabilityCommand => new CollaboratorEdit(at)) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.constantFrom<"end" | "anchored">("end", "anchored"),
          fc.constantFrom<"none" | "fresh" | "stale">("none", "fresh", "stale"),
          fault,
        )
        .map(([style, expected, armed]): ReliabilityCommand => new AgentPatch(style, expected, armed)),
    },
    { weight: 5, arbitrary: fault.map((armed): ReliabilityCommand => new Push(armed)) },
    { weight: 3, arbitrary: fault.map((armed): ReliabilityCommand => new SyncAll(armed)) },
    {
      weight: 4,
      arbitrary: fc.tuple(fault, fc.boolean()).map(([armed, race]): ReliabilityCommand => new MergePush(armed, race)),
    },
    { weight: 3, arbitrary: fc.constant<ReliabilityCommand>(new Pull()) },
    { weight: 1, arbitrary: fc.constantFrom(...FAULT_KINDS).map((kind): ReliabilityCommand => new InjectFault(kind)) },
    {
      weight: 2,
      arbitrary: visibilityArbitrary.map(([delay, scope]): ReliabilityCommand => new SetVisibility(delay, scope)),
    },
    { weight: 2, arbitrary: fc.constant<ReliabilityCommand>(new Look()) },
  ),
];

/** Up to this many commands per case (the length is drawn over the whole range). */
export const MAX_COMMANDS = 12;

/** The command lists of the property. */
export const reliabilityCommands = fc.commands(commandArbitraries, { maxCommands: MAX_COMMANDS, size: "max" });
