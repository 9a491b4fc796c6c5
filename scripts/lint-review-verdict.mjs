// What npm run lint:review lets through, as data and one pure function (scripts/lint-review.mjs
// scans; tests/release/lint-review.test.ts checks the verdict on findings made up for it).
//
// The hub shows every warning on the plugin's page, and it scans the whole repository, not only
// main.js (CONTRIBUTING.md, "Lint"). So:
//   - in code that goes into main.js, any warning fails (KNOWN_IN_MAIN_JS: none);
//   - in the Node programs (the command and the emulator in src/node/ and src/emulator/, the
//     benchmarks, the scripts, the build and test configuration at the root), the one warning
//     allowed is `obsidianmd/no-nodejs-modules`, once per static import of a Node module: a Node
//     program is made of them, and the rule asks for a `Platform.isDesktop` check Node has not;
//   - anything else outside main.js fails too, except the few reviewed findings of KNOWN_ELSEWHERE,
//     each with its reason and exact count (a stale or exceeded entry fails as well).

/** The rule a Node program cannot satisfy. */
export const NODE_IMPORT_RULE = "obsidianmd/no-nodejs-modules";

/** Where the Node programs live (paths relative to the repository); files at the root count too. */
export const NODE_PROGRAMS = ["src/node/", "src/emulator/", "bench/", "scripts/"];

/** Reviewed warnings in main.js's code that may stay: none (an entry is a debt, not a waiver). */
export const KNOWN_IN_MAIN_JS = [];

/** Reviewed findings outside main.js that may stay, each with how many and why. */
export const KNOWN_ELSEWHERE = [
  {
    file: "src/node/local-files.ts",
    rule: "obsidianmd/hardcoded-config-path",
    count: 1,
    why: "DEFAULT_CONFIG_DIR, the command's default for --config-dir: the command runs outside Obsidian and cannot ask it for Vault#configDir; the name is spelled only there.",
  },
  {
    file: "bench/plugin.bench.ts",
    rule: "obsidianmd/no-global-this",
    count: 1,
    why: "the bench loads main.js in Node over the fake obsidian module, which needs `window` (the global object, as in Obsidian's renderer) and a jest.fn stand-in; Node names the global object only globalThis.",
  },
  {
    file: "scripts/plugin-build.cjs",
    rule: "no-undef",
    count: 1,
    why: "`module.exports`: the hub parses .cjs files as ES modules (typescript-eslint's base config sets sourceType module for them), where `module` is undefined; the file stays CommonJS because jest requires it from the tests, and jest loads ES modules that way only on Node 24.9+.",
  },
];

/** Whether a file (relative path) belongs to a Node program. */
export function inNodeProgram(file) {
  return !file.includes("/") || NODE_PROGRAMS.some((prefix) => file.startsWith(prefix));
}

/** The folder a file is counted under: `src/<part>` for src/, else its top folder, `.` at the root. */
export function folderOf(file) {
  if (!file.includes("/")) return ".";
  return file
    .split("/")
    .slice(0, file.startsWith("src/") ? 2 : 1)
    .join("/");
}

/** Takes the findings the known entries allow out of `findings`; returns them and the stale entries. */
function takeKnown(findings, entries) {
  const allowed = [];
  const stale = [];
  const rest = [...findings];
  for (const entry of entries) {
    const matching = rest.filter((finding) => finding.file === entry.file && finding.rule === entry.rule);
    if (matching.length < entry.count) stale.push({ ...entry, found: matching.length });
    for (const finding of matching.slice(0, entry.count)) {
      allowed.push(finding);
      rest.splice(rest.indexOf(finding), 1);
    }
  }
  return { allowed, stale, rest };
}

/**
 * Sorts the scan's findings ({ file, line, rule, severity, inMainJs, message }) into what passes
 * and what fails. `failed` is true on any error, any warning in main.js's code (beyond the
 * known), any warning elsewhere other than a Node program's import of a Node module (beyond the
 * known), and any known entry that no longer matches its count.
 */
export function verdict(findings, known = { inMainJs: KNOWN_IN_MAIN_JS, elsewhere: KNOWN_ELSEWHERE }) {
  const errors = findings.filter((finding) => finding.severity === "error");
  const warnings = findings.filter((finding) => finding.severity !== "error");
  const bundled = takeKnown(
    warnings.filter((finding) => finding.inMainJs),
    known.inMainJs,
  );
  const outside = warnings.filter((finding) => !finding.inMainJs);
  const nodeImports = outside.filter((finding) => finding.rule === NODE_IMPORT_RULE && inNodeProgram(finding.file));
  const elsewhere = takeKnown(
    outside.filter((finding) => !nodeImports.includes(finding)),
    known.elsewhere,
  );
  const stale = [...bundled.stale, ...elsewhere.stale];
  return {
    errors,
    bundledWarnings: bundled.rest,
    knownBundled: bundled.allowed,
    nodeImports,
    knownElsewhere: elsewhere.allowed,
    otherWarnings: elsewhere.rest,
    stale,
    failed: errors.length > 0 || bundled.rest.length > 0 || elsewhere.rest.length > 0 || stale.length > 0,
  };
}

/** Counts per folder, as "folder n, folder n". */
export function perFolder(findings) {
  const counts = new Map();
  for (const finding of findings) counts.set(folderOf(finding.file), (counts.get(folderOf(finding.file)) ?? 0) + 1);
  return [...counts].map(([folder, count]) => `${folder} ${count}`).join(", ");
}
