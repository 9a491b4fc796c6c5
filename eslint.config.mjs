// Lint: Obsidian's recommended rules (which include typescript-eslint's type-checked set) for the
// whole tree, plus the boundary rules of docs/architecture.md §2.
import { defineConfig, globalIgnores } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";
import { DEFAULT_ACRONYMS } from "eslint-plugin-obsidianmd/dist/lib/rules/ui/acronyms.js";
import { DEFAULT_BRANDS } from "eslint-plugin-obsidianmd/dist/lib/rules/ui/brands.js";

const nodeOnly = ["src/node/**/*.ts", "src/emulator/**/*.ts", "src/mcp/http/**/*.ts"];
// The engine and the application layer (docs/architecture.md §2): host-neutral, below the doors.
const engine = [
  "src/core/**/*.ts",
  "src/hackmd/**/*.ts",
  "src/patch/**/*.ts",
  "src/sync/**/*.ts",
  "src/convert/**/*.ts",
];
const hostNeutral = [...engine, "src/app/**/*.ts"];
/** A relative import reaching one of these top-level folders of src/. */
const above = (folders, message) => ({ regex: `^(\\.\\./)+(${folders.join("|")})(/|\\.|$)`, message });
/** The MCP tools are one door; the other doors share use-cases through src/app/, not through them. */
const mcpTools = {
  regex: "^(\\.\\./)+mcp/tools(/|$)",
  message: "Import the use-case from src/app/; mcp/tools/ is the MCP door.",
};
const tooling = [
  "tests/**/*.ts",
  "bench/**/*.{ts,mjs}",
  "scripts/**/*.mjs",
  "scripts/**/*.cjs",
  "*.mjs",
  "*.cjs",
  "tests/**/*.cjs",
  ".ci/**",
];

export default defineConfig([
  globalIgnores(["node_modules/", "main.js", "dist/", "coverage/", "sandbox-vault/", "package-lock.json"]),
  ...obsidianmd.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            "eslint.config.mjs",
            "esbuild.config.mjs",
            "jest.config.mjs",
            "tests/dom-environment.cjs",
            "bench/*.mjs",
            "scripts/*.mjs",
            "scripts/*.cjs",
          ],
          // The build and tooling scripts outside tsconfig's include are ten files (default cap 8).
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 32,
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    // Sentence case, knowing our brand ("HackMD") and acronym ("MCP") as STYLE.md asks.
    files: ["src/**/*.ts"],
    rules: {
      "obsidianmd/ui/sentence-case": [
        "warn",
        {
          enforceCamelCaseLower: true,
          brands: [...DEFAULT_BRANDS, "HackMD", "HackMD Bridge"],
          acronyms: [...DEFAULT_ACRONYMS, "MCP"],
        },
      ],
    },
  },
  {
    // TypeScript checks names itself; no-undef only misfires on types and globals.
    files: ["**/*.ts"],
    rules: { "no-undef": "off" },
  },
  {
    files: ["**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { require: "readonly", module: "writable", __dirname: "readonly", process: "readonly" },
    },
    rules: { "@typescript-eslint/no-require-imports": "off", "no-undef": "off" },
  },
  {
    // Host-neutral core: no obsidian, no node:* (ARCHITECTURE.md §1). Each layer imports only the
    // layers below it (docs/architecture.md §2): the engine (core, hackmd, patch, convert, sync)
    // knows no door; the application layer (app/) knows no door either; the MCP door (mcp/) may
    // use app/ but no host.
    files: [...hostNeutral, "src/mcp/**/*.ts"],
    ignores: ["src/mcp/http/**"],
    rules: {
      // The core runs in Node too, where there is no window: plain timers are the portable ones.
      "obsidianmd/prefer-window-timers": "off",
      "no-restricted-imports": [
        "error",
        {
          paths: [{ name: "obsidian", message: "The core is host-neutral; reach Obsidian through a port." }],
          patterns: [
            { regex: "^node:", message: "The core is host-neutral; reach Node through a port." },
            above(
              ["obsidian", "node", "ui", "settings", "emulator", "commands", "main"],
              "A host-neutral folder imports no host, UI or the emulator.",
            ),
          ],
        },
      ],
    },
  },
  {
    files: ["src/app/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            { name: "obsidian", message: "The application layer is host-neutral; reach Obsidian through a port." },
          ],
          patterns: [
            { regex: "^node:", message: "The application layer is host-neutral; reach Node through a port." },
            above(
              ["mcp", "obsidian", "node", "ui", "settings", "emulator", "commands", "main"],
              "The application layer imports only core, hackmd, sync, patch and convert; the doors (mcp/, obsidian/, node/) import it.",
            ),
          ],
        },
      ],
    },
  },
  {
    files: engine,
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [{ name: "obsidian", message: "The core is host-neutral; reach Obsidian through a port." }],
          patterns: [
            { regex: "^node:", message: "The core is host-neutral; reach Node through a port." },
            above(
              ["app", "mcp", "obsidian", "node", "ui", "settings", "emulator", "commands", "main"],
              "The engine is below the application layer and its doors; pass what it needs in.",
            ),
          ],
        },
      ],
    },
  },
  {
    // The plugin's door: Obsidian commands reach the use-cases through app/, never through an MCP tool.
    files: ["src/obsidian/**/*.ts", "src/ui/**/*.ts", "src/commands.ts", "src/main.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [mcpTools],
        },
      ],
    },
  },
  {
    // Node hosts: the standalone command, the emulator and the loopback listener may use Node.
    files: [...nodeOnly, ...tooling],
    rules: {
      "obsidianmd/no-nodejs-modules": "off",
      "obsidianmd/prefer-window-timers": "off",
      "obsidianmd/no-global-this": "off",
      "obsidianmd/hardcoded-config-path": "off",
      "obsidianmd/ui/sentence-case": "off",
      // fetch is the right client outside Obsidian (requestUrl exists only inside the app).
      "no-restricted-globals": "off",
      "no-restricted-imports": [
        "error",
        {
          paths: [{ name: "obsidian", message: "Node hosts never import obsidian." }],
          patterns: [mcpTools],
        },
      ],
    },
  },
  {
    files: tooling,
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/unbound-method": "off",
      "@typescript-eslint/require-await": "off",
      "obsidianmd/prefer-active-doc": "off",
      "obsidianmd/prefer-create-el": "off",
    },
  },
]);
