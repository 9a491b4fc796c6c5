/** Fault injection (§2.10): matching, skip/times counting and the phase each action acts in. */
import type { FaultAction, FaultHandle, FaultMatch, FaultSpec } from "./types";

/** The facts of a request that faults match against. */
export interface FaultRequest {
  method: string;
  route: string | null;
  rawPath: string;
  pathname: string;
  user: string | null;
}

/** An injected fault with its counters. */
export interface FaultRecord {
  id: string;
  match: FaultMatch;
  action: FaultAction;
  when: "before-commit" | "after-commit";
  times: number;
  skip: number;
  seen: number;
  hits: number;
}

/** Whether an action ends the request (a status or a dropped socket). */
export function isTerminal(action: FaultAction): action is Extract<FaultAction, { status: number } | { drop: true }> {
  return "status" in action || "drop" in action;
}

/** The injected faults of one emulator, checked in the order added. */
export class FaultRegistry {
  private faults: FaultRecord[] = [];
  private nextId = 1;

  /** Adds a fault and returns its live handle. */
  add(spec: FaultSpec): FaultHandle {
    const record: FaultRecord = {
      id: `fault-${this.nextId++}`,
      match: spec.match,
      action: spec.action,
      when: spec.when ?? "before-commit",
      times: spec.times ?? 1,
      skip: spec.skip ?? 0,
      seen: 0,
      hits: 0,
    };
    this.faults.push(record);
    return {
      id: record.id,
      get hits() {
        return record.hits;
      },
      get remaining() {
        return Math.max(0, record.times - record.hits);
      },
      remove: () => {
        this.remove(record.id);
      },
    };
  }

  /** Removes one fault by id; false when there was none. */
  remove(id: string): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.id !== id);
    return this.faults.length !== before;
  }

  /** Removes every fault and restarts the ids. */
  clear(): void {
    this.faults = [];
    this.nextId = 1;
  }

  /** The faults, for the control interface. */
  list(): FaultRecord[] {
    return [...this.faults];
  }

  /** Latency faults of a phase that act on this request, in order; their delays add up. */
  latencies(req: FaultRequest, when: FaultRecord["when"]): FaultRecord[] {
    return this.faults.filter((f) => "latencyMs" in f.action && f.when === when && this.acts(f, req));
  }

  /** The first status or drop fault of a phase that acts on this request. */
  terminal(req: FaultRequest, when: FaultRecord["when"]): FaultRecord | undefined {
    return this.faults.find((f) => isTerminal(f.action) && f.when === when && this.acts(f, req));
  }

  /** The first `placementFailure` or `partialApply` fault that acts on this request. */
  inline(req: FaultRequest, kind: "placementFailure" | "partialApply"): FaultRecord | undefined {
    return this.faults.find((f) => kind in f.action && this.acts(f, req));
  }

  /** Counts a matching request against skip and times; true when the fault acts on it. */
  private acts(fault: FaultRecord, req: FaultRequest): boolean {
    if (!matches(fault.match, req)) return false;
    fault.seen++;
    if (fault.seen <= fault.skip || fault.hits >= fault.times) return false;
    fault.hits++;
    return true;
  }
}

function matches(match: FaultMatch, req: FaultRequest): boolean {
  if (match.method !== undefined) {
    const methods = (Array.isArray(match.method) ? match.method : [match.method]).map((m) => m.toUpperCase());
    if (!methods.includes(req.method)) return false;
  }
  if (match.route !== undefined && match.route !== req.route) return false;
  if (match.path !== undefined) {
    if (typeof match.path === "string") {
      if (match.path !== req.rawPath && match.path !== req.pathname) return false;
    } else if (!match.path.test(req.rawPath)) {
      return false;
    }
  }
  if (match.user !== undefined && match.user !== req.user) return false;
  return true;
}
