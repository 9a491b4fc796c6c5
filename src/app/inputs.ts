/**
 * Checks of caller-given values every door applies before any request: team paths, ids, body
 * hashes and permissions (the identifier rules are hackmd/identifiers.ts's). Messages use the
 * tools' argument names; the command line rewords the ones it shows (node/commands/command.ts).
 */
import { invalidInput } from "../core/errors";
import { isBodyHash } from "../core/hash";
import {
  checkIdentifier,
  hasControlCharacter,
  MAX_IDENTIFIER_LENGTH,
  type IdentifierLabel,
} from "../hackmd/identifiers";
import type { Permission } from "../hackmd/types";

/** Checks and trims `team_path` (docs/tools.md §3.1, §5.5): omitted or null → personal (null). */
export function workspaceArg(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const trimmed = value.trim();
  // Length and characters (hackmd/identifiers.ts) before any request; a huge value is refused before any scan.
  if (trimmed.length > MAX_IDENTIFIER_LENGTH) checkIdentifier("team path", trimmed);
  if (trimmed === "" || trimmed === "." || trimmed === ".." || hasControlCharacter(trimmed)) {
    throw invalidInput(
      "team_path is blank, a dot segment or contains a control character; pass a team path from hackmd_get_me, or omit team_path for the personal workspace.",
    );
  }
  checkIdentifier("team path", trimmed);
  return trimmed;
}

/** Checks a caller-given id before any request (docs/tools.md §5.5; length and characters: hackmd/identifiers.ts). */
export function idArg(label: Exclude<IdentifierLabel, "team path">, value: string): string {
  checkIdentifier(label, value);
  return value;
}

/** Checks a caller-supplied hash (docs/tools.md §11.1). */
export function hashArg(name: string, value: string | undefined, source: string): string | undefined {
  if (value === undefined) return undefined;
  if (!isBodyHash(value)) {
    throw invalidInput(
      `${name} must be "sha256:" followed by 64 lowercase hex digits; pass ${source} exactly as returned.`,
    );
  }
  return value;
}

const PERMISSION_ORDER: Record<Permission, number> = { owner: 0, signed_in: 1, guest: 2 };

/** Refuses settings HackMD's API cannot apply and write more permissive than read (docs/tools.md §5.4). */
export function checkPermissions(args: {
  read_permission?: Permission | undefined;
  write_permission?: Permission | undefined;
  comment_permission?: string | undefined;
  suggest_edit_permission?: string | undefined;
}): void {
  for (const key of ["comment_permission", "suggest_edit_permission"] as const) {
    if (args[key] !== undefined) {
      throw invalidInput(
        `${key} cannot be set through HackMD's API; leave it out and change it in HackMD's web interface.`,
      );
    }
  }
  if (
    args.read_permission &&
    args.write_permission &&
    PERMISSION_ORDER[args.write_permission] > PERMISSION_ORDER[args.read_permission]
  ) {
    throw invalidInput(
      `write_permission "${args.write_permission}" is more permissive than read_permission "${args.read_permission}"; choose a write permission no wider than the read permission.`,
    );
  }
}

/** Drops undefined members so request bodies carry only supplied fields. */
export function defined<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<T>;
}
