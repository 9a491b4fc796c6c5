/** The shape of a human subcommand (pull, push, status, sync, list, diff, publish, untrack, history, comments). */
import type { AppDeps } from "../../app/deps";
import type { Environment } from "../runtime";
import { workspaceArg } from "../../app/inputs";
import type { CommandSpec, ParsedValues } from "./args";
import type { ExitCode } from "./exit-codes";
import { UsageError, type CommandIo } from "./output";

export type { ParsedValues } from "./args";

/**
 * What a subcommand runs with: the core's application services (`core.deps`: the sync engine, the
 * client, the use-cases' deps; a `BridgeCore` is one), io and environment. The subcommands are a
 * door onto src/app/, not onto the MCP tools.
 */
export interface CommandContext {
  core: { deps: AppDeps };
  io: CommandIo;
  env: Environment;
}

/** A checked command line, ready to run once the core exists. */
export interface CommandRun {
  /** Whether `--json` was given (errors are then reported as one JSON object too). */
  json: boolean;
  /** Runs the command; resolves with its exit code. Refusals may throw; the caller maps them. */
  run: (context: CommandContext) => Promise<ExitCode>;
  /** The exit code of a thrown failure, when the command's table differs from the usual one. */
  exitCodeOf?: (error: unknown) => ExitCode;
}

/** A human subcommand defined as data: its spec (usage, options, help, exit codes) and its check. */
export interface HumanCommand extends CommandSpec {
  /** Checks values and positionals (throws UsageError) before any core is built. */
  parse: (input: { values: ParsedValues; positionals: string[] }) => CommandRun;
}

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

/**
 * `--team` as a team path (null when absent), checked as the tools check `team_path`
 * (workspaceArg: blank, dot segment, control character, and hackmd/identifiers.ts's length and
 * characters) before any request; a refusal is a usage error that says which rule failed.
 */
export function teamOption(value: string | undefined): string | null {
  try {
    return workspaceArg(value);
  } catch (error) {
    const said =
      error instanceof Error && error.message.startsWith("The team path ")
        ? error.message.slice("The team path ".length)
        : undefined;
    throw new UsageError(
      said === undefined ? "--team is blank or contains a control character; pass a team path" : `--team ${said}`,
    );
  }
}
