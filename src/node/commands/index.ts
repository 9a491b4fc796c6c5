/** The human subcommands of the standalone command, and the runner that gives them a core. */
import type { Logger } from "../../core/ports";
import { createNodeCore, type NodeSettings } from "../runtime";
import type { CommandRun, HumanCommand } from "./command";
import type { ExitCode } from "./exit-codes";
import { reportError, type CommandIo } from "./output";
import { pullCommand } from "./pull";
import { pushCommand } from "./push";
import { statusCommand } from "./status";
import { syncCommand } from "./sync";

/** The human subcommands by name. */
export const HUMAN_COMMANDS: ReadonlyMap<string, HumanCommand> = new Map([pullCommand, pushCommand, statusCommand, syncCommand].map((command) => [command.name, command]));

/**
 * Builds the core over the settings and runs a checked command line. Every failure, building
 * the core included, is reported once: refusals exit 1, errors 2 (exit-codes.ts).
 */
export async function runHumanCommand(options: {
  command: HumanCommand;
  run: CommandRun;
  settings: NodeSettings;
  env: NodeJS.ProcessEnv;
  io: CommandIo;
  logger: Logger;
}): Promise<ExitCode> {
  const { command, run, settings, env, io, logger } = options;
  try {
    const core = await createNodeCore(settings, logger);
    return await run.run({ core, io, env });
  } catch (error) {
    return reportError({ error, io, json: run.json, command: command.name });
  }
}
