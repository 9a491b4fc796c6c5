import type { z } from "zod/v4";
import type { CallContext } from "../../hackmd/call-context";
import { defineTool, type ToolDefinition } from "../define-tool";
import type { AppDeps } from "../../app/deps";

/**
 * What every tool handler receives (docs/style.md rule 2: the world as parameters): the MCP door's
 * view of the application layer's services (app/deps.ts), shared with the Obsidian commands and
 * the command line.
 */
export type ToolDeps = AppDeps;

/** A HackMD Bridge tool: handlers receive the core's deps and the per-call retry context. */
export type BridgeTool = ToolDefinition<ToolDeps, CallContext, never>;

/** Defines a tool with its argument types inferred from its input schema. */
export function tool<Schema extends z.ZodObject>(
  definition: Omit<ToolDefinition<ToolDeps, CallContext, z.output<Schema>>, "input"> & { input: Schema },
): BridgeTool {
  // Every tool with team_path also accepts the hidden `workspace` alias (docs/tools.md §3.1).
  const decodes = definition.decodeInput ?? definition.input;
  const aliases = "team_path" in decodes.shape ? { workspace: "team_path", ...definition.aliases } : definition.aliases;
  return defineTool<ToolDeps, CallContext, Schema>({ ...definition, ...(aliases ? { aliases } : {}) });
}
