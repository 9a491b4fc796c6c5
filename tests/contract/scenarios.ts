/**
 * The client's contract with HackMD, written once and run against two targets: the emulator (in
 * `npm test`, tests/contract/emulator.test.ts) and the real service (`npm run test:live`,
 * tests/contract/live.contract.ts). Every scenario goes through our real client over real HTTP;
 * the few status codes the client hides (201, 202, 204, 304) are read with the same transport and
 * token directly. Mutating scenarios are registered only for targets that allow them, and touch
 * nothing but the notes and folders they create (removed again in afterAll).
 */
import { isBridgeError } from "../../src/core/errors";
import type { HttpResponse, HttpTransport } from "../../src/core/ports";
import { bodyHash } from "../../src/core/hash";
import type { HackmdClient } from "../../src/hackmd/client";
import { CallContext } from "../../src/hackmd/call-context";
import { pollUntil } from "../../src/hackmd/readback";

/** What a scenario needs from its target. */
export interface ContractTarget {
  /** "emulator" or "HackMD", for messages. */
  label: string;
  client: HackmdClient;
  /** The API base (`…/v1`) and the token, for the raw status checks. */
  apiUrl: string;
  token: string;
  transport: HttpTransport;
  clock: { now(): number };
  sleep: (ms: number) => Promise<void>;
  /** A note the token may read (an id); resolved once before the read-only scenarios run. */
  readableNote(): Promise<string>;
  /** Whether ETags are known to be sent (true for the emulator); "unknown" records what was seen. */
  etag: boolean | "unknown";
}

/** Options that decide which scenarios are registered. */
export interface ContractOptions {
  /** Create, edit and delete notes and folders of its own. */
  mutations: boolean;
  /** A note with at least one open thread whose head the suite may resolve and reopen again. */
  commentThread?: { noteId: string; commentId: string };
}

const call = (): CallContext => new CallContext();

