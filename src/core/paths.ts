/**
 * Host-neutral rules for ROOT-relative paths (docs/tools.md §12.1–12.4, §13.1, §14.7): parsing and
 * normalising, the protected folders, the agent-instruction guard with its name folding, and a
 * few derived paths. Pure functions only; the Node and Obsidian hosts both build on them.
 */

import { BridgeError } from "./errors";

/** Folder that holds sync state in a ROOT that is not a vault, and is protected in every ROOT. */
export const BRIDGE_FOLDER = ".hackmd-bridge";

/** Obsidian's trash folder at the ROOT; never written to. */
export const TRASH_FOLDER = ".trash";

/** File names coding agents load as instructions, already folded (docs/tools.md §12.4). */
export const AGENT_FILE_NAMES: ReadonlySet<string> = new Set([
  "agent.md",
  "agents.md",
  "agents.override.md",
  "claude.md",
  "claude.local.md",
  "conventions.md",
  "crush.md",
  "gemini.md",
  "qwen.md",
  "skill.md",
  "warp.md",
]);

/** Folder names coding agents load instructions from, already folded (docs/tools.md §12.4). */
export const AGENT_FOLDER_NAMES: ReadonlySet<string> = new Set([
  ".agents",
  ".aiassistant",
  ".amazonq",
  ".augment",
  ".claude",
  ".clinerules",
  ".codex",
  ".continue",
  ".cursor",
  ".gemini",
  ".github",
  ".junie",
  ".kilocode",
  ".kiro",
  ".opencode",
  ".roo",
  ".trae",
  ".windsurf",
]);

/** Where sync state lives and which folders are protected: the facts of one ROOT. */
export interface RootLayout {
  /** Whether the ROOT is an Obsidian vault (docs/tools.md §2.4). */
  isVault: boolean;
  /** The vault configuration folder, ROOT-relative (normally `.obsidian`). */
  configDir: string;
}

/** The write policy of one ROOT: its layout plus the `protect_agent_files` setting. */
export interface WritePolicy extends RootLayout {
  /** Whether agent instruction files and folders are refused (docs/tools.md §12.4). */
  protectAgentFiles: boolean;
}

/** What a write creates: a file, or a folder made by `create_parent_dirs`. */
export type WriteTarget = "file" | "folder";

/** An example used in messages so that every refusal shows the accepted form. */
const EXAMPLE = "Notes/plan.md";

/** Whether the input is an absolute path in some platform's form (`/x`, `C:\x`, `C:/x`, `\\server\x`). */
export function isAbsoluteForm(input: string): boolean {
  return input.startsWith("/") || input.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(input);
}

/**
 * Parses a ROOT-relative path and returns its normal form: `/` separators, `.` segments and
 * repeated or trailing `/` dropped. Empty, `\` or NUL → `invalid_input`; a leading `/` or a `..`
 * component → `local_access`. Hosts that accept absolute paths convert them first; a host without
 * an absolute ROOT refuses every `isAbsoluteForm` input with `absolutePathError` before this.
 */
export function parseRootRelative(input: string): string {
  if (input.includes("\0")) {
    throw new BridgeError(
      "invalid_input",
      `The path ${JSON.stringify(input)} contains a NUL character; give a plain ROOT-relative path such as ${EXAMPLE}.`,
    );
  }
  if (input.startsWith("/")) throw absolutePathError(input);
  if (input.includes("\\")) {
    throw new BridgeError(
      "invalid_input",
      `The path ${JSON.stringify(input)} contains "\\"; use forward slashes, e.g. ${EXAMPLE}.`,
    );
  }
  const segments = input.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.length === 0) {
    throw new BridgeError(
      "invalid_input",
      `The path ${JSON.stringify(input)} is empty; give a file inside the ROOT, e.g. ${EXAMPLE}.`,
    );
  }
  if (segments.includes("..")) throw dotDotError(input);
  return segments.join("/");
}

/** The `local_access` refusal of an absolute path on a host with no absolute location for the ROOT. */
export function absolutePathError(input: string): BridgeError {
  return new BridgeError(
    "local_access",
    `The path ${JSON.stringify(input)} is absolute, and this host has no absolute location for the ROOT; give it relative to the ROOT, e.g. ${EXAMPLE}.`,
  );
}

/** The `local_access` refusal of a `..` component, suggesting the direct form when there is one. */
export function dotDotError(input: string): BridgeError {
  const direct: string[] = [];
  let escapes = false;
  for (const segment of input.split(/[\\/]/)) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") direct.push(segment);
    else if (direct.pop() === undefined) escapes = true;
  }
  const hint =
    escapes || direct.length === 0 || isAbsoluteForm(input)
      ? `name the destination inside the ROOT directly, e.g. ${EXAMPLE}`
      : `name the destination directly, e.g. ${direct.join("/")}`;
  return new BridgeError(
    "local_access",
    `The path ${JSON.stringify(input)} has a ".." component, which is not accepted; ${hint}.`,
  );
}

/** The segments of a normalised ROOT-relative path (`""` has none). */
export function pathSegments(path: string): string[] {
  return path === "" ? [] : path.split("/");
}

/** Joins normalised ROOT-relative parts, skipping empty ones. */
export function joinPath(...parts: string[]): string {
  return parts.filter((part) => part !== "").join("/");
}

