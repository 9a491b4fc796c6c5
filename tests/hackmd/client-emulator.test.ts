/** Every client method against the HackMD emulator over real loopback HTTP. */
import { systemClock, systemSleep } from "../../src/core/ports";
import { bodyHash } from "../../src/core/hash";
import { CallContext, retryMetaForResult } from "../../src/hackmd/call-context";
import type { HackmdClient } from "../../src/hackmd/client";
import { pollUntil } from "../../src/hackmd/readback";
import { DEMO_NOTE_IDS, startEmulator, type Emulator } from "../../src/emulator";
import { checkNoTokenLeaks, failure, fakeTime, makeClient, seenMessages } from "./helpers";

let emu: Emulator;
let client: HackmdClient;
const tokens: string[] = [];

beforeEach(async () => {
  emu = await startEmulator({ seed: "demo" });
  tokens.push(emu.token);
  ({ client } = makeClient({ url: emu.url, token: emu.token }));
});
afterEach(async () => {
  await emu.close();
});
afterAll(() => {
  for (const message of seenMessages) for (const token of tokens) expect(message).not.toContain(token);
});
checkNoTokenLeaks();

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
const call = (): CallContext => new CallContext();

function apiRequests(
  method?: string,
): Array<{ method: string; path: string; bodyKeys: string[] | null; status: number | null }> {
  return emu.requests(method === undefined ? undefined : { method }).map(({ method: m, path, bodyKeys, status }) => ({
    method: m,
    path,
    bodyKeys,
    status,
  }));
}

