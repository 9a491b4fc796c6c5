/**
 * The hub's scan outside main.js (scripts/lint-review-verdict.mjs, CONTRIBUTING.md "Lint"): the
 * Node programs (the command, the emulator, benchmarks, scripts, root configuration) show only
 * their imports of Node modules, plus the few reviewed findings of KNOWN_ELSEWHERE, exactly.
 *
 * `npm run lint:review` runs the hub's whole ruleset with type information (about 40 s). Here the
 * rules that concern Node code run without it, with the settings and globals the recommended
 * config gives them, on the real files; and the verdict is checked on findings made up for it.
 * Both run in a child process: eslint-plugin-obsidianmd and the verdict are ES modules, which
 * jest's CommonJS cannot load.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { REPO } from "../acceptance/checkout";

const run = async (script: string, args: string[] = []): Promise<unknown> => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script, ...args], {
    cwd: REPO,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as unknown;
};

/** The rules that a Node program meets, as the hub's recommended config sets them. */
const SCAN = `
import { relative } from "node:path";
import { ESLint } from "eslint";
import obsidianmd from "eslint-plugin-obsidianmd";
import tseslint from "typescript-eslint";
const RULES = ["no-undef", "no-restricted-globals", "obsidianmd/prefer-window-timers", "obsidianmd/no-global-this",
  "obsidianmd/hardcoded-config-path", "obsidianmd/no-nodejs-modules"];
const hub = new ESLint({ cwd: process.cwd(), overrideConfigFile: true, overrideConfig: obsidianmd.configs.recommended });
const resolved = await hub.calculateConfigForFile("src/node/cli.ts");
const rules = Object.fromEntries(RULES.map((rule) => [rule, resolved.rules[rule]]));
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfigFile: true,
  overrideConfig: [{
    files: ["**/*.ts", "**/*.mjs", "**/*.cjs"],
    languageOptions: { parser: tseslint.parser, sourceType: "module", globals: resolved.languageOptions.globals },
    plugins: { obsidianmd },
    rules,
  }],
});
const results = await eslint.lintFiles(process.argv.slice(1));
process.stdout.write(JSON.stringify({
  rules,
  findings: results.flatMap((r) => r.messages.map((m) => ({ file: relative(process.cwd(), r.filePath), line: m.line, rule: m.ruleId, message: m.message }))),
}));
`;

const KNOWN = `
import { KNOWN_ELSEWHERE } from "./scripts/lint-review-verdict.mjs";
process.stdout.write(JSON.stringify(KNOWN_ELSEWHERE));
`;

interface Finding {
  file: string;
  line: number;
  rule: string | null;
  message: string;
}

it("outside main.js, the Node programs show only their imports of Node modules and the reviewed findings", async () => {
  const scanned = (await run(SCAN, [
    "src/node",
    "src/emulator",
    "bench",
    "scripts",
    "esbuild.config.mjs",
    "eslint.config.mjs",
    "jest.config.mjs",
  ])) as { rules: Record<string, unknown>; findings: Finding[] };
  // Every rule is on in the hub's config (a rule missing there would make this test vacuous).
  expect(Object.values(scanned.rules).every((setting) => Array.isArray(setting) && setting[0] !== 0)).toBe(true);
  const known = (await run(KNOWN)) as Array<{ file: string; rule: string; count: number }>;
  const others = scanned.findings.filter((finding) => finding.rule !== "obsidianmd/no-nodejs-modules");
  const counted = new Map<string, number>();
  for (const finding of others) {
    const key = `${finding.file} ${String(finding.rule)}`;
    counted.set(key, (counted.get(key) ?? 0) + 1);
  }
  const expected = new Map(known.map((entry) => [`${entry.file} ${entry.rule}`, entry.count]));
  // On a mismatch the findings themselves are printed, so the fix is in sight.
  expect({ counted: Object.fromEntries(counted), others }).toEqual({
    counted: Object.fromEntries(expected),
    others: expect.any(Array) as unknown,
  });
  // The imports are there, one per static import of a Node module (the command imports several).
  expect(
    scanned.findings.filter(
      (finding) => finding.file === "src/node/cli.ts" && finding.rule === "obsidianmd/no-nodejs-modules",
    ),
  ).toHaveLength(2);
}, 120_000);

