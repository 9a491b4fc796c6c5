import fc from "fast-check";
import { BridgeError, type ErrorKind } from "../../src/core/errors";
import {
  agentInstructionComponent,
  assertWritable,
  baseName,
  foldName,
  isAbsoluteForm,
  isInsideFolder,
  isMarkdownPath,
  joinPath,
  parentPath,
  parseRootRelative,
  protectedFolderOf,
  remoteSnapshotPath,
  syncStateFolder,
  writeRefusal,
  type WritePolicy,
} from "../../src/core/paths";

const vault: WritePolicy = { isVault: true, configDir: ".obsidian", protectAgentFiles: true };
const plain: WritePolicy = { isVault: false, configDir: ".obsidian", protectAgentFiles: true };

function failure(run: () => unknown): BridgeError {
  try {
    run();
  } catch (error) {
    if (error instanceof BridgeError) return error;
    throw error;
  }
  throw new Error("expected a BridgeError");
}

function kindOf(run: () => unknown): ErrorKind {
  return failure(run).kind;
}

describe("parseRootRelative", () => {
  it.each([
    ["Meetings/2026-12-01.md", "Meetings/2026-12-01.md"],
    ["./a//b/./c.md", "a/b/c.md"],
    ["a/b/", "a/b"],
    ["~/x.md", "~/x.md"],
    ["...", "..."],
  ])("normalises %j to %j", (input, expected) => {
    expect(parseRootRelative(input)).toBe(expected);
  });

  it.each(["", ".", "./", "./."])("refuses the empty path %j with invalid_input", (input) => {
    expect(kindOf(() => parseRootRelative(input))).toBe("invalid_input");
  });

  it("refuses a backslash with invalid_input and asks for forward slashes", () => {
    const error = failure(() => parseRootRelative("Notes\\plan.md"));
    expect(error.kind).toBe("invalid_input");
    expect(error.message).toMatch(/forward slashes/);
  });

  it("refuses a NUL character with invalid_input", () => {
    expect(kindOf(() => parseRootRelative("a\0b.md"))).toBe("invalid_input");
  });

  it.each(["../x.md", "a/../b.md", "a/..", ".."])("refuses %j with local_access", (input) => {
    const error = failure(() => parseRootRelative(input));
    expect(error.kind).toBe("local_access");
    expect(error.message).toMatch(/name the destination/);
  });

  it("suggests the direct form of a `..` path that stays inside", () => {
    expect(failure(() => parseRootRelative("a/x/../b.md")).message).toContain("a/b.md");
  });

  it("refuses a leading slash with local_access", () => {
    expect(kindOf(() => parseRootRelative("/etc/passwd"))).toBe("local_access");
  });
});

describe("isAbsoluteForm", () => {
  it.each(["/Users/me/x.md", "C:\\x.md", "c:/x.md", "\\\\server\\share"])("treats %j as absolute", (input) => {
    expect(isAbsoluteForm(input)).toBe(true);
  });
  it.each(["Notes/x.md", "C:x.md", "~/x.md"])("treats %j as relative", (input) => {
    expect(isAbsoluteForm(input)).toBe(false);
  });
});

describe("path helpers", () => {
  it("splits and joins", () => {
    expect(parentPath("a/b/c.md")).toBe("a/b");
    expect(parentPath("c.md")).toBe("");
    expect(baseName("a/b/c.md")).toBe("c.md");
    expect(joinPath("", "a", "", "b.md")).toBe("a/b.md");
  });

  it("compares folders component-wise after folding", () => {
    expect(isInsideFolder(".Obsidian/x", ".obsidian")).toBe(true);
    expect(isInsideFolder(".obsidian", ".obsidian")).toBe(true);
    expect(isInsideFolder(".obsidian-other/x", ".obsidian")).toBe(false);
    expect(isInsideFolder("a", "a/b")).toBe(false);
  });
});

describe("foldName", () => {
  it.each([
    ["CLAUDE.md", "claude.md"],
    ["claude.md.", "claude.md"],
    ["claude.md. . ", "claude.md"],
    ["claude.md:x", "claude.md"],
    ["claude.md::$DATA", "claude.md"],
    ["cl\u200Baude.md", "claude.md"],
    ["\uFEFFclaude\u2060.md\uFE0F", "claude.md"],
    ["claude\u{E0041}.md", "claude.md"],
    ["agent\u017F.md", "agents.md"],
    [".GitHub", ".github"],
    ["Straße", "strasse"],
  ])("folds %j to %j", (input, expected) => {
    expect(foldName(input)).toBe(expected);
  });

  it("folds any name as the §12.4 steps do (the ASCII shortcut included)", () => {
    const reference = (name: string): string =>
      name
        .split(":")[0]!
        .replace(/\p{Default_Ignorable_Code_Point}/gu, "")
        .replace(/[. ]+$/u, "")
        .toUpperCase()
        .toLowerCase();
    const names = fc.oneof(
      fc.string({ unit: "binary-ascii" }),
      fc.string({ unit: "grapheme" }),
      fc.string({ unit: fc.constantFrom("a", "Z", ".", " ", ":", "\u200B", "ß", "ſ", "İ", "\t") }),
    );
    fc.assert(
      fc.property(names, (name) => foldName(name) === reference(name)),
      { numRuns: 2000 },
    );
  });
});

