// npm run lint:review — the community directory's lint scan, run here the way its hub runs it:
// eslint-plugin-obsidianmd's `recommended` config over the whole repository, with the plugin's
// own settings only (our eslint.config.mjs is not read), skipping what the hub skips.
//
// It fails on any error anywhere, on any warning in a file that goes into main.js, and outside
// main.js on any warning but a Node program's import of a Node module (a few reviewed findings
// excepted): scripts/lint-review-verdict.mjs holds that verdict and its reasons, CONTRIBUTING.md
// ("Lint") says why. Which files go into main.js comes from esbuild's metafile of the plugin's
// entry (src/main.ts, every module it reaches, dynamic imports included). The Node programs'
// imports of Node modules are counted by folder.
//
// Usage: node scripts/lint-review.mjs [--list] [--json=<path>]
//   --list         print every import of a Node module in the Node programs too (default: counts per folder)
//   --json=<path>  also write the findings as JSON (the release test reads it)
import { writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import process from "node:process";
import esbuild from "esbuild";
import pluginBuild from "./plugin-build.cjs";
import { ESLint } from "eslint";
import { globalIgnores } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";
import { KNOWN_ELSEWHERE, KNOWN_IN_MAIN_JS, NODE_IMPORT_RULE, perFolder, verdict } from "./lint-review-verdict.mjs";

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

const outcome = verdict(findings);
const show = (finding) => `  ${finding.file}:${finding.line}  ${finding.severity}  ${finding.rule}  ${finding.message}`;
const why = (entries, found) =>
  entries
    .filter((entry) => found.some((finding) => finding.file === entry.file && finding.rule === entry.rule))
    .map((entry) => `  why (${entry.file}, ${entry.rule}): ${entry.why}`)
    .join("\n");

if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ bundled: [...bundled].sort(), findings }, null, 2));

const say = (text) => process.stdout.write(`${text}\n`);
say(`lint:review — eslint-plugin-obsidianmd recommended, ${results.length} files, ${bundled.size} of them in main.js`);
if (outcome.errors.length > 0) say(`\nErrors (${outcome.errors.length}):\n${outcome.errors.map(show).join("\n")}`);
if (outcome.bundledWarnings.length > 0)
  say(
    `\nWarnings in code bundled into main.js (${outcome.bundledWarnings.length}):\n${outcome.bundledWarnings.map(show).join("\n")}`,
  );
if (outcome.knownBundled.length > 0)
  say(
    `\nKnown warnings in main.js's code (${outcome.knownBundled.length}, reviewed, not failing):\n${outcome.knownBundled.map(show).join("\n")}\n${why(KNOWN_IN_MAIN_JS, outcome.knownBundled)}`,
  );
if (outcome.otherWarnings.length > 0)
  say(
    `\nWarnings outside main.js other than a Node program's imports of Node modules (${outcome.otherWarnings.length}):\n${outcome.otherWarnings.map(show).join("\n")}`,
  );
if (outcome.knownElsewhere.length > 0)
  say(
    `\nKnown findings outside main.js (${outcome.knownElsewhere.length}, reviewed, not failing):\n${outcome.knownElsewhere.map(show).join("\n")}\n${why(KNOWN_ELSEWHERE, outcome.knownElsewhere)}`,
  );
if (outcome.stale.length > 0)
  say(
    `\nKnown entries that no longer match (update scripts/lint-review-verdict.mjs):\n${outcome.stale.map((entry) => `  ${entry.file}  ${entry.rule}: ${entry.count} expected, ${entry.found} found`).join("\n")}`,
  );
if (outcome.nodeImports.length > 0) {
  say(
    `\nImports of Node modules in the Node programs (${NODE_IMPORT_RULE}, ${outcome.nodeImports.length}, allowed; CONTRIBUTING.md, "Lint"): ${perFolder(outcome.nodeImports)}`,
  );
  if (listAll) say(outcome.nodeImports.map(show).join("\n"));
}
const elsewhere = outcome.otherWarnings.length + outcome.knownElsewhere.length + outcome.nodeImports.length;
say(
  `\n${outcome.failed ? "FAILED" : "passed"}: ${outcome.errors.length} errors, ${outcome.bundledWarnings.length} warnings in main.js's code (${outcome.knownBundled.length} known), ${outcome.otherWarnings.length} other warnings elsewhere (${outcome.knownElsewhere.length} known), ${outcome.nodeImports.length} imports of Node modules in the Node programs (${elsewhere} warnings outside main.js in all)`,
);
process.exitCode = outcome.failed ? 1 : 0;
