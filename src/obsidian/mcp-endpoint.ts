/**
 * The MCP endpoint component of the desktop plugin (docs/architecture.md §4): starts and stops the
 * loopback listener over the plugin's core, with the endpoint token from secret storage and the
 * port from device-local settings, and publishes its status for the settings tab.
 *
 * The listener (`mcp/http/`) needs Node's `http`, which Obsidian mobile lacks, so it is reached
 * only through a dynamic `import()` behind `Platform.isDesktopApp`; esbuild turns that import into
 * a lazy initialiser, so the bundle still loads on mobile. Never import it statically here. Node's
 * modules themselves reach it through obsidian/desktop-node.ts, behind the same check.
 */
import { Notice, Platform } from "obsidian";
import type { Logger } from "../core/ports";
import type { BridgeCore } from "../mcp/core";
import type { McpListener, McpListenerOptions } from "../mcp/http/listener";
import type { ProposedChange } from "../core/approval";
import type { ToolGate } from "../mcp/gate";
import type { ToolCallEvent } from "../mcp/server";
import type { DeviceSettings } from "./device-settings";
import type { PluginSecrets } from "./secrets";
import { loadDesktopNode } from "./desktop-node";

/** What the endpoint is doing right now. */
export type EndpointStatus =
  | { state: "stopped" }
  | { state: "starting"; port: number }
  | { state: "listening"; url: string; port: number }
  | { state: "port-in-use"; port: number; message: string }
  | { state: "error"; message: string }
  | { state: "unavailable"; message: string };

/** Loads the listener module; the default is the guarded dynamic import (tests may inject one). */
export type ListenerLoader = () => Promise<{
  startMcpListener: (options: McpListenerOptions) => Promise<McpListener>;
  PortInUseError: abstract new (...args: never[]) => Error;
}>;

/** The default loader: Node's modules first (desktop app only), then the listener. */
async function loadListener(): ReturnType<ListenerLoader> {
  if (!(await loadDesktopNode())) throw new Error("Node's modules are not available on this device");
  return import("../mcp/http/listener");
}

/** What the controller needs from the plugin. */
export interface McpEndpointOptions {
  /** The plugin's core (built lazily by the host, its MCP side loaded on first start); every session serves its full tool set. */
  getCore: () => BridgeCore | Promise<BridgeCore>;
  /** The endpoint token (generated on first start) and the HackMD token (scrubbed from results). */
  secrets: Pick<PluginSecrets, "ensureEndpointToken" | "hackmdToken">;
  /** The device-local switch and port. */
  device: Pick<DeviceSettings, "get">;
  logger: Logger;
  /** Observes every completed agent call (the activity log); `change` may carry the text before a write. */
  onActivity: (event: ToolCallEvent, change?: ProposedChange) => void;
  /** The tool policy and the approval modal (docs/tool-contract-extensions.md); absent: every tool allowed. */
  gate?: ToolGate;
  /** Server version reported at initialize. */
  version?: string;
  /** Shows a message to the user; defaults to an Obsidian notice. */
  notify?: (message: string) => void;
  /** Overrides how the listener module is loaded (tests). */
  loadListener?: ListenerLoader;
}

/** Message shown when the endpoint is asked to start on a device without Node (mobile). */
export const DESKTOP_ONLY_MESSAGE = "The MCP endpoint runs only in Obsidian on desktop.";

/** Starts, stops and reports the loopback MCP endpoint; `stop()` is safe to register for unload. */
export class McpEndpointController {
  private current: EndpointStatus = { state: "stopped" };
  private listener: McpListener | undefined;
  /** The start or stop in progress; operations run one after another. */
  private pending: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(status: EndpointStatus) => void>();
  private readonly options: McpEndpointOptions;
  private readonly notify: (message: string) => void;

  constructor(options: McpEndpointOptions) {
    this.options = options;
    this.notify = options.notify ?? ((message) => new Notice(message));
  }

  /** The current status. */
  get status(): EndpointStatus {
    return this.current;
  }

