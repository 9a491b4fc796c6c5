import { BridgeError } from "../../src/core/errors";
import { parseNoteRef, resolveNoteRef, type ListedNoteRef, type ResolverSources } from "../../src/hackmd/note-ref";

function kindOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof BridgeError ? error.kind : "other";
  }
  return undefined;
}

describe("parseNoteRef", () => {
  it.each([
    ["aB3dEfGhIjKlMnOpQrStUv", { kind: "direct", id: "aB3dEfGhIjKlMnOpQrStUv" }],
    ["  abc  ", { kind: "direct", id: "abc" }],
    ["hackmd.io/abc", { kind: "direct", id: "abc" }],
    ["https://hackmd.io/abc?view", { kind: "direct", id: "abc" }],
    ["https://hackmd.io/abc#section", { kind: "direct", id: "abc" }],
    ["https://hackmd.io/@core/slug", { kind: "scoped", owner: "core", slug: "slug" }],
    ["https://hackmd.io/@core/%E4%B8%AD%E6%96%87", { kind: "scoped", owner: "core", slug: "中文" }],
    ["hackmd.io/@core/中文", { kind: "scoped", owner: "core", slug: "中文" }],
  ])("reads %s", (raw, expected) => {
    expect(parseNoteRef(raw)).toEqual(expected);
  });

  it.each([
    "",
    "   ",
    "http://hackmd.io/abc",
    "https://example.com/abc",
    "https://hackmd.io.evil.com/abc",
    "https://hackmd.io/@core",
    "https://hackmd.io/@/slug",
    "https://hackmd.io/s/abc",
    "https://hackmd.io/@core/slug/edit",
    "https://hackmd.io/@core/%E4%B8",
    "https://hackmd.io/%zz",
  ])("refuses %j with invalid_input", (raw) => {
    expect(kindOf(() => parseNoteRef(raw))).toBe("invalid_input");
  });
});

describe("resolveNoteRef", () => {
  function sources(lists: Record<string, ListedNoteRef[]>): ResolverSources & { calls: string[] } {
    const calls: string[] = [];
    return {
      calls,
      userPath: () => {
        calls.push("me");
        return Promise.resolve("alice");
      },
      teamPaths: () => {
        calls.push("teams");
        return Promise.resolve(["core"]);
      },
      listNotes: (teamPath) => {
        calls.push(`list:${teamPath ?? "personal"}`);
        return Promise.resolve(lists[teamPath ?? "personal"] ?? []);
      },
    };
  }
  const note = (id: string, shortId: string | null, permalink: string | null): ListedNoteRef => ({
    id,
    title: `T ${id}`,
    shortId,
    permalink,
  });

  it("resolves a direct id with no request, in the given workspace", async () => {
    const src = sources({});
    await expect(
      resolveNoteRef({ kind: "direct", id: "x" }, { teamPath: "core", refresh: false }, src),
    ).resolves.toEqual({
      status: "resolved",
      teamPath: "core",
      noteId: "x",
    });
    expect(src.calls).toEqual([]);
  });

  it("checks the user path before teams and matches short id or permalink exactly", async () => {
    const src = sources({ personal: [note("n1", "SysJb0yAY", null), note("n2", "other", "weekly")] });
    await expect(
      resolveNoteRef({ kind: "scoped", owner: "alice", slug: "weekly" }, { teamPath: "ignored", refresh: false }, src),
    ).resolves.toEqual({
      status: "resolved",
      teamPath: null,
      noteId: "n2",
    });
    expect(src.calls).toEqual(["me", "list:personal"]);
    await expect(
      resolveNoteRef({ kind: "scoped", owner: "alice", slug: "WEEKLY" }, { teamPath: null, refresh: false }, src),
    ).resolves.toEqual({
      status: "not_found",
      query: "WEEKLY",
    });
  });

  it("resolves team owners, reports unknown owners and ambiguous slugs", async () => {
    const src = sources({ core: [note("a", "dup", null), note("b", "x", "dup")] });
    await expect(
      resolveNoteRef({ kind: "scoped", owner: "nobody", slug: "s" }, { teamPath: null, refresh: false }, src),
    ).resolves.toEqual({
      status: "not_found",
      query: "@nobody/s",
    });
    const ambiguous = await resolveNoteRef(
      { kind: "scoped", owner: "core", slug: "dup" },
      { teamPath: null, refresh: false },
      src,
    );
    expect(ambiguous).toEqual({
      status: "ambiguous",
      query: "dup",
      candidates: [
        { team_path: "core", note_id: "a", title: "T a", short_id: "dup", permalink: null },
        { team_path: "core", note_id: "b", title: "T b", short_id: "x", permalink: "dup" },
      ],
    });
  });
});
