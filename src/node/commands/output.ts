/**
 * Output of the human subcommands: readable text or exactly one JSON object on stdout (`--json`),
 * a progress line on stderr, error reports, and secret scrubbing of everything written.
 */
import { isBridgeError } from "../../core/errors";
import { scrubSecrets } from "../../core/secrets";
import { PortInUseError } from "../../mcp/http/listener";
import { exitCodeForError, type ExitCode } from "./exit-codes";

/** Where a command writes: stdout, stderr, and whether stderr is a terminal. */
export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** True when stderr is a TTY: only then is the progress line redrawn in place with `\r`. */
  errIsTty: boolean;
  /** Width of the stderr terminal, when known. */
  errColumns?: number | undefined;
}

/** A wrong command line: the caller prints the message and the usage line, and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** An io whose every write passes through `scrubSecrets`, so a token can never reach a terminal. */
export function scrubbingIo(options: { io: CommandIo; secrets: () => readonly string[] }): CommandIo {
  const { io, secrets } = options;
  return {
    out: (text) => io.out(scrubSecrets(text, secrets())),
    err: (text) => io.err(scrubSecrets(text, secrets())),
    errIsTty: io.errIsTty,
    errColumns: io.errColumns,
  };
}

/** The message of a failure for a person, with the secrets scrubbed. */
export function describeError(error: unknown, secrets: readonly string[]): string {
  let message: string;
  if (error instanceof PortInUseError)
    message = `${error.message} Use --port to pick another (0 lets the system choose).`;
  else if (isBridgeError(error)) message = error.message;
  else message = error instanceof Error ? error.message : String(error);
  return scrubSecrets(message, secrets);
}

/** Writes the one JSON object of `--json` mode (nothing else goes to stdout in that mode). */
export function writeJson(io: CommandIo, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Reports a failure: the message on stderr and, in `--json` mode, one `{ "error": { kind,
 * message } }` object on stdout. The message is already in the command line's words: the core
 * behind the subcommands is built with them (./words.ts). Returns the exit code.
 */
export function reportError(options: {
  error: unknown;
  io: CommandIo;
  json: boolean;
  command: string;
  exitCode?: ExitCode;
}): ExitCode {
  const { error, io, json, command } = options;
  const message = describeError(error, []);
  if (json) writeJson(io, { error: { kind: isBridgeError(error) ? error.kind : "internal", message } });
  io.err(`hackmd-bridge ${command}: ${message}\n`);
  return options.exitCode ?? exitCodeForError(error);
}

/** A one-line progress report on stderr for work over many notes. */
export interface Progress {
  /** Shows the current step, e.g. `[3/12] Notes/plan.md`. */
  update(text: string): void;
  /** Clears a redrawn line so the final output starts on a clean line. */
  done(): void;
}

/**
 * A progress line: redrawn in place with `\r` when stderr is a TTY; otherwise plain lines, at
 * most one a second, and none at all in `--json` mode (scripts read stdout and should not get
 * chatter on stderr).
 */
export function createProgress(options: { io: CommandIo; json: boolean; now?: () => number }): Progress {
  const { io, json } = options;
  const now = options.now ?? Date.now;
  let drawn = false;
  let lastPlain: number | undefined;
  return {
    update(text) {
      if (io.errIsTty) {
        // Some terminals (and pseudo-terminals) report 0 columns: treat that as unknown.
        const width = Math.max(20, (io.errColumns || 80) - 1);
        const line = text.length > width ? `${text.slice(0, width - 1)}…` : text;
        io.err(`\r\x1b[2K${line}`);
        drawn = true;
      } else if (!json && (lastPlain === undefined || now() - lastPlain >= 1000)) {
        lastPlain = now();
        io.err(`${text}\n`);
      }
    },
    done() {
      if (drawn) io.err("\r\x1b[2K");
      drawn = false;
    },
  };
}

/**
 * Messages of several notes, each said once: a message shared by several notes (a failed list,
 * a rejected token) is printed once with the paths it applies to.
 */
export function groupedMessages(entries: ReadonlyArray<{ label: string; message: string }>): string[] {
  const byMessage = new Map<string, string[]>();
  for (const { label, message } of entries) byMessage.set(message, [...(byMessage.get(message) ?? []), label]);
  return [...byMessage].map(([message, labels]) => {
    const shown = labels.length > 5 ? [...labels.slice(0, 5), `${labels.length - 5} more`] : labels;
    return `${shown.join(", ")}:${message.startsWith("\n") ? "" : " "}${message}`;
  });
}

/** Lays rows out in columns separated by two spaces (the last column is not padded). */
export function formatTable(rows: ReadonlyArray<readonly string[]>): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  return (
    rows
      .map((row) =>
        row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0))).join("  "),
      )
      .join("\n") + (rows.length > 0 ? "\n" : "")
  );
}

/** Indents every line of a block of text (diffs, instructions) under a heading. */
export function indent(text: string, prefix = "  "): string {
  return text
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n");
}

/** How a workspace reads in the output. */
export function workspaceLabel(teamPath: string | null): string {
  return teamPath === null ? "personal" : `team ${teamPath}`;
}
