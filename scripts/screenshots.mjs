// Renders the merge editor's screenshots in docs/screenshots/ from the real DOM in headless
// Chromium: bundles scripts/screenshots/page.ts (the real src/ui/merge-editor-dom.ts) with esbuild,
// writes a page with styles.css and Obsidian-like theme variables, and shoots it per theme and size.
// Usage: node scripts/screenshots.mjs   (needs Debian's chromium: apt-get install chromium;
// CHROMIUM=/path/to/chrome to use another binary)
import { shoot } from "./screenshot-shoot.mjs";

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

await shoot({ page: "scripts/screenshots/page.ts", shots });
