/**
 * The plugin's tool gate (docs/tool-contract-extensions.md): the policy from the settings (read at every call, so a change
 * applies to the next call), and the approval modal as the approver, one question at a time. The
 * timer is the plugin's (`window`), injected so tests control it.
 */
import type { App } from "obsidian";
import type { ProposedChange } from "../core/approval";
import { oneQuestionAtATime, type Approver, type ToolGate } from "../mcp/gate";
import type { Settings } from "../settings/schema";
import type { ApprovalModal } from "../ui/approval-modal";
import type { TransportTimers } from "./request-url-transport";

/** What the gate needs from the plugin. */
export interface PluginGateOptions {
  app: App;
  settings: () => Settings;
  /** The timer the approval timeout runs on (`window` in the plugin). */
  timers: Pick<TransportTimers, "setTimeout" | "clearTimeout">;
  /** How the user knows a note (its tracked file), or undefined. */
  noteName: (change: ProposedChange) => Promise<string | undefined>;
  /** Runs before each allowed write (the named version before an agent's write, agent-versions.ts). */
  beforeWrite?: ToolGate["beforeWrite"];
}

/** Refusals name the settings the user changes. */
const WORDS: ToolGate["words"] = {
  denied: (tool, reason) =>
    reason === "read_only"
      ? `The user made HackMD Bridge read-only for agents, so ${tool} is refused; nothing was changed. Use the read tools, or ask the user to turn off "Read-only for agents" in HackMD Bridge's settings.`
      : `The user set ${tool} to deny in HackMD Bridge's settings (Agent permissions); nothing was changed. Ask the user to allow it there if it should be.`,
  cannotAsk: (tool) =>
    `${tool} needs the user's approval, but Obsidian cannot ask right now; nothing was changed. Try again later.`,
};

/** The plugin's gate, and `closeQuestions` to withdraw open questions when the plugin unloads. */
export function pluginGate(options: PluginGateOptions): ToolGate & { closeQuestions(): void } {
  const open = new Set<ApprovalModal>();
  const ask: Approver = async (request, signal) => {
    const name = await options.noteName(request.change).catch(() => undefined);
    if (signal.aborted) return "deny";
    // The dialog (and the diff library it shows changes with) loads with the first question (docs/architecture.md §5).
    const { ApprovalModal, approvalViewModel } = await import("../ui/approval-modal");
    if (signal.aborted) return "deny";
    const modal = new ApprovalModal(options.app, approvalViewModel(request, name));
    // The time is up: the question is withdrawn (the call has already failed with approval_timeout).
    signal.addEventListener("abort", () => modal.close(), { once: true });
    open.add(modal);
    modal.open();
    return modal.result.finally(() => open.delete(modal));
  };
  return {
    policies: () => options.settings().agentToolPolicies,
    readOnly: () => options.settings().agentsReadOnly,
    approver: oneQuestionAtATime(ask),
    timeoutMs: () => options.settings().approvalTimeoutSeconds * 1000,
    wait: (ms, signal) =>
      new Promise<void>((resolve) => {
        const id = options.timers.setTimeout(resolve, ms);
        signal.addEventListener("abort", () => options.timers.clearTimeout(id), { once: true });
      }),
    // The activity history keeps the text before each note write, for Undo.
    recordsBefore: true,
    ...(options.beforeWrite === undefined ? {} : { beforeWrite: options.beforeWrite }),
    // The bulk guard (settings "Pause an agent after" … "writes within" … minutes).
    bulkLimit: () => {
      const { bulkGuardWrites, bulkGuardMinutes } = options.settings();
      return bulkGuardWrites > 0 ? { writes: bulkGuardWrites, minutes: bulkGuardMinutes } : undefined;
    },
    words: WORDS,
    // Closing a question answers it with deny, so the waiting call fails and writes nothing.
    closeQuestions: () => {
      for (const modal of [...open]) modal.close();
    },
  };
}