describe("agent instruction guard (§12.4)", () => {
  it.each([
    "CLAUDE.md",
    "claude.md.",
    "claude.md:x",
    "cl\u200Baude.md",
    "agent\u017F.md",
    "notes/AGENTS.override.md",
    "x/.github/y.md",
    ".Cursor/rules.md",
    "deep/.CLAUDE./commands/x.md",
    "a/.kiro:stream/b.md",
  ])("refuses %j with local_access naming protect_agent_files", (path) => {
    expect(agentInstructionComponent(path)).toBeDefined();
    const error = writeRefusal(path, "file", plain);
    expect(error?.kind).toBe("local_access");
    expect(error?.message).toContain("protect_agent_files");
  });

  it.each(["notes/claude-notes.md", "README.md", "github/y.md", ".githubx/y.md", "claude.md/inner.md", "x/agents.mdx"])(
    "allows %j",
    (path) => {
      expect(agentInstructionComponent(path)).toBeUndefined();
      expect(writeRefusal(path, "file", plain)).toBeUndefined();
    },
  );

  it("checks agent folder names for created folders, but not agent file names", () => {
    expect(writeRefusal("x/.claude", "folder", plain)?.kind).toBe("local_access");
    expect(writeRefusal("CLAUDE.md", "folder", plain)).toBeUndefined();
  });

  it("allows everything when protect_agent_files is off", () => {
    const off = { ...plain, protectAgentFiles: false };
    expect(writeRefusal("CLAUDE.md", "file", off)).toBeUndefined();
    expect(writeRefusal("x/.github/y.md", "file", off)).toBeUndefined();
  });

  it("judges every given form", () => {
    expect(kindOf(() => assertWritable(["docs/a.md", ".github/a.md"], "file", plain))).toBe("local_access");
    expect(() => assertWritable(["docs/a.md", "other/a.md"], "file", plain)).not.toThrow();
  });
});

describe("protected folders (§12.3)", () => {
  it.each([
    ".obsidian/app.json",
    ".Obsidian/x.md",
    ".OBSIDIAN./x.md",
    ".trash/x.md",
    ".TRASH/x.md",
    ".Trash",
    ".hackmd-bridge/x.md",
    ".HackMD-Bridge/sync/x",
  ])("refuses %j in a vault, naming the folder", (path) => {
    const error = writeRefusal(path, "file", vault);
    expect(error?.kind).toBe("local_access");
    expect(error?.message).toMatch(/another destination/);
  });

  it("protects the configuration folder only when the ROOT is a vault", () => {
    expect(protectedFolderOf(".obsidian/x.md", vault)).toBe(".obsidian");
    expect(protectedFolderOf(".obsidian/x.md", plain)).toBeUndefined();
    expect(protectedFolderOf(".hackmd-bridge/sync/x", plain)).toBeDefined();
    expect(protectedFolderOf("notes/.trash/x.md", vault)).toBeUndefined();
  });

  it("uses a configured configuration folder name", () => {
    const custom = { ...vault, configDir: ".config-vault" };
    expect(protectedFolderOf(".Config-Vault/plugins/x", custom)).toBe(".config-vault");
    expect(protectedFolderOf(".obsidian/x", custom)).toBeUndefined();
  });

  it("applies with protect_agent_files off as well", () => {
    expect(writeRefusal(".trash/x.md", "file", { ...vault, protectAgentFiles: false })?.kind).toBe("local_access");
  });
});

describe("syncStateFolder (§13.1)", () => {
  it("lives in the plugin folder of a vault", () => {
    expect(syncStateFolder({ isVault: true, configDir: ".obsidian" })).toBe(".obsidian/plugins/hackmd-bridge/sync");
    expect(syncStateFolder({ isVault: true, configDir: "cfg" })).toBe("cfg/plugins/hackmd-bridge/sync");
  });
  it("lives in .hackmd-bridge elsewhere", () => {
    expect(syncStateFolder({ isVault: false, configDir: ".obsidian" })).toBe(".hackmd-bridge/sync");
  });
});

describe("Markdown paths and snapshots", () => {
  it.each([
    ["Notes/plan.md", "Notes/plan.remote.md"],
    ["Notes/Plan.MD", "Notes/Plan.remote.md"],
    ["a.b.Md", "a.b.remote.md"],
  ])("%j has its snapshot at %j", (path, snapshot) => {
    expect(isMarkdownPath(path)).toBe(true);
    expect(remoteSnapshotPath(path)).toBe(snapshot);
  });

  it.each(["Notes/plan.txt", "Notes/.md", "md", "a.md/b"])("%j is not Markdown", (path) => {
    expect(isMarkdownPath(path)).toBe(false);
    expect(kindOf(() => remoteSnapshotPath(path))).toBe("invalid_input");
  });
});
