/** VaultLocalFiles against the fake vault (the Vault API and its adapter over one in-memory disk). */
// The same module instance jest maps "obsidian" to (lint keeps tests from importing "obsidian").
import { App, FileSystemAdapter, InMemoryAdapter, TFile, type TAbstractFile } from "../__mocks__/obsidian";
import { BridgeError, type ErrorKind } from "../../src/core/errors";
import { relativeToBase, VaultLocalFiles, type DesktopPaths, type VaultApp } from "../../src/obsidian/vault-files";

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const STATE = ".obsidian/plugins/hackmd-bridge/sync";

interface Setup {
  app: App;
  adapter: InMemoryAdapter;
  files: VaultLocalFiles;
  /** Flips the protect_agent_files setting the adapter reads at every check. */
  protect: { on: boolean };
  /** The content of a file on the fake disk, or undefined. */
  disk(path: string): string | undefined;
}

async function setup(
  options: { adapter?: InMemoryAdapter; desktop?: (adapter: InMemoryAdapter) => DesktopPaths } = {},
): Promise<Setup> {
  const app = new App(options.adapter);
  const adapter = app.vault.adapter;
  await adapter.mkdir(".obsidian");
  await app.vault.createFolder("Notes");
  await app.vault.create("Notes/a.md", "hello\n");
  const protect = { on: true };
  const files = new VaultLocalFiles({
    app: app as unknown as VaultApp,
    protectAgentFiles: () => protect.on,
    ...(options.desktop ? { desktop: options.desktop(adapter) } : {}),
  });
  const disk = (path: string): string | undefined => {
    const entry = adapter.entries.get(path);
    return entry?.type === "file" ? text(entry.data) : undefined;
  };
  return { app, adapter, files, protect, disk };
}

async function failure(promise: Promise<unknown>): Promise<BridgeError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof BridgeError) return error;
    throw error;
  }
  throw new Error("expected a BridgeError");
}

async function kindOf(promise: Promise<unknown>): Promise<ErrorKind> {
  return (await failure(promise)).kind;
}

