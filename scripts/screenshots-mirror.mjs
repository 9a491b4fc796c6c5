// Renders docs/screenshots/mirror-*.png in headless Chromium: the "Mirror a HackMD workspace"
// modal and the settings' "Mirrors" list from the real src/ui code, on the test suite's fake
// `obsidian` module (scripts/screenshots/mirror-page.ts), with styles.css and Obsidian-like
// theme variables. Usage: node scripts/screenshots-mirror.mjs (CHROMIUM=/path/to/chrome).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { root, shoot } from "./screenshot-shoot.mjs";

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
const shots = [
  { name: "mirror-modal-dark.png", query: "theme=dark", size: [900, 560] },
  { name: "mirror-settings-light.png", query: "theme=light&view=settings", size: [900, 560] },
];
await shoot({
  page: "scripts/screenshots/mirror-page.ts",
  build: (work) => {
    writeFileSync(
      join(work, "node-util.js"),
      "export const TextDecoder = globalThis.TextDecoder; export const TextEncoder = globalThis.TextEncoder;\n",
    );
    return {
      // The fake module programs requestUrl with jest.fn; nothing here calls it.
      banner: { js: "var jest = { fn: (impl) => impl };" },
      alias: {
        obsidian: join(root, "tests/__mocks__/obsidian.ts"),
        "node:util": join(work, "node-util.js"),
        // Obsidian's DOM helpers (createEl, addClass, …), as the dom tests get them.
        "obsidian-dom-extensions": join(root, "node_modules/jest-environment-obsidian/dist/runtime/extensions.js"),
      },
    };
  },
  css: settingCss,
  shots,
});
