/**
 * `hackmd-bridge publish <path>`: creates a HackMD note from an untracked Markdown file (private
 * unless asked otherwise) with the file's HackMD form, waits until HackMD shows it, then tracks the
 * file with what was sent as its baseline (app/publish.ts) — the plugin's "Publish" does the same,
 * sharing its sync records.
 */
import { BridgeError } from "../../core/errors";
import { isMarkdownPath } from "../../core/paths";
import { CallContext } from "../../hackmd/call-context";
import type { Permission } from "../../hackmd/types";
import { checkPermissions } from "../../app/inputs";
import { publishFile } from "../../app/publish";
import { flag, teamOption, text, type CommandContext, type HumanCommand } from "./command";
import { EXIT, type ExitCode } from "./exit-codes";
import { UsageError, workspaceLabel, writeJson } from "./output";
import { shellQuote } from "./words";

const PERMISSIONS: readonly Permission[] = ["owner", "signed_in", "guest"];

/** The checked arguments of `publish`. */
export interface PublishArgs {
  path: string;
  teamPath: string | null;
  title: string | undefined;
  readPermission: Permission;
  writePermission: Permission;
  json: boolean;
}

/** Who may read or write, in words. */
const WHO: Record<Permission, string> = {
  owner: "only you",
  signed_in: "signed-in HackMD users",
  guest: "anyone with the link",
};

/** Publishes and tracks; a file that is already tracked is a refusal (exit 1). */
export async function runPublish(args: PublishArgs, context: CommandContext): Promise<ExitCode> {
  const { core, io } = context;
  const deps = core.deps;
  const resolved = await deps.files.resolve(args.path, "write");
  const path = resolved.path;
  if (!isMarkdownPath(path))
    throw new BridgeError("invalid_input", `${path} is not a .md file; publish a Markdown file.`);
  const tracked = (await deps.sync.listTracked()).find((entry) => entry.local_path === path);
  if (tracked !== undefined) {
    throw new BridgeError(
      "confirmation_required",
      `${path} is already tracked (note ${tracked.note_id}, ${workspaceLabel(tracked.team_path)}); send its edits with \`hackmd-bridge push ${shellQuote(path)}\` instead.`,
    );
  }
  const call = new CallContext();
  // The note gets the file's HackMD form and is tracked with exactly that as its baseline; a
  // failed link-up deletes the note again (app/publish.ts).
  const { created, noteId, shown, title } = await publishFile(deps, call, {
    path,
    teamPath: args.teamPath,
    title: args.title,
    readPermission: args.readPermission,
    writePermission: args.writePermission,
  });
  const output = {
    note_id: noteId,
    team_path: args.teamPath,
    local_path: path,
    title,
    read_permission: args.readPermission,
    write_permission: args.writePermission,
    ...(created.note.note_url === undefined ? {} : { note_url: created.note.note_url }),
    ...(created.placement_failed ? { placement_failed: true } : {}),
  };
  if (args.json) {
    writeJson(io, output);
    return EXIT.ok;
  }
  if (!shown) io.out(`HackMD did not show the note's text yet; the next sync reads it again.\n`);
  io.out(`Published ${path} as note ${noteId} ("${title}", ${workspaceLabel(args.teamPath)}) and tracked it.\n`);
  io.out(
    `Readable by ${WHO[args.readPermission]}, editable by ${WHO[args.writePermission]}.${output.note_url === undefined ? "" : ` ${output.note_url}`}\n`,
  );
  return EXIT.ok;
}

/** A permission flag's value, refusing anything else. */
function permission(value: string | undefined, name: string, fallback: Permission): Permission {
  if (value === undefined) return fallback;
  if (!(PERMISSIONS as readonly string[]).includes(value))
    throw new UsageError(`--${name} takes owner, signed_in or guest`);
  return value as Permission;
}

/** The `publish` subcommand. */
export const publishCommand: HumanCommand = {
  name: "publish",
  summary: "create a HackMD note from an untracked Markdown file and track it (private by default)",
  synopsis: "<path> [--team <team_path>] [--title <title>] [--read <who>] [--write <who>] [options]",
  description: [
    "The note's title is --title, else the file's first heading, else its name. Only you can read",
    "or edit the note unless --read / --write say otherwise (owner, signed_in or guest; write no",
    "wider than read). Then the file is tracked: push and sync keep it in step.",
  ].join("\n"),
  positionals: { required: ["path"] },
  options: {
    team: { type: "string", value: "<team_path>", help: "create the note in a team workspace (default: personal)" },
    title: { type: "string", value: "<title>", help: "the note's title" },
    read: { type: "string", value: "<owner|signed_in|guest>", help: "who may read it (default owner: only you)" },
    write: { type: "string", value: "<owner|signed_in|guest>", help: "who may edit it (default owner: only you)" },
  },
  shared: ["root", "json"],
  exitCodes: {
    0: "published and tracked",
    1: "refused: the file is already tracked, or may not be written (a protected path)",
    2: "usage error, or a failure",
  },
  examples: [
    "hackmd-bridge publish notes/idea.md",
    "hackmd-bridge publish notes/handout.md --team course --read guest",
  ],
  parse: ({ values, positionals: given }) => {
    const [path = ""] = given;
    const teamPath = teamOption(text(values, "team"));
    const readPermission = permission(text(values, "read"), "read", "owner");
    const writePermission = permission(text(values, "write"), "write", "owner");
    try {
      checkPermissions({ read_permission: readPermission, write_permission: writePermission });
    } catch {
      throw new UsageError(
        `--write ${writePermission} is wider than --read ${readPermission}; choose a --write no wider than --read`,
      );
    }
    const args: PublishArgs = {
      path,
      teamPath,
      title: text(values, "title"),
      readPermission,
      writePermission,
      json: flag(values, "json"),
    };
    return { json: args.json, run: (context) => runPublish(args, context) };
  },
};
