// npm run lint:review — the community directory's lint scan, run here the way its hub runs it:
// eslint-plugin-obsidianmd's `recommended` config over the whole repository, with the plugin's
// own settings only (our eslint.config.mjs is not read), skipping what the hub skips.
//
// It fails on any error anywhere, and on any warning in a file that goes into main.js. Which
// files go into main.js comes from esbuild's metafile of the plugin's entry (src/main.ts, every
// module it reaches, dynamic imports included). Warnings elsewhere (the command, the emulator,
// benchmarks, scripts, tests) are counted and listed by folder; see CONTRIBUTING.md for why
// they are allowed.
//
// Usage: node scripts/lint-review.mjs [--list] [--json=<path>]
//   --list         print every warning outside main.js too (default: counts per folder)
//   --json=<path>  also write the findings as JSON (the release test reads it)
import { writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import process from "node:process";
import esbuild from "esbuild";
import pluginBuild from "./plugin-build.cjs";
import { ESLint } from "eslint";
import { globalIgnores } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

const root = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const listAll = args.includes("--list");
const jsonOut = args.find((arg) => arg.startsWith("--json="))?.slice("--json=".length);

/**
 * What the hub does not lint: installed packages, build output, generated files and the test
 * folder. (The plugin does not publish the hub's list; this one reproduces the hub's counts as
 * measured on this repository: it reported src/ and bench/, nothing under tests/.)
 */
const HUB_SKIPS = ["node_modules/", "main.js", "dist/", "coverage/", "sandbox-vault/", "package-lock.json", "tests/"];

/** The hub's configuration: the recommended set, plus only what type-aware rules need to run. */
const config = [
  globalIgnores(HUB_SKIPS),
  ...obsidianmd.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ["*.mjs", "*.cjs", "bench/*.mjs", "scripts/*.mjs", "scripts/*.cjs", "tests/*.cjs"],
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 32,
        },
        tsconfigRootDir: root,
      },
    },
  },
];

/** The repository's files that esbuild puts into main.js (paths relative to the repository). */
async function bundledFiles() {
  // The plugin's own build options (scripts/plugin-build.cjs), so the list is what ships.
  const result = await esbuild.build({
    ...pluginBuild.pluginOptions({ version: "0.0.0" }),
    absWorkingDir: root,
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  // The repository's own files; packages (node_modules may be a symlink elsewhere) are not linted.
  return new Set(
    Object.keys(result.metafile.inputs).filter(
      (path) => !path.includes("node_modules/") && !path.startsWith("..") && !path.includes(":"),
    ),
  );
}

const [bundled, results] = await Promise.all([
  bundledFiles(),
  new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config }).lintFiles(["."]),
]);

const findings = [];
for (const result of results) {
  const file = relative(root, result.filePath).split("\\").join("/");
  for (const message of result.messages) {
    findings.push({
      file,
      line: message.line ?? 0,
      rule: message.ruleId ?? "(parser)",
      severity: message.severity === 2 || message.fatal ? "error" : "warning",
      inMainJs: bundled.has(file),
      message: message.message,
    });
  }
}

/**
 * Warnings in main.js's code that are known, reviewed and not yet fixable, each with its reason.
 * They are printed on every run (the hub shows them publicly too) but do not fail it; any other
 * warning does. Keep this list empty where possible: an entry is a debt, not a waiver.
 */
// Reviewed warnings in main.js's code that may stay, each with its reason: none. (The SDK's
// deprecated low-level `Server` went with the move to its v2 packages, docs/adr/0006-mcp-v2-both-revisions.md.)
const KNOWN = [];
const known = (finding) => KNOWN.some((entry) => entry.file === finding.file && entry.rule === finding.rule);

const errors = findings.filter((finding) => finding.severity === "error");
const knownWarnings = findings.filter(
  (finding) => finding.severity === "warning" && finding.inMainJs && known(finding),
);
const bundledWarnings = findings.filter(
  (finding) => finding.severity === "warning" && finding.inMainJs && !known(finding),
);
const otherWarnings = findings.filter((finding) => finding.severity === "warning" && !finding.inMainJs);
const show = (finding) => `  ${finding.file}:${finding.line}  ${finding.severity}  ${finding.rule}  ${finding.message}`;

if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ bundled: [...bundled].sort(), findings }, null, 2));

const say = (text) => process.stdout.write(`${text}\n`);
say(`lint:review — eslint-plugin-obsidianmd recommended, ${results.length} files, ${bundled.size} of them in main.js`);
if (errors.length > 0) say(`\nErrors (${errors.length}):\n${errors.map(show).join("\n")}`);
if (bundledWarnings.length > 0)
  say(`\nWarnings in code bundled into main.js (${bundledWarnings.length}):\n${bundledWarnings.map(show).join("\n")}`);
if (knownWarnings.length > 0) {
  const reasons = KNOWN.filter((entry) =>
    knownWarnings.some((finding) => finding.file === entry.file && finding.rule === entry.rule),
  );
  say(
    `\nKnown warnings in main.js's code (${knownWarnings.length}, reviewed, not failing):\n${knownWarnings.map(show).join("\n")}\n${reasons.map((entry) => `  why (${entry.file}): ${entry.why}`).join("\n")}`,
  );
}
if (otherWarnings.length > 0) {
  const perFolder = new Map();
  for (const finding of otherWarnings) {
    const folder = finding.file.includes("/")
      ? finding.file
          .split("/")
          .slice(0, finding.file.startsWith("src/") ? 2 : 1)
          .join("/")
      : ".";
    perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
  }
  say(
    `\nWarnings outside main.js (${otherWarnings.length}, not failing): ${[...perFolder].map(([folder, count]) => `${folder} ${count}`).join(", ")}`,
  );
  if (listAll) say(otherWarnings.map(show).join("\n"));
}
const failed = errors.length > 0 || bundledWarnings.length > 0;
say(
  `\n${failed ? "FAILED" : "passed"}: ${errors.length} errors, ${bundledWarnings.length} warnings in main.js's code (${knownWarnings.length} known), ${otherWarnings.length} warnings elsewhere`,
);
process.exitCode = failed ? 1 : 0;
