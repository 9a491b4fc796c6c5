/** The emulator's state and the in-process control operations of §2.12 (HTTP-independent). */
import { FaultRegistry } from "./faults";
import { IdSource } from "./ids";
import { RequestLog } from "./log";
import { copyQuirks, defaultQuirks, mergeQuirks } from "./quirks";
import { RateLimiter } from "./rate-limit";
import { setThreads } from "./routes/comments";
import { applySeed } from "./seed/apply";
import { demoSeed } from "./seed/demo";
import { emptySeed } from "./seed/empty";
import { Store } from "./store";
import { normalizeEol } from "./text";
import type {
  CollaboratorChange,
  EmulatorClock,
  EmulatorRandom,
  NoteState,
  Quirks,
  QuirksPatch,
  SeedData,
  SeedName,
  SeedResult,
  SeedThread,
} from "./types";

/** Construction parameters of the core. */
export interface CoreOptions {
  clock: EmulatorClock;
  random: EmulatorRandom;
  token: string;
  seed: SeedName;
  quirks: QuirksPatch;
  logCapacity: number;
}

/** Everything the HTTP pipeline and the control interfaces share. */
export class EmulatorCore {
  store = new Store();
  quirks: Quirks;
  readonly faults = new FaultRegistry();
  readonly limiter = new RateLimiter();
  readonly log: RequestLog;
  readonly ids: IdSource;
  readonly clock: EmulatorClock;
  readonly token: string;
  private readonly initial: CoreOptions;

  constructor(options: CoreOptions) {
    this.initial = options;
    this.clock = options.clock;
    this.token = options.token;
    this.ids = new IdSource(options.random);
    this.log = new RequestLog(options.logCapacity);
    this.quirks = mergeQuirks(defaultQuirks(), options.quirks);
    this.reset(options.seed);
  }

  /** Clock time now. */
  now(): number {
    return this.clock.now();
  }

  /** Fresh store with a built-in seed; quirks back to their start values; log, faults and counts emptied. */
  reset(seed: SeedName = this.initial.seed): void {
    this.store = new Store();
    this.quirks = mergeQuirks(defaultQuirks(), this.initial.quirks);
    this.faults.clear();
    this.limiter.reset();
    this.log.clear(true);
    const data = seed === "demo" ? demoSeed(this.token, this.now()) : emptySeed(this.token);
    applySeed(this.store, this.ids, data, this.now());
  }

  /** Adds seed data; entries without a workspace belong to the primary user. */
  seed(data: SeedData): SeedResult {
    return applySeed(this.store, this.ids, data, this.now(), this.store.tokens.get(this.token));
  }

  /** Merges switches; returns a copy of the result. */
  setQuirks(partial: QuirksPatch): Quirks {
    this.quirks = mergeQuirks(this.quirks, partial);
    return copyQuirks(this.quirks);
  }

  /** A web-editor edit: committed and visible at once, not logged, not rate-limited. */
  collaboratorEdit(noteId: string, change: CollaboratorChange, options: { as?: string } = {}): void {
    const entry = this.store.notes.get(noteId);
    if (!entry) throw new Error(`emulator: unknown note ${noteId}`);
    const note = entry.committed;
    const author =
      options.as !== undefined
        ? this.store.userByPath(options.as)
        : ([...this.store.users.values()].find((u) => u.tokens.length === 0 && u.id !== note.creatorId) ??
          this.store.users.get(note.creatorId));
    if (!author) throw new Error(`emulator: unknown user ${options.as ?? note.creatorId}`);
    const now = this.now();
    const changes: Partial<NoteState> = { lastChangedAt: now, lastChangeUserId: author.id };
    if (change.content !== undefined) {
      changes.content = this.quirks.normalizeLineEndings ? normalizeEol(change.content) : change.content;
    }
    if (change.title !== undefined) {
      changes.title = change.title;
      if (change.title !== note.title) changes.titleUpdatedAt = now;
    }
    if (change.tags !== undefined) {
      changes.tags = [...change.tags];
      if (JSON.stringify(change.tags) !== JSON.stringify(note.tags)) changes.tagsUpdatedAt = now;
    }
    if (change.description !== undefined) changes.description = change.description;
    const written = this.store.writeNote(entry, changes, now, { delayMs: 0, scope: "all" });
    if (written && changes.content !== undefined && this.quirks.autoVersions === "per-write") {
      this.store.addSystemVersion(noteId, changes.content, author.id, now);
    }
  }

  /** Replaces the comment threads of a note (authors by userPath). */
  setComments(noteId: string, threads: SeedThread[]): void {
    if (!this.store.notes.has(noteId)) throw new Error(`emulator: unknown note ${noteId}`);
    setThreads(this.store, noteId, threads, this.now());
  }

  /** A deletion in the web UI: the note goes to its workspace's trash at once. */
  collaboratorDelete(noteId: string): void {
    const entry = this.store.notes.get(noteId);
    if (!entry) throw new Error(`emulator: unknown note ${noteId}`);
    if (entry.committed.trashedAt !== null) return;
    const now = this.now();
    const { folderId } = entry.committed;
    this.store.writeNote(entry, { trashedAt: now, restoreFolderId: folderId, folderId: null }, now, {
      delayMs: 0,
      scope: "all",
    });
  }
}