describe("VaultLocalFiles: paths and policy (docs/tools.md §12.1–12.4)", () => {
  it("describes the vault ROOT: state folder in the config folder, no absolute paths without a base path", async () => {
    const { files } = await setup();
    expect(files.root).toMatchObject({
      isVault: true,
      configDir: ".obsidian",
      stateFolder: STATE,
      absoluteRootAvailable: false,
      protectAgentFiles: true,
    });
  });

  it("reports normalised ROOT-relative paths", async () => {
    const { files } = await setup();
    expect(await files.resolve("./Notes//a.md", "read")).toEqual({
      path: "Notes/a.md",
      given: "Notes/a.md",
      target: "Notes/a.md",
    });
    expect((await files.stat("Notes/./a.md")).path).toBe("Notes/a.md");
    expect((await files.read("Notes//a.md", { maxBytes: 100 })).path).toBe("Notes/a.md");
    expect((await files.write("Notes/b\u00A0c.md", "x", { expect: "absent" })).path).toBe("Notes/b c.md");
  });

  it("refuses .., backslashes and empty paths", async () => {
    const { files } = await setup();
    expect(await kindOf(files.read("Notes/../../x.md", { maxBytes: 10 }))).toBe("local_access");
    expect(await kindOf(files.write("../x.md", "x", { expect: "absent" }))).toBe("local_access");
    expect(await kindOf(files.resolve("Notes\\a.md", "read"))).toBe("invalid_input");
    expect(await kindOf(files.resolve("./", "read"))).toBe("invalid_input");
  });

  it.each([
    ".obsidian/app.json",
    ".Obsidian/x.md",
    ".obsidian/plugins/hackmd-bridge/sync/tracked/k.json",
    ".trash/x.md",
    ".TRASH/x.md",
    ".hackmd-bridge/x.md",
    ".Hackmd-Bridge./x.md",
  ])("refuses to write inside the protected folder of %s", async (path) => {
    const { files, adapter } = await setup();
    const before = [...adapter.entries.keys()];
    expect(await kindOf(files.write(path, "x", { expect: "absent" }))).toBe("local_access");
    expect(await kindOf(files.resolve(path, "write"))).toBe("local_access");
    expect(await kindOf(files.createFolders(`${path}/sub`))).toBe("local_access");
    expect(await kindOf(files.remove(path))).toBe("local_access");
    expect([...adapter.entries.keys()]).toEqual(before);
  });

  it("protects the configured config folder, whatever its name", async () => {
    const app = new App();
    app.vault.configDir = ".config-x";
    const files = new VaultLocalFiles({ app: app as unknown as VaultApp });
    expect(files.root.stateFolder).toBe(".config-x/plugins/hackmd-bridge/sync");
    expect(await kindOf(files.write(".CONFIG-X/a.md", "x", { expect: "absent" }))).toBe("local_access");
    await files.write(".obsidian-notes.md", "x", { expect: "absent" });
  });

  it("refuses agent instruction files by default and allows them with the switch off, read at every call", async () => {
    const { files, protect, disk } = await setup();
    for (const path of ["CLAUDE.md", "Notes/agents.md", ".github/x.md", "Notes/.Cursor/rules.md", "cl\u200Baude.md"]) {
      const error = await failure(files.write(path, "x", { expect: "absent" }));
      expect(error.kind).toBe("local_access");
      expect(error.message).toContain("protect_agent_files");
    }
    expect(await kindOf(files.createFolders(".claude/commands"))).toBe("local_access");
    protect.on = false;
    expect(files.root.protectAgentFiles).toBe(false);
    await files.write("CLAUDE.md", "allowed", { expect: "absent" });
    await files.createFolders(".claude/commands");
    expect(disk("CLAUDE.md")).toBe("allowed");
    expect((await files.stat(".claude/commands")).kind).toBe("folder");
  });

  it("refuses absolute paths without a desktop base path (mobile)", async () => {
    const { files } = await setup();
    const error = await failure(files.read("/Users/me/Vault/Notes/a.md", { maxBytes: 10 }));
    expect(error.kind).toBe("local_access");
    expect(error.message).toContain("relative to the ROOT");
    expect(await kindOf(files.resolve("C:\\Vault\\a.md", "read"))).toBe("local_access");
  });

  it("accepts absolute paths inside the FileSystemAdapter base path only", async () => {
    const { files } = await setup({ adapter: new FileSystemAdapter("/Users/me/Vault") });
    expect(files.root.absoluteRootAvailable).toBe(true);
    expect((await files.read("/Users/me/Vault/Notes/a.md", { maxBytes: 100 })).path).toBe("Notes/a.md");
    expect(await kindOf(files.read("/Users/me/Other/a.md", { maxBytes: 10 }))).toBe("local_access");
    expect(await kindOf(files.read("/Users/me/Vault/Notes/../../Other/a.md", { maxBytes: 10 }))).toBe("local_access");
    expect(await kindOf(files.read("/Users/me/Vault", { maxBytes: 10 }))).toBe("invalid_input");
    expect(await kindOf(files.write("/Users/me/Vault/.obsidian/x.md", "x", { expect: "absent" }))).toBe("local_access");
  });

  it("maps Windows absolute paths by components, case-insensitively", () => {
    expect(relativeToBase("c:\\vault\\Notes\\a.md", "C:\\Vault")).toBe("Notes/a.md");
    expect(relativeToBase("C:/Vault/Notes/a.md", "C:\\Vault\\")).toBe("Notes/a.md");
    expect(relativeToBase("C:\\Vault2\\a.md", "C:\\Vault")).toBeUndefined();
    expect(relativeToBase("/Users/me/vault/a.md", "/Users/me/Vault")).toBeUndefined();
    expect(relativeToBase("/Users/me/Vault", "/Users/me/Vault/")).toBe("");
  });
});

