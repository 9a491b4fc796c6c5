/**
 * The ports of the concurrency harness (tests/sync/concurrency.test.ts): a core's HTTP
 * transport, local files and sleep wrapped so that every request, every response, every file
 * operation and every sleep waits at a gate that fast-check's scheduler opens. The driver opens
 * one gate at a time and waits until the system is idle again (no port call and no digest in
 * flight), so the scheduler alone chooses the interleaving and a seed replays it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type fc from "fast-check";
import type {
  CreateFoldersResult,
  FileInfo,
  ListEntry,
  LocalFiles,
  PathPurpose,
  ReadOptions,
  ReadResult,
  RemoveOptions,
  ResolvedPath,
  RootFacts,
  StateFiles,
  WriteOptions,
  WriteResult,
} from "../../../src/core/local-files";
import type { HttpRequest, HttpResponse, HttpTransport, Sleep } from "../../../src/core/ports";
import type { VirtualClock } from "./virtual-clock";

/** Who is running: set around each operation of an actor and inherited by everything it awaits. */
export interface ActorContext {
  /** The operation's number in the schedule (`7`, or `7p` for a part running beside it). */
  op: string;
  /** "A" or "B": the core the operation runs on. */
  core: string;
  /** A short label such as `user Push(reading)`. */
  label: string;
}

/** The operation running in the current async context, if any. */
export const actorContext = new AsyncLocalStorage<ActorContext>();

/** How many WebCrypto digests are running or waiting (patched in by `trackDigests`). */
let digestsInFlight = 0;
/**
 * Real I/O and digests run one after another, in the order they were asked for: two started
 * together (sync-all reads and hashes files in parallel) would otherwise finish in whatever order
 * the disk and the thread pool answer, and no seed would replay the schedule.
 */
let serialTail: Promise<unknown> = Promise.resolve();

function serially<T>(run: () => Promise<T>): Promise<T> {
  const result = serialTail.then(run);
  serialTail = result.catch(() => undefined);
  return result;
}

/**
 * Counts `crypto.subtle.digest` calls in flight, so the driver does not mistake a hash running
 * on the thread pool for an idle system, and runs them one at a time: two hashes started together
 * (sync-all hashes files in parallel) finish in a fixed order, so the seed replays. Returns the
 * function that restores the original.
 */
export function trackDigests(): () => void {
  const subtle = globalThis.crypto.subtle;
  const original = subtle.digest.bind(subtle);
  const counted: SubtleCrypto["digest"] = (algorithm, data) => {
    digestsInFlight += 1;
    return serially(() => original(algorithm, data)).finally(() => {
      digestsInFlight -= 1;
    });
  };
  Object.defineProperty(subtle, "digest", { value: counted, configurable: true, writable: true });
  return () => {
    delete (subtle as { digest?: unknown }).digest;
  };
}

/** The gates of one schedule: every port call of every core passes one. */
export class Gates {
  /** The scheduler of the running schedule; undefined outside it (gates pass at once). */
  private scheduler: fc.Scheduler | undefined;
  private inFlight = 0;
  /** Labels of the gates in the order they opened, for the failure report. */
  readonly opened: string[] = [];

  constructor(private readonly clock: VirtualClock) {}

  /** Gates start waiting on `scheduler` (until `stop`). */
  start(scheduler: fc.Scheduler): void {
    this.scheduler = scheduler;
  }

  /** Gates pass at once again (reconcile and the final checks run unscheduled). */
  stop(): void {
    this.scheduler = undefined;
  }

  /** Whether a schedule is running. */
  get scheduled(): boolean {
    return this.scheduler !== undefined;
  }

  /**
   * Waits until the scheduler opens this gate. Each opening moves the shared clock on by 1 ms, so
   * two writes never share a `lastChangedAt` just because virtual time stood still.
   */
  async pass(label: string): Promise<void> {
    const scheduler = this.scheduler;
    if (scheduler === undefined) return;
    const who = actorContext.getStore();
    const full = who === undefined ? label : `${who.core}#${who.op} ${label}`;
    await scheduler.schedule(Promise.resolve(), full);
    this.opened.push(full);
    this.clock.advance(1);
  }

