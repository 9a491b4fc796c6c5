/**
 * The tool policy of `hackmd-bridge mcp` and `serve` (docs/tool-contract-extensions.md): `--read-only`, `--deny`, `--allow`
 * and `--ask` turn into the gate the MCP server applies. Every tool is allowed unless a flag says
 * otherwise (the plugin's cautious default, reads allowed and writes asked, is not the command's:
 * the command has no one to ask). A tool set to `ask` is refused with a message that says so and
 * names the flag that allows it. `--deny`, `--allow` and `--ask` take comma-separated names and
 * may be repeated; all the names given count.
 */
import type { ToolGate } from "../mcp/gate";
import { ALL_TOOL_NAMES, isWriteTool, type PolicyMap, type ToolPolicy } from "../mcp/policy";
import { closest } from "./commands/args";
import { UsageError } from "./commands/output";

/** The option group of the tool policy flags. */
export const POLICY_OPTIONS = {
  "read-only": { type: "boolean", help: "refuse every tool that may change something (agents can only read)" },
  deny: {
    type: "string",
    value: "<tool,…>",
    repeatable: true,
    help: "refuse these tools (comma-separated tool names)",
  },
  allow: {
    type: "string",
    value: "<tool,…>",
    repeatable: true,
    help: "allow these tools (every tool is allowed unless a flag says otherwise)",
  },
  ask: {
    type: "string",
    value: "<tool,…>",
    repeatable: true,
    help: "tools that need approval; the command has no one to ask, so they are refused",
  },
} as const;

/** The command's policy for a tool no flag names: allowed (the flags are there to restrict). */
export const COMMAND_DEFAULT_POLICY: ToolPolicy = "allow";

/** The policy the flags give. */
export interface PolicyFlags {
  readOnly: boolean;
  /** The tools a flag names, with the policy it gives them. */
  policies: Record<string, ToolPolicy>;
}

/** The values of a policy flag: every repeat, each split at its commas. */
function namesOf(raw: string | boolean | readonly string[] | undefined): string[] {
  const given = typeof raw === "string" ? [raw] : Array.isArray(raw) ? (raw as readonly string[]) : [];
  return given.flatMap((value) => value.split(",").map((part) => part.trim()));
}

/** Checks the policy flags: known tool names, no tool given two policies, no write allowed under --read-only. */
export function parsePolicyFlags(
  values: Readonly<Record<string, string | boolean | readonly string[] | undefined>>,
): PolicyFlags {
  const readOnly = values["read-only"] === true;
  const policies: Record<string, ToolPolicy> = {};
  for (const policy of ["deny", "allow", "ask"] as const) {
    for (const name of namesOf(values[policy])) {
      if (name === "")
        throw new UsageError(
          `--${policy} takes tool names separated by commas, e.g. --${policy} hackmd_delete_note,hackmd_delete_folder`,
        );
      if (!ALL_TOOL_NAMES.includes(name)) {
        const guess = closest(name, ALL_TOOL_NAMES);
        throw new UsageError(
          `--${policy}: there is no tool ${JSON.stringify(name)}${guess === undefined ? `; the tools are ${ALL_TOOL_NAMES.join(", ")}` : `; did you mean ${guess}?`}`,
        );
      }
      const earlier = policies[name];
      if (earlier !== undefined && earlier !== policy)
        throw new UsageError(`${name} is given to both --${earlier} and --${policy}; name it once`);
      if (readOnly && policy !== "deny" && isWriteTool(name))
        throw new UsageError(`--read-only refuses ${name}; drop --read-only or drop ${name} from --${policy}`);
      policies[name] = policy;
    }
  }
  return { readOnly, policies };
}

/**
 * The complete policy map of the command: every tool allowed, then what the flags say. Complete,
 * so the gate never falls back to its own default for an unnamed tool (which asks for writes, as
 * the plugin does, and the command cannot ask).
 */
export function commandPolicies(flags: PolicyFlags): PolicyMap {
  return Object.freeze({
    ...Object.fromEntries(ALL_TOOL_NAMES.map((name) => [name, COMMAND_DEFAULT_POLICY])),
    ...flags.policies,
  });
}

/** The gate of the command: the flags' policy over "allow", no one to ask, refusals naming the flags. */
export function commandGate(flags: PolicyFlags): ToolGate {
  const policies = commandPolicies(flags);
  return {
    policies: () => policies,
    readOnly: () => flags.readOnly,
    timeoutMs: () => 0,
    wait: () => new Promise<void>(() => undefined),
    recordsBefore: false,
    words: {
      denied: (tool, reason) =>
        reason === "read_only"
          ? `This hackmd-bridge server runs with --read-only, so ${tool} is refused; nothing was changed. Use the read tools, or ask the user to restart hackmd-bridge without --read-only.`
          : `This hackmd-bridge server refuses ${tool} (--deny); nothing was changed. Ask the user to restart hackmd-bridge with --allow ${tool} if it should be allowed.`,
      cannotAsk: (tool) =>
        `${tool} needs the user's approval (--ask), but hackmd-bridge has no one to ask, so it is refused; nothing was changed. Ask the user to restart hackmd-bridge with --allow ${tool}, or to use the Obsidian plugin's endpoint, which asks.`,
    },
  };
}