describe("VaultLocalFiles: reading, writing and removing (docs/tools.md §12.5–12.6)", () => {
  it("reads bounded: at most maxBytes, truncated when the file is larger", async () => {
    const { app, files } = await setup();
    await app.vault.create("Notes/digits.md", "0123456789");
    const cut = await files.read("Notes/digits.md", { maxBytes: 4 });
    expect([text(cut.bytes), cut.truncated]).toEqual(["0123", true]);
    const whole = await files.read("Notes/digits.md", { maxBytes: 10 });
    expect([text(whole.bytes), whole.truncated]).toEqual(["0123456789", false]);
    const head = await files.readHead("Notes/digits.md", 3);
    expect([text(head.bytes), head.truncated]).toEqual(["012", true]);
    expect(whole.stamp).toEqual((await files.stat("Notes/digits.md")).stamp);
    expect(await kindOf(files.read("Notes/none.md", { maxBytes: 10 }))).toBe("invalid_input");
    expect(await kindOf(files.read("Notes", { maxBytes: 10 }))).toBe("invalid_input");
  });

  it("stats files, folders and missing paths", async () => {
    const { files } = await setup();
    expect(await files.stat("Notes/a.md")).toMatchObject({ kind: "file", size: 6, symlink: false, stamp: { size: 6 } });
    expect((await files.stat("Notes")).kind).toBe("folder");
    expect(await files.stat("Notes/none.md")).toEqual({
      path: "Notes/none.md",
      kind: "missing",
      symlink: false,
      size: 0,
      mtimeMs: 0,
    });
  });

  it("creates a new file through Vault.create, indexed, with the stamp a stat reports", async () => {
    const { app, files } = await setup();
    const created: string[] = [];
    app.vault.on("create", (file) => void created.push((file as TAbstractFile).path));
    const written = await files.write("Notes/new.md", "fresh\r\n", { expect: "absent" });
    expect(app.vault.getFileByPath("Notes/new.md")).toBeInstanceOf(TFile);
    expect(created).toEqual(["Notes/new.md"]);
    expect(written.stamp).toEqual((await files.stat("Notes/new.md")).stamp);
    expect(text((await files.read("Notes/new.md", { maxBytes: 100 })).bytes)).toBe("fresh\r\n");
  });

  it("replaces an existing file through Vault.process when the stamp still matches", async () => {
    const { app, files, disk } = await setup();
    const process = jest.spyOn(app.vault, "process");
    const read = await files.read("Notes/a.md", { maxBytes: 100 });
    const written = await files.write("Notes/a.md", "replaced\n", { expect: read.stamp });
    expect(process).toHaveBeenCalledTimes(1);
    expect(disk("Notes/a.md")).toBe("replaced\n");
    expect(written.stamp).not.toEqual(read.stamp);
    await files.write("Notes/a.md", "again\n", { expect: written.stamp });
    expect(disk("Notes/a.md")).toBe("again\n");
  });

  it("fails with conflict, writing nothing, when a modify lands between the check and the process callback", async () => {
    const { app, files, disk } = await setup();
    const read = await files.read("Notes/a.md", { maxBytes: 100 });
    const original = app.vault.process.bind(app.vault);
    // Same size as the original, so only the vault's stat (mtime) betrays the edit.
    jest.spyOn(app.vault, "process").mockImplementationOnce(async (file, fn) => {
      await app.vault.modify(file, "HELLO\n");
      return original(file, fn);
    });
    const error = await failure(files.write("Notes/a.md", "mine\n", { expect: read.stamp }));
    expect(error.kind).toBe("conflict");
    expect(error.message).toContain("nothing was written");
    expect(disk("Notes/a.md")).toBe("HELLO\n");
  });

  it("fails with conflict when the file changed after it was read (stale stamp) or appeared (expect absent)", async () => {
    const { app, files, disk } = await setup();
    const read = await files.read("Notes/a.md", { maxBytes: 100 });
    const file = app.vault.getFileByPath("Notes/a.md");
    if (!file) throw new Error("missing");
    await app.vault.modify(file, "theirs\n");
    expect(await kindOf(files.write("Notes/a.md", "mine\n", { expect: read.stamp }))).toBe("conflict");
    expect(await kindOf(files.write("Notes/a.md", "mine\n", { expect: "absent" }))).toBe("conflict");
    expect(disk("Notes/a.md")).toBe("theirs\n");
    await app.vault.adapter.remove(file.path);
    expect(await kindOf(files.write("Notes/a.md", "mine\n", { expect: read.stamp }))).toBe("conflict");
    expect(disk("Notes/a.md")).toBeUndefined();
  });

  it("refuses to create a file that appeared meanwhile", async () => {
    const { app, files, disk } = await setup();
    const original = app.vault.create.bind(app.vault);
    jest.spyOn(app.vault, "create").mockImplementationOnce(async (path, data) => {
      await original(path, "someone else\n");
      return original(path, data);
    });
    const error = await failure(files.write("Notes/race.md", "mine\n", { expect: "absent" }));
    expect(error.kind).toBe("conflict");
    expect(disk("Notes/race.md")).toBe("someone else\n");
  });

  it("needs an existing parent folder; createFolders makes each missing one, indexed", async () => {
    const { app, files } = await setup();
    const error = await failure(files.write("A/B/c.md", "x", { expect: "absent" }));
    expect(error).toMatchObject({ kind: "invalid_input", details: { reason: "missing_parent" } });
    expect(await files.createFolders("A/B")).toEqual({ path: "A/B", created: ["A", "A/B"] });
    expect(app.vault.getFolderByPath("A/B")).not.toBeNull();
    expect(await files.createFolders("A/B")).toEqual({ path: "A/B", created: [] });
    await files.write("A/B/c.md", "x", { expect: "absent" });
    expect(await kindOf(files.createFolders("A/B/c.md/d"))).toBe("invalid_input");
    expect(await kindOf(files.write("A/B/c.md/d.md", "x", { expect: "absent" }))).toBe("invalid_input");
    expect(await kindOf(files.write("A/B", "x", { expect: "absent" }))).toBe("invalid_input");
  });

  it("writes bytes: UTF-8 (a BOM kept) through process, other bytes through modifyBinary", async () => {
    const { app, adapter, files } = await setup();
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]);
    const first = await files.write("Notes/a.md", bom, { expect: (await files.stat("Notes/a.md")).stamp! });
    expect(adapter.entries.get("Notes/a.md")).toMatchObject({ data: bom });
    const binary = jest.spyOn(app.vault, "modifyBinary");
    const bytes = new Uint8Array([0xff, 0x00, 0xfe]);
    await files.write("Notes/a.md", bytes, { expect: first.stamp });
    expect(binary).toHaveBeenCalledTimes(1);
    expect(adapter.entries.get("Notes/a.md")).toMatchObject({ data: bytes });
    await files.write("Notes/image.png", bytes, { expect: "absent" });
    expect((await files.read("Notes/image.png", { maxBytes: 10 })).bytes).toEqual(bytes);
  });

  it("writes into dot-folders the vault does not index through the adapter", async () => {
    const { app, files, disk } = await setup();
    expect(await files.createFolders(".drafts/x")).toEqual({ path: ".drafts/x", created: [".drafts", ".drafts/x"] });
    const written = await files.write(".drafts/x/a.md", "one\n", { expect: "absent" });
    expect(app.vault.getFileByPath(".drafts/x/a.md")).toBeNull();
    await files.write(".drafts/x/a.md", "two\n", { expect: written.stamp });
    expect(disk(".drafts/x/a.md")).toBe("two\n");
    expect(await kindOf(files.write(".drafts/x/a.md", "three\n", { expect: written.stamp }))).toBe("conflict");
    expect(await files.remove(".drafts/x/a.md")).toBe(true);
  });

  it("removes a file (through the file manager's trash) under the policy and the optional expectation", async () => {
    const { app, files } = await setup();
    const trash = jest.spyOn(app.fileManager, "trashFile");
    const stamp = (await files.stat("Notes/a.md")).stamp!;
    const file = app.vault.getFileByPath("Notes/a.md");
    if (!file) throw new Error("missing");
    await app.vault.modify(file, "changed\n");
    expect(await kindOf(files.remove("Notes/a.md", { expect: stamp }))).toBe("conflict");
    expect(await files.remove("Notes/a.md", { expect: (await files.stat("Notes/a.md")).stamp! })).toBe(true);
    expect(trash).toHaveBeenCalledTimes(1);
    expect(app.vault.getFileByPath("Notes/a.md")).toBeNull();
    expect(await files.remove("Notes/a.md")).toBe(false);
    expect(await kindOf(files.remove("Notes"))).toBe("invalid_input");
  });

  it("lists folders by name and kind; a missing folder is empty, a file is refused", async () => {
    const { files } = await setup();
    await files.createFolders("Notes/sub");
    expect(await files.list("Notes")).toEqual(
      expect.arrayContaining([
        { name: "a.md", kind: "file" },
        { name: "sub", kind: "folder" },
      ]),
    );
    expect(await files.list("Nowhere")).toEqual([]);
    expect(await kindOf(files.list("Notes/a.md"))).toBe("invalid_input");
  });
});

