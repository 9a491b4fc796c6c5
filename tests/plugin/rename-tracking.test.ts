/** Tracking follows renames (docs/tools.md §13.9), and the store's additive `move`. */
import { App, TFile } from "../__mocks__/obsidian";
import { sha256Hex } from "../../src/core/hash";
import { silentLogger } from "../../src/core/ports";
import { PluginServices } from "../../src/obsidian/plugin-services";
import { RenameTracker } from "../../src/obsidian/rename-tracking";
import { DEFAULT_SETTINGS } from "../../src/settings/schema";

const STATE = ".obsidian/plugins/hackmd-bridge/sync";

async function setup(): Promise<{ app: App; services: PluginServices; tracker: RenameTracker }> {
  const app = new App();
  const services = new PluginServices({
    app: app as never,
    settings: () => DEFAULT_SETTINGS,
    token: { getToken: () => undefined },
    timers: globalThis,
    logger: silentLogger,
  });
  await app.vault.createFolder("Notes");
  await app.vault.create("Notes/a.md", "body\n");
  await services.store.save({
    teamPath: null,
    noteId: "n1",
    localPath: "Notes/a.md",
    baseline: "body\n",
    timestamp: "1",
  });
  const tracker = new RenameTracker({ services });
  app.vault.on("rename", (file, oldPath) => void tracker.handleRename(file as never, oldPath as string));
  return { app, services, tracker };
}

const settle = (tracker: RenameTracker): Promise<void> => tracker.handleRename(new TFile() as never, "nothing");

describe("rename tracking", () => {
  it("moves the record and the hint when a tracked file is renamed", async () => {
    const { app, services, tracker } = await setup();
    await app.vault.rename(app.vault.getFileByPath("Notes/a.md")!, "Notes/b.md");
    await settle(tracker);
    expect((await services.store.findByPath("Notes/b.md"))?.record).toMatchObject({
      internal_id: "n1",
      local_path: "Notes/b.md",
      baseline_body_hash: `sha256:${await sha256Hex("body\n")}`,
    });
    expect(await services.store.findByPath("Notes/a.md")).toBeUndefined();
    expect(app.vault.adapter.entries.has(`${STATE}/by-path/${await sha256Hex("Notes/a.md")}`)).toBe(false);
    expect(app.vault.adapter.entries.has(`${STATE}/by-path/${await sha256Hex("Notes/b.md")}`)).toBe(true);
  });

  it("follows a renamed parent folder", async () => {
    const { app, services, tracker } = await setup();
    await app.vault.rename(app.vault.getFolderByPath("Notes")!, "Archive");
    await settle(tracker);
    expect((await services.store.findByPath("Archive/a.md"))?.record.internal_id).toBe("n1");
  });

  it("keeps the old path for a move into .trash/, away from .md, or into a protected folder", async () => {
    const { services, tracker } = await setup();
    for (const target of [".trash/a.md", "Notes/a.txt", ".obsidian/a.md", "AGENTS.md"]) {
      const file = Object.assign(new TFile(), { path: target });
      await tracker.handleRename(file as never, "Notes/a.md");
      expect((await services.store.findByPath("Notes/a.md"))?.record.local_path).toBe("Notes/a.md");
    }
  });

  it("leaves the record when the file is deleted", async () => {
    const { app, services } = await setup();
    await app.fileManager.trashFile(app.vault.getFileByPath("Notes/a.md")!);
    expect((await services.store.findByPath("Notes/a.md"))?.record.internal_id).toBe("n1");
  });

  it("store.move drops the snapshot hash and displaces another record naming the new path", async () => {
    const { services } = await setup();
    await services.store.save({
      teamPath: null,
      noteId: "n2",
      localPath: "Notes/c.md",
      baseline: "other\n",
      timestamp: "",
    });
    const found = await services.store.findByPath("Notes/a.md");
    await services.store.setSnapshotHash(found!, "sha256:" + "0".repeat(64));
    const moved = await services.store.move((await services.store.findByPath("Notes/a.md"))!, "Notes/c.md");
    expect(moved.record.remote_snapshot_hash).toBeUndefined();
    expect((await services.store.list()).map((e) => e.key)).toEqual(["personal--n1"]);
    expect((await services.store.findByPath("Notes/c.md"))?.key).toBe("personal--n1");
  });
});
