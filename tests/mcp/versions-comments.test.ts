/** Versions and comments through a real MCP client: the five history tools, and named versions before overwrites. */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEMO_COMMENT_IDS, DEMO_NOTE_IDS } from "../../src/emulator";
import { errorKind, ok, startBridge, type TestBridge } from "../helpers/bridge";

const READING = DEMO_NOTE_IDS.readingList;
const WEEKLY = DEMO_NOTE_IDS.weeklySync;
const VERSION_NAME = /^Before push from hackmd-bridge, \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/;

let bridge: TestBridge;
afterEach(async () => {
  await bridge.close();
});

const remote = (): string => bridge.emu.inspect().notes.find((note) => note.id === READING)?.content ?? "";

/** Pulls the reading list to reading.md, then changes both the file and the note. */
async function divergedPull(): Promise<string> {
  ok(await bridge.call("hackmd_pull_note", { note_ref: READING, local_path: "reading.md" }));
  await writeFile(join(bridge.root, "reading.md"), "mine\n");
  bridge.emu.collaboratorEdit(READING, { content: "theirs\n" }, { as: "ada" });
  return "theirs\n";
}

test("a force push names HackMD's text first; the version holds it and is listed, and the result says so", async () => {
  bridge = await startBridge();
  const theirs = await divergedPull();
  bridge.mark();
  const result = await bridge.call("hackmd_push_note", {
    local_path: "reading.md",
    strategy: "overwrite",
    confirm: true,
  });
  const out = ok(result);
  expect(out.status).toBe("pushed");
  // After the write, the version list since the version it named: no one else's edit in between.
  expect(bridge.requestsSinceMark()).toEqual([
    "GET /notes/:noteId",
    "POST /notes/:noteId/versions",
    "PATCH /notes/:noteId",
    "GET /notes/:noteId",
    "GET /notes/:noteId/versions",
  ]);
  expect(result._meta?.overwritten_versions).toBeUndefined();
  const meta = result._meta?.safety_version as { id: string; name: string };
  expect(meta.name).toMatch(VERSION_NAME);
  expect(out.instructions).toContain(meta.id);
  expect(result.content[0]?.text).toContain(`version "${meta.name}" (${meta.id})`);
  expect(remote()).toBe("mine\n");

  const listed = ok(await bridge.call("hackmd_list_versions", { note_ref: READING, named_only: true }));
  expect(listed.versions).toEqual([expect.objectContaining({ id: meta.id, name: meta.name, name_source: "user" })]);
  const version = ok(await bridge.call("hackmd_get_version", { note_ref: READING, version_id: meta.id }));
  expect(version.content).toBe(theirs);
});

test("a push over a remote change with expected_remote_hash is an overwrite too; a plain push makes no version", async () => {
  bridge = await startBridge();
  ok(await bridge.call("hackmd_pull_note", { note_ref: READING, local_path: "reading.md" }));
  await writeFile(join(bridge.root, "reading.md"), "mine\n");
  bridge.mark();
  ok(await bridge.call("hackmd_push_note", { local_path: "reading.md" }));
  expect(bridge.requestsSinceMark()).not.toContain("POST /notes/:noteId/versions");
  await writeFile(join(bridge.root, "reading.md"), "mine again\n");
  bridge.emu.collaboratorEdit(READING, { content: "theirs\n" }, { as: "ada" });
  const conflict = ok(await bridge.call("hackmd_push_note", { local_path: "reading.md" }));
  expect(conflict.status).toBe("conflict");
  const result = await bridge.call("hackmd_push_note", {
    local_path: "reading.md",
    expected_remote_hash: conflict.remote_body_hash,
  });
  expect(ok(result).status).toBe("pushed");
  expect((result._meta?.safety_version as { name: string }).name).toMatch(VERSION_NAME);
});

