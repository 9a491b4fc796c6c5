/**
 * `hackmd-bridge mirror <personal|team-path>[/<folder path>] [<dir>]`: binds a folder to a HackMD
 * workspace or one of its folders and fetches every note as a tracked file (src/app/mirror.ts).
 * `--dry-run` lists once and says what the first mirror costs against the month's request budget;
 * a stopped mirror resumes when run again. Later `hackmd-bridge sync` keeps the mirror whole.
 */
import { BridgeError } from "../../core/errors";
import { CallContext } from "../../hackmd/call-context";
import { parseMirrorTarget, RoundLists, startMirror, type MirrorItem, type MirrorResult } from "../../app/mirror";
import { BUDGET_FILE } from "../../sync/auto/budget-file";
import { FREE_PLAN_MONTHLY, readBudgetState } from "../../sync/auto/budget";
import { NodeLocalFiles } from "../local-files";
import { rootTrash } from "../mirror-trash";
import type { AppDeps } from "../../app/deps";
import { flag, type CommandContext, type HumanCommand } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { createProgress, formatTable, UsageError, writeJson } from "./output";

/** The checked arguments of `mirror`. */
export interface MirrorArgs {
  target: string;
  dir: string | undefined;
  exclude: string[] | undefined;
  dryRun: boolean;
  json: boolean;
}

/** The command's trash: `<root>/.trash` (a core over other files cannot trash). */
export function commandTrash(deps: AppDeps): { trash(path: string): Promise<string> } {
  if (deps.files instanceof NodeLocalFiles) return rootTrash(deps.files.rootPath);
  return {
    trash: (path) => Promise.reject(new BridgeError("internal", `No trash is available for ${path}.`)),
  };
}

/** The month's requests used so far, as the automatic sync's budget file counts them (0 if none). */
async function usedThisMonth(deps: AppDeps): Promise<number> {
  const read = await deps.files.state.read(BUDGET_FILE, { maxBytes: 1_048_576 }).catch(() => undefined);
  const text = read === undefined || read.truncated ? undefined : new TextDecoder().decode(read.bytes);
  return readBudgetState(text, deps.clock.now(), FREE_PLAN_MONTHLY).state.used;
}

/** Runs the mirror: exit 0 when complete, 1 when something needs attention or it must be resumed. */
export async function runMirror(args: MirrorArgs, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  const deps = core.deps;
  const target = parseMirrorTarget(args.target);
  const defaultDir = [target.teamPath ?? "HackMD", ...(target.folderPath === "" ? [] : [target.folderPath])].join("/");
  const progress = createProgress({ io, json: args.json });
  const call = new CallContext();
  let result: MirrorResult;
  try {
    result = await startMirror(deps, {
      target,
      localDir: args.dir ?? defaultDir,
      ...(args.exclude === undefined ? {} : { exclude: args.exclude }),
      dryRun: args.dryRun,
      host: commandTrash(deps),
      lists: new RoundLists(deps, call),
      call,
      onProgress: (report) => {
        if (report.total > 0 && report.phase !== "listing")
          progress.update(
            `${report.phase === "fetching" ? "Fetching notes" : "Publishing new files"} ${report.done}/${report.total}`,
          );
      },
    });
  } finally {
    progress.done();
  }
  const used = await usedThisMonth(deps);
  const budget = { monthly: FREE_PLAN_MONTHLY, used, left: Math.max(0, FREE_PLAN_MONTHLY - used) };
  if (args.json) {
    writeJson(io, { ...result, budget });
  } else printMirror(result, budget, io);
  if (args.dryRun) return EXIT.ok;
  return result.complete && result.items.every((item) => item.action !== "error") ? EXIT.ok : EXIT.attention;
}

function printMirror(
  result: MirrorResult,
  budget: { monthly: number; used: number; left: number },
  io: CommandContext["io"],
): void {
  const where = result.local_dir === "" ? "the root folder" : result.local_dir;
  if (result.dry_run) {
    io.out(
      `Dry run, nothing was written. Mirroring ${result.target} into ${where}: ${result.estimate.listed} notes listed, ${result.estimate.reads} to fetch, about ${result.estimate.requests} requests (${budget.used} of ${budget.monthly} used this month by automatic sync, ${budget.left} left).\n`,
    );
    return;
  }
  const count = (action: MirrorItem["action"]): number => result.items.filter((item) => item.action === action).length;
  io.out(
    `Mirrored ${result.target} into ${where}: ${count("pulled")} fetched, ${count("published")} published, ${count("trashed")} moved to the trash, ${count("error")} errors.${result.complete ? "" : " Not complete yet: run the same command again to resume."}\n`,
  );
  const shown = result.items.filter((item) => item.action !== "pulled");
  if (shown.length > 0)
    io.out(formatTable(shown.map((item) => [item.action, item.local_path || "-", item.message ?? item.note_id ?? ""])));
}

/** The `mirror` subcommand. */
export const mirrorCommand: HumanCommand = {
  name: "mirror",
  summary: "keep a folder as a mirror of a HackMD workspace or folder (every note a tracked file)",
  synopsis: "<personal|team-path>[/<folder path>] [<dir>] [options]",
  description: [
    "Every note becomes a tracked Markdown file; HackMD folders become subfolders, file names come",
    "from titles. The first mirror costs one list, a folder list and one read per note; stop it",
    "and run it again to resume. Then `hackmd-bridge sync` keeps it whole: new notes appear, new",
    "files are published as private notes, notes trashed on HackMD go to .trash, and a file you",
    "delete is only untracked unless you pass --delete-remote to sync. The default folder is",
    "HackMD/ (personal) or the team path.",
  ].join("\n"),
  positionals: { required: ["target"], optional: ["dir"] },
  options: {
    "dry-run": { type: "boolean", help: "list once and show what the first mirror costs; nothing is written" },
    exclude: {
      type: "string",
      value: "<pattern>",
      repeatable: true,
      help: "leave files matching this pattern alone (relative to the folder; * ** ?; repeatable)",
    },
  },
  shared: ["root", "json"],
  exitCodes: {
    0: "the mirror is complete (with --dry-run: the estimate was shown)",
    1: "some notes failed or the mirror stopped early: run it again to resume",
    2: "usage error, or a failure",
  },
  examples: ["hackmd-bridge mirror personal --dry-run", "hackmd-bridge mirror course/Handouts handouts"],
  parse: ({ values, positionals }) => {
    const [target = "", dir] = positionals;
    if (target.trim() === "") throw new UsageError("name the workspace: personal, or a team path");
    const exclude = values.exclude;
    const args: MirrorArgs = {
      target,
      dir,
      exclude: Array.isArray(exclude) ? [...(exclude as readonly string[])] : undefined,
      dryRun: flag(values, "dry-run"),
      json: flag(values, "json"),
    };
    return { json: args.json, run: (context) => runMirror(args, context) };
  },
};
