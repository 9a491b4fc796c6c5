/**
 * Device-local switches (docs/style.md rule 14, docs/architecture.md §4): whether this device runs the MCP
 * endpoint, and on which port. They live in the vault's local storage on this device
 * (`app.loadLocalStorage` / `saveLocalStorage`, since 1.8.7), never in `data.json`, so a synced
 * vault never switches the endpoint on for another device.
 */
import type { App } from "obsidian";
import { BridgeError } from "../core/errors";

/** The MCP endpoint's default loopback port. */
export const DEFAULT_MCP_PORT = 27183;

/** The local storage key (scoped to this vault by Obsidian). */
export const DEVICE_SETTINGS_KEY = "hackmd-bridge-device";

/** The device-local switches. */
export interface DeviceSettingsValues {
  /** Whether the MCP endpoint runs on this device; off until the user confirms turning it on. */
  mcpEnabled: boolean;
  /** The loopback port of the MCP endpoint (1024–65535). */
  mcpPort: number;
}

/** The defaults: endpoint off, port 27183. */
export const DEFAULT_DEVICE_SETTINGS: Readonly<DeviceSettingsValues> = Object.freeze({
  mcpEnabled: false,
  mcpPort: DEFAULT_MCP_PORT,
});

/** Reads and writes the device-local switches; every read goes to local storage. */
export class DeviceSettings {
  private readonly app: Pick<App, "loadLocalStorage" | "saveLocalStorage">;

  constructor(options: { app: Pick<App, "loadLocalStorage" | "saveLocalStorage"> }) {
    this.app = options.app;
  }

  /** The current switches; anything unreadable falls back to the defaults field by field. */
  get(): DeviceSettingsValues {
    const raw: unknown = this.app.loadLocalStorage(DEVICE_SETTINGS_KEY);
    const record = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
    return {
      mcpEnabled: typeof record.mcpEnabled === "boolean" ? record.mcpEnabled : DEFAULT_DEVICE_SETTINGS.mcpEnabled,
      mcpPort: isValidPort(record.mcpPort) ? record.mcpPort : DEFAULT_DEVICE_SETTINGS.mcpPort,
    };
  }

  /** Turns the endpoint on or off on this device. */
  setMcpEnabled(enabled: boolean): void {
    this.save({ ...this.get(), mcpEnabled: enabled });
  }

  /** Sets the endpoint's port; anything but a whole number from 1024 to 65535 is `invalid_input`. */
  setMcpPort(port: number): void {
    if (!isValidPort(port))
      throw new BridgeError(
        "invalid_input",
        `The MCP port must be a whole number from 1024 to 65535, not ${String(port)}.`,
      );
    this.save({ ...this.get(), mcpPort: port });
  }

  /** Forgets the switches on this device (back to the defaults). */
  reset(): void {
    this.app.saveLocalStorage(DEVICE_SETTINGS_KEY, null);
  }

  private save(values: DeviceSettingsValues): void {
    this.app.saveLocalStorage(DEVICE_SETTINGS_KEY, values);
  }
}

/** Whether a value is a usable unprivileged TCP port. */
export function isValidPort(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1024 && value <= 65535;
}