  /** Calls `listener` with every status change; returns the unsubscribe function. */
  subscribe(listener: (status: EndpointStatus) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Starts the endpoint when this device's switch is on (plugin load); quiet on mobile. */
  async startIfEnabled(): Promise<EndpointStatus> {
    if (!this.options.device.get().mcpEnabled || !Platform.isDesktopApp) return this.current;
    return this.start();
  }

  /** Starts the endpoint (no-op when it already listens); on mobile it refuses with a notice. */
  start(): Promise<EndpointStatus> {
    return this.serialise(() => this.doStart());
  }

  /** Closes the listener, every session and every connection; safe to call at any time. */
  stop(): Promise<void> {
    return this.serialise(() => this.doStop());
  }

  /** Stops and starts again (new port or token); stays stopped when it was not running. */
  restart(): Promise<EndpointStatus> {
    return this.serialise(async () => {
      const wasRunning = this.listener !== undefined;
      await this.doStop();
      return wasRunning ? this.doStart() : this.current;
    });
  }

  private serialise<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.pending.then(operation, operation);
    this.pending = next.catch(() => undefined);
    return next;
  }

  private async doStart(): Promise<EndpointStatus> {
    if (this.listener) return this.current;
    if (!Platform.isDesktopApp) {
      this.notify(DESKTOP_ONLY_MESSAGE);
      return this.set({ state: "unavailable", message: DESKTOP_ONLY_MESSAGE });
    }
    const port = this.options.device.get().mcpPort;
    this.set({ state: "starting", port });
    let module: Awaited<ReturnType<ListenerLoader>>;
    try {
      // The only way this file reaches node:http: lazily, and only on desktop (see the header).
      module = await (this.options.loadListener ?? loadListener)();
    } catch (error) {
      return this.fail(`The MCP endpoint could not be loaded: ${messageOf(error)}`);
    }
    try {
      const token = this.options.secrets.ensureEndpointToken();
      const core = await this.options.getCore();
      const host = core.mcpHost({
        name: "hackmd-bridge",
        version: this.options.version ?? "0.0.0",
        secrets: () => [this.options.secrets.hackmdToken.getToken(), token],
        onCallCompleted: (event, change) => this.options.onActivity(event, change),
        ...(this.options.gate === undefined ? {} : { gate: this.options.gate }),
      });
      // The MCP server (SDK, ajv) is only needed here, so it loads lazily too and keeps onload light.
      const { createMcpServer } = await import("../mcp/server");
      this.listener = await module.startMcpListener({
        port,
        token,
        logger: this.options.logger,
        createServer: (scope) => createMcpServer(host, scope),
      });
      this.options.logger.info("mcp_endpoint_listening", { port: this.listener.port });
      return this.set({ state: "listening", url: this.listener.url, port: this.listener.port });
    } catch (error) {
      if (error instanceof module.PortInUseError) {
        const message = `Port ${port} is already in use, so the MCP endpoint is not running. Stop the other program or choose another port.`;
        this.notify(message);
        return this.set({ state: "port-in-use", port, message });
      }
      return this.fail(`The MCP endpoint could not start: ${messageOf(error)}`);
    }
  }

  private async doStop(): Promise<void> {
    const listener = this.listener;
    this.listener = undefined;
    if (listener) {
      try {
        await listener.close();
      } catch (error) {
        this.options.logger.warn("mcp_endpoint_close_failed", { error: messageOf(error) });
      }
      this.options.logger.info("mcp_endpoint_stopped", {});
    }
    if (this.current.state !== "stopped") this.set({ state: "stopped" });
  }

  private fail(message: string): EndpointStatus {
    this.options.logger.error("mcp_endpoint_failed", { error: message });
    this.notify(message);
    return this.set({ state: "error", message });
  }

  private set(status: EndpointStatus): EndpointStatus {
    this.current = status;
    for (const listener of [...this.listeners]) listener(status);
    return status;
  }
}

/** One line describing the status, as the settings tab shows it. */
export function describeEndpointStatus(status: EndpointStatus): string {
  switch (status.state) {
    case "stopped":
      return "Stopped.";
    case "starting":
      return `Starting on port ${status.port}…`;
    case "listening":
      return `Listening on ${status.url}`;
    case "port-in-use":
      return `Port ${status.port} is in use by another program; choose another port.`;
    case "error":
      return status.message;
    case "unavailable":
      return status.message;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
