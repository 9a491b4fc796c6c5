/**
 * Cooperative running of the patch engine. The engine is written as generators that yield after
 * each slice of work, so a host can give its event loop back between slices (other MCP sessions
 * keep running while a large patch applies); run synchronously, a yield just resumes at once.
 */

/** A computation that yields between slices of work and finally returns `T`. */
export type Steps<T> = Generator<void, T, void>;

/**
 * Work units per slice. A unit is about one line handled (split, parsed, indexed, compared or
 * joined); 20,000 of them take about 5–10 ms (bench/patch.bench.ts measures the blocks).
 */
export const SLICE_UNITS = 20_000;

/** Counts the work of one run since its last yield. */
export class WorkMeter {
  private units = 0;

  constructor(private readonly slice: number = SLICE_UNITS) {}

  /** Records `units` of work; true when the slice is full and the caller should yield now. */
  spend(units = 1): boolean {
    this.units += units;
    if (this.units < this.slice) return false;
    this.units = 0;
    return true;
  }
}

/** Runs `steps` to the end without pausing. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs `steps` to the end, awaiting `pause` (which should give the host's event loop a turn) at every yield. */
export async function runStepsCooperatively<T>(steps: Steps<T>, pause: () => Promise<void>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pause();
  }
}
