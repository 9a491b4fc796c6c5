/**
 * Mirrors (src/app/mirror.ts) through the command's doors (`mirror`, `sync`) in this process,
 * against the emulator on loopback: a 200-note workspace in nested folders, both sides' changes
 * at the next sync, and the request counts read from the emulator's log.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startBridge, type TestBridge } from "../helpers/bridge";
import { runMirror } from "../../src/node/commands/mirror";
import { runSync } from "../../src/node/commands/sync";
import { runSearch } from "../../src/node/commands/search";
import type { CommandContext } from "../../src/node/commands/command";
import { parseMirrorTarget, RoundLists, startMirror } from "../../src/app/mirror";
import { CallContext } from "../../src/hackmd/call-context";

let bridge: TestBridge;
/** Real time plus an offset the tests move on: HackMD's timestamps settle after 30 s (SETTLE_MS). */
let offset = 0;
const clock = { now: () => Date.now() + offset };
function later(): void {
  offset += 60_000;
}
let out: string[];
let err: string[];

function context(): CommandContext {
  return {
    core: bridge.core,
    env: {},
    io: { out: (text) => out.push(text), err: (text) => err.push(text), errIsTty: false },
  };
}

function lastJson(): Record<string, unknown> {
  return JSON.parse(out.join("")) as Record<string, unknown>;
}

/** Routes since the mark, counted. */
function counts(): Record<string, number> {
  const result: Record<string, number> = {};
  for (const route of bridge.requestsSinceMark()) result[route] = (result[route] ?? 0) + 1;
  return result;
}

async function files(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (at: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      if (entry.isDirectory()) await walk(join(at, entry.name), `${prefix}${entry.name}/`);
      else found.push(`${prefix}${entry.name}`);
    }
  };
  await walk(dir, "");
  return found.sort();
}

let noteIds: string[];
let folderIds: string[];

beforeAll(async () => {
  // Converting, as the command does in an Obsidian vault (src/node/runtime.ts).
  bridge = await startBridge({
    emulator: { seed: "empty", clock },
    clock,
    cacheTtlMs: 0,
    convertByDefault: () => true,
  });
  // Folders: Projects/{Alpha,Beta/Deep}, Journal; 200 notes spread over them and the top.
  const seeded = bridge.emu.seed({
    folders: [
      { ref: "projects", name: "Projects" },
      { ref: "alpha", name: "Alpha", parent: "projects" },
      { ref: "beta", name: "Beta", parent: "projects" },
      { ref: "deep", name: "Deep: notes?", parent: "beta" },
      { ref: "journal", name: "Journal" },
    ],
    notes: Array.from({ length: 200 }, (_, i) => ({
      title: i === 1 ? "Note 0" : `Note ${i}`,
      content: `# Note ${i}\n\nbody ${i}\n`,
      ...(i % 5 === 0 ? {} : { folder: ["projects", "alpha", "beta", "deep"][(i % 5) - 1] }),
    })),
  });
  noteIds = seeded.noteIds;
  later();
  folderIds = seeded.folderIds;
}, 60_000);

afterAll(async () => {
  await bridge.close();
});

beforeEach(() => {
  out = [];
  err = [];
});

test("a dry run lists once and estimates one list, one folder list and one read per note", async () => {
  bridge.mark();
  await runMirror({ target: "personal", dir: "Mirror", exclude: undefined, dryRun: true, json: true }, context());
  expect(counts()).toEqual({ "GET /notes": 1 });
  const result = lastJson() as { estimate: { reads: number; listed: number }; budget: { monthly: number } };
  expect(result.estimate).toMatchObject({ listed: 200, reads: 200 });
  expect(result.budget.monthly).toBe(2000);
  expect(existsSync(join(bridge.root, "Mirror"))).toBe(false);
});

test("the first mirror makes 200 tracked files in matching folders for one list, one folder list and 200 reads", async () => {
  bridge.mark();
  const code = await runMirror(
    { target: "personal", dir: "Mirror", exclude: undefined, dryRun: false, json: true },
    context(),
  );
  const first = lastJson() as { items: Array<{ action: string }> };
  expect(first.items.filter((item) => item.action === "error")).toEqual([]);
  expect(code).toBe(0);
  expect(counts()).toEqual({ "GET /notes": 1, "GET /folders": 1, "GET /notes/:noteId": 200 });
  const made = await files(join(bridge.root, "Mirror"));
  expect(made).toHaveLength(200);
  expect(made).toContain("Note 0.md");
  expect(made).toContain("Projects/Note 0.md"); // the title "Note 0" once more: its own folder
  expect(made).toContain("Projects/Alpha/Note 2.md");
  expect(made).toContain("Projects/Beta/Deep notes/Note 4.md");
  expect((await bridge.core.deps.sync.listTracked()).length).toBe(200);
  expect(await readFile(join(bridge.root, "Mirror/Projects/Beta/Deep notes/Note 4.md"), "utf8")).toBe(
    "# Note 4\n\nbody 4\n",
  );
});

