/**
 * The one check of every identifier a caller gives (docs/tool-contract-extensions.md,
 * "Identifiers"): note ids, team paths, folder ids, version ids and comment ids, whether they
 * arrive as tool arguments, command-line arguments or path segments of a request. It runs before
 * any request (the tools call it through `workspaceArg`, `idArg` and `parseNoteRef`, and
 * `buildTarget` checks every caller segment again), and it never echoes the value.
 *
 * What HackMD issues (docs/hackmd-api.md §1.2): note ids are 22 characters of
 * URL-safe base64, short ids about 9 of the same alphabet, folder, version and comment ids are
 * UUIDs; team paths are slugs chosen by people. So an id is 1–128 characters of
 * `A–Z a–z 0–9 - _ .` (dots inside an id stay allowed, as before), and a team path is 1–128
 * characters with no space, control character or URL delimiter (`/ \ ? # %`); other letters
 * (é, 中) stay allowed in team paths and are percent-encoded in the URL. A value that starts with
 * `-` reads like a command-line option (`--help`, `-x`): UUIDs never start so and team paths are
 * not expected to, so those are refused; a note id may (base64url uses `-`), so one that starts
 * with `-` is accepted only with the length of a note id (22) or a short id (9).
 */
import { BridgeError } from "../core/errors";

/** What a caller-given identifier is, for messages. */
export type IdentifierLabel = "note id" | "team path" | "folder id" | "version id" | "comment id";

/** Longest identifier accepted (HackMD's are 22 or 36 characters; team paths are short slugs). */
export const MAX_IDENTIFIER_LENGTH = 128;

/** The lengths of a note id and of a short id (the only note ids that may start with `-`). */
const NOTE_ID_LENGTH = 22;
const SHORT_ID_LENGTH = 9;

const ID_CHARACTERS = /^[A-Za-z0-9._-]+$/;
/** Whitespace (including Unicode spaces) and the characters that delimit URL parts. */
const TEAM_PATH_REFUSED = /[\s/\\?#%]/u;

/** Whether text holds a C0 control, DEL or a C1 control character. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** Refuses an identifier that HackMD could not have issued, with `invalid_input`. */
export function checkIdentifier(label: IdentifierLabel, value: string): void {
  if (value.trim() === "") {
    throw new BridgeError("invalid_input", `The ${label} is empty; pass a non-blank ${label}.`);
  }
  // The length first, so a huge value costs no scan.
  if (value.length > MAX_IDENTIFIER_LENGTH) {
    throw new BridgeError(
      "invalid_input",
      `The ${label} is ${value.length} characters long; HackMD's are at most ${MAX_IDENTIFIER_LENGTH}. Pass the ${label} exactly as HackMD shows it.`,
    );
  }
  if (value === "." || value === "..") {
    throw new BridgeError(
      "invalid_input",
      `The ${label} "${value}" is a dot segment and cannot name anything; pass a real ${label}.`,
    );
  }
  if (hasControlCharacter(value)) {
    throw new BridgeError(
      "invalid_input",
      `The ${label} contains a control character; pass the ${label} exactly as HackMD shows it.`,
    );
  }
  if (label === "team path" ? TEAM_PATH_REFUSED.test(value) : !ID_CHARACTERS.test(value)) {
    const allowed = label === "team path" ? "no spaces, / \\ ? # or %" : "only letters A–Z and a–z, digits, - _ and .";
    throw new BridgeError(
      "invalid_input",
      `The ${label} has characters HackMD does not use in one (${allowed}); pass the ${label} exactly as HackMD shows it.`,
    );
  }
  if (
    value.startsWith("-") &&
    !(label === "note id" && (value.length === NOTE_ID_LENGTH || value.length === SHORT_ID_LENGTH))
  ) {
    throw new BridgeError(
      "invalid_input",
      `The ${label} starts with "-" like a command-line option, and no ${label} HackMD issues does; pass the ${label} exactly as HackMD shows it.`,
    );
  }
}