/** Registers every scenario for the target `get` returns (called inside a describe block). */
export function describeContract(get: () => ContractTarget, options: ContractOptions): void {
  const created: { notes: string[]; folders: string[] } = { notes: [], folders: [] };
  let noteId = "";

  const raw = async (
    method: "GET" | "POST" | "PATCH" | "DELETE",
    path: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<HttpResponse> => {
    const target = get();
    const headers: Record<string, string> = { authorization: `Bearer ${target.token}`, ...init.headers };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    return target.transport.request({
      method,
      url: `${target.apiUrl}${path}`,
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      timeouts: { connectMs: 10_000, headersMs: 20_000, idleMs: 20_000, totalMs: 30_000 },
      maxResponseBytes: 8 * 1024 * 1024,
    });
  };

  beforeAll(async () => {
    noteId = await get().readableNote();
  });

  afterAll(async () => {
    const { client } = get();
    for (const id of created.notes)
      await client.deleteNote(call(), { teamPath: null, noteId: id }).catch(() => undefined);
    for (const id of created.folders)
      await client.deleteFolder(call(), { teamPath: null, folderId: id }).catch(() => undefined);
  });

  describe("read-only", () => {
    test("GET /me answers the profile with an id and a user path", async () => {
      const me = await get().client.me(call());
      expect(me.id).toEqual(expect.any(String));
      expect(me.user_path).toEqual(expect.any(String));
    });

    test("GET /notes answers summaries without bodies, and the quota headers are read", async () => {
      const { client } = get();
      const notes = await client.listNotes(call(), { teamPath: null });
      expect(Array.isArray(notes)).toBe(true);
      for (const note of notes) {
        expect(note.id).toEqual(expect.any(String));
        expect(note).not.toHaveProperty("content");
      }
      expect(client.lastQuota).not.toBeNull();
    });

    test("GET /notes/{id} answers the body and its hash", async () => {
      const note = await get().client.getNote(call(), { teamPath: null, noteId });
      expect(note.id).toBe(noteId);
      expect(typeof note.content).toBe("string");
      expect(note.body_hash).toBe(await bodyHash(note.content ?? ""));
    });

    test("a single-note GET with If-None-Match of its own ETag answers 304 with that ETag", async () => {
      const first = await raw("GET", `/notes/${noteId}`);
      expect(first.status).toBe(200);
      const etag = first.headers.etag;
      if (get().etag === true) expect(etag).toEqual(expect.any(String));
      if (etag === undefined) {
        process.stderr.write(`contract: ${get().label} sent no ETag on GET /notes/{id}\n`);
        return;
      }
      const second = await raw("GET", `/notes/${noteId}`, { headers: { "if-none-match": etag } });
      expect(second.status).toBe(304);
      expect(second.headers.etag).toBe(etag);
      expect(second.body.byteLength).toBe(0);
    });

    test("GET /notes/{unknown} is not_found", async () => {
      const error = await get()
        .client.getNote(call(), { teamPath: null, noteId: "AAAAAAAAAAAAAAAAAAAAAA" })
        .catch((e: unknown) => e);
      expect(isBridgeError(error, "not_found", "forbidden")).toBe(true);
    });

    test("GET /notes/{id}/versions answers a page of version metadata; each version reads with its body", async () => {
      const { client } = get();
      const page = await client.listVersions(call(), { noteId, limit: 5 });
      expect(page.page).toBe(1);
      expect(page.versions.length).toBeLessThanOrEqual(5);
      expect(page.total).toBeGreaterThanOrEqual(page.versions.length);
      for (const version of page.versions) {
        expect(["user", "system"]).toContain(version.name_source);
        expect(version.created_at_ms).not.toBeNull();
      }
      const first = page.versions[0];
      if (first !== undefined) {
        const full = await client.getVersion(call(), { noteId, versionId: first.id });
        expect(full.id).toBe(first.id);
        if (full.content_available) expect(typeof full.content).toBe("string");
      }
    });

    test("GET /notes/{id}/comments answers comments with pagination", async () => {
      const page = await get().client.listComments(call(), { noteId, limit: 10 });
      expect(page.page).toBe(1);
      expect(typeof page.has_next).toBe("boolean");
      for (const comment of page.comments) {
        expect(comment.thread_id).toEqual(expect.any(String));
        if (comment.is_thread_head) expect(comment.reply_count).toEqual(expect.any(Number));
      }
    });
  });

  if (options.mutations) {
    describe("mutations (own notes and folders only)", () => {
      test("POST /notes 201 → PATCH 202 with an empty body → read-back shows it → DELETE 204", async () => {
        const target = get();
        const made = await raw("POST", "/notes", { body: { title: "hackmd-bridge contract", content: "one\n" } });
        expect(made.status).toBe(201);
        const id = (JSON.parse(new TextDecoder().decode(made.body)) as { id: string }).id;
        created.notes.push(id);
        const patched = await raw("PATCH", `/notes/${id}`, { body: { content: "two\n" } });
        expect(patched.status).toBe(202);
        expect(patched.body.byteLength).toBe(0);
        const poll = await pollUntil({
          context: call(),
          clock: target.clock,
          sleep: target.sleep,
          writtenBytes: 4,
          read: (deadlineAt) => target.client.getNote(call(), { teamPath: null, noteId: id, deadlineAt }),
          matches: (note) => note.content === "two\n",
          subject: `note ${id}`,
        });
        expect(poll.confirmed).toBe(true);
        expect((await raw("DELETE", `/notes/${id}`)).status).toBe(204);
        created.notes.splice(created.notes.indexOf(id), 1);
      });

      test("a named version holds the live body; naming it again is 409 no_content_change with its id; compare diffs it", async () => {
        const { client } = get();
        const note = await client.createNote(call(), {
          teamPath: null,
          body: { title: "hackmd-bridge contract", content: "version one\n" },
        });
        created.notes.push(note.note.id);
        const id = note.note.id;
        const first = await client.createVersion(call(), { noteId: id, name: "contract: first" });
        expect(first.reused).toBe(false);
        expect(first.version?.name).toBe("contract: first");
        expect(first.version?.name_source).toBe("user");
        const again = await client.createVersion(call(), { noteId: id, name: "contract: again" });
        expect(again).toEqual({ version: null, id: first.id, reused: true });
        expect((await client.getVersion(call(), { noteId: id, versionId: first.id })).content).toBe("version one\n");
        const named = await client.listVersions(call(), { noteId: id, namedOnly: true });
        expect(named.versions.map((v) => v.id)).toContain(first.id);
        await client.updateNote(call(), { teamPath: null, noteId: id, body: { content: "version two\n" } });
        const diff = await client.compareVersions(call(), {
          noteId: id,
          base: `version:${first.id}`,
          target: "note_content",
        });
        expect(typeof diff).toBe("string");
        const renamed = await client.renameVersion(call(), {
          noteId: id,
          versionId: first.id,
          name: "contract: renamed",
        });
        expect(renamed.name).toBe("contract: renamed");
      });

      test("POST /folders 201 → DELETE 204", async () => {
        const made = await raw("POST", "/folders", { body: { name: "hackmd-bridge contract" } });
        expect(made.status).toBe(201);
        const id = (JSON.parse(new TextDecoder().decode(made.body)) as { id: string }).id;
        created.folders.push(id);
        expect((await raw("DELETE", `/folders/${id}`)).status).toBe(204);
        created.folders.splice(created.folders.indexOf(id), 1);
      });
    });
  }

  const thread = options.commentThread;
  if (thread !== undefined) {
    test("resolving an open thread hides it; resolving again is a conflict; reopening opens it", async () => {
      const { client } = get();
      const resolved = await client.setCommentResolved(call(), { ...thread, resolved: true });
      expect(resolved.comment.thread_state?.status).toBe("hidden");
      const again = await client.setCommentResolved(call(), { ...thread, resolved: true }).catch((e: unknown) => e);
      expect(isBridgeError(again, "conflict")).toBe(true);
      const reopened = await client.setCommentResolved(call(), { ...thread, resolved: false });
      expect(reopened.comment.thread_state?.status).toBe("open");
    });
  }
}