test("a second sync with no change costs one list", async () => {
  later();
  bridge.mark();
  const code = await runSync({ dryRun: false, merge: true, json: true }, context());
  expect(code).toBe(0);
  expect(counts()).toEqual({ "GET /notes": 1 });
});

test("changes on HackMD reach the vault at the next sync, and nothing is deleted", async () => {
  // Created, edited, moved between folders, trashed.
  bridge.emu.seed({ notes: [{ title: "Fresh idea", content: "# Fresh idea\n", folder: folderIds[4] }] });
  bridge.emu.collaboratorEdit(noteIds[10] as string, { content: "# Note 10\n\nedited on HackMD\n" });
  await bridge.core.deps.client.updateNote(new (await import("../../src/hackmd/call-context")).CallContext(), {
    teamPath: null,
    noteId: noteIds[6] as string,
    body: { content: "# Note 6\n\nbody 6\n", parentFolderId: folderIds[4] },
  });
  bridge.emu.flushPending();
  bridge.emu.collaboratorDelete(noteIds[15] as string);
  later();
  bridge.mark();
  const code = await runSync({ dryRun: false, merge: true, json: true }, context());
  const result = lastJson() as { mirrors: Array<{ items: Array<{ action: string; local_path: string }> }> };
  expect(code).toBe(0);
  expect(await readFile(join(bridge.root, "Mirror/Journal/Fresh idea.md"), "utf8")).toBe("# Fresh idea\n");
  expect(await readFile(join(bridge.root, "Mirror/Note 10.md"), "utf8")).toContain("edited on HackMD");
  expect(existsSync(join(bridge.root, "Mirror/Projects/Note 6.md"))).toBe(false);
  expect(await readFile(join(bridge.root, "Mirror/Journal/Note 6.md"), "utf8")).toBe("# Note 6\n\nbody 6\n");
  expect(existsSync(join(bridge.root, "Mirror/Note 15.md"))).toBe(false);
  expect(await readFile(join(bridge.root, ".trash/Note 15.md"), "utf8")).toBe("# Note 15\n\nbody 15\n");
  const actions = result.mirrors[0]?.items.map((item) => item.action).sort();
  expect(actions).toEqual(["moved", "pulled", "trashed"]);
  // One list; a read for the new note, the edited one, the moved one and the gone one's check.
  expect(counts()).toEqual({ "GET /notes": 1, "GET /notes/:noteId": 4 });
});

test("changes in the vault reach HackMD at the next sync; a deleted file only untracks its note", async () => {
  const written = "# Written here\n\nnew, see [[Note 2]]%%kept in the vault%%\n";
  await writeFile(join(bridge.root, "Mirror/Projects/Alpha/Written here.md"), written);
  await writeFile(join(bridge.root, "Mirror/Note 20.md"), "# Note 20\n\nedited in the vault\n");
  await rename(join(bridge.root, "Mirror/Note 25.md"), join(bridge.root, "Mirror/Renamed 25.md"));
  await rm(join(bridge.root, "Mirror/Note 30.md"));
  later();
  const code = await runSync({ dryRun: false, merge: true, json: true }, context());
  expect(code).toBe(0);
  const snapshot = bridge.emu.inspect();
  const note = (id: string) => snapshot.notes.find((n) => n.id === id);
  expect(note(noteIds[20] as string)?.content).toContain("edited in the vault");
  expect(note(noteIds[30] as string)?.trashedAt ?? null).toBeNull(); // not deleted unasked
  const publishedNote = snapshot.notes.find((n) => n.title === "Written here");
  expect(publishedNote?.readPermission).toBe("owner");
  expect(publishedNote?.folderId).toBe(folderIds[1]);
  // Published in HackMD's form through src/app/publish.ts: the comment stays in the vault, the
  // wikilink is a link, and the file is tracked as written, not rewritten.
  expect(publishedNote?.content).not.toContain("kept in the vault");
  expect(publishedNote?.content).not.toContain("[[Note 2]]");
  expect(await readFile(join(bridge.root, "Mirror/Projects/Alpha/Written here.md"), "utf8")).toBe(written);
  const tracked = await bridge.core.deps.sync.listTracked();
  expect(tracked.find((t) => t.note_id === noteIds[25])?.local_path).toBe("Mirror/Renamed 25.md");
  expect(tracked.find((t) => t.note_id === noteIds[30])).toBeUndefined();
  expect(tracked.find((t) => t.note_id === publishedNote?.id)?.local_path).toBe(
    "Mirror/Projects/Alpha/Written here.md",
  );
  // The next round leaves the untracked note alone and publishes nothing twice. The notes just
  // written carry no settled timestamp yet (SETTLE_MS), so sync-all reads each once more; after
  // that a round is one list again.
  out = [];
  later();
  bridge.mark();
  expect(await runSync({ dryRun: false, merge: true, json: true }, context())).toBe(0);
  expect(counts()).toEqual({ "GET /notes": 1, "GET /notes/:noteId": 2 });
  out = [];
  later();
  bridge.mark();
  expect(await runSync({ dryRun: false, merge: true, json: true }, context())).toBe(0);
  expect(counts()).toEqual({ "GET /notes": 1 });
});