/** The verdict on findings made up for it. */
const VERDICT = `
import { verdict, inNodeProgram, perFolder } from "./scripts/lint-review-verdict.mjs";
const cases = JSON.parse(process.argv[1]);
const known = { inMainJs: [], elsewhere: [{ file: "bench/a.bench.ts", rule: "obsidianmd/no-global-this", count: 1, why: "test" }] };
process.stdout.write(JSON.stringify({
  outcomes: cases.map((findings) => {
    const outcome = verdict(findings, known);
    return { failed: outcome.failed, nodeImports: outcome.nodeImports.length, other: outcome.otherWarnings.length, stale: outcome.stale.length, perFolder: perFolder(outcome.nodeImports) };
  }),
  inNodeProgram: ["jest.config.mjs", "src/node/cli.ts", "src/emulator/server.ts", "bench/run.mjs", "scripts/x.mjs", "src/obsidian/x.ts", "src/core/x.ts"].map(inNodeProgram),
}));
`;

const finding = (file: string, rule: string, inMainJs = false, severity = "warning"): Record<string, unknown> => ({
  file,
  line: 1,
  rule,
  severity,
  inMainJs,
  message: "m",
});
const NODE_IMPORT = "obsidianmd/no-nodejs-modules";
const GLOBAL_THIS = "obsidianmd/no-global-this";

it("fails on any warning outside main.js but a Node program's import of a Node module or a reviewed finding", async () => {
  const cases = [
    // 0. Imports of Node modules in the Node programs pass.
    [
      finding("src/node/cli.ts", NODE_IMPORT),
      finding("bench/b.bench.ts", NODE_IMPORT),
      finding("bench/a.bench.ts", GLOBAL_THIS),
    ],
    // 1. An undefined global in the command fails (the old scan only counted it).
    [finding("src/node/cli.ts", "no-undef"), finding("bench/a.bench.ts", GLOBAL_THIS)],
    // 2. A bare timer in a bench fails.
    [finding("bench/b.bench.ts", "obsidianmd/prefer-window-timers"), finding("bench/a.bench.ts", GLOBAL_THIS)],
    // 3. A Node import outside main.js but not in a Node program fails.
    [finding("src/obsidian/unused.ts", NODE_IMPORT), finding("bench/a.bench.ts", GLOBAL_THIS)],
    // 4. A reviewed finding once more than reviewed fails.
    [finding("bench/a.bench.ts", GLOBAL_THIS), finding("bench/a.bench.ts", GLOBAL_THIS)],
    // 5. A reviewed finding that is gone fails too (the list stays exact).
    [finding("src/node/cli.ts", NODE_IMPORT)],
    // 6. Any warning in main.js's code fails, a Node import included.
    [finding("src/node/image-fetcher.ts", NODE_IMPORT, true), finding("bench/a.bench.ts", GLOBAL_THIS)],
    // 7. An error anywhere fails.
    [finding("scripts/x.mjs", "no-undef", false, "error"), finding("bench/a.bench.ts", GLOBAL_THIS)],
  ];
  const { outcomes, inNodeProgram } = (await run(VERDICT, [JSON.stringify(cases)])) as {
    outcomes: Array<{ failed: boolean; nodeImports: number; other: number; stale: number; perFolder: string }>;
    inNodeProgram: boolean[];
  };
  expect(outcomes.map((outcome) => outcome.failed)).toEqual([false, true, true, true, true, true, true, true]);
  expect(outcomes[0]).toEqual({ failed: false, nodeImports: 2, other: 0, stale: 0, perFolder: "src/node 1, bench 1" });
  expect(outcomes[1]?.other).toBe(1);
  expect(outcomes[3]?.other).toBe(1);
  expect(outcomes[4]?.other).toBe(1);
  expect(outcomes[5]?.stale).toBe(1);
  expect(inNodeProgram).toEqual([true, true, true, true, true, false, false]);
}, 60_000);
