/**
 * The code esbuild puts into main.js passes the community directory's platform rules: no Node
 * module imported where mobile would load it (only `import()`s behind `Platform.isDesktop`,
 * obsidian/desktop-node.ts) and no bare timers (the hosts' timers, core/ports.ts `useHostTimer`).
 * `npm run lint:review` runs the hub's whole ruleset; this runs these two rules, without type
 * information, on exactly the files of the plugin's bundle (esbuild's metafile of src/main.ts).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import esbuild from "esbuild";
import { pluginOptions } from "../../scripts/plugin-build.cjs";
import { REPO } from "../acceptance/checkout";

/** The lint, in a child process: eslint-plugin-obsidianmd is an ES module, which jest's CommonJS cannot load. */
const LINT = `
import { relative } from "node:path";
import { ESLint } from "eslint";
import obsidianmd from "eslint-plugin-obsidianmd";
import tseslint from "typescript-eslint";
const files = process.argv.slice(1);
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfigFile: true,
  overrideConfig: [{
    files: ["**/*.ts"],
    languageOptions: { parser: tseslint.parser },
    plugins: { obsidianmd },
    rules: { "obsidianmd/no-nodejs-modules": "error", "obsidianmd/prefer-window-timers": "error" },
  }],
});
const results = await eslint.lintFiles(files);
const found = results.flatMap((r) => r.messages.map((m) => relative(process.cwd(), r.filePath) + ":" + m.line + " " + (m.ruleId ?? "") + " " + m.message));
process.stdout.write(JSON.stringify(found));
`;

async function bundledFiles(): Promise<string[]> {
  // The plugin's own build options, so the list is what ships in main.js.
  const result = await esbuild.build({
    ...pluginOptions({ version: "0.0.0" }),
    absWorkingDir: REPO,
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return Object.keys(result.metafile.inputs).filter((path) => path.startsWith("src/"));
}

it("no file bundled into main.js imports a Node module outside the platform check, or calls a bare timer", async () => {
  const files = await bundledFiles();
  // The desktop-only code is in the bundle (loaded on desktop only), so the rules see it.
  expect(files).toEqual(
    expect.arrayContaining([
      "src/main.ts",
      "src/node/image-fetcher.ts",
      "src/mcp/http/listener.ts",
      "src/obsidian/desktop-node.ts",
    ]),
  );
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", LINT, ...files], {
    cwd: REPO,
  });
  const found = JSON.parse(stdout) as string[];
  expect(found).toEqual([]);
}, 120_000);