describe("VaultLocalFiles with a desktop port (docs/tools.md §12.2 desktop)", () => {
  // Links: Link → Notes (inside), Out → outside, Notes/cfg.md → .obsidian/app.json, Notes/away.md → outside.
  const links: Record<string, string | null> = {
    Link: "Notes",
    Out: null,
    "Notes/cfg.md": ".obsidian/app.json",
    "Notes/away.md": null,
  };
  const desktop = (adapter: InMemoryAdapter): DesktopPaths => ({
    basePath: "/Users/me/Vault",
    relativeOf: (absolute) => relativeToBase(absolute, "/Users/me/Vault"),
    realRelative: async (path) => {
      let out: string[] = [];
      for (const segment of path.split("/")) {
        const candidate = [...out, segment].join("/");
        const link = links[candidate];
        if (link === null) return null;
        out = link === undefined ? [...out, segment] : link.split("/");
      }
      const real = out.join("/");
      return adapter.entries.has(real) ? real : undefined;
    },
    createExclusive: async (path, data) => {
      if (adapter.entries.has(path)) return false;
      await adapter.write(path, data);
      return true;
    },
  });

  it("resolves parent symlinks into the canonical path and refuses ones that leave the vault", async () => {
    const { files, disk } = await setup({ desktop });
    expect(files.root.absoluteRootAvailable).toBe(true);
    expect(await files.resolve("Link/new.md", "write")).toEqual({
      given: "Link/new.md",
      path: "Notes/new.md",
      target: "Notes/new.md",
    });
    expect((await files.write("Link/new.md", "x", { expect: "absent" })).path).toBe("Notes/new.md");
    expect(disk("Notes/new.md")).toBe("x");
    expect(await kindOf(files.write("Out/new.md", "x", { expect: "absent" }))).toBe("local_access");
    expect(await kindOf(files.read("Notes/away.md", { maxBytes: 10 }))).toBe("local_access");
    expect((await files.read("/Users/me/Vault/Link/a.md", { maxBytes: 100 })).path).toBe("Notes/a.md");
  });

  it("judges the policy as followed: a final symlink into the config folder is refused", async () => {
    const { adapter, files } = await setup({ desktop });
    await adapter.write(".obsidian/app.json", "{}");
    expect(await files.resolve("Notes/cfg.md", "read")).toMatchObject({
      path: "Notes/cfg.md",
      target: ".obsidian/app.json",
    });
    expect(await files.resolve("Notes/cfg.md", "write").catch((error: BridgeError) => error.kind)).toBe("local_access");
    expect((await files.stat("Notes/cfg.md")).symlink).toBe(true);
    expect(await kindOf(files.write("Notes/cfg.md", "x", { expect: (await files.stat("Notes/cfg.md")).stamp! }))).toBe(
      "local_access",
    );
  });
});

