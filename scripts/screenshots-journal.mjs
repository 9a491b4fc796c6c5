// Renders the sync journal's screenshots in docs/screenshots/ from the real DOM in headless
// Chromium: bundles scripts/screenshots/journal-page.ts (the real src/ui/sync-history-view.ts and
// src/ui/approval-modal.ts, with `obsidian` played by scripts/screenshots/obsidian-shim.ts) and
// shoots it per theme, as scripts/screenshots.mjs does for the merge editor.
// Usage: node scripts/screenshots-journal.mjs   (CHROMIUM=/path/to/chrome to use another binary)
import { join } from "node:path";
import { root, shoot } from "./screenshot-shoot.mjs";

const shots = [
  { name: "sync-history-dark.png", query: "theme=dark&view=history", size: [480, 1100], scale: 1 },
  { name: "sync-history-light.png", query: "theme=light&view=history", size: [480, 1100], scale: 1 },
  { name: "approval-edit-dark.png", query: "theme=dark&view=approval", size: [1100, 900], scale: 1 },
  { name: "approval-edit-light.png", query: "theme=light&view=approval", size: [1100, 900], scale: 1 },
];

await shoot({
  page: "scripts/screenshots/journal-page.ts",
  build: () => ({ alias: { obsidian: join(root, "scripts/screenshots/obsidian-shim.ts") } }),
  shots,
});
