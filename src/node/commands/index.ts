/** The human subcommands of the standalone command, and the runner that gives them a core. */
import type { Logger } from "../../core/ports";
import { createNodeCore, type Environment, type NodeSettings } from "../runtime";
import type { CommandRun, HumanCommand } from "./command";
import { commentsCommand } from "./comments";
import { diffCommand } from "./diff";
import type { ExitCode } from "./exit-codes";
import { historyCommand } from "./history";
import { listCommand } from "./list";
import { mirrorCommand } from "./mirror";
import { logCommand } from "./log";
import { reportError, type CommandIo } from "./output";
import { publishCommand } from "./publish";
import { pullCommand } from "./pull";
import { pushCommand } from "./push";
import { searchCommand } from "./search";
import { statusCommand } from "./status";
import { syncCommand } from "./sync";
import { untrackCommand } from "./untrack";
import { CLI_WORDS } from "./words";

/** The human subcommands, in the order help lists them. */
export const HUMAN_COMMAND_LIST: readonly HumanCommand[] = [
  listCommand,
  pullCommand,
  statusCommand,
  diffCommand,
  pushCommand,
  syncCommand,
  publishCommand,
  untrackCommand,
  historyCommand,
  commentsCommand,
  mirrorCommand,
  searchCommand,
  logCommand,
];

/** The human subcommands by name. */
export const HUMAN_COMMANDS: ReadonlyMap<string, HumanCommand> = new Map(
  HUMAN_COMMAND_LIST.map((command) => [command.name, command]),
);

/**
 * Builds the core over the settings (its messages in the command line's words) and runs a
 * checked command line. Every failure, building the core included, is reported once: refusals
 * (not tracked, a flag needed, no such note) exit 1, failures 2 (exit-codes.ts); only `list`,
 * which refuses nothing, counts every failure as one.
 */
export async function runHumanCommand(options: {
  command: HumanCommand;
  run: CommandRun;
  settings: NodeSettings;
  env: Environment;
  io: CommandIo;
  logger: Logger;
}): Promise<ExitCode> {
  const { command, run, settings, env, io, logger } = options;
  try {
    const core = await createNodeCore(settings, logger, { words: CLI_WORDS });
    return await run.run({ core, io, env });
  } catch (caught) {
    return reportError({
      error: caught,
      io,
      json: run.json,
      command: command.name,
      ...(run.exitCodeOf === undefined ? {} : { exitCode: run.exitCodeOf(caught) }),
    });
  }
}