test("a deleted file deletes its note only with --delete-remote, and a move in the vault is said, not made", async () => {
  await rm(join(bridge.root, "Mirror/Note 35.md"));
  await mkdir(join(bridge.root, "Mirror/Journal"), { recursive: true });
  await rename(join(bridge.root, "Mirror/Note 40.md"), join(bridge.root, "Mirror/Journal/Note 40.md"));
  later();
  const code = await runSync({ dryRun: false, merge: true, json: false, deleteRemote: true }, context());
  expect(code).toBe(0);
  const snapshot = bridge.emu.inspect();
  expect(snapshot.notes.find((n) => n.id === noteIds[35])?.trashedAt).not.toBeNull();
  expect(snapshot.notes.find((n) => n.id === noteIds[40])?.folderId ?? null).toBeNull();
  const text = out.join("");
  expect(text).toContain("moved_in_vault");
  expect(text).toContain("cannot move notes between folders");
  expect((await bridge.core.deps.sync.listTracked()).find((t) => t.note_id === noteIds[40])?.local_path).toBe(
    "Mirror/Journal/Note 40.md",
  );
});

test("a note edited on HackMD while the delete is being confirmed is not deleted, only untracked", async () => {
  await rm(join(bridge.root, "Mirror/Note 45.md"));
  later();
  const deps = bridge.core.deps;
  const call = new CallContext();
  const edited = "# Note 45\n\nedited by a collaborator while the modal was open\n";
  const result = await startMirror(deps, {
    target: parseMirrorTarget("personal"),
    localDir: "Mirror",
    host: { trash: (path) => Promise.resolve(path) },
    lists: new RoundLists(deps, call),
    call,
    // The list was made before the question; the collaborator edits while it is open.
    confirmDeleteRemote: (_path, noteId) => {
      bridge.emu.collaboratorEdit(noteId, { content: edited });
      return Promise.resolve(true);
    },
  });
  const note = bridge.emu.inspect().notes.find((n) => n.id === noteIds[45]);
  expect(note?.trashedAt ?? null).toBeNull();
  expect(note?.content).toBe(edited);
  const item = result.items.find((i) => i.note_id === noteIds[45]);
  expect(item).toMatchObject({ action: "untracked" });
  expect(item?.message).toContain("changed on HackMD since the last sync");
});

test("a new file whose create has an unknown outcome is never published twice: linked when its note shows, else reported", async () => {
  // HackMD's "500 but it landed": the create is stored, the answer is an error.
  bridge.emu.injectFault({ match: { route: "POST /notes" }, action: { status: 500 }, when: "after-commit" });
  await writeFile(join(bridge.root, "Mirror/Unsure.md"), "# Unsure\n\nsent once\n");
  later();
  out = [];
  await runSync({ dryRun: false, merge: true, json: true }, context());
  const first = lastJson() as {
    mirrors: Array<{ items: Array<{ action: string; local_path: string; message?: string }> }>;
  };
  const failed = first.mirrors[0]?.items.find((item) => item.local_path === "Mirror/Unsure.md");
  expect(failed).toMatchObject({ action: "error" });
  expect(failed?.message).toContain("unconfirmed");
  const titled = (title: string) => bridge.emu.inspect().notes.filter((n) => n.title === title && n.trashedAt == null);
  expect(titled("Unsure")).toHaveLength(1);

  // And one whose create did not land at all (a 500 before the commit: the client cannot tell).
  bridge.emu.injectFault({ match: { route: "POST /notes" }, action: { status: 500 } });
  await writeFile(join(bridge.root, "Mirror/Lost.md"), "# Lost\n\nnever stored\n");
  later();
  out = [];
  await runSync({ dryRun: false, merge: true, json: true }, context());
  expect(titled("Unsure")).toHaveLength(1);
  const tracked = await bridge.core.deps.sync.listTracked();
  expect(tracked.find((t) => t.local_path === "Mirror/Unsure.md")?.note_id).toBe(titled("Unsure")[0]?.id);
  expect(titled("Lost")).toHaveLength(0);

  // The next round links nothing new for Unsure and does not publish Lost blindly: it says so.
  later();
  out = [];
  await runSync({ dryRun: false, merge: true, json: true }, context());
  const third = lastJson() as {
    mirrors: Array<{ items: Array<{ action: string; local_path: string; message?: string }> }>;
  };
  expect(titled("Unsure")).toHaveLength(1);
  expect(titled("Lost")).toHaveLength(0);
  const lost = third.mirrors[0]?.items.find((item) => item.local_path === "Mirror/Lost.md");
  expect(lost).toMatchObject({ action: "error", error_kind: "readback" });
  expect(lost?.message).toContain("rename the file to publish it again");
  // As the message says: renamed, it is published (once).
  await rename(join(bridge.root, "Mirror/Lost.md"), join(bridge.root, "Mirror/Lost again.md"));
  later();
  out = [];
  await runSync({ dryRun: false, merge: true, json: true }, context());
  expect(titled("Lost")).toHaveLength(1);
});