test("without a versions API the overwrite proceeds and says no version could be made; when one is required, nothing is sent", async () => {
  let required = false;
  bridge = await startBridge({
    emulator: { quirks: { hiddenRouteFamilies: ["versions"] } },
    requireVersion: () => required,
  });
  await divergedPull();
  const result = await bridge.call("hackmd_push_note", {
    local_path: "reading.md",
    strategy: "overwrite",
    confirm: true,
  });
  expect(ok(result).status).toBe("pushed");
  expect(result._meta?.safety_version).toBeNull();
  expect(result.content[0]?.text).toContain(
    "No version of HackMD's previous text could be saved (this HackMD has no versions API)",
  );

  required = true;
  await writeFile(join(bridge.root, "reading.md"), "mine 2\n");
  bridge.emu.collaboratorEdit(READING, { content: "theirs 2\n" }, { as: "ada" });
  bridge.mark();
  const refused = await bridge.call("hackmd_push_note", {
    local_path: "reading.md",
    strategy: "overwrite",
    confirm: true,
  });
  expect(errorKind(refused)).toBe("upstream");
  expect(refused.content[0]?.text).toContain("nothing was sent");
  expect(bridge.requestsSinceMark()).not.toContain("PATCH /notes/:noteId");
  expect(remote()).toBe("theirs 2\n");
});

test("hackmd_update_note: a blind full-body replacement is preceded by a version; one with expected_hash is not", async () => {
  bridge = await startBridge();
  const before = remote();
  bridge.mark();
  const blind = await bridge.call("hackmd_update_note", { note_ref: READING, content: "replaced\n" });
  expect(ok(blind).mode).toBe("updated");
  const id = (blind._meta?.safety_version as { id: string; name: string }).id;
  expect((blind._meta?.safety_version as { name: string }).name).toMatch(/^Before agent update from hackmd-bridge, /);
  expect(ok(await bridge.call("hackmd_get_version", { note_ref: READING, version_id: id })).content).toBe(before);
  const read = ok(await bridge.call("hackmd_get_note", { note_ref: READING }));
  bridge.mark();
  const guarded = await bridge.call("hackmd_update_note", {
    note_ref: READING,
    content: "again\n",
    expected_hash: read.body_hash,
  });
  ok(guarded);
  expect(guarded._meta?.safety_version).toBeUndefined();
  expect(bridge.requestsSinceMark()).toEqual(["GET /notes/:noteId", "PATCH /notes/:noteId", "GET /notes/:noteId"]);
});

test("an edit landing between a push's read and its write is found in the version list afterwards", async () => {
  let editBeforePatch = false;
  bridge = await startBridge({
    transport: (inner) => ({
      request: (request) => {
        if (editBeforePatch && request.method === "PATCH") {
          editBeforePatch = false;
          bridge.emu.collaboratorEdit(READING, { content: "ada's late edit\n" }, { as: "ada" });
        }
        return inner.request(request);
      },
    }),
  });
  ok(await bridge.call("hackmd_list_versions", { note_ref: READING }));
  ok(await bridge.call("hackmd_pull_note", { note_ref: READING, local_path: "reading.md" }));
  await writeFile(join(bridge.root, "reading.md"), "mine\n");
  editBeforePatch = true;
  bridge.mark();
  const result = await bridge.call("hackmd_push_note", { local_path: "reading.md" });
  expect(ok(result).status).toBe("pushed");
  expect(bridge.requestsSinceMark()).toEqual([
    "GET /notes/:noteId",
    "PATCH /notes/:noteId",
    "GET /notes/:noteId",
    "GET /notes/:noteId/versions",
  ]);
  const found = result._meta?.overwritten_versions as Array<{ version_id: string; by: string }>;
  expect(found).toEqual([expect.objectContaining({ by: "Ada Collaborator" })]);
  expect(
    ok(await bridge.call("hackmd_get_version", { note_ref: READING, version_id: found[0]?.version_id })).content,
  ).toBe("ada's late edit\n");
  expect(ok(result).instructions).toContain("An edit by Ada Collaborator landed between the read and this write");
  expect(await readFile(join(bridge.root, "reading.md"), "utf8")).toBe("mine\n");
});

