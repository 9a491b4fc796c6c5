// Builds the Obsidian plugin bundle (main.js) and the standalone command (dist/cli.js).
// Usage: node esbuild.config.mjs [--watch] [--cli-only] [--dev]
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import esbuild from "esbuild";

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));

const args = new Set(process.argv.slice(2));
const watch = args.has("--watch");
const dev = args.has("--dev") || watch;
const cliOnly = args.has("--cli-only");

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/** The plugin: CommonJS for Obsidian's loader; Obsidian, Electron and CodeMirror come from the app. */
const plugin = {
  entryPoints: ["src/main.ts"],
  outfile: "main.js",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "es2022",
  external: ["obsidian", "electron", "@codemirror/*", "@lezer/*", ...nodeBuiltins],
  sourcemap: dev ? "inline" : false,
  minify: !dev,
  treeShaking: true,
  define: { __HACKMD_BRIDGE_VERSION__: JSON.stringify(version) },
  logLevel: "info",
};

/** The standalone command: one self-contained Node script with a shebang. */
const cli = {
  entryPoints: ["src/node/cli.ts"],
  outfile: "dist/cli.js",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  banner: { js: "#!/usr/bin/env node" },
  define: { __HACKMD_BRIDGE_VERSION__: JSON.stringify(version) },
  sourcemap: dev ? "inline" : false,
  logLevel: cliOnly ? "warning" : "info",
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
