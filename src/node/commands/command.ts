/** The shape of a human subcommand (pull, push, status, sync) and helpers for its arguments. */
import type { BridgeCore } from "../../mcp/core";
import type { ExitCode } from "./exit-codes";
import { UsageError, type CommandIo } from "./output";

/** What a subcommand runs with: the core (its `deps.sync` and `deps.client`), io and environment. */
export interface CommandContext {
  core: BridgeCore;
  io: CommandIo;
  env: NodeJS.ProcessEnv;
}

/** Option values as `node:util` parseArgs returns them. */
export type ParsedValues = Record<string, string | boolean | Array<string | boolean> | undefined>;

/** A parseArgs option declaration (string or boolean, no short forms). */
export type OptionSpec = Record<string, { type: "string" | "boolean" }>;

/** A checked command line, ready to run once the core exists. */
export interface CommandRun {
  /** Whether `--json` was given (errors are then reported as one JSON object too). */
  json: boolean;
  /** Runs the command; resolves with its exit code. Refusals may throw; the caller maps them. */
  run: (context: CommandContext) => Promise<ExitCode>;
}

/** A human subcommand defined as data: its usage, its own options, and its argument check. */
export interface HumanCommand {
  name: string;
  /** One usage line, printed after a usage error. */
  usage: string;
  /** Options beyond the shared ones (`--root`, `--config-dir`, `--protect-agent-files`, `--json`). */
  options: OptionSpec;
  /** Checks values and positionals (throws UsageError) before any core is built. */
  parse: (input: { values: ParsedValues; positionals: string[] }) => CommandRun;
}

/** The `--json` option every human subcommand takes. */
export const JSON_OPTION: OptionSpec = { json: { type: "boolean" } };

/** True when a boolean option was given. */
export function flag(values: ParsedValues, name: string): boolean {
  return values[name] === true;
}

/** A string option's value, refusing a blank one. */
export function text(values: ParsedValues, name: string): string | undefined {
  const value = values[name];
  if (typeof value !== "string") return undefined;
  if (value.trim() === "") throw new UsageError(`--${name} needs a value`);
  return value;
}

/** Checks the number of positionals: `names` are required, `optional` may follow. */
export function positionals(given: string[], options: { required: string[]; optional?: string[] }): string[] {
  const optional = options.optional ?? [];
  if (given.length < options.required.length) {
    throw new UsageError(`missing ${options.required.slice(given.length).map((name) => `<${name}>`).join(" ")}`);
  }
  if (given.length > options.required.length + optional.length) {
    throw new UsageError(`unexpected argument "${given[options.required.length + optional.length] ?? ""}"`);
  }
  return given;
}
