/**
 * The command's trash for mirrors (src/app/mirror.ts `MirrorHost`): a file whose note was trashed
 * on HackMD is moved into the ROOT's `.trash` folder (as Obsidian's "move to .trash" does), never
 * deleted. The name is kept, with " 2", " 3", … when one is taken.
 */
import * as fsp from "node:fs/promises";
import * as nodePath from "node:path";
import { BridgeError } from "../core/errors";
import { TRASH_FOLDER } from "../core/paths";
import type { MirrorHost } from "../app/mirror";

/** A `MirrorHost` whose trash is `<root>/.trash`. */
export function rootTrash(rootPath: string): MirrorHost {
  return {
    async trash(path: string): Promise<string> {
      const from = nodePath.join(rootPath, ...path.split("/"));
      const folder = nodePath.join(rootPath, TRASH_FOLDER);
      await fsp.mkdir(folder, { recursive: true, mode: 0o700 });
      const base = path.split("/").pop() ?? "note.md";
      const stem = base.replace(/\.md$/i, "");
      for (let n = 1; n < 1000; n += 1) {
        const name = n === 1 ? base : `${stem} ${n}.md`;
        const to = nodePath.join(folder, name);
        try {
          // A hard link never replaces an existing file; the original goes once the copy exists.
          await fsp.link(from, to);
          await fsp.unlink(from);
          return `${TRASH_FOLDER}/${name}`;
        } catch (error) {
          if ((error as { code?: string }).code === "EEXIST") continue;
          if ((error as { code?: string }).code === "ENOENT")
            throw new BridgeError("local_io", `${path} is gone; nothing was moved to the trash.`);
          // No hard links here (some file systems): copy without replacing, then remove.
          await fsp.copyFile(from, to, fsp.constants.COPYFILE_EXCL);
          await fsp.unlink(from);
          return `${TRASH_FOLDER}/${name}`;
        }
      }
      throw new BridgeError("local_io", `The trash has too many files named ${base}; empty ${TRASH_FOLDER}.`);
    },
  };
}
