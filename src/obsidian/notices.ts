/**
 * The one place an error kind becomes an Obsidian notice (docs/style.md rule 8), and the helpers every
 * command uses to tell the user something. Texts are short, actionable and in sentence case; the
 * brand names "HackMD" and "HackMD Bridge" stay as written. A BridgeError's own message is written
 * for agents (it names tool arguments), so it goes to the debug log, not into the notice.
 */
import { Notice } from "obsidian";
import { isBridgeError, type ErrorKind } from "../core/errors";
import type { Logger } from "../core/ports";

/** What the user was doing, when it changes the advice. */
export type NoticeOperation = "pull" | "push" | "sync" | "check" | "publish" | "untrack" | "other";

/** The notice text of each error kind (docs/tools.md §4.1). */
export const ERROR_NOTICES: Readonly<Record<ErrorKind, string>> = {
  auth: "HackMD rejected the token. Set it in HackMD Bridge settings.",
  forbidden: "HackMD refused access to this note. Check that your account may edit it.",
  not_found: "HackMD has no such note. Check the link, or untrack the file if the note was deleted.",
  conflict: "The file or the note changed while this ran. Nothing was written; try again.",
  rate_limited: "HackMD's rate limit was reached. Wait a few minutes, then try again.",
  network: "Could not reach HackMD. Check the connection and try again.",
  upstream: "HackMD had a problem answering. Try again later.",
  api: "HackMD refused the request. Check the note and the settings, then try again.",
  readback: "HackMD accepted the change but did not show it yet. Check the note before pushing again.",
  partial_write: "HackMD has the change, but the sync state was not saved. Pull the note before pushing again.",
  too_large: "The note or the file is too large (50 MiB at most).",
  confirmation_required: "This needs your confirmation. Run the action again and confirm it.",
  unpushed_changes: "The file has edits that were never pushed. Push or sync it first.",
  unverified_local_content: "A different file is already there. Pull to another path, or move that file first.",
  invalid_input: "That cannot be done with this file or note. Check the name and the link.",
  patch_rejected: "The change could not be applied to the note.",
  local_access:
    "HackMD Bridge may not write there (a protected folder or an agent instruction file). Choose another path.",
  local_io: "Reading or writing a vault file failed. Check the file and try again.",
  not_tracked: "This file is not linked to a HackMD note. Pull or publish it first.",
  sync_state: "The sync record of this file is damaged. Pull the note again, or untrack the file.",
  internal: "HackMD Bridge could not talk to HackMD. Check the API URL in the settings.",
  tool_denied: "This agent tool is switched off in HackMD Bridge settings. Nothing was changed.",
  approval_denied: "You denied this change. Nothing was changed.",
  approval_timeout: "Nobody answered the approval request in time. Nothing was changed.",
};

/** Kinds whose advice depends on the operation. */
const OPERATION_NOTICES: Partial<Record<NoticeOperation, Partial<Record<ErrorKind, string>>>> = {
  pull: {
    conflict: "The file changed while the note was being pulled. Nothing was written; try again.",
    invalid_input: "The note cannot be pulled there. Check the link and the destination (a .md file).",
  },
  push: {
    not_found: "HackMD has no such note any more. Untrack the file, then publish it again if needed.",
  },
  publish: {
    readback: "HackMD accepted the new note but did not show it yet. Look for it on HackMD before publishing again.",
  },
};

/** The notice text for any failure; unknown failures get a generic text (details go to the log). */
export function errorNoticeText(error: unknown, operation: NoticeOperation = "other"): string {
  if (!isBridgeError(error)) return "Something went wrong. Open the developer console for details.";
  return OPERATION_NOTICES[operation]?.[error.kind] ?? ERROR_NOTICES[error.kind];
}

/** Shows the notice of a failure and logs its details at debug level. */
export function showError(error: unknown, options: { operation?: NoticeOperation; logger?: Logger } = {}): Notice {
  const operation = options.operation ?? "other";
  options.logger?.debug("command_failed", {
    operation,
    kind: isBridgeError(error) ? error.kind : "unexpected",
    message: error instanceof Error ? error.message : String(error),
  });
  return new Notice(errorNoticeText(error, operation));
}

/** Shows an informational notice. */
export function showInfo(message: string): Notice {
  return new Notice(message);
}

/** A notice that stays until it is hidden, updated in place (long work). */
export interface ProgressNotice {
  /** Replaces the text. */
  update(message: string): void;
  /** Removes the notice. */
  hide(): void;
}

/** Shows a notice that stays until `hide()`; `update` changes its text in place. */
export function showProgress(message: string): ProgressNotice {
  const notice = new Notice(message, 0);
  return {
    update: (next) => {
      notice.setMessage(next);
    },
    hide: () => notice.hide(),
  };
}
