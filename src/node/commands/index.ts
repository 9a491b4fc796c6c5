/** The human subcommands of the standalone command, and the runner that gives them a core. */
import { BridgeError, isBridgeError } from "../../core/errors";
import type { Logger } from "../../core/ports";
import { createNodeCore, type NodeSettings } from "../runtime";
import type { FoundSandbox } from "../sandbox-state";
import type { CommandRun, HumanCommand } from "./command";
import { commentsCommand } from "./comments";
import { diffCommand } from "./diff";
import type { ExitCode } from "./exit-codes";
import { historyCommand } from "./history";
import { listCommand } from "./list";
import { reportError, type CommandIo } from "./output";
import { publishCommand } from "./publish";
import { pullCommand } from "./pull";
import { pushCommand } from "./push";
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
];

/** The human subcommands by name. */
export const HUMAN_COMMANDS: ReadonlyMap<string, HumanCommand> = new Map(HUMAN_COMMAND_LIST.map((command) => [command.name, command]));

/**
 * Builds the core over the settings (its messages in the command line's words) and runs a
 * checked command line. Every failure, building the core included, is reported once: refusals
 * exit 1, errors 2 (exit-codes.ts), unless the command says otherwise.
 */
export async function runHumanCommand(options: {
  command: HumanCommand;
  run: CommandRun;
  settings: NodeSettings;
  env: NodeJS.ProcessEnv;
  io: CommandIo;
  logger: Logger;
  /** The sandbox whose emulator the settings point at, when the root is a sandbox folder. */
  sandbox?: FoundSandbox | undefined;
}): Promise<ExitCode> {
  const { command, run, settings, env, io, logger, sandbox } = options;
  try {
    const core = await createNodeCore(settings, logger, { words: CLI_WORDS });
    return await run.run({ core, io, env });
  } catch (caught) {
    const error = sandbox === undefined ? caught : explainSandbox(caught, sandbox);
    return reportError({ error, io, json: run.json, command: command.name, ...(run.exitCodeOf === undefined ? {} : { exitCode: run.exitCodeOf(error) }) });
  }
}

/** A network failure towards a sandbox's emulator means the sandbox is not running: say so. */
function explainSandbox(error: unknown, sandbox: FoundSandbox): unknown {
  if (!isBridgeError(error, "network")) return error;
  return new BridgeError(
    "network",
    `The sandbox in ${sandbox.root} is not running (nothing answers at ${sandbox.apiUrl}); start it with \`npm start\` in the HackMD Bridge folder, or \`hackmd-bridge sandbox --root ${sandbox.root}\`, then run this again.`,
    { cause: error },
  );
}
