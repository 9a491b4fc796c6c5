// Renders the sync journal's screenshots in docs/screenshots/ from the real DOM in headless
// Chromium: bundles scripts/screenshots/journal-page.ts (the real src/ui/sync-history-view.ts and
// src/ui/approval-modal.ts, with `obsidian` played by scripts/screenshots/obsidian-shim.ts) and
// shoots it per theme, as scripts/screenshots.mjs does for the merge editor.
// Usage: node scripts/screenshots-journal.mjs   (CHROMIUM=/path/to/chrome to use another binary)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";

const root = fileURLToPath(new URL("../", import.meta.url));
const out = join(root, "docs", "screenshots");
const work = mkdtempSync(join(tmpdir(), "hackmd-bridge-journal-shots-"));
const chromium = process.env.CHROMIUM ?? "chromium";

await esbuild.build({
  entryPoints: [join(root, "scripts/screenshots/journal-page.ts")],
  outfile: join(work, "page.js"),
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  alias: { obsidian: join(root, "scripts/screenshots/obsidian-shim.ts") },
  logLevel: "warning",
});
const css =
  readFileSync(join(root, "scripts/screenshots/obsidian-theme.css"), "utf8") +
  readFileSync(join(root, "styles.css"), "utf8");
writeFileSync(
  join(work, "page.html"),
  `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><style>${css}</style></head><body><script src="page.js"></script></body></html>`,
);

const shots = [
  { name: "sync-history-dark.png", query: "theme=dark&view=history", size: [480, 1100], scale: 1 },
  { name: "sync-history-light.png", query: "theme=light&view=history", size: [480, 1100], scale: 1 },
  { name: "approval-edit-dark.png", query: "theme=dark&view=approval", size: [1100, 900], scale: 1 },
  { name: "approval-edit-light.png", query: "theme=light&view=approval", size: [1100, 900], scale: 1 },
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
      `--force-device-scale-factor=${shot.scale}`,
      `--window-size=${shot.size[0]},${shot.size[1]}`,
      "--virtual-time-budget=3000",
      `--screenshot=${join(out, shot.name)}`,
      `file://${join(work, "page.html")}?${shot.query}`,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  process.stdout.write(`docs/screenshots/${shot.name}\n`);
}
rmSync(work, { recursive: true, force: true });