describe("VaultLocalFiles.state: the sync state files over the adapter (docs/tools.md §13.7)", () => {
  it("creates a lock file only when none is there: through the desktop port when there is one, else over the adapter", async () => {
    const mobile = await setup();
    expect(await mobile.files.state.create("locks/k.lock", "a 1\n")).toBe(true);
    expect(await mobile.files.state.create("locks/k.lock", "b 2\n")).toBe(false);
    expect(mobile.disk(`${STATE}/locks/k.lock`)).toBe("a 1\n");
    const created: string[] = [];
    const desktop = await setup({
      desktop: (adapter) => ({
        basePath: "/v",
        relativeOf: () => undefined,
        realRelative: async (path) => path,
        createExclusive: async (path, data) => {
          created.push(path);
          if (adapter.entries.has(path)) return false;
          await adapter.write(path, data);
          return true;
        },
      }),
    });
    expect(await desktop.files.state.create("locks/k.lock", "a 1\n")).toBe(true);
    expect(await desktop.files.state.create("locks/k.lock", "b 2\n")).toBe(false);
    expect(created).toEqual([`${STATE}/locks/k.lock`, `${STATE}/locks/k.lock`]);
  });

  it("round-trips bytes exactly in the config folder, outside the vault index; creating writes nothing", async () => {
    const { app, adapter, files, disk } = await setup();
    expect(await files.state.list("")).toEqual([]);
    expect(adapter.entries.has(STATE)).toBe(false);
    const written = await files.state.write("tracked/k.baseline.md", "a\r\nb\n");
    expect(written.path).toBe(`${STATE}/tracked/k.baseline.md`);
    expect(disk(`${STATE}/tracked/k.baseline.md`)).toBe("a\r\nb\n");
    expect(app.vault.getFileByPath(`${STATE}/tracked/k.baseline.md`)).toBeNull();
    const read = await files.state.read("tracked/k.baseline.md", { maxBytes: 100 });
    expect(read && text(read.bytes)).toBe("a\r\nb\n");
    // Size and time are the write's; a state read's stamp is in the state stat's form (with the change time).
    expect(read?.stamp).toMatchObject({ size: written.stamp.size, mtimeMs: written.stamp.mtimeMs });
    expect(read?.stamp).toEqual(await files.state.stat("tracked/k.baseline.md"));
    expect((await files.state.read("tracked/k.baseline.md", { maxBytes: 2 }))?.truncated).toBe(true);
    expect(await files.state.read("tracked/none.json", { maxBytes: 100 })).toBeUndefined();
  });

  it("replaces atomically through a temporary name, leaving no temporary files", async () => {
    const { adapter, files, disk } = await setup();
    const rename = jest.spyOn(adapter, "rename");
    await files.state.write("tracked/k.json", "one");
    await files.state.write("tracked/k.json", "two");
    expect(disk(`${STATE}/tracked/k.json`)).toBe("two");
    expect(await files.state.list("tracked")).toEqual([{ name: "k.json", kind: "file" }]);
    // The first write renames temp → target; the second is refused and moves the old file aside.
    const temp = /\/\.k\.json\.[0-9a-f]{12}\.tmp$/;
    expect(rename.mock.calls.every(([from, to]) => temp.test(from) || temp.test(to))).toBe(true);
    expect(rename.mock.calls.some(([from, to]) => temp.test(from) && to === `${STATE}/tracked/k.json`)).toBe(true);
  });

  it("keeps the old file when the replacing rename fails, and cleans up", async () => {
    const { adapter, files, disk } = await setup();
    await files.state.write("tracked/k.json", "old");
    const original = adapter.rename.bind(adapter);
    let calls = 0;
    jest.spyOn(adapter, "rename").mockImplementation(async (from, to) => {
      calls++;
      // 1: temp → target (refused: exists), 2: target → aside, 3: temp → target (fails here).
      if (calls === 3) throw new Error("EACCES: permission denied, rename");
      return original(from, to);
    });
    const error = await failure(files.state.write("tracked/k.json", "new"));
    expect(error.kind).toBe("local_io");
    expect(disk(`${STATE}/tracked/k.json`)).toBe("old");
    expect(await files.state.list("tracked")).toEqual([{ name: "k.json", kind: "file" }]);
  });

  it("removes and lists; refuses paths that leave the state folder", async () => {
    const { files } = await setup();
    await files.state.write("by-path/abc", "k");
    await files.state.write("tracked/k.json", "{}");
    expect(await files.state.list("")).toEqual(
      expect.arrayContaining([
        { name: "by-path", kind: "folder" },
        { name: "tracked", kind: "folder" },
      ]),
    );
    expect(await files.state.remove("by-path/abc")).toBe(true);
    expect(await files.state.remove("by-path/abc")).toBe(false);
    expect(await files.state.list("by-path")).toEqual([]);
    expect(await kindOf(files.state.read("../app.json", { maxBytes: 10 }))).toBe("local_access");
    expect(await kindOf(files.state.write("tracked/../../../../x", "x"))).toBe("local_access");
    expect(await kindOf(files.state.list("/etc"))).toBe("local_access");
  });
});

