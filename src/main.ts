import { Plugin } from "obsidian";

/** HackMD Bridge: wiring only (STYLE.md rule 1); behaviour lives in the core and host adapters. */
export default class HackmdBridgePlugin extends Plugin {
  override onload(): void {
    // Commands, settings and the sync engine are registered here as they land (issue 5).
  }
}
