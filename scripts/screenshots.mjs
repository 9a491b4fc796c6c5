// Renders the merge editor's screenshots in docs/screenshots/ from the real DOM in headless
// Chromium: bundles scripts/screenshots/page.ts (the real src/ui/merge-editor-dom.ts) with esbuild,
// writes a page with styles.css and Obsidian-like theme variables, and shoots it per theme and size.
// Usage: node scripts/screenshots.mjs   (needs Debian's chromium: apt-get install chromium;
// CHROMIUM=/path/to/chrome to use another binary)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";

const root = fileURLToPath(new URL("../", import.meta.url));
const out = join(root, "docs", "screenshots");
const work = mkdtempSync(join(tmpdir(), "hackmd-bridge-shots-"));
const chromium = process.env.CHROMIUM ?? "chromium";

await esbuild.build({
  entryPoints: [join(root, "scripts/screenshots/page.ts")],
  outfile: join(work, "page.js"),
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  logLevel: "warning",
});
const css =
  readFileSync(join(root, "scripts/screenshots/obsidian-theme.css"), "utf8") +
  readFileSync(join(root, "styles.css"), "utf8");
writeFileSync(
  join(work, "page.html"),
  `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><style>${css}</style></head><body><script src="page.js"></script></body></html>`,
);

/** Every screenshot: file name, query, window size and device scale. */
const shots = [];
for (const theme of ["dark", "light"]) {
  shots.push({ name: `merge-editor-${theme}-desktop.png`, query: `theme=${theme}`, size: [1280, 800], scale: 1 });
  shots.push({ name: `merge-editor-${theme}-phone.png`, query: `theme=${theme}`, size: [390, 844], scale: 2 });
}
shots.push({ name: "merge-editor-dark-phone-mine.png", query: "theme=dark&pane=mine", size: [390, 844], scale: 2 });
shots.push({ name: "merge-editor-light-confirm.png", query: "theme=light&view=confirm", size: [1280, 800], scale: 1 });
shots.push({ name: "diff-view-dark-desktop.png", query: "theme=dark&view=diff", size: [1280, 800], scale: 1 });
shots.push({ name: "diff-view-light-phone.png", query: "theme=light&view=diff", size: [390, 844], scale: 2 });

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
