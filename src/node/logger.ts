import type { LogFields, Logger } from "../core/ports";
import { scrubSecrets } from "../core/secrets";

/** Log levels in increasing severity. */
export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Reads a level name, falling back to `info`. */
export function parseLogLevel(value: string | undefined): LogLevel {
  return value === "debug" || value === "info" || value === "warn" || value === "error" ? value : "info";
}

/**
 * JSON-lines logger for the standalone command (docs/tools.md §2.7): one object per line on stderr,
 * never stdout (stdio MCP owns it). Every line passes through `scrub`, so a secret that slipped
 * into a field is still replaced.
 */
export function createJsonLogger(options: {
  level: LogLevel;
  write: (line: string) => void;
  secrets: () => readonly string[];
  now?: () => number;
}): Logger {
  const emit = (level: LogLevel, event: string, fields?: LogFields): void => {
    if (ORDER[level] < ORDER[options.level]) return;
    const time = new Date((options.now ?? Date.now)()).toISOString();
    options.write(`${scrubSecrets(JSON.stringify({ time, level, event, ...fields }), options.secrets())}\n`);
  };
  return {
    debug: (event, fields) => emit("debug", event, fields),
    info: (event, fields) => emit("info", event, fields),
    warn: (event, fields) => emit("warn", event, fields),
    error: (event, fields) => emit("error", event, fields),
  };
}