describe("VaultLocalFiles and open editors (the editor's unsaved text)", () => {
  it("saves an open editor's unsaved text before a stat or a read, so both see what the user sees", async () => {
    const { app, files, disk } = await setup();
    const view = await app.workspace.openInEditor("Notes/a.md");
    view.editor.setValue("hello\ntyped\n");
    expect(disk("Notes/a.md")).toBe("hello\n");
    const info = await files.stat("Notes/a.md");
    expect(info.size).toBe(12);
    expect(disk("Notes/a.md")).toBe("hello\ntyped\n");
    view.editor.replaceRange("more\n", { line: 2, ch: 0 });
    expect(text((await files.read("Notes/a.md", { maxBytes: 100 })).bytes)).toBe("hello\ntyped\nmore\n");
    expect(view.dirty).toBe(false);
  });

  it("refuses a write when the user typed since the read (conflict), keeping the typing on disk and in the editor", async () => {
    const { app, files, disk } = await setup();
    const view = await app.workspace.openInEditor("Notes/a.md");
    const read = await files.read("Notes/a.md", { maxBytes: 100 });
    view.editor.setValue("hello\ntyped after the read\n");
    expect(await kindOf(files.write("Notes/a.md", "pulled\n", { expect: read.stamp }))).toBe("conflict");
    expect(disk("Notes/a.md")).toBe("hello\ntyped after the read\n");
    await app.workspace.timers.advance(2000);
    expect(view.editor.getValue()).toBe("hello\ntyped after the read\n");
    expect(disk("Notes/a.md")).toBe("hello\ntyped after the read\n");
  });

  it("writes through the vault onto a clean editor, which shows the new text; its later save changes nothing", async () => {
    const { app, files, disk } = await setup();
    const view = await app.workspace.openInEditor("Notes/a.md");
    const read = await files.read("Notes/a.md", { maxBytes: 100 });
    const written = await files.write("Notes/a.md", "pulled\n", { expect: read.stamp });
    await new Promise((resolve) => setImmediate(resolve)); // the editor reloads after the vault's modify event
    expect(view.editor.getValue()).toBe("pulled\n");
    await app.workspace.timers.advance(2000);
    await view.save();
    expect(disk("Notes/a.md")).toBe("pulled\n");
    expect((await files.stat("Notes/a.md")).stamp).toEqual(written.stamp);
  });

  it("never writes a clean editor's older text over a change it has not shown yet", async () => {
    const { app, adapter, files, disk } = await setup();
    const view = await app.workspace.openInEditor("Notes/a.md");
    // A change on disk the watcher has not reported yet: the editor still shows the old text.
    const entry = adapter.entries.get("Notes/a.md");
    if (entry?.type !== "file") throw new Error("no file");
    adapter.entries.set("Notes/a.md", {
      ...entry,
      data: new TextEncoder().encode("changed elsewhere\n"),
      mtime: adapter.tick(),
    });
    expect(text((await files.read("Notes/a.md", { maxBytes: 100 })).bytes)).toBe("changed elsewhere\n");
    expect(disk("Notes/a.md")).toBe("changed elsewhere\n");
    expect(view.editor.getValue()).toBe("hello\n");
  });

  it("ignores a view left on a deleted file", async () => {
    const { app, files } = await setup();
    const view = await app.workspace.openInEditor("Notes/a.md");
    view.editor.setValue("typed\n");
    await app.fileManager.trashFile(app.vault.getFileByPath("Notes/a.md") as unknown as TAbstractFile);
    expect((await files.stat("Notes/a.md")).kind).toBe("missing");
    const created = await files.write("Notes/a.md", "new\n", { expect: "absent" });
    expect(created.path).toBe("Notes/a.md");
  });
});
