// Renders docs/screenshots/mirror-*.png in headless Chromium: the "Mirror a HackMD workspace"
// modal and the settings' "Mirrors" list from the real src/ui code, on the test suite's fake
// `obsidian` module (scripts/screenshots/mirror-page.ts), with styles.css and Obsidian-like
// theme variables. Usage: node scripts/screenshots-mirror.mjs (CHROMIUM=/path/to/chrome).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";

const root = fileURLToPath(new URL("../", import.meta.url));
const out = join(root, "docs", "screenshots");
const work = mkdtempSync(join(tmpdir(), "hackmd-bridge-mirror-shots-"));
const chromium = process.env.CHROMIUM ?? "chromium";

writeFileSync(
  join(work, "node-util.js"),
  "export const TextDecoder = globalThis.TextDecoder; export const TextEncoder = globalThis.TextEncoder;\n",
);
await esbuild.build({
  entryPoints: [join(root, "scripts/screenshots/mirror-page.ts")],
  outfile: join(work, "page.js"),
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  logLevel: "warning",
  // The fake module programs requestUrl with jest.fn; nothing here calls it.
  banner: { js: "var jest = { fn: (impl) => impl };" },
  alias: {
    obsidian: join(root, "tests/__mocks__/obsidian.ts"),
    "node:util": join(work, "node-util.js"),
    // Obsidian's DOM helpers (createEl, addClass, …), as the dom tests get them.
    "obsidian-dom-extensions": join(root, "node_modules/jest-environment-obsidian/dist/runtime/extensions.js"),
  },
});
// Setting rows as Obsidian lays them out (the app's own CSS; not shipped).
const settingCss = `
.setting-item { display: flex; align-items: center; gap: 16px; padding: 12px 0; border-top: 1px solid var(--background-modifier-border); }
.setting-item-heading { font-weight: 600; font-size: 16px; border-top: none; }
.setting-item-info { flex: 1 1 auto; }
.setting-item-name { color: var(--text-normal); font-size: 14px; }
.setting-item-description { color: var(--text-muted); font-size: 12px; padding-top: 4px; }
.setting-item-control { display: flex; gap: 8px; align-items: center; }
.hackmd-bridge-mirrors { padding-left: 16px; }
.vertical-tab-content { padding: 24px 32px; max-width: 760px; }
input[type=text], textarea, select, button { font: inherit; font-size: 13px; color: var(--text-normal); background: var(--background-modifier-form-field, var(--background-secondary)); border: 1px solid var(--background-modifier-border); border-radius: 4px; padding: 4px 8px; }
textarea { min-height: 48px; }
button.mod-cta { background: var(--interactive-accent); color: var(--text-on-accent, #fff); }
button.mod-warning { background: var(--background-modifier-error, #e93147); color: #fff; }
`;
const css =
  readFileSync(join(root, "scripts/screenshots/obsidian-theme.css"), "utf8") +
  settingCss +
  readFileSync(join(root, "styles.css"), "utf8");
writeFileSync(
  join(work, "page.html"),
  `<!doctype html><html><head><meta charset="utf-8"><style>${css}</style></head><body><script src="page.js"></script></body></html>`,
);
const shots = [
  { name: "mirror-modal-dark.png", query: "theme=dark", size: [900, 560] },
  { name: "mirror-settings-light.png", query: "theme=light&view=settings", size: [900, 560] },
];
for (const shot of shots) {
  execFileSync(
    chromium,
    [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--hide-scrollbars",
      "--no-first-run",
      `--window-size=${shot.size[0]},${shot.size[1]}`,
      "--virtual-time-budget=3000",
      `--screenshot=${join(out, shot.name)}`,
      `file://${join(work, "page.html")}?${shot.query}`,
    ],
    { stdio: "ignore" },
  );
  process.stdout.write(`${shot.name}\n`);
}
if (process.env.KEEP_WORK) process.stdout.write(`${work}\n`);
else rmSync(work, { recursive: true, force: true });
