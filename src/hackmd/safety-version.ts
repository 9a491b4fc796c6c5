/**
 * Named versions before deliberate overwrites, and the after-the-fact check for the one race HackMD
 * leaves open (docs/versions-and-comments.md). Before a force push, a "keep mine" resolution, an
 * agent's blind full-body update or a restore, one `POST /notes/{id}/versions` names what HackMD
 * holds, e.g. "Before push from Obsidian, 2026-12-01 14:03", so the user can bring it back. When
 * that is not possible the write goes ahead and the result says so — unless the host requires a
 * version, then nothing is sent. One instance per core; it remembers only whether the versions
 * API has answered, which decides whether the race check may spend its one GET.
 */
import { BridgeError, isBridgeError } from "../core/errors";
import type { Clock } from "../core/ports";
import type { CallContext } from "./call-context";
import type { HackmdClient } from "./client";
import type { NoteVersion } from "./versions-comments";

/** What a deliberate overwrite is, in a version's name. */
export type OverwriteAction = "push" | "keep mine" | "agent update" | "restore";

/** The outcome of asking for a version before an overwrite. */
export type SafetyVersion =
  | {
      made: true;
      id: string;
      name: string;
      reused: boolean;
      /** HackMD's creation time of a version made now (epoch ms); null when reused or not told. */
      created_at_ms?: number | null;
    }
  | { made: false; name: string; why: string };

/** A version someone else made between our read and our write (their text, overwritten by ours). */
export interface OverwrittenVersion {
  version_id: string;
  created_at: string;
  by: string;
}

/** Construction parameters. */
export interface SafetyVersionsOptions {
  client: Pick<HackmdClient, "createVersion" | "listVersions">;
  clock: Clock;
  /** Who overwrites, in version names: "Obsidian" or "hackmd-bridge". */
  host: string;
  /** Whether an overwrite must stop when no version could be made (read at every use). */
  requireVersion: () => boolean;
  /** How to turn that requirement off, in the host's words. */
  requireHint: string;
}

const pad = (n: number): string => String(n).padStart(2, "0");

/** `YYYY-MM-DD HH:MM` in local time. */
export function localMinute(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Versions before overwrites and the race check of one core. */
export class SafetyVersions {
  private available: boolean | undefined;

  constructor(private readonly options: SafetyVersionsOptions) {}

  /** Whether the versions API has answered in this core (true), refused with 404 (false) or not been asked. */
  get versionsApiSeen(): boolean | undefined {
    return this.available;
  }

  /** Records an answer of any versions request (the history view and the tools call this too). */
  noteAvailability(available: boolean): void {
    this.available = available;
  }

  /**
   * Names HackMD's current body before `action` overwrites it: one request. Throws only when a
   * version is required and none could be made (nothing has been sent then).
   */
  async before(call: CallContext, noteId: string, action: OverwriteAction): Promise<SafetyVersion> {
    const name = `Before ${action} from ${this.options.host}, ${localMinute(this.options.clock.now())}`;
    const outcome = await this.named(call, noteId, name);
    if (!outcome.made && this.options.requireVersion()) {
      throw new BridgeError(
        "upstream",
        `No version of note ${noteId} could be saved before the ${action} (${outcome.why}), and a version is required before overwriting; nothing was sent. Retry later, or ${this.options.requireHint}.`,
      );
    }
    return outcome;
  }

  /**
   * Names HackMD's current body of a note before an agent writes it, so collaborators see and can
   * restore it on hackmd.io: "Before <client>: <tool>, <time>" (docs/sync-journal.md). One request;
   * never throws for HackMD's answer (the write goes ahead and the outcome says why not).
   */
  beforeAgent(call: CallContext, noteId: string, client: string, tool: string): Promise<SafetyVersion> {
    return this.named(call, noteId, `Before ${client}: ${tool}, ${localMinute(this.options.clock.now())}`);
  }

  /** Saves the note's current body as a version called `name` (or reuses an identical newest one). */
  private async named(call: CallContext, noteId: string, name: string): Promise<SafetyVersion> {
    let outcome: SafetyVersion;
    try {
      const made = await this.options.client.createVersion(call, { noteId, name });
      this.available = true;
      outcome = {
        made: true,
        id: made.id,
        name: made.reused ? (made.version?.name ?? name) : name,
        reused: made.reused,
        created_at_ms: made.reused ? null : (made.version?.created_at_ms ?? null),
      };
    } catch (error) {
      if (!isBridgeError(error)) throw error;
      if (error.kind === "not_found") this.available = false;
      outcome = { made: false, name, why: whyNot(error) };
    }
    return outcome;
  }

  /**
   * After a confirmed write over a body last changed at `readChangedAt` (HackMD's clock): the
   * versions someone else's edits made after that and before ours, newest first. Costs one GET,
   * spent only once the versions API has answered in this core — or, with `probe`, also while
   * nobody has asked it yet (a push that sent on a list's word instead of a read of its own,
   * whose window is longer; the answer is remembered) — otherwise, and on any failure, []. After
   * a force push `readChangedAt` is the time of the version named before it: an edit landing
   * between that version and the write is found the same way. It relies on HackMD making a
   * system version per body write, the newest being ours.
   */
  async overwrittenSince(
    call: CallContext,
    noteId: string,
    readChangedAt: number | null,
    options: { probe?: boolean } = {},
  ): Promise<OverwrittenVersion[]> {
    if (readChangedAt === null) return [];
    if (this.available === false || (this.available === undefined && options.probe !== true)) return [];
    let versions: NoteVersion[];
    try {
      versions = (
        await this.options.client.listVersions(call, {
          noteId,
          createdAfter: new Date(readChangedAt + 1).toISOString(),
          limit: 20,
        })
      ).versions;
      this.available = true;
    } catch (error) {
      if (isBridgeError(error, "not_found") && this.available === undefined) this.available = false;
      return [];
    }
    const systems = versions.filter(
      (v) => v.name_source === "system" && v.created_at_ms !== null && v.created_at_ms > readChangedAt,
    );
    const ours = systems[0]?.created_by?.user_id;
    if (ours === undefined || ours === null) return [];
    return systems
      .slice(1)
      .filter((v) => v.created_by !== null && v.created_by.user_id !== ours)
      .map((v) => ({ version_id: v.id, created_at: v.created_at, by: v.created_by?.display_name ?? "someone" }));
  }
}

function whyNot(error: BridgeError): string {
  switch (error.kind) {
    case "not_found":
      return "this HackMD has no versions API";
    case "readback":
      return "HackMD's answer was lost; a version may exist";
    case "forbidden":
      return "the token may not save versions of this note";
    default:
      return `HackMD did not save one: ${error.kind}`;
  }
}

/** The sentence a result carries about the version made (or not) before an overwrite. */
export function safetySentence(outcome: SafetyVersion): string {
  return outcome.made
    ? `HackMD's previous text is kept as version "${outcome.name}" (${outcome.id}).`
    : `No version of HackMD's previous text could be saved (${outcome.why}); the overwrite went ahead.`;
}

/** The sentence about collaborator versions our write replaced. */
export function overwrittenSentence(found: readonly OverwrittenVersion[]): string {
  const first = found[0];
  if (first === undefined) return "";
  return `An edit by ${first.by} landed between the read and this write and was replaced; their text is in version ${first.version_id} (${first.created_at}).`;
}
