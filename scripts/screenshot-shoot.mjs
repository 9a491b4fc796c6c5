// The shared half of the screenshot scripts (scripts/screenshots*.mjs): bundle a page module
// with esbuild, write it into an HTML page with the Obsidian-like theme variables and styles.css,
// and shoot it in headless Chromium once per entry into docs/screenshots/.
import process from "node:process";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";

export const root = fileURLToPath(new URL("../", import.meta.url));
const out = join(root, "docs", "screenshots");

/**
 * Renders `page` (esbuild options beside the entry: alias, banner) with `css` added before
 * styles.css, then shoots each of `shots` ({ name, query, size: [w, h], scale? }).
 * `build(work)` gives the extra esbuild options, and may write files they name into the work folder.
 */
export async function shoot({ page, build = () => ({}), css = "", shots }) {
  const work = mkdtempSync(join(tmpdir(), "hackmd-bridge-shots-"));
  try {
    await esbuild.build({
      entryPoints: [join(root, page)],
      outfile: join(work, "page.js"),
      bundle: true,
      format: "iife",
      platform: "browser",
      target: "es2022",
      logLevel: "warning",
      ...build(work),
    });
    const styles =
      readFileSync(join(root, "scripts/screenshots/obsidian-theme.css"), "utf8") +
      css +
      readFileSync(join(root, "styles.css"), "utf8");
    writeFileSync(
      join(work, "page.html"),
      `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><style>${styles}</style></head><body><script src="page.js"></script></body></html>`,
    );
    const chromium = process.env.CHROMIUM ?? "chromium";
    for (const shot of shots) {
      execFileSync(
        chromium,
        [
          "--headless=new",
          "--no-sandbox",
          "--disable-gpu",
          "--hide-scrollbars",
          "--no-first-run",
          `--force-device-scale-factor=${shot.scale ?? 1}`,
          `--window-size=${shot.size[0]},${shot.size[1]}`,
          "--virtual-time-budget=3000",
          `--screenshot=${join(out, shot.name)}`,
          `file://${join(work, "page.html")}?${shot.query}`,
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      process.stdout.write(`docs/screenshots/${shot.name}\n`);
    }
  } finally {
    if (process.env.KEEP_WORK) process.stdout.write(`${work}\n`);
    else rmSync(work, { recursive: true, force: true });
  }
}