test("excluded files are left alone", async () => {
  out = [];
  await runMirror(
    { target: "personal", dir: "Mirror", exclude: ["drafts/", "*.private.md"], dryRun: false, json: true },
    context(),
  );
  await mkdir(join(bridge.root, "Mirror/drafts"), { recursive: true });
  await writeFile(join(bridge.root, "Mirror/drafts/Half.md"), "# Half\n");
  await writeFile(join(bridge.root, "Mirror/Secret.private.md"), "# Secret\n");
  out = [];
  expect(await runSync({ dryRun: false, merge: true, json: true }, context())).toBe(0);
  const titles = bridge.emu.inspect().notes.map((n) => n.title);
  expect(titles).not.toContain("Half");
  expect(titles).not.toContain("Secret");
});

describe("hackmd_search_notes and hackmd-bridge search over the mirror", () => {
  test("finds a phrase with its line and the file's state, with no request to HackMD", async () => {
    bridge.mark();
    const result = await bridge.call("hackmd_search_notes", { query: '"body 42"' });
    expect(result.isError).toBeFalsy();
    const output = result.structuredContent as {
      total: number;
      results: Array<{ note_id: string; local_path: string; state: string; matches: unknown[]; title: string }>;
    };
    expect(output.total).toBe(1);
    expect(output.results[0]).toMatchObject({
      note_id: noteIds[42],
      title: "Note 42",
      state: "in_sync",
      matches: [{ line: 3, text: "body 42" }],
    });
    expect(bridge.requestsSinceMark()).toEqual([]);
  });

  test("an edit in the vault is found after the next sweep and named local_changed; a pull of ours at once", async () => {
    const path = (await bridge.core.deps.sync.listTracked()).find((t) => t.note_id === noteIds[50])?.local_path ?? "";
    await writeFile(join(bridge.root, path), "# Note 50\n\nbody 50\n\nzebra crossing\n");
    // Files edited outside are compared by size and mtime in a background sweep, at most every 5 s.
    later();
    await bridge.call("hackmd_search_notes", { query: "zebra" });
    await bridge.core.deps.search.idle();
    const edited = await bridge.call("hackmd_search_notes", { query: "zebra" });
    expect(edited.structuredContent).toMatchObject({
      total: 1,
      results: [{ note_id: noteIds[50], state: "local_changed", matches: [{ line: 5, text: "zebra crossing" }] }],
    });
    bridge.emu.collaboratorEdit(noteIds[55] as string, { content: "# Note 55\n\nyak shaving\n" });
    later();
    out = [];
    await runSync({ dryRun: false, merge: true, json: true }, context());
    const pulled = await bridge.call("hackmd_search_notes", { query: "yak tag:nothing" });
    expect(pulled.structuredContent).toMatchObject({ total: 0 });
    const found = await bridge.call("hackmd_search_notes", { query: "yak folder:Mirror" });
    expect(found.structuredContent).toMatchObject({ total: 1, results: [{ note_id: noteIds[55], state: "in_sync" }] });
  });

  test("a bad query is a clear invalid_input", async () => {
    const empty = await bridge.call("hackmd_search_notes", { query: "   " });
    expect(empty.isError).toBe(true);
    expect(empty._meta?.error_kind).toBe("invalid_input");
    const long = await bridge.call("hackmd_search_notes", { query: "x ".repeat(30) });
    expect(long._meta?.error_kind).toBe("invalid_input");
  });

  test("the command prints the hits with line numbers and exits 1 when nothing matches", async () => {
    out = [];
    expect(await runSearch({ query: '"body 42"', limit: 20, json: false }, context())).toBe(0);
    expect(out.join("")).toContain("Mirror/Projects/Alpha/Note 42.md (Note 42; in sync)");
    expect(out.join("")).toContain("    3: body 42");
    out = [];
    expect(await runSearch({ query: "nonexistentword", limit: 20, json: false }, context())).toBe(1);
  });
});
