/** The version of hackmd-bridge, injected by esbuild from package.json (tests see "dev"). */
declare const __HACKMD_BRIDGE_VERSION__: string | undefined;

/** The running version. */
export const VERSION: string = typeof __HACKMD_BRIDGE_VERSION__ === "string" ? __HACKMD_BRIDGE_VERSION__ : "dev";