test("a force push reports an edit landing between the version it named and its write, as a plain push does", async () => {
  let editBeforePatch = false;
  bridge = await startBridge({
    transport: (inner) => ({
      request: (request) => {
        if (editBeforePatch && request.method === "PATCH") {
          editBeforePatch = false;
          // HackMD's clock past the named version's millisecond, then the collaborator's edit.
          const named = Date.now();
          while (Date.now() <= named + 1) {
            // spin for two milliseconds
          }
          bridge.emu.collaboratorEdit(READING, { content: "ada's edit after the version\n" }, { as: "ada" });
        }
        return inner.request(request);
      },
    }),
  });
  await divergedPull();
  editBeforePatch = true;
  bridge.mark();
  const result = await bridge.call("hackmd_push_note", {
    local_path: "reading.md",
    strategy: "overwrite",
    confirm: true,
  });
  expect(ok(result).status).toBe("pushed");
  expect(bridge.requestsSinceMark()).toEqual([
    "GET /notes/:noteId",
    "POST /notes/:noteId/versions",
    "PATCH /notes/:noteId",
    "GET /notes/:noteId",
    "GET /notes/:noteId/versions",
  ]);
  const named = result._meta?.safety_version as { id: string };
  const found = result._meta?.overwritten_versions as Array<{ version_id: string; by: string }>;
  expect(found).toEqual([expect.objectContaining({ by: "Ada Collaborator" })]);
  expect(found[0]?.version_id).not.toBe(named.id);
  expect(
    ok(await bridge.call("hackmd_get_version", { note_ref: READING, version_id: found[0]?.version_id })).content,
  ).toBe("ada's edit after the version\n");
  expect(ok(result).instructions).toContain("An edit by Ada Collaborator landed between the read and this write");
  expect(remote()).toBe("mine\n");
});

test("hackmd_create_version names the text once, then reuses it; versions need an existing version id", async () => {
  bridge = await startBridge();
  const made = ok(await bridge.call("hackmd_create_version", { note_ref: READING, name: "Checkpoint" }));
  expect(made).toMatchObject({ note_id: READING, name: "Checkpoint", reused: false });
  expect(ok(await bridge.call("hackmd_create_version", { note_ref: READING, name: "Again" }))).toMatchObject({
    version_id: made.version_id,
    reused: true,
  });
  expect(errorKind(await bridge.call("hackmd_create_version", { note_ref: READING, name: "   " }))).toBe(
    "invalid_input",
  );
  expect(errorKind(await bridge.call("hackmd_get_version", { note_ref: READING, version_id: "nope" }))).toBe(
    "not_found",
  );
  expect(errorKind(await bridge.call("hackmd_get_version", { note_ref: READING, version_id: ".." }))).toBe(
    "invalid_input",
  );
});

test("comments: list the demo note's open threads, resolve one, see it under resolved, reopen it", async () => {
  bridge = await startBridge();
  const open = ok(await bridge.call("hackmd_list_comments", { note_ref: WEEKLY }));
  const ids = (open.comments as Array<{ id: string }>).map((c) => c.id).sort();
  expect(ids).toEqual([DEMO_COMMENT_IDS.checklist, DEMO_COMMENT_IDS.headings].sort());
  const resolved = ok(
    await bridge.call("hackmd_resolve_comment", { note_ref: WEEKLY, comment_id: DEMO_COMMENT_IDS.headings }),
  );
  expect(resolved).toMatchObject({
    thread_changed: true,
    comment: { thread_state: { status: "hidden", reason: "resolved" } },
  });
  expect(
    errorKind(await bridge.call("hackmd_resolve_comment", { note_ref: WEEKLY, comment_id: DEMO_COMMENT_IDS.headings })),
  ).toBe("conflict");
  const done = ok(await bridge.call("hackmd_list_comments", { note_ref: WEEKLY, status: "resolved" }));
  expect((done.comments as Array<{ id: string }>).map((c) => c.id).sort()).toEqual(
    [DEMO_COMMENT_IDS.headings, DEMO_COMMENT_IDS.lab].sort(),
  );
  ok(
    await bridge.call("hackmd_resolve_comment", {
      note_ref: WEEKLY,
      comment_id: DEMO_COMMENT_IDS.headings,
      resolved: false,
    }),
  );
  const all = ok(await bridge.call("hackmd_list_comments", { note_ref: WEEKLY, status: "all", threads_only: false }));
  expect(all.comments).toHaveLength(4);
});