  /**
   * Runs real I/O (after an optional gate), counted as in flight until it settles. Calls run one
   * at a time in the order they were made: ungated ones (path policy checks) can start together
   * and would otherwise finish in whatever order the disk answers, which no seed replays.
   */
  async io<T>(label: string | null, run: () => Promise<T>): Promise<T> {
    if (label !== null) await this.pass(label);
    this.inFlight += 1;
    try {
      return await serially(run);
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Resolves once no port call and no digest has been in flight for a few event-loop turns. */
  async settle(): Promise<void> {
    let quiet = 0;
    while (quiet < 3) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      quiet = this.inFlight === 0 && digestsInFlight === 0 ? quiet + 1 : 0;
    }
  }

  /**
   * Opens gates one at a time until `done` settles: after each opening the system runs until
   * idle, then the scheduler picks the next gate among those waiting. Throws when nothing is
   * waiting but `done` has not settled (a hang outside the gates) or after `maxSteps` openings.
   */
  async drive(scheduler: fc.Scheduler, done: Promise<unknown>, maxSteps: number): Promise<number> {
    let finished = false;
    void done.then(
      () => (finished = true),
      () => (finished = true),
    );
    let idleRounds = 0;
    for (let steps = 0; ;) {
      await this.settle();
      if (finished) return steps;
      if (scheduler.count() === 0) {
        // Something runs outside the gates (a timer, an unpatched async call): give it time.
        idleRounds += 1;
        if (idleRounds > 2_000)
          throw new Error(
            `the schedule hung: nothing waits at a gate and the operations did not finish (after ${steps} gates)`,
          );
        await new Promise<void>((resolve) => setTimeout(resolve, 1));
        continue;
      }
      idleRounds = 0;
      if (steps >= maxSteps) throw new Error(`the schedule did not finish within ${maxSteps} gates`);
      await scheduler.waitNext(1);
      steps += 1;
    }
  }
}

/** The note id of a request for one note (`…/notes/:noteId`), or undefined for other routes. */
export function noteIdOf(url: string): string | undefined {
  const match = /\/notes\/([^/]+)$/.exec(new URL(url).pathname);
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
}

/** What the transport saw, reported to the world's ground truth. */
export interface TransportObserver {
  /** Before a request leaves (after its gate). */
  beforeRequest(request: HttpRequest): void;
  /** After the emulator answered (or the connection failed), before the response gate. */
  afterRequest(request: HttpRequest, response: HttpResponse | undefined): void;
}

/** An HttpTransport whose requests and responses each wait at a gate. */
export class GatedTransport implements HttpTransport {
  constructor(
    private readonly inner: HttpTransport,
    private readonly gates: Gates,
    private readonly observer: TransportObserver,
  ) {}

  async request(request: HttpRequest): Promise<HttpResponse> {
    const what = `${request.method} ${shortPath(request.url)}`;
    let response: HttpResponse | undefined;
    try {
      response = await this.gates.io(`send ${what}`, () => {
        this.observer.beforeRequest(request);
        return this.inner.request(request);
      });
      return response;
    } finally {
      this.observer.afterRequest(request, response);
      await this.gates.pass(`receive ${response === undefined ? "failure" : String(response.status)} ${what}`);
    }
  }
}

/** A path of an emulator URL without the API prefix, note ids shortened. */
function shortPath(url: string): string {
  const { pathname, search } = new URL(url);
  return `${pathname.replace(/^\/v1/, "").replace(/\/notes\/([^/]{6})[^/]*/, "/notes/$1…")}${search}`;
}

/** A LocalFiles whose file operations each wait at a gate (policy checks only count as I/O). */
export class GatedFiles implements LocalFiles {
  readonly state: StateFiles;

  constructor(
    private readonly inner: LocalFiles,
    private readonly gates: Gates,
    /** Told about every user-file write that succeeded (the state folder's writes are not). */
    private readonly onWrite: (path: string, data: Uint8Array | string) => void = () => undefined,
  ) {
    const state = inner.state;
    this.state = {
      read: (path, options) => gates.io(`state read ${path}`, () => state.read(path, options)),
      write: (path, data) => gates.io(`state write ${path}`, () => state.write(path, data)),
      remove: (path) => gates.io(`state remove ${path}`, () => state.remove(path)),
      list: (folder) => gates.io(`state list ${folder}`, () => state.list(folder)),
      create: (path, data) => gates.io(`state create ${path}`, () => state.create(path, data)),
      stat: (path) => gates.io(`state stat ${path}`, () => state.stat(path)),
    };
  }

  get root(): RootFacts {
    return this.inner.root;
  }

  resolve(input: string, purpose: PathPurpose): Promise<ResolvedPath> {
    return this.gates.io(null, () => this.inner.resolve(input, purpose));
  }

  stat(input: string): Promise<FileInfo> {
    return this.gates.io(`stat ${input}`, () => this.inner.stat(input));
  }

  read(input: string, options: ReadOptions): Promise<ReadResult> {
    return this.gates.io(`read ${input}`, () => this.inner.read(input, options));
  }

  readHead(input: string, n: number): Promise<ReadResult> {
    return this.gates.io(null, () => this.inner.readHead(input, n));
  }

  write(input: string, data: Uint8Array | string, options: WriteOptions): Promise<WriteResult> {
    return this.gates.io(`write ${input}`, async () => {
      const written = await this.inner.write(input, data, options);
      this.onWrite(written.path, data);
      return written;
    });
  }

  createFolders(input: string): Promise<CreateFoldersResult> {
    return this.gates.io(`mkdir ${input}`, () => this.inner.createFolders(input));
  }

  remove(input: string, options?: RemoveOptions): Promise<boolean> {
    return this.gates.io(`remove ${input}`, () => this.inner.remove(input, options));
  }

  list(input: string): Promise<ListEntry[]> {
    return this.gates.io(`list ${input}`, () => this.inner.list(input));
  }
}

/** The core's sleep: waits at a gate, then moves the shared virtual clock. */
export function gatedSleep(gates: Gates, clock: VirtualClock): Sleep {
  return async (ms) => {
    await gates.io(`sleep ${ms} ms`, () => clock.sleep(ms));
  };
}