/** The folder holding a normalised ROOT-relative path; `""` for the ROOT itself. */
export function parentPath(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut < 0 ? "" : path.slice(0, cut);
}

/** The final component of a normalised ROOT-relative path. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Folds one path component for comparison (docs/tools.md §12.4): cut at the first `:`, remove every
 * Default_Ignorable_Code_Point, trim trailing dots and spaces, then upper- and lower-case.
 */
export function foldName(name: string): string {
  const colon = name.indexOf(":");
  const cut = colon < 0 ? name : name.slice(0, colon);
  // Printable ASCII (nearly every name, checked on every path): no default-ignorable code points,
  // and upper- then lower-casing is lower-casing. The same result, without the Unicode regex.
  if (PRINTABLE_ASCII.test(cut)) return cut.replace(/[. ]+$/u, "").toLowerCase();
  return cut
    .replace(/\p{Default_Ignorable_Code_Point}/gu, "")
    .replace(/[. ]+$/u, "")
    .toUpperCase()
    .toLowerCase();
}

/** Whether `path` is `folder` or lies inside it, comparing folded components. */
export function isInsideFolder(path: string, folder: string): boolean {
  const inner = pathSegments(path).map(foldName);
  const outer = pathSegments(folder).map(foldName);
  return outer.length <= inner.length && outer.every((segment, i) => inner[i] === segment);
}

/** The sync state folder of a ROOT, ROOT-relative, without a trailing `/` (docs/tools.md §13.1). */
export function syncStateFolder(layout: RootLayout): string {
  return layout.isVault
    ? joinPath(parseRootRelative(layout.configDir), "plugins/hackmd-bridge/sync")
    : `${BRIDGE_FOLDER}/sync`;
}

/** The protected folders of a ROOT (docs/tools.md §12.3), ROOT-relative. */
export function protectedFolders(layout: RootLayout): string[] {
  const folders = [TRASH_FOLDER, BRIDGE_FOLDER];
  if (layout.isVault) folders.push(parseRootRelative(layout.configDir));
  folders.push(syncStateFolder(layout));
  return folders;
}

/** The protected folder `path` is or lies inside (docs/tools.md §12.3), or undefined. */
export function protectedFolderOf(path: string, layout: RootLayout): string | undefined {
  return protectedFolders(layout).find((folder) => isInsideFolder(path, folder));
}

/**
 * The component of `path` that makes it an agent instruction file or puts it inside an agent
 * instruction folder (docs/tools.md §12.4), or undefined. Folder names match any component; file names
 * match the final component of a file.
 */
export function agentInstructionComponent(path: string, target: WriteTarget = "file"): string | undefined {
  const segments = pathSegments(path);
  const last = segments.length - 1;
  return segments.find(
    (segment, i) =>
      AGENT_FOLDER_NAMES.has(foldName(segment)) ||
      (target === "file" && i === last && AGENT_FILE_NAMES.has(foldName(segment))),
  );
}

/**
 * The refusal of a write to a normalised ROOT-relative path under the policy (protected folders,
 * then agent instruction files when protected), or undefined when the write may proceed.
 */
export function writeRefusal(path: string, target: WriteTarget, policy: WritePolicy): BridgeError | undefined {
  const what = target === "file" ? "file" : "folder";
  const folder = protectedFolderOf(path, policy);
  if (folder !== undefined) {
    return new BridgeError(
      "local_access",
      `Refusing to write the ${what} ${path}: it lies inside ${folder}/, a folder HackMD Bridge never writes to (vault configuration, sync state or trash); choose another destination.`,
      { details: { path, protected_folder: folder } },
    );
  }
  if (!policy.protectAgentFiles) return undefined;
  const component = agentInstructionComponent(path, target);
  if (component === undefined) return undefined;
  const kind = AGENT_FOLDER_NAMES.has(foldName(component))
    ? "a folder coding agents read instructions from"
    : "a file name coding agents load as instructions";
  return new BridgeError(
    "local_access",
    `Refusing to write the ${what} ${path}: ${JSON.stringify(component)} is ${kind}, and a shared note must not become an agent's instructions; choose another name, or turn off the protect_agent_files setting if this ROOT is not an agent's working folder.`,
    { details: { path, agent_component: component } },
  );
}

/** Throws the refusal of `writeRefusal` for every given form of one write. */
export function assertWritable(paths: readonly string[], target: WriteTarget, policy: WritePolicy): void {
  for (const path of paths) {
    const refusal = writeRefusal(path, target, policy);
    if (refusal) throw refusal;
  }
}

/** Whether a path names a Markdown file: its final component ends in `.md` (any case) after a stem. */
export function isMarkdownPath(path: string): boolean {
  return /.\.md$/iu.test(baseName(path));
}

/** The `.remote.md` snapshot beside a tracked Markdown file (docs/tools.md §14.7): `a/b.MD` → `a/b.remote.md`. */
export function remoteSnapshotPath(path: string): string {
  if (!isMarkdownPath(path)) {
    throw new BridgeError(
      "invalid_input",
      `${path} does not end in .md; only Markdown files have a .remote.md snapshot.`,
    );
  }
  return `${path.slice(0, -3)}.remote.md`;
}
