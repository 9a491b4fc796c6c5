/**
 * The sync state store over the vault host's state files: the key scenarios of tests/sync/store.test.ts,
 * plus records moved between the Node host and the vault host in both directions — one on-disk format.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// The same module instance jest maps "obsidian" to (lint keeps tests from importing "obsidian").
import { App } from "../__mocks__/obsidian";
import { sha256Hex } from "../../src/core/hash";
import { silentLogger } from "../../src/core/ports";
import { NodeLocalFiles } from "../../src/node/local-files";
import { VaultLocalFiles, type VaultApp } from "../../src/obsidian/vault-files";
import { SyncStateStore } from "../../src/sync/store";

const STATE = ".obsidian/plugins/hackmd-bridge/sync";

function vaultStore(): { app: App; store: SyncStateStore } {
  const app = new App();
  const files = new VaultLocalFiles({ app: app as unknown as VaultApp });
  return { app, store: new SyncStateStore({ files: files.state, logger: silentLogger }) };
}

const disk = (app: App, path: string): string | undefined => {
  const entry = app.vault.adapter.entries.get(path);
  return entry?.type === "file" ? new TextDecoder().decode(entry.data) : undefined;
};

describe("SyncStateStore over VaultLocalFiles.state", () => {
  it("saves, finds by path and by note, loads the verified baseline, lists and removes", async () => {
    const { app, store } = vaultStore();
    await store.save({
      teamPath: null,
      noteId: "n1",
      localPath: "Notes/a.md",
      baseline: "exact\r\nbytes\n",
      timestamp: "123",
    });
    await store.save({ teamPath: "team/x", noteId: "n2", localPath: "Notes/b.md", baseline: "two\n", timestamp: "" });
    expect(disk(app, `${STATE}/tracked/personal--n1.baseline.md`)).toBe("exact\r\nbytes\n");
    expect(JSON.parse(disk(app, `${STATE}/tracked/personal--n1.json`) ?? "")).toEqual({
      format: 1,
      internal_id: "n1",
      team_path: null,
      local_path: "Notes/a.md",
      baseline_body_hash: `sha256:${await sha256Hex("exact\r\nbytes\n")}`,
      last_observed_remote_timestamp: "123",
    });
    expect(disk(app, `${STATE}/by-path/${await sha256Hex("Notes/a.md")}`)).toBe("personal--n1");

    const found = await store.findByPath("Notes/a.md");
    expect(found?.key).toBe("personal--n1");
    expect((await store.load(found!)).baseline).toBe("exact\r\nbytes\n");
    expect((await store.findByNote("team/x", "n2"))?.record.local_path).toBe("Notes/b.md");
    expect((await store.list()).map((entry) => entry.key)).toEqual(["personal--n1", "team--team%2Fx--n2"]);

    // A re-save moves the record to a new file and drops the old hint.
    await store.save({
      teamPath: null,
      noteId: "n1",
      localPath: "Notes/moved.md",
      baseline: "exact\r\nbytes\n",
      timestamp: "124",
    });
    expect(await store.findByPath("Notes/a.md")).toBeUndefined();
    expect(disk(app, `${STATE}/by-path/${await sha256Hex("Notes/a.md")}`)).toBeUndefined();

    expect(await store.remove(null, "n1")).toEqual({ localPath: "Notes/moved.md" });
    expect(await store.findByPath("Notes/moved.md")).toBeUndefined();
    expect(await store.remove(null, "n1")).toBeUndefined();
  });

  it("refuses a baseline that no longer matches its hash (sync_state)", async () => {
    const { app, store } = vaultStore();
    await store.save({ teamPath: null, noteId: "n1", localPath: "a.md", baseline: "one\n", timestamp: "1" });
    await app.vault.adapter.write(`${STATE}/tracked/personal--n1.baseline.md`, "tampered\n");
    await expect(store.load((await store.findByPath("a.md"))!)).rejects.toMatchObject({ kind: "sync_state" });
  });

  describe("shares records with the Node host", () => {
    let root: string;
    beforeEach(async () => {
      root = await mkdtemp(join(tmpdir(), "hb-vault-store-"));
      await mkdir(join(root, ".obsidian"));
    });
    afterEach(async () => {
      await rm(root, { recursive: true, force: true });
    });

    async function copyToVault(app: App, folder: string): Promise<void> {
      for (const entry of await readdir(join(root, folder), { withFileTypes: true })) {
        const path = `${folder}/${entry.name}`;
        if (entry.isDirectory()) {
          await app.vault.adapter.mkdir(path);
          await copyToVault(app, path);
        } else {
          const bytes = await readFile(join(root, path));
          await app.vault.adapter.writeBinary(
            path,
            bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
          );
        }
      }
    }

    it("reads what the command saved, and the command reads what the plugin saved", async () => {
      const node = await NodeLocalFiles.open({ root });
      expect(node.root.stateFolder).toBe(STATE);
      const nodeStore = new SyncStateStore({ files: node.state, logger: silentLogger });
      await nodeStore.save({
        teamPath: "t",
        noteId: "from-node",
        localPath: "Notes/n.md",
        baseline: "node body\n",
        timestamp: "5",
      });

      const { app, store } = vaultStore();
      await app.vault.adapter.mkdir(".obsidian");
      await copyToVault(app, ".obsidian");
      const found = await store.findByPath("Notes/n.md");
      expect(found?.key).toBe("team--t--from%2Dnode");
      expect((await store.load(found!)).baseline).toBe("node body\n");

      await store.save({
        teamPath: null,
        noteId: "from-vault",
        localPath: "Notes/v.md",
        baseline: "vault body\n",
        timestamp: "6",
      });
      for (const [path, entry] of app.vault.adapter.entries) {
        if (!path.startsWith(`${STATE}/`) || path.includes("from%2Dnode")) continue;
        if (entry.type === "folder") await mkdir(join(root, path), { recursive: true });
        else await writeFile(join(root, path), entry.data);
      }
      const again = await nodeStore.findByPath("Notes/v.md");
      expect(again?.key).toBe("personal--from%2Dvault");
      expect((await nodeStore.load(again!)).baseline).toBe("vault body\n");
    });
  });
});
