/**
 * The per-tool policy (docs/tool-contract-extensions.md, docs/adr/0005-ask-by-rerun.md): each tool is allowed, asked about or
 * denied. Plain data, so the settings schema and the command line can use it without loading the
 * tool definitions; a test checks the lists against the tools' `readOnlyHint`.
 */

/** What happens when an agent calls a tool. */
export type ToolPolicy = "allow" | "ask" | "deny";

/** The three policies, most permissive first. */
export const TOOL_POLICIES: readonly ToolPolicy[] = ["allow", "ask", "deny"];

/** Tools that read only (`readOnlyHint: true`), in the order of docs/tools.md §9.0. */
export const READ_TOOL_NAMES = [
  "hackmd_get_me",
  "hackmd_list_notes",
  "hackmd_get_note",
  "hackmd_list_folders",
  // Versions and comments, after the 14:
  "hackmd_list_versions",
  "hackmd_get_version",
  "hackmd_list_comments",
  // Search (local files only):
  "hackmd_search_notes",
  // The sync journal:
  "hackmd_list_journal",
] as const;

/** Tools that may change a note, a folder, an image, a file or a sync record, in the order of docs/tools.md §9.0. */
export const WRITE_TOOL_NAMES = [
  "hackmd_create_note",
  "hackmd_update_note",
  "hackmd_delete_note",
  "hackmd_upload_note_image",
  "hackmd_create_folder",
  "hackmd_update_folder",
  "hackmd_delete_folder",
  "hackmd_pull_note",
  "hackmd_push_note",
  "hackmd_untrack_note",
  // Versions and comments, after the 14:
  "hackmd_create_version",
  "hackmd_resolve_comment",
] as const;

/** Every tool name, reads first. */
export const ALL_TOOL_NAMES: readonly string[] = [...READ_TOOL_NAMES, ...WRITE_TOOL_NAMES];

/** A policy per tool name. */
export type PolicyMap = Readonly<Record<string, ToolPolicy>>;

/** The defaults a cautious user would pick: reads allowed, every change asked about. */
export const DEFAULT_TOOL_POLICIES: PolicyMap = Object.freeze(
  Object.fromEntries([
    ...READ_TOOL_NAMES.map((name) => [name, "allow"]),
    ...WRITE_TOOL_NAMES.map((name) => [name, "ask"]),
  ]),
) as PolicyMap;

/** Whether a tool can change something. */
export function isWriteTool(name: string): boolean {
  return (WRITE_TOOL_NAMES as readonly string[]).includes(name);
}

/** Whether a value is a policy. */
export function isToolPolicy(value: unknown): value is ToolPolicy {
  return typeof value === "string" && (TOOL_POLICIES as readonly string[]).includes(value);
}

/**
 * The policy that applies to a call of a tool whose `readOnlyHint` is `readsOnly`: "read-only for
 * agents" denies every tool that may change something; otherwise the tool's own policy, or for a
 * tool the map does not name (one added later), allow when it reads only and ask when it writes.
 * That fallback is the plugin's default; the command, which cannot ask, passes a complete map
 * (src/node/tool-policy-flags.ts, commandPolicies) so it never applies there.
 */
export function effectivePolicy(options: {
  policies: PolicyMap;
  readOnly: boolean;
  tool: string;
  readsOnly: boolean;
}): ToolPolicy {
  if (options.readOnly && !options.readsOnly) return "deny";
  const policy = options.policies[options.tool];
  return isToolPolicy(policy) ? policy : options.readsOnly ? "allow" : "ask";
}
