// Builds the Obsidian plugin bundle (main.js) and the standalone command (dist/cli.js).
// Usage: node esbuild.config.mjs [--watch] [--cli-only] [--dev] [--cli-outfile=<path>]
import process from "node:process";
import { chmodSync, readFileSync } from "node:fs";
import esbuild from "esbuild";
import pluginBuild from "./scripts/plugin-build.cjs";

const { pluginOptions, repositoryUrl } = pluginBuild;

const { version, repository } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));

const args = new Set(process.argv.slice(2));
const watch = args.has("--watch");
const dev = args.has("--dev") || watch;
const cliOnly = args.has("--cli-only");
// Where the command goes (tests build it into a temporary folder); default dist/cli.js.
const cliOutfile =
  [...args].find((arg) => arg.startsWith("--cli-outfile="))?.slice("--cli-outfile=".length) || "dist/cli.js";

/** The plugin (main.js): one plain CommonJS file; its options and stubs live in scripts/plugin-build.cjs. */
const plugin = pluginOptions({ version, repository: repositoryUrl(repository), dev });

/** The standalone command: one self-contained Node script with a shebang, executable (chmod 755). */
const cli = {
  entryPoints: ["src/node/bin.ts"],
  outfile: cliOutfile,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  banner: { js: "#!/usr/bin/env node" },
  define: { __HACKMD_BRIDGE_VERSION__: JSON.stringify(version) },
  sourcemap: dev ? "inline" : false,
  logLevel: cliOnly ? "warning" : "info",
  plugins: [
    {
      name: "executable",
      setup(build) {
        build.onEnd((result) => {
          if (result.errors.length === 0) chmodSync(build.initialOptions.outfile, 0o755);
        });
      },
    },
  ],
};

const builds = cliOnly ? [cli] : [plugin, cli];
if (watch) {
  for (const options of builds) {
    const context = await esbuild.context(options);
    await context.watch();
  }
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
