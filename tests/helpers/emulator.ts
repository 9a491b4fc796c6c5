import { startEmulator, type Emulator, type EmulatorOptions } from "../../src/emulator";

/** Starts an emulator on a free loopback port. */
export function createEmulatorFree(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ port: 0, ...options });
}