describe("account, history and trash", () => {
  it("me and teams", async () => {
    const me = await client.me(call());
    expect(me).toMatchObject({ user_path: "sandbox", name: "Sandbox User", email: null });
    expect(me.teams?.map((team) => team.path)).toContain("sandbox-team");
    const teams = await client.teams(call());
    expect(teams.map((team) => team.path)).toEqual(["sandbox-team"]);
    expect(teams[0]).toMatchObject({ name: "Sandbox Team", visibility: "private" });
    expect(apiRequests().map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/me", "GET /v1/teams"]);
  });

  it("history keeps each entry's workspace and last visit", async () => {
    await client.getNote(call(), { teamPath: "sandbox-team", noteId: DEMO_NOTE_IDS.spec });
    await client.getNote(call(), { teamPath: null, noteId: DEMO_NOTE_IDS.readingList });
    const history = await client.history(call());
    expect(history.slice(0, 2).map((entry) => [entry.id, entry.team_path])).toEqual([
      [DEMO_NOTE_IDS.readingList, null],
      [DEMO_NOTE_IDS.spec, "sandbox-team"],
    ]);
    expect(typeof history[0]?.last_visit).toBe("number");
    expect(history[0]).not.toHaveProperty("note_url");
  });

  it("trash lists the old draft and restore brings it back", async () => {
    const trash = await client.trash(call());
    expect(trash.map((note) => note.id)).toEqual([DEMO_NOTE_IDS.oldDraft]);
    await client.restoreNote(call(), { noteId: DEMO_NOTE_IDS.oldDraft });
    expect(await client.trash(call())).toEqual([]);
    const note = await client.getNote(call(), { teamPath: null, noteId: DEMO_NOTE_IDS.oldDraft });
    expect(note.title).toBe("Old draft");
    expect(apiRequests("PUT")).toEqual([
      { method: "PUT", path: `/v1/trash/${DEMO_NOTE_IDS.oldDraft}/restore`, bodyKeys: null, status: 204 },
    ]);
  });
});

describe("notes", () => {
  it("lists personal and team notes as slim summaries", async () => {
    const personal = await client.listNotes(call(), { teamPath: null });
    expect(personal.map((note) => note.id)).toEqual(
      expect.arrayContaining([DEMO_NOTE_IDS.weeklySync, DEMO_NOTE_IDS.cs101, DEMO_NOTE_IDS.readingList]),
    );
    expect(personal.map((note) => note.id)).not.toContain(DEMO_NOTE_IDS.oldDraft);
    expect(personal[0]).not.toHaveProperty("content");
    expect(personal[0]).not.toHaveProperty("note_url");
    const team = await client.listNotes(call(), { teamPath: "sandbox-team" });
    expect(team.map((note) => [note.id, note.team_path])).toEqual([[DEMO_NOTE_IDS.spec, "sandbox-team"]]);
  });

  it("gets a personal and a team note with body, hash, folders and patch path", async () => {
    const weekly = await client.getNote(call(), { teamPath: null, noteId: DEMO_NOTE_IDS.weeklySync });
    expect(weekly.content).toContain("Weekly sync");
    expect(weekly.body_hash).toBe(await bodyHash(weekly.content ?? ""));
    expect(weekly.folder_ids).toHaveLength(1);
    expect(weekly.patch_path).toBe(`notes/${DEMO_NOTE_IDS.weeklySync}.md`);
    const cs101 = await client.getNote(call(), { teamPath: null, noteId: DEMO_NOTE_IDS.cs101 });
    expect(cs101).toMatchObject({ read_permission: "guest", write_permission: "owner", permalink: "cs101-sorting" });
    expect(cs101.folder_ids).toHaveLength(2);
    const spec = await client.getNote(call(), { teamPath: "sandbox-team", noteId: DEMO_NOTE_IDS.spec });
    expect(spec).toMatchObject({
      team_path: "sandbox-team",
      patch_path: `teams/sandbox-team/notes/${DEMO_NOTE_IDS.spec}.md`,
    });
    expect(spec.last_change_user?.user_path).toBe("ada");
    const missing = await failure(client.getNote(call(), { teamPath: null, noteId: "nope" }));
    expect(missing.kind).toBe("not_found");
    expect(missing.message.startsWith("GET /v1/notes/nope:")).toBe(true);
  });

  it("creates, updates and deletes personal and team notes, sending only supplied fields", async () => {
    const created = await client.createNote(call(), {
      teamPath: null,
      body: { title: "Fresh", content: "# Body\n", tags: ["x"], readPermission: "signed_in", writePermission: "owner" },
    });
    expect(created.placement_failed).toBe(false);
    expect(created.note).toMatchObject({
      title: "Fresh",
      content: "# Body\n",
      tags: ["x"],
      read_permission: "signed_in",
    });
    const id = created.note.id;
    await client.updateNote(call(), { teamPath: null, noteId: id, body: { content: "new body", title: "Renamed" } });
    expect(await client.getNote(call(), { teamPath: null, noteId: id })).toMatchObject({
      content: "new body",
      title: "Renamed",
    });
    await client.deleteNote(call(), { teamPath: null, noteId: id });
    expect((await client.listNotes(call(), { teamPath: null })).map((note) => note.id)).not.toContain(id);

    const team = await client.createNote(call(), { teamPath: "sandbox-team", body: { content: "team body" } });
    await client.updateNote(call(), {
      teamPath: "sandbox-team",
      noteId: team.note.id,
      body: { content: "team body 2", parentFolderId: null },
    });
    await client.deleteNote(call(), { teamPath: "sandbox-team", noteId: team.note.id });
    const writes = apiRequests().filter((r) => r.method !== "GET");
    expect(writes.map((r) => [r.method, r.bodyKeys])).toEqual([
      ["POST", ["title", "content", "tags", "readPermission", "writePermission"]],
      ["PATCH", ["content", "title"]],
      ["DELETE", null],
      ["POST", ["content"]],
      ["PATCH", ["content", "parentFolderId"]],
      ["DELETE", null],
    ]);
  });

  it("reads a 207 create as a note whose folder placement failed", async () => {
    const created = await client.createNote(call(), {
      teamPath: null,
      body: { title: "x", parentFolderId: "no-such-folder" },
    });
    expect(created.placement_failed).toBe(true);
    expect(created.note.folder_ids).toEqual([]);
  });

  it("a permalink conflict names the permalink on a note route", async () => {
    const error = await failure(client.createNote(call(), { teamPath: null, body: { permalink: "cs101-sorting" } }));
    expect(error.kind).toBe("conflict");
    expect(error.message).toMatch(/^POST \/v1\/notes: .*permalink is probably taken/);
  });

  it("uploads an image as one multipart part named image", async () => {
    const { link } = await client.uploadImage(call(), {
      noteId: DEMO_NOTE_IDS.spec,
      image: { bytes: PNG, filename: "pic.png", contentType: "image/png" },
    });
    expect(link).toMatch(/\/_uploads\/.+\.png$/);
    const refused = await failure(
      client.uploadImage(call(), {
        noteId: DEMO_NOTE_IDS.spec,
        image: { bytes: new Uint8Array([1, 2, 3]), filename: "x.txt", contentType: "text/plain" },
      }),
    );
    expect(refused.kind).toBe("api");
    emu.setQuirks({ imageMaxBytes: 4 });
    const tooLarge = await failure(
      client.uploadImage(call(), {
        noteId: DEMO_NOTE_IDS.spec,
        image: { bytes: PNG, filename: "pic.png", contentType: "image/png" },
      }),
    );
    expect(tooLarge.kind).toBe("too_large");
    expect(apiRequests("POST").map((r) => r.path)).toEqual(Array(3).fill(`/v1/notes/${DEMO_NOTE_IDS.spec}/images`));
  });
});

describe("folders", () => {
  it("lists, gets, creates, updates (team), orders and deletes folders", async () => {
    const personal = await client.listFolders(call(), { teamPath: null });
    expect(personal.map((folder) => folder.name)).toEqual(["Meetings", "Teaching", "CS101"]);
    const meetings = personal[0];
    expect(meetings?.icon).toBe("1F4C5");
    expect(await client.getFolder(call(), { teamPath: null, folderId: meetings?.id ?? "" })).toEqual(meetings);

    const created = await client.createFolder(call(), { teamPath: null, body: { name: "Top", color: "#112233" } });
    expect(created).toMatchObject({ name: "Top", color: "#112233", parent_folder_id: null });
    const child = await client.createFolder(call(), {
      teamPath: null,
      body: { name: "Child", parentFolderId: created.id },
    });
    expect(child.parent_folder_id).toBe(created.id);

    const order = await client.getFolderOrder(call(), { teamPath: null });
    expect(order.root).toContain(created.id);
    const newRoot = [...(order.root ?? [])].reverse();
    await client.putFolderOrder(call(), { teamPath: null, order: { ...order, root: newRoot } });
    expect((await client.getFolderOrder(call(), { teamPath: null })).root).toEqual(newRoot);

    const [specs] = await client.listFolders(call(), { teamPath: "sandbox-team" });
    expect(specs?.name).toBe("Specs");
    await client.updateFolder(call(), {
      teamPath: "sandbox-team",
      folderId: specs?.id ?? "",
      body: { name: "Specs 2", description: null },
    });
    expect(await client.getFolder(call(), { teamPath: "sandbox-team", folderId: specs?.id ?? "" })).toMatchObject({
      name: "Specs 2",
      description: null,
    });

    await client.deleteFolder(call(), { teamPath: null, folderId: child.id });
    expect((await client.listFolders(call(), { teamPath: null })).map((folder) => folder.id)).not.toContain(child.id);
    const unknown = await failure(client.getFolder(call(), { teamPath: null, folderId: child.id }));
    expect(unknown.kind).toBe("not_found");
    emu.setQuirks({ unknownFolderEmptyObject: true });
    expect(await client.getFolder(call(), { teamPath: null, folderId: child.id })).toBeNull();

    const posts = apiRequests("POST");
    expect(posts.map((r) => r.bodyKeys)).toEqual([
      ["name", "color"],
      ["name", "parentFolderId"],
    ]);
    expect(apiRequests("PATCH")[0]?.bodyKeys).toEqual(["name", "description"]);
  });
});

describe("writes that may have landed", () => {
  it("a note PATCH answered 500 after the commit is sent once and reported as readback", async () => {
    emu.injectFault({
      match: { method: "PATCH", route: "PATCH /notes/:noteId" },
      action: { status: 500 },
      when: "after-commit",
    });
    const error = await failure(
      client.updateNote(call(), { teamPath: null, noteId: DEMO_NOTE_IDS.readingList, body: { content: "landed" } }),
    );
    expect(error.kind).toBe("readback");
    expect(apiRequests("PATCH")).toHaveLength(1);
    emu.flushPending();
    expect((await client.getNote(call(), { teamPath: null, noteId: DEMO_NOTE_IDS.readingList })).content).toBe(
      "landed",
    );
  });

  it("a POST and a DELETE answered 503 are never retried", async () => {
    emu.injectFault({ match: { method: ["POST", "DELETE"] }, action: { status: 503 }, times: Infinity });
    expect((await failure(client.createNote(call(), { teamPath: null, body: { title: "dup?" } }))).kind).toBe(
      "readback",
    );
    expect((await failure(client.deleteNote(call(), { teamPath: null, noteId: DEMO_NOTE_IDS.readingList }))).kind).toBe(
      "readback",
    );
    expect(apiRequests().map((r) => r.method)).toEqual(["POST", "DELETE"]);
  });

  it("a POST whose connection drops after the commit is readback, and the note exists", async () => {
    emu.injectFault({ match: { method: "POST", route: "POST /notes" }, action: { drop: true }, when: "after-commit" });
    const error = await failure(client.createNote(call(), { teamPath: null, body: { title: "Lost reply" } }));
    expect(error.kind).toBe("readback");
    expect(error.message).toMatch(/^POST \/v1\/notes: .*may have landed/);
    expect(apiRequests("POST")).toHaveLength(1);
    expect(emu.inspect().notes.some((note) => note.title === "Lost reply")).toBe(true);
  });

  it("a GET answered 500 then 200 is retried and recovers", async () => {
    emu.injectFault({ match: { method: "GET", route: "GET /me" }, action: { status: 500 } });
    const context = call();
    await client.me(context);
    expect(retryMetaForResult(context)?.attempts).toBe(2);
    expect(apiRequests().map((r) => r.status)).toEqual([500, 200]);
  });

  it("a 429 from the emulator's limiter carries the quota fragment and updates lastQuota", async () => {
    emu.setQuirks({ rateLimit: { enabled: true, windowLimit: 1, resetUnit: "seconds" } });
    await client.me(call());
    expect(client.lastQuota).toMatchObject({ limit: 1, remaining: 0 });
    const error = await failure(client.me(call()));
    expect(error.kind).toBe("rate_limited");
    expect(error.message).toMatch(/remaining 0\/1, reset after \d+ seconds/);
  });
});

describe("read-back against delayed visibility (docs/tools.md §7)", () => {
  it("confirms once the write becomes visible", async () => {
    emu.setQuirks({ visibilityDelayMs: 400 });
    const real = makeClient({
      url: emu.url,
      token: emu.token,
      time: { ...fakeTime(), clock: systemClock, sleep: systemSleep },
    });
    const context = call();
    const noteId = DEMO_NOTE_IDS.readingList;
    await real.client.updateNote(context, { teamPath: null, noteId, body: { content: "visible later" } });
    const result = await pollUntil({
      context,
      clock: systemClock,
      sleep: systemSleep,
      writtenBytes: 13,
      read: (deadlineAt) => real.client.getNote(context, { teamPath: null, noteId, deadlineAt }),
      matches: (note) => note.content === "visible later",
    });
    expect(result.confirmed).toBe(true);
    expect(result.last.content).toBe("visible later");
    const meta = retryMetaForResult(context);
    expect(meta?.attempts).toBe(1);
    expect(meta?.readback_attempts).toBeGreaterThanOrEqual(3);
    expect(meta?.readback_elapsed_seconds).toBeGreaterThanOrEqual(0.3);
  });

  it("returns the last observation unconfirmed when the write never shows within the window", async () => {
    emu.setQuirks({ visibilityDelayMs: 60_000 });
    const context = call();
    const noteId = DEMO_NOTE_IDS.readingList;
    const before = await client.getNote(context, { teamPath: null, noteId });
    await client.updateNote(context, { teamPath: null, noteId, body: { content: "never visible" } });
    const started = Date.now();
    const result = await pollUntil({
      context,
      clock: systemClock,
      sleep: systemSleep,
      writtenBytes: 13,
      read: (deadlineAt) => client.getNote(context, { teamPath: null, noteId, deadlineAt }),
      matches: (note) => note.content === "never visible",
    });
    expect(result.confirmed).toBe(false);
    expect(result.last.content).toBe(before.content);
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(context.snapshot().readback_attempts).toBe(5);
    expect(apiRequests("GET")).toHaveLength(6);
  });

  it("a read-back answered 500 ends the poll as upstream with readback_attempts 1", async () => {
    const { client: oneRetry } = makeClient({ url: emu.url, token: emu.token, config: { maxRetries: 0 } });
    emu.injectFault({ match: { method: "GET" }, action: { status: 500 } });
    const context = call();
    const error = await failure(
      pollUntil({
        context,
        clock: systemClock,
        sleep: systemSleep,
        writtenBytes: 0,
        read: (deadlineAt) =>
          oneRetry.getNote(context, { teamPath: null, noteId: DEMO_NOTE_IDS.readingList, deadlineAt }),
        matches: () => true,
      }),
    );
    expect(error.kind).toBe("upstream");
    expect(context.snapshot().readback_attempts).toBe(1);
  });
});
