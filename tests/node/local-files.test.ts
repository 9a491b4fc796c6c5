import { execFileSync } from "node:child_process";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { BridgeError, type ErrorKind } from "../../src/core/errors";
import { NodeLocalFiles, type NodeLocalFilesOptions } from "../../src/node/local-files";

const decoder = new TextDecoder();

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "hackmd-local-files-")));
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  await fs.mkdir(root);
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, "secret.md"), "secret");
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

function open(options: Partial<NodeLocalFilesOptions> = {}): Promise<NodeLocalFiles> {
  return NodeLocalFiles.open({ root, ...options });
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

async function put(relative: string, content: string): Promise<void> {
  await fs.mkdir(path.dirname(path.join(root, relative)), { recursive: true });
  await fs.writeFile(path.join(root, relative), content);
}

async function text(relative: string): Promise<string> {
  return fs.readFile(path.join(root, relative), "utf8");
}

/** Every name under a folder, recursively, so leftover temporary files show up. */
async function tree(folder: string): Promise<string[]> {
  const entries = await fs.readdir(folder, { recursive: true });
  return entries.map(String).sort();
}

async function modeOf(absolute: string): Promise<number> {
  return (await fs.stat(absolute)).mode & 0o777;
}

describe("opening the ROOT", () => {
  it("refuses a missing ROOT or a file as ROOT", async () => {
    expect(await kindOf(NodeLocalFiles.open({ root: path.join(base, "nope") }))).toBe("invalid_input");
    await fs.writeFile(path.join(base, "file"), "");
    expect(await kindOf(NodeLocalFiles.open({ root: path.join(base, "file") }))).toBe("invalid_input");
  });

  it("treats the ROOT as a vault when .obsidian is a folder or a config dir is given", async () => {
    expect((await open()).root).toMatchObject({
      isVault: false,
      stateFolder: ".hackmd-bridge/sync",
      protectAgentFiles: true,
      absoluteRootAvailable: true,
    });
    expect((await open({ configDir: "cfg" })).root).toMatchObject({
      isVault: true,
      configDir: "cfg",
      stateFolder: "cfg/plugins/hackmd-bridge/sync",
    });
    await fs.mkdir(path.join(root, ".obsidian"));
    expect((await open()).root).toMatchObject({ isVault: true, stateFolder: ".obsidian/plugins/hackmd-bridge/sync" });
  });

  it("resolves the ROOT through a symlink and accepts absolute paths in either spelling", async () => {
    const alias = path.join(base, "alias");
    await fs.symlink(root, alias);
    await put("a/b.md", "x");
    const files = await NodeLocalFiles.open({ root: alias });
    expect(files.rootPath).toBe(root);
    expect((await files.resolve(path.join(alias, "a/b.md"), "read")).path).toBe("a/b.md");
    expect((await files.resolve(path.join(root, "a/b.md"), "read")).path).toBe("a/b.md");
  });
});

describe("accepted path forms and confinement (§12.1–12.2)", () => {
  it("reports relative and absolute-inside paths ROOT-relative", async () => {
    await put("Meetings/2026-12-01.md", "hello");
    const files = await open();
    for (const input of [
      "Meetings/2026-12-01.md",
      "./Meetings//2026-12-01.md",
      path.join(root, "Meetings", "2026-12-01.md"),
    ]) {
      const result = await files.read(input, { maxBytes: 100 });
      expect(result.path).toBe("Meetings/2026-12-01.md");
      expect(decoder.decode(result.bytes)).toBe("hello");
    }
  });

  it("refuses an absolute path outside the ROOT, suggesting the ROOT-relative form", async () => {
    const files = await open();
    const error = await failure(files.read(path.join(outside, "secret.md"), { maxBytes: 100 }));
    expect(error.kind).toBe("local_access");
    expect(error.message).toMatch(/ROOT-relative/);
    expect(await kindOf(files.read(`${root}-sibling/x.md`, { maxBytes: 100 }))).toBe("local_access");
  });

  it("refuses `..` in both forms and backslashes in relative paths", async () => {
    const files = await open();
    expect(await kindOf(files.resolve("../outside/secret.md", "read"))).toBe("local_access");
    expect(await kindOf(files.resolve(`${root}/a/../b.md`, "read"))).toBe("local_access");
    expect(await kindOf(files.resolve("a/../b.md", "write"))).toBe("local_access");
    expect(await kindOf(files.resolve("Notes\\plan.md", "write"))).toBe("invalid_input");
    expect(await kindOf(files.resolve("", "read"))).toBe("invalid_input");
    expect(await kindOf(files.resolve(root, "read"))).toBe("invalid_input");
  });

  it("reports the path after parent symlinks inside the ROOT are resolved", async () => {
    await put("real/note.md", "x");
    await fs.symlink(path.join(root, "real"), path.join(root, "alias"));
    const files = await open();
    expect(await files.resolve("alias/note.md", "read")).toEqual({
      path: "real/note.md",
      given: "alias/note.md",
      target: "real/note.md",
    });
    expect((await files.resolve("alias/new.md", "write")).path).toBe("real/new.md");
    expect((await files.resolve("alias/missing/deeper.md", "write")).path).toBe("real/missing/deeper.md");
  });

  it("keeps a final symlink's own name but reads its target inside the ROOT", async () => {
    await put("target.md", "content");
    await fs.symlink("target.md", path.join(root, "link.md"));
    const files = await open();
    expect(await files.resolve("link.md", "read")).toEqual({ path: "link.md", given: "link.md", target: "target.md" });
    expect(decoder.decode((await files.read("link.md", { maxBytes: 100 })).bytes)).toBe("content");
  });

  it("refuses a parent symlink that escapes, for reads and writes", async () => {
    await fs.symlink(outside, path.join(root, "escape"));
    const files = await open();
    expect(await kindOf(files.read("escape/secret.md", { maxBytes: 100 }))).toBe("local_access");
    expect(await kindOf(files.stat("escape/secret.md"))).toBe("local_access");
    expect(await kindOf(files.write("escape/new.md", "x", { expect: "absent" }))).toBe("local_access");
    expect(await kindOf(files.createFolders("escape/sub"))).toBe("local_access");
    expect(await tree(outside)).toEqual(["secret.md"]);
  });

  it("refuses a dangling parent symlink, whose destination cannot be confirmed", async () => {
    await fs.symlink(path.join(outside, "not-yet"), path.join(root, "dangling"));
    const files = await open();
    expect(await kindOf(files.write("dangling/x.md", "x", { expect: "absent" }))).toBe("local_access");
    expect(await kindOf(files.createFolders("dangling/sub"))).toBe("local_access");
    expect(await tree(outside)).toEqual(["secret.md"]);
  });

  it("refuses a final symlink that escapes for reads", async () => {
    await fs.symlink(path.join(outside, "secret.md"), path.join(root, "leak.md"));
    const files = await open();
    const error = await failure(files.read("leak.md", { maxBytes: 100 }));
    expect(error.kind).toBe("local_access");
    expect(error.message).not.toContain("secret\n");
    expect(await kindOf(files.readHead("leak.md", 12))).toBe("local_access");
    expect(await kindOf(files.stat("leak.md"))).toBe("local_access");
  });
});

describe("writing never follows a final symlink", () => {
  it("replaces a final symlink inside the ROOT and leaves its target alone", async () => {
    await put("target.md", "original");
    await fs.symlink("target.md", path.join(root, "link.md"));
    const files = await open();
    const seen = await files.read("link.md", { maxBytes: 100 });
    const written = await files.write("link.md", "replaced", { expect: seen.stamp });
    expect(written.path).toBe("link.md");
    expect((await fs.lstat(path.join(root, "link.md"))).isSymbolicLink()).toBe(false);
    expect(await text("link.md")).toBe("replaced");
    expect(await text("target.md")).toBe("original");
  });

  it("never writes through an escaping final symlink; it counts as present", async () => {
    await fs.symlink(path.join(outside, "secret.md"), path.join(root, "leak.md"));
    const files = await open();
    expect(await kindOf(files.write("leak.md", "pwned", { expect: "absent" }))).toBe("conflict");
    expect(await fs.readFile(path.join(outside, "secret.md"), "utf8")).toBe("secret");
  });

  it("treats a dangling final symlink as present and replaces it given its stamp", async () => {
    await fs.symlink(path.join(outside, "created-by-write.md"), path.join(root, "dangling.md"));
    const files = await open();
    expect(await kindOf(files.write("dangling.md", "x", { expect: "absent" }))).toBe("conflict");
    const info = await files.stat("dangling.md");
    expect(info).toMatchObject({ kind: "other", symlink: true });
    expect(await kindOf(files.read("dangling.md", { maxBytes: 10 }))).toBe("invalid_input");
    await files.write("dangling.md", "replaced", { expect: info.stamp! });
    expect(await text("dangling.md")).toBe("replaced");
    expect(await tree(outside)).toEqual(["secret.md"]);
  });
});

describe("a moved or replaced ROOT", () => {
  it("refuses every path once the ROOT was moved, even after it comes back", async () => {
    await put("a.md", "x");
    const files = await open();
    await files.read("a.md", { maxBytes: 10 });
    await fs.rename(root, path.join(base, "moved"));
    await fs.mkdir(root);
    await put("a.md", "impostor");
    for (const attempt of [
      files.read("a.md", { maxBytes: 10 }),
      files.stat("a.md"),
      files.resolve("a.md", "read"),
      files.write("b.md", "x", { expect: "absent" }),
      files.createFolders("dir"),
      files.list("dir"),
      files.remove("a.md"),
      files.state.read("tracked/x.json", { maxBytes: 10 }),
    ]) {
      expect(await kindOf(attempt)).toBe("local_access");
    }
    await fs.rm(root, { recursive: true });
    await fs.rename(path.join(base, "moved"), root);
    const error = await failure(files.read("a.md", { maxBytes: 10 }));
    expect(error.kind).toBe("local_access");
    expect(error.message).toMatch(/moved or replaced/);
  });
});

describe("reading (§12.5)", () => {
  it("does not hang on a FIFO and refuses it with invalid_input", async () => {
    execFileSync("mkfifo", [path.join(root, "pipe.md")]);
    const files = await open();
    expect(await kindOf(files.read("pipe.md", { maxBytes: 10 }))).toBe("invalid_input");
    expect(await kindOf(files.readHead("pipe.md", 12))).toBe("invalid_input");
    expect((await files.stat("pipe.md")).kind).toBe("other");
  });

  it("refuses folders and missing files with invalid_input", async () => {
    await fs.mkdir(path.join(root, "dir"));
    const files = await open();
    expect(await kindOf(files.read("dir", { maxBytes: 10 }))).toBe("invalid_input");
    const missing = await failure(files.read("nope.md", { maxBytes: 10 }));
    expect(missing.kind).toBe("invalid_input");
    expect(missing.details).toMatchObject({ path: "nope.md", reason: "missing" });
  });

  it("bounds reads and says when the file holds more", async () => {
    await put("big.md", "0123456789".repeat(10));
    const files = await open();
    const cut = await files.read("big.md", { maxBytes: 10 });
    expect(decoder.decode(cut.bytes)).toBe("0123456789");
    expect(cut.truncated).toBe(true);
    expect(cut.stamp.size).toBe(100);
    const whole = await files.read("big.md", { maxBytes: 100 });
    expect(whole.bytes.byteLength).toBe(100);
    expect(whole.truncated).toBe(false);
    const head = await files.readHead("big.md", 12);
    expect(decoder.decode(head.bytes)).toBe("012345678901");
    expect(head.truncated).toBe(true);
    expect((await files.read("big.md", { maxBytes: 0 })).bytes.byteLength).toBe(0);
  });

  it("reads larger files completely", async () => {
    const body = "x".repeat(300_000);
    await put("large.md", body);
    const files = await open();
    const result = await files.read("large.md", { maxBytes: 1_000_000 });
    expect(result.bytes.byteLength).toBe(300_000);
    expect(result.truncated).toBe(false);
  });

  it("stats files, folders and missing paths", async () => {
    await put("a/b.md", "12345");
    const files = await open();
    expect(await files.stat("a/b.md")).toMatchObject({ path: "a/b.md", kind: "file", size: 5, symlink: false });
    expect(await files.stat("a")).toMatchObject({ kind: "folder" });
    expect(await files.stat("a/none.md")).toEqual({
      path: "a/none.md",
      kind: "missing",
      symlink: false,
      size: 0,
      mtimeMs: 0,
    });
    expect(await files.stat("none/none.md")).toMatchObject({ kind: "missing" });
    const read = await files.read("a/b.md", { maxBytes: 10 });
    expect((await files.stat("a/b.md")).stamp).toEqual(read.stamp);
  });

  it("lists folders", async () => {
    await put("a/b.md", "x");
    await fs.mkdir(path.join(root, "a/sub"));
    const files = await open();
    const entries = await files.list("a");
    expect(entries.sort((x, y) => x.name.localeCompare(y.name))).toEqual([
      { name: "b.md", kind: "file" },
      { name: "sub", kind: "folder" },
    ]);
    expect(await files.list("missing")).toEqual([]);
  });
});

describe("writing with expectations (§12.6)", () => {
  it("creates a new file when absent and reports its stamp", async () => {
    const files = await open();
    const result = await files.write("new.md", "hello", { expect: "absent" });
    expect(result.path).toBe("new.md");
    expect(await text("new.md")).toBe("hello");
    expect(result.stamp).toEqual((await files.stat("new.md")).stamp);
    expect(await tree(root)).toEqual(["new.md"]);
  });

  it("writes the exact bytes given", async () => {
    const files = await open();
    const bytes = new Uint8Array([0, 255, 13, 10, 0xe2, 0x82, 0xac]);
    await files.write("bytes.md", bytes, { expect: "absent" });
    expect(new Uint8Array(await fs.readFile(path.join(root, "bytes.md")))).toEqual(bytes);
  });

  it("fails with conflict when `absent` meets a file, writing nothing and leaving no temp", async () => {
    await put("a.md", "theirs");
    const files = await open();
    const error = await failure(files.write("a.md", "mine", { expect: "absent" }));
    expect(error.kind).toBe("conflict");
    expect(await text("a.md")).toBe("theirs");
    expect(await tree(root)).toEqual(["a.md"]);
  });

  it("fails with conflict when the file changed after it was read", async () => {
    await put("a.md", "v1");
    const files = await open();
    const seen = await files.read("a.md", { maxBytes: 100 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await fs.writeFile(path.join(root, "a.md"), "v2 by an editor");
    expect(await kindOf(files.write("a.md", "mine", { expect: seen.stamp }))).toBe("conflict");
    expect(await text("a.md")).toBe("v2 by an editor");
    expect(await tree(root)).toEqual(["a.md"]);
  });

  it("fails with conflict when the file was replaced by an editor's atomic save of the same size", async () => {
    await put("a.md", "v1");
    const files = await open();
    const seen = await files.read("a.md", { maxBytes: 100 });
    await fs.writeFile(path.join(root, "other"), "v2");
    await fs.rename(path.join(root, "other"), path.join(root, "a.md"));
    const target = path.join(root, "a.md");
    const time = new Date(seen.stamp.mtimeMs);
    await fs.utimes(target, time, time);
    expect(await kindOf(files.write("a.md", "mine", { expect: seen.stamp }))).toBe("conflict");
    expect(await text("a.md")).toBe("v2");
  });

  it("fails with conflict when the file was removed after it was read", async () => {
    await put("a.md", "v1");
    const files = await open();
    const seen = await files.read("a.md", { maxBytes: 100 });
    await fs.rm(path.join(root, "a.md"));
    expect(await kindOf(files.write("a.md", "mine", { expect: seen.stamp }))).toBe("conflict");
    expect(await tree(root)).toEqual([]);
  });

  it("replaces a file whose stamp still matches and keeps its mode", async () => {
    await put("a.md", "v1");
    await fs.chmod(path.join(root, "a.md"), 0o640);
    const files = await open();
    const seen = await files.read("a.md", { maxBytes: 100 });
    const result = await files.write("a.md", "v2", { expect: seen.stamp });
    expect(await text("a.md")).toBe("v2");
    expect(await modeOf(path.join(root, "a.md"))).toBe(0o640);
    expect(result.stamp).toEqual((await files.stat("a.md")).stamp);
    // The new stamp is the expectation of the next write.
    await files.write("a.md", "v3", { expect: result.stamp });
    expect(await text("a.md")).toBe("v3");
  });

  it("gives a new file the mode an ordinary create would", async () => {
    const files = await open();
    await files.write("new.md", "x", { expect: "absent" });
    await fs.writeFile(path.join(base, "reference"), "x");
    expect(await modeOf(path.join(root, "new.md"))).toBe(await modeOf(path.join(base, "reference")));
  });

  it("refuses to write into a missing folder, naming create_parent_dirs", async () => {
    const files = await open();
    const error = await failure(files.write("missing/a.md", "x", { expect: "absent" }));
    expect(error.kind).toBe("invalid_input");
    expect(error.message).toContain("create_parent_dirs");
    expect(await tree(root)).toEqual([]);
  });

  it("refuses to replace a folder", async () => {
    await fs.mkdir(path.join(root, "dir.md"));
    const files = await open();
    expect(await kindOf(files.write("dir.md", "x", { expect: "absent" }))).toBe("invalid_input");
  });

  it("handles very long names without overflowing the temporary name", async () => {
    const files = await open();
    const name = `${"é".repeat(120)}.md`;
    await files.write(name, "x", { expect: "absent" });
    expect(await tree(root)).toEqual([name]);
  });
});

describe("creating folders and removing files", () => {
  it("creates missing folders and reports them", async () => {
    await fs.mkdir(path.join(root, "a"));
    const files = await open();
    expect(await files.createFolders("a/b/c")).toEqual({ path: "a/b/c", created: ["a/b", "a/b/c"] });
    expect(await files.createFolders("a/b/c")).toEqual({ path: "a/b/c", created: [] });
    await files.write("a/b/c/x.md", "x", { expect: "absent" });
    expect(await text("a/b/c/x.md")).toBe("x");
  });

  it("checks every folder before creating any", async () => {
    const files = await open();
    expect(await kindOf(files.createFolders("notes/.claude/commands"))).toBe("local_access");
    expect(await kindOf(files.createFolders(".Trash/old"))).toBe("local_access");
    expect(await tree(root)).toEqual([]);
  });

  it("refuses to create a folder below a file", async () => {
    await put("a.md", "x");
    const files = await open();
    expect(await kindOf(files.createFolders("a.md/b"))).toBe("invalid_input");
  });

  it("removes a file, honouring an expectation", async () => {
    await put("a.md", "x");
    await put("b.md", "y");
    const files = await open();
    const seen = await files.read("a.md", { maxBytes: 10 });
    expect(await files.remove("a.md", { expect: seen.stamp })).toBe(true);
    expect(await files.remove("a.md")).toBe(false);
    const stale = await files.read("b.md", { maxBytes: 10 });
    await fs.writeFile(path.join(root, "b.md"), "changed");
    expect(await kindOf(files.remove("b.md", { expect: stale.stamp }))).toBe("conflict");
    expect(await text("b.md")).toBe("changed");
    expect(await kindOf(files.remove(".trash/x.md"))).toBe("local_access");
  });
});

describe("protected folders (§12.3)", () => {
  it.each([
    ".obsidian/x.md",
    ".Obsidian/x.md",
    ".obsidian/plugins/hackmd-bridge/sync/tracked/x.json",
    ".trash/x.md",
    ".TRASH/x.md",
    ".hackmd-bridge/x.md",
  ])("refuses a write to %j in a vault", async (target) => {
    await fs.mkdir(path.join(root, ".obsidian"));
    await fs.mkdir(path.join(root, ".trash"));
    const files = await open();
    expect(await kindOf(files.resolve(target, "write"))).toBe("local_access");
    expect(await kindOf(files.write(target, "x", { expect: "absent" }))).toBe("local_access");
    expect(await kindOf(files.createFolders(path.posix.join(path.posix.dirname(target), "new-folder")))).toBe(
      "local_access",
    );
  });

  it("allows .obsidian in a ROOT that is not a vault, but not .hackmd-bridge", async () => {
    const files = await open();
    await files.createFolders(".obsidian");
    await files.write(".obsidian/x.md", "x", { expect: "absent" });
    expect(await kindOf(files.write(".hackmd-bridge/x.md", "x", { expect: "absent" }))).toBe("local_access");
  });

  it("judges the resolved path too (a symlink into .trash)", async () => {
    await fs.mkdir(path.join(root, ".trash"));
    await fs.symlink(path.join(root, ".trash"), path.join(root, "bin"));
    const files = await open();
    const error = await failure(files.write("bin/x.md", "x", { expect: "absent" }));
    expect(error.kind).toBe("local_access");
    expect(error.message).toContain(".trash/");
    expect(await tree(path.join(root, ".trash"))).toEqual([]);
  });
});

describe("protect_agent_files (§12.4)", () => {
  const refused = ["CLAUDE.md", "claude.md.", "claude.md:x", "cl\u200Baude.md", "agent\u017F.md", "x/.github/y.md"];

  it.each(refused)("refuses %j when on", async (target) => {
    await fs.mkdir(path.join(root, "x/.github"), { recursive: true });
    const files = await open();
    const error = await failure(files.write(target, "x", { expect: "absent" }));
    expect(error.kind).toBe("local_access");
    expect(error.message).toContain("protect_agent_files");
    expect(await tree(root)).toEqual(["x", "x/.github"]);
  });

  it.each(refused)("writes %j when off", async (target) => {
    await fs.mkdir(path.join(root, "x/.github"), { recursive: true });
    const files = await open({ protectAgentFiles: false });
    await files.write(target, "x", { expect: "absent" });
    expect(await text(target)).toBe("x");
  });

  it("judges the resolved path too (a harmless name that is a symlink to .github)", async () => {
    await fs.mkdir(path.join(root, ".github"));
    await fs.symlink(path.join(root, ".github"), path.join(root, "docs"));
    const files = await open();
    expect(await kindOf(files.write("docs/workflow.md", "x", { expect: "absent" }))).toBe("local_access");
    expect(await tree(path.join(root, ".github"))).toEqual([]);
  });

  it("ignores components of the ROOT's own location", async () => {
    const agentRoot = path.join(base, ".github", "vault");
    await fs.mkdir(agentRoot, { recursive: true });
    const files = await NodeLocalFiles.open({ root: agentRoot });
    await files.write("notes.md", "x", { expect: "absent" });
    expect((await files.read(path.join(agentRoot, "notes.md"), { maxBytes: 10 })).path).toBe("notes.md");
  });
});

describe("sync state files (§13.7)", () => {
  it("writes private files with 0600 and folders with 0700 in the state folder", async () => {
    const files = await open();
    expect(await files.state.list("")).toEqual([]);
    expect(await tree(root)).toEqual([]);
    const written = await files.state.write("tracked/personal--abc.json", "{}\n");
    expect(written.path).toBe(".hackmd-bridge/sync/tracked/personal--abc.json");
    expect(await modeOf(path.join(root, ".hackmd-bridge"))).toBe(0o700);
    expect(await modeOf(path.join(root, ".hackmd-bridge/sync"))).toBe(0o700);
    expect(await modeOf(path.join(root, ".hackmd-bridge/sync/tracked"))).toBe(0o700);
    expect(await modeOf(path.join(root, written.path))).toBe(0o600);
    const read = await files.state.read("tracked/personal--abc.json", { maxBytes: 100 });
    expect(read && decoder.decode(read.bytes)).toBe("{}\n");
    expect(await files.state.list("tracked")).toEqual([{ name: "personal--abc.json", kind: "file" }]);
  });

  it("replaces state files atomically, resetting a loosened mode to 0600", async () => {
    const files = await open();
    const first = await files.state.write("by-path/abc", "one");
    await fs.chmod(path.join(root, first.path), 0o644);
    await files.state.write("by-path/abc", "two");
    expect(await text(first.path)).toBe("two");
    expect(await modeOf(path.join(root, first.path))).toBe(0o600);
    expect(await tree(path.join(root, ".hackmd-bridge/sync/by-path"))).toEqual(["abc"]);
  });

  it("lives in the plugin folder of a vault", async () => {
    await fs.mkdir(path.join(root, ".obsidian"));
    const files = await open();
    const written = await files.state.write("tracked/k.baseline.md", "body");
    expect(written.path).toBe(".obsidian/plugins/hackmd-bridge/sync/tracked/k.baseline.md");
    expect(await modeOf(path.join(root, written.path))).toBe(0o600);
  });

  it("gives a state file's read the state stat's stamp, which a same-size rewrite changes", async () => {
    const files = await open();
    await files.state.write("tracked/k.baseline.md", "body one\n");
    const abs = path.join(root, ".hackmd-bridge/sync/tracked/k.baseline.md");
    await fs.utimes(abs, 1_700_000_000, 1_700_000_000);
    const read = await files.state.read("tracked/k.baseline.md", { maxBytes: 100 });
    expect(read?.stamp).toEqual(await files.state.stat("tracked/k.baseline.md"));
    // The same size, and the same modification time put back: the change time still tells.
    await new Promise((resolve) => setTimeout(resolve, 30));
    await fs.writeFile(abs, "body two\n");
    await fs.utimes(abs, 1_700_000_000, 1_700_000_000);
    const again = await files.state.read("tracked/k.baseline.md", { maxBytes: 100 });
    expect(again?.stamp.size).toBe(read?.stamp.size);
    expect(again?.stamp.mtimeMs).toBe(read?.stamp.mtimeMs);
    expect(again?.stamp).not.toEqual(read?.stamp);
  });

  it("reads missing state as undefined and removes state files", async () => {
    const files = await open();
    expect(await files.state.read("tracked/none.json", { maxBytes: 10 })).toBeUndefined();
    expect(await files.state.remove("tracked/none.json")).toBe(false);
    await files.state.write("tracked/a.json", "{}");
    expect(await files.state.remove("tracked/a.json")).toBe(true);
    expect(await files.state.list("tracked")).toEqual([]);
  });

  it("stays inside the state folder", async () => {
    const files = await open();
    expect(await kindOf(files.state.write("../escape.json", "x"))).toBe("local_access");
    await fs.mkdir(path.join(root, ".hackmd-bridge/sync"), { recursive: true });
    await fs.mkdir(path.join(root, "Notes"));
    await fs.symlink(path.join(root, "Notes"), path.join(root, ".hackmd-bridge/sync/tracked"));
    expect(await kindOf(files.state.write("tracked/a.json", "x"))).toBe("local_access");
    expect(await tree(path.join(root, "Notes"))).toEqual([]);
  });
});
