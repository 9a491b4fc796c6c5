/**
 * Keeps the text a whole-file conflict choice drops (docs/style.md rule 6: nothing discarded
 * unasked): it is written under a dated name into the vault's `.trash` folder — Obsidian's own
 * local trash, which neither search nor other plugins index, so the copy is no duplicate note —
 * where the user can get it back. Not `FileManager.trashFile` on a copy: with the "permanently
 * delete" preference that would destroy the very copy this exists to keep. If the copy cannot be
 * written, the caller writes nothing else either.
 */
import { normalizePath, type App } from "obsidian";
import { BridgeError } from "../core/errors";
import type { KeptSide } from "../ui/conflict-flow";

/** The vault's local trash folder (Obsidian's "Move to Obsidian trash" puts files here). */
export const VAULT_TRASH_FOLDER = ".trash";

/** How each kept text is named, in the file name and in the notice. */
const SIDES: Readonly<Record<KeptSide, { label: string; whose: string }>> = {
  mine: { label: "my version", whose: "your version" },
  theirs: { label: "HackMD version", whose: "HackMD's version" },
  merged: { label: "my merge", whose: "your merge" },
};

/** Keeps `text` (see the module comment); resolves the sentence for the notice. */
export async function keepCopyInTrash(
  app: App,
  path: string,
  text: string,
  side: KeptSide,
  now: Date = new Date(),
): Promise<string> {
  const { label, whose } = SIDES[side];
  const stem = path.slice(path.lastIndexOf("/") + 1).replace(/\.md$/i, "");
  const adapter = app.vault.adapter;
  try {
    if (!(await adapter.exists(VAULT_TRASH_FOLDER))) await adapter.mkdir(VAULT_TRASH_FOLDER);
    const name = await freeName(app, `${stem} (${label} ${stampOf(now)})`);
    await adapter.write(normalizePath(`${VAULT_TRASH_FOLDER}/${name}`), text);
    return `A copy of ${whose} is kept in the vault's ${VAULT_TRASH_FOLDER} folder as "${name}".`;
  } catch (error) {
    throw new BridgeError("local_io", `A copy of ${whose} of ${path} could not be kept, so nothing was written.`, {
      cause: error,
    });
  }
}

/** `name.md`, numbered until the trash folder has no file of that name. */
async function freeName(app: App, base: string): Promise<string> {
  for (let n = 1; ; n++) {
    const name = n === 1 ? `${base}.md` : `${base} ${n}.md`;
    if (!(await app.vault.adapter.exists(normalizePath(`${VAULT_TRASH_FOLDER}/${name}`)))) return name;
  }
}

/** `2025-06-01 10.30.05`: sortable, and valid in file names on every system (no colons). */
function stampOf(date: Date): string {
  const two = (value: number): string => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}.${two(date.getMinutes())}.${two(date.getSeconds())}`;
}
