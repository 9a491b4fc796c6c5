/** Retries over real loopback HTTP with fake sleep and random (docs/tools.md §6.2, §4.3). */
import { CallContext, retryMetaForResult } from "../../src/hackmd/call-context";
import { startScriptedServer, type ScriptedServer } from "../fakes/scripted-server";
import { checkNoTokenLeaks, failure, makeClient } from "./helpers";

checkNoTokenLeaks();

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

const me = {
  status: 200,
  headers: { "content-type": "application/json" },
  body: '{"id":"u","name":"U","userPath":"u","teams":[]}',
};

describe("retries", () => {
  it("429 with Retry-After: 0 then 200 → attempts 2, was_rate_limited true, no wait beyond the cap", async () => {
    const { client, time } = makeClient({ url: server.url });
    server.script({ status: 429, headers: { "retry-after": "0" }, body: "{}" }, me);
    const context = new CallContext();
    expect((await client.me(context)).user_path).toBe("u");
    expect(retryMetaForResult(context)).toEqual({
      attempts: 2,
      total_waited_seconds: 0,
      was_rate_limited: true,
      readback_attempts: 0,
      readback_elapsed_seconds: 0,
    });
    expect(time.sleeps).toEqual([0]);
    expect(server.requests).toHaveLength(2);
  });

  it("Retry-After: 60 → one request only, rate_limited at once", async () => {
    const { client, time } = makeClient({ url: server.url });
    server.script({ status: 429, headers: { "retry-after": "60" }, body: "{}" }, me);
    const context = new CallContext();
    const error = await failure(client.me(context));
    expect(error.kind).toBe("rate_limited");
    expect(server.requests).toHaveLength(1);
    expect(time.sleeps).toEqual([]);
    expect(retryMetaForResult(context)).toBeUndefined();
  });

  it("GET 500 → 429 → 200 recovers with jittered back-off and the 429's hint", async () => {
    const { client, time } = makeClient({ url: server.url, random: () => 0.5 });
    server.script(
      { status: 500, body: '{"error":"boom"}' },
      { status: 429, headers: { "x-ratelimit-userreset": "2" }, body: "{}" },
      me,
    );
    const context = new CallContext();
    await client.me(context);
    expect(time.sleeps).toEqual([250, 2000]);
    expect(context.snapshot()).toMatchObject({ attempts: 3, total_waited_seconds: 2.25, was_rate_limited: true });
    expect(server.requests).toHaveLength(3);
  });

  it("uses x-ratelimit-userreset (epoch ms) without Retry-After, and refuses to wait out a long one", async () => {
    const { client, time } = makeClient({ url: server.url });
    const now = time.clock.now();
    server.script({ status: 429, headers: { "x-ratelimit-userreset": String(now + 3_000) }, body: "{}" }, me, {
      status: 429,
      headers: { "x-ratelimit-userreset": String(Math.floor(now / 1000) + 600) },
      body: "{}",
    });
    await client.me(new CallContext());
    expect(time.sleeps).toEqual([3000]);
    const error = await failure(client.me(new CallContext()));
    expect(error.kind).toBe("rate_limited");
    // The fake clock moved 3 s during the first call's wait.
    expect(error.message).toMatch(/reset after 597 seconds/);
    expect(server.requests).toHaveLength(3);
  });

  it("gives up after three retries with the last error and keeps the counters", async () => {
    const { client } = makeClient({ url: server.url, random: () => 0 });
    server.script(...Array.from({ length: 4 }, () => ({ status: 503, body: "down" })));
    const context = new CallContext();
    const error = await failure(client.listFolders(context, { teamPath: null }));
    expect(error.kind).toBe("upstream");
    expect(server.requests).toHaveLength(4);
    expect(retryMetaForResult(context)?.attempts).toBe(4);
  });

  it("two 500s with a one-retry policy → upstream with attempts 2", async () => {
    const { client } = makeClient({ url: server.url, config: { maxRetries: 1 } });
    server.script({ status: 500 }, { status: 500 });
    const context = new CallContext();
    expect((await failure(client.teams(context))).kind).toBe("upstream");
    expect(context.snapshot().attempts).toBe(2);
  });

  it("an idempotent folder PATCH answered 500 then 202 is sent twice with the same body", async () => {
    const { client } = makeClient({ url: server.url });
    server.script({ status: 500, body: "{}" }, { status: 202 });
    await client.updateFolder(new CallContext(), {
      teamPath: "t",
      folderId: "f",
      body: { name: "N", description: null },
    });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "PATCH /v1/teams/t/folders/f",
      "PATCH /v1/teams/t/folders/f",
    ]);
    expect(server.requests[0]?.body.toString()).toBe('{"name":"N","description":null}');
    expect(server.requests[1]?.body.equals(server.requests[0]?.body ?? Buffer.alloc(0))).toBe(true);
  });

  it("the trash restore PUT is retried", async () => {
    const { client } = makeClient({ url: server.url });
    server.script({ status: 502 }, { status: 204 });
    await client.restoreNote(new CallContext(), { noteId: "n" });
    expect(server.requests).toHaveLength(2);
  });

  it("a POST answered 500 and a note PATCH answered 503 are sent once (readback)", async () => {
    const { client } = makeClient({ url: server.url });
    server.script({ status: 500, body: '{"error":"Failed"}' }, { status: 503 });
    const post = await failure(client.createNote(new CallContext(), { teamPath: null, body: { title: "t" } }));
    expect(post.kind).toBe("readback");
    const patch = await failure(
      client.updateNote(new CallContext(), { teamPath: null, noteId: "n", body: { content: "c" } }),
    );
    expect(patch.kind).toBe("readback");
    expect(server.requests.map((r) => r.method)).toEqual(["POST", "PATCH"]);
  });

  it("a note PATCH 429 returns at once and says to read the note again", async () => {
    const { client, time } = makeClient({ url: server.url });
    server.script({ status: 429, headers: { "retry-after": "0" }, body: "{}" }, { status: 202 });
    const context = new CallContext();
    const error = await failure(client.updateNote(context, { teamPath: "t", noteId: "n", body: { content: "c" } }));
    expect(error.kind).toBe("rate_limited");
    expect(error.message).toMatch(/^PATCH \/v1\/teams\/t\/notes\/n: .*fetch the note afresh/);
    expect(server.requests).toHaveLength(1);
    expect(time.sleeps).toEqual([]);
    expect(context.snapshot().attempts).toBe(1);
  });

  it("DELETE and folder-order PUT are never retried", async () => {
    const { client } = makeClient({ url: server.url });
    server.script({ status: 500 }, { status: 500 }, { status: 500 });
    expect((await failure(client.deleteNote(new CallContext(), { teamPath: null, noteId: "n" }))).kind).toBe(
      "readback",
    );
    expect((await failure(client.deleteFolder(new CallContext(), { teamPath: "t", folderId: "f" }))).kind).toBe(
      "readback",
    );
    expect(
      (await failure(client.putFolderOrder(new CallContext(), { teamPath: null, order: { root: [] } }))).kind,
    ).toBe("readback");
    expect(server.requests).toHaveLength(3);
  });

  it("retries a GET after a dropped connection", async () => {
    const { client } = makeClient({ url: server.url });
    server.script({ drop: true }, me);
    const context = new CallContext();
    await client.me(context);
    expect(server.requests).toHaveLength(2);
    expect(context.snapshot().attempts).toBe(2);
  });

  it("does not retry a transport failure of a body above 1 MiB", async () => {
    const { client } = makeClient({ url: server.url });
    server.script({ drop: true }, { status: 202 });
    const big = "x".repeat(1_048_577);
    const error = await failure(
      client.updateFolder(new CallContext(), { teamPath: "t", folderId: "f", body: { description: big } }),
    );
    expect(error.kind).toBe("readback");
    expect(server.requests).toHaveLength(1);
  });

  it("keeps the last quota seen on the client instance", async () => {
    const { client, time } = makeClient({ url: server.url });
    expect(client.lastQuota).toBeNull();
    server.script(
      {
        ...me,
        headers: {
          ...me.headers,
          "x-ratelimit-userlimit": "100",
          "x-ratelimit-userremaining": "98",
          "x-ratelimit-userreset": "30",
          "x-target-scope": "user",
        },
      },
      me,
    );
    await client.me(new CallContext());
    const quota = { limit: 100, remaining: 98, reset_seconds: 30, scope: "user", observed_at: time.clock.now() };
    expect(client.lastQuota).toEqual(quota);
    await client.me(new CallContext());
    expect(client.lastQuota).toEqual(quota);
    const other = makeClient({ url: server.url });
    expect(other.client.lastQuota).toBeNull();
  });
});
