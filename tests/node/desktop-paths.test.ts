import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDesktopPaths } from "../../src/node/desktop-paths";

describe("desktop symlink checks for the plugin (docs/tools.md §12.2)", () => {
  let work: string;
  let vault: string;
  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), "hb-desktop-"));
    vault = join(work, "vault");
    await mkdir(join(vault, "notes"), { recursive: true });
    await writeFile(join(vault, "notes", "a.md"), "a");
    await mkdir(join(work, "outside"));
    await writeFile(join(work, "outside", "secret.md"), "s");
    await symlink(join(work, "outside"), join(vault, "escape"));
    await symlink(join(vault, "notes"), join(vault, "alias"));
    await symlink(join(work, "missing"), join(vault, "dangling.md"));
  });
  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it("maps absolute paths inside the vault (or its real path) to root-relative ones", async () => {
    const paths = await createDesktopPaths(vault);
    expect(paths.relativeOf(join(vault, "notes", "a.md"))).toBe("notes/a.md");
    expect(paths.relativeOf(vault)).toBe("");
    expect(paths.relativeOf(join(work, "outside", "secret.md"))).toBeUndefined();
  });

  it("resolves symlinks inside the vault, refuses escapes and dangling links, and reports missing paths", async () => {
    const paths = await createDesktopPaths(vault);
    expect(await paths.realRelative("notes/a.md")).toBe("notes/a.md");
    expect(await paths.realRelative("alias/a.md")).toBe("notes/a.md");
    expect(await paths.realRelative("escape")).toBeNull();
    expect(await paths.realRelative("escape/secret.md")).toBeNull();
    expect(await paths.realRelative("dangling.md")).toBeNull();
    expect(await paths.realRelative("notes/new.md")).toBeUndefined();
    expect(await paths.realRelative("")).toBe("");
  });
});
