/** Builds the standalone command from source into a folder, so `npm test` needs no prior build. */
import { join } from "node:path";
import esbuild from "esbuild";

/** The version the test build reports (`hackmd-bridge --version`). */
export const TEST_CLI_VERSION = "9.9.9-test";

/** Bundles the command (`src/node/bin.ts`, the executable over `src/node/cli.ts`) into `<folder>/cli.js` and returns that path. */
export async function buildCli(folder: string): Promise<string> {
  const outfile = join(folder, "cli.js");
  await esbuild.build({
    entryPoints: ["src/node/bin.ts"],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    define: { __HACKMD_BRIDGE_VERSION__: JSON.stringify(TEST_CLI_VERSION) },
    logLevel: "silent",
  });
  return outfile;
}
