// Builds the Obsidian plugin bundle (main.js) and the standalone command (dist/cli.js).
// Usage: node esbuild.config.mjs [--watch] [--cli-only] [--dev] [--cli-outfile=<path>]
import { chmodSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import esbuild from "esbuild";

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));

const args = new Set(process.argv.slice(2));
const watch = args.has("--watch");
const dev = args.has("--dev") || watch;
const cliOnly = args.has("--cli-only");
// Where the command goes (tests build it into a temporary folder); default dist/cli.js.
const cliOutfile = [...args].find((arg) => arg.startsWith("--cli-outfile="))?.slice("--cli-outfile=".length) || "dist/cli.js";

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/**
 * The CodeMirror packages Obsidian provides at runtime (its sample plugin's list): they must stay
 * external so that one instance of each exists. `@codemirror/merge` is NOT among them: Obsidian
 * does not ship it, so it is bundled (and loaded lazily by the merge editor).
 */
const obsidianProvided = [
  "@codemirror/autocomplete",
  "@codemirror/collab",
  "@codemirror/commands",
  "@codemirror/language",
  "@codemirror/lint",
  "@codemirror/search",
  "@codemirror/state",
  "@codemirror/view",
  "@lezer/*",
];

/** The plugin: CommonJS for Obsidian's loader; Obsidian, Electron and CodeMirror come from the app. */
const plugin = {
  entryPoints: ["src/main.ts"],
  outfile: "main.js",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "es2022",
  external: ["obsidian", "electron", ...obsidianProvided, ...nodeBuiltins],
  sourcemap: dev ? "inline" : false,
  minify: !dev,
  treeShaking: true,
  define: { __HACKMD_BRIDGE_VERSION__: JSON.stringify(version) },
  logLevel: "info",
};

/** The standalone command: one self-contained Node script with a shebang, executable (chmod 755). */
const cli = {
  entryPoints: ["src/node/cli.ts"],
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
