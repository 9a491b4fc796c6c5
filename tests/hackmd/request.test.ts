/** The request pipeline over real loopback HTTP against a scripted server (docs/tools.md §5.5, §6). */
import { CallContext } from "../../src/hackmd/call-context";
import { buildTarget, isNoteRoute, timeoutsFor } from "../../src/hackmd/request";
import { createClientConfig, parseApiUrl } from "../../src/hackmd/config";
import type { UpdateNoteRequest } from "../../src/hackmd/types";
import { startScriptedServer, type ScriptedServer } from "../fakes/scripted-server";
import { systemClock, systemSleep } from "../../src/core/ports";
import { pollUntil, READBACK_TIMING } from "../../src/hackmd/readback";
import { checkNoTokenLeaks, failure, fakeTime, makeClient, recordingLogger, TEST_TOKEN } from "./helpers";
import { freePort } from "../helpers/ports";

checkNoTokenLeaks();

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

const noRetry = { maxRetries: 0 };
const json = (value: unknown, status = 200, headers: Record<string, string> = {}) => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(value),
});

describe("URL building and segment checks (docs/tools.md §5.1, §5.5)", () => {
  it("percent-encodes each segment on its own", async () => {
    const { client } = makeClient({ url: server.url });
    server.script(json([]), json({ id: "a.b_c-D9" }));
    await client.listNotes(new CallContext(), { teamPath: "café-団" });
    await client.getNote(new CallContext(), { teamPath: null, noteId: "a.b_c-D9" });
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/teams/caf%C3%A9-%E5%9B%A3/notes", "/v1/notes/a.b_c-D9"]);
  });

  it("refuses an id longer than 128 characters or with characters HackMD does not use, before any request", async () => {
    const { client } = makeClient({ url: server.url });
    const context = new CallContext();
    const long = "a".repeat(129);
    const cases: Array<[Promise<unknown>, RegExp]> = [
      [
        client.getNote(context, { teamPath: null, noteId: long }),
        /note id is 129 characters long; HackMD's are at most 128/,
      ],
      [client.listNotes(context, { teamPath: "t".repeat(2 * 1024 * 1024) }), /team path is 2097152 characters long/],
      [client.getNote(context, { teamPath: null, noteId: "note ?#" }), /note id has characters HackMD does not use/],
      [client.getNote(context, { teamPath: null, noteId: "x/y" }), /note id has characters HackMD does not use/],
      [client.listNotes(context, { teamPath: "core/team" }), /team path has characters HackMD does not use/],
      [client.listNotes(context, { teamPath: "core team" }), /team path has characters HackMD does not use/],
      [client.deleteFolder(context, { teamPath: null, folderId: "%2e%2e" }), /folder id has characters/],
    ];
    for (const [call, message] of cases) {
      const error = await failure(call);
      expect(error.kind).toBe("invalid_input");
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain(long);
    }
    // The longest accepted id still goes out.
    server.script(json({ id: "b".repeat(128) }));
    await client.getNote(context, { teamPath: null, noteId: "b".repeat(128) });
    expect(server.requests.map((r) => r.path)).toEqual([`/v1/notes/${"b".repeat(128)}`]);
  });

  it("sends the bearer token and a JSON content type only with JSON bodies", async () => {
    const { client } = makeClient({ url: server.url });
    server.script(json([]), { status: 202 });
    await client.listFolders(new CallContext(), { teamPath: null });
    await client.updateNote(new CallContext(), { teamPath: null, noteId: "n", body: { content: "x" } });
    const [get, patch] = server.requests;
    expect(get?.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
    expect(get?.headers["content-type"]).toBeUndefined();
    expect(patch?.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
    expect(patch?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(patch?.body.toString() ?? "")).toEqual({ content: "x" });
  });

  it("refuses blank, dot and control-character segments before any I/O and before the token check", async () => {
    const { client } = makeClient({ url: server.url, token: undefined });
    const context = new CallContext();
    const cases: Array<Promise<unknown>> = [
      client.getNote(context, { teamPath: null, noteId: "  " }),
      client.getNote(context, { teamPath: null, noteId: "." }),
      client.getNote(context, { teamPath: null, noteId: ".." }),
      client.getNote(context, { teamPath: "  ", noteId: "n" }),
      client.listNotes(context, { teamPath: ".." }),
      client.deleteFolder(context, { teamPath: null, folderId: "a\u0000b" }),
      client.restoreNote(context, { noteId: "a\nb" }),
      client.updateFolder(context, { teamPath: "t\u007f", folderId: "f", body: { name: "x" } }),
      client.uploadImage(context, {
        noteId: "\u0085",
        image: { bytes: new Uint8Array([1]), filename: "a.png", contentType: "image/png" },
      }),
    ];
    for (const call of cases) expect((await failure(call)).kind).toBe("invalid_input");
    expect(server.requests).toHaveLength(0);
  });

  it("allows dots inside an id", async () => {
    const { client } = makeClient({ url: server.url });
    server.script(json({ id: "a.b" }), json({ id: "..c" }));
    await client.getNote(new CallContext(), { teamPath: null, noteId: "a.b" });
    await client.getNote(new CallContext(), { teamPath: null, noteId: "..c" });
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/notes/a.b", "/v1/notes/..c"]);
  });

  it("checks the number of path segments after building", () => {
    const api = parseApiUrl("http://127.0.0.1:1/v1");
    expect(buildTarget(api, ["teams", { label: "team path", value: "é" }, "notes"]).path).toBe(
      "/v1/teams/%C3%A9/notes",
    );
    expect(() => buildTarget(api, ["notes", { label: "note id", value: "x/y" }])).toThrow(
      /characters HackMD does not use/,
    );
    // A literal part is trusted, but the segment count still catches a dot segment in it.
    expect(() => buildTarget(api, ["notes", ".."])).toThrow(/dot segment/);
  });

  it("without a token fails with auth, naming the request it would have made and where to set the token", async () => {
    for (const token of [undefined, "", "   \t"]) {
      const { client } = makeClient({ url: server.url, token });
      const error = await failure(client.me(new CallContext()));
      expect(error.kind).toBe("auth");
      expect(error.message.startsWith("GET /v1/me:")).toBe(true);
      expect(error.message).toMatch(/no HackMD API token/);
      expect(error.message).toMatch(/HACKMD_API_TOKEN.*restart/);
    }
    const plugin = makeClient({
      url: server.url,
      token: undefined,
      config: { tokenHint: "set the token in the HackMD Bridge plugin settings" },
    });
    expect((await failure(plugin.client.teams(new CallContext()))).message).toMatch(/plugin settings/);
    expect(server.requests).toHaveLength(0);
  });
});

describe("2xx replies (docs/tools.md §6.1)", () => {
  it("settles a write with any 2xx reply, never parsing it", async () => {
    const { client } = makeClient({ url: server.url });
    server.script(
      json({}, 202),
      { status: 200, headers: { "content-type": "text/plain" }, body: "OK" },
      { status: 202 },
      { status: 204 },
      { status: 200, body: "<html>" },
      { status: 204 },
    );
    const context = new CallContext();
    await client.updateNote(context, { teamPath: null, noteId: "n", body: { content: "a" } });
    await client.updateNote(context, { teamPath: "t", noteId: "n", body: { content: "b" } });
    await client.updateFolder(context, { teamPath: "t", folderId: "f", body: { name: "x" } });
    await client.deleteNote(context, { teamPath: null, noteId: "n" });
    await client.restoreNote(context, { noteId: "n" });
    await client.putFolderOrder(context, { teamPath: null, order: {} });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "PATCH /v1/notes/n",
      "PATCH /v1/teams/t/notes/n",
      "PATCH /v1/teams/t/folders/f",
      "DELETE /v1/notes/n",
      "PUT /v1/trash/n/restore",
      "PUT /v1/folders/folder-order",
    ]);
  });

  it("sends only supplied fields: an empty create sends {}, an update may send parentFolderId null", async () => {
    const { client } = makeClient({ url: server.url });
    server.script(json({ id: "new" }, 201), { status: 202 }, json({ id: "f", name: "F" }, 201));
    await client.createNote(new CallContext(), { teamPath: null, body: {} });
    await client.updateNote(new CallContext(), {
      teamPath: null,
      noteId: "n",
      body: { content: "c", title: undefined, parentFolderId: null },
    });
    await client.createFolder(new CallContext(), {
      teamPath: null,
      body: { name: "F", parentFolderId: null as unknown as string, description: undefined },
    });
    expect(server.requests.map((r) => r.body.toString())).toEqual([
      "{}",
      '{"content":"c","parentFolderId":null}',
      '{"name":"F"}',
    ]);
  });

  it("never sends a note PATCH without content", async () => {
    const { client } = makeClient({ url: server.url });
    const error = await failure(
      client.updateNote(new CallContext(), {
        teamPath: null,
        noteId: "n",
        body: { title: "t" } as unknown as UpdateNoteRequest,
      }),
    );
    expect(error.kind).toBe("internal");
    expect(server.requests).toHaveLength(0);
  });

  it("sorts folder-order keys in code-point order", async () => {
    const { client } = makeClient({ url: server.url });
    server.script({ status: 204 });
    await client.putFolderOrder(new CallContext(), {
      teamPath: "t",
      order: { root: ["b", "a"], other: ["keep"], "\u{1F600}": ["e"], "\uFF5E": ["w"] },
    });
    expect(server.requests[0]?.body.toString()).toBe(
      '{"order":{"other":["keep"],"root":["b","a"],"\uFF5E":["w"],"\u{1F600}":["e"]}}',
    );
    expect(server.requests[0]?.path).toBe("/v1/teams/t/folders/folder-order");
  });

  it("fails a read with an empty or unparsable body as upstream without echoing the body", async () => {
    const { client } = makeClient({ url: server.url });
    server.script(
      { status: 200, body: "" },
      { status: 200, body: `not json ${TEST_TOKEN} <secret-body>` },
      { status: 200, body: "OK" },
    );
    for (let i = 0; i < 3; i += 1) {
      const error = await failure(client.me(new CallContext()));
      expect(error.kind).toBe("upstream");
      expect(error.message.startsWith("GET /v1/me:")).toBe(true);
      expect(error.message).not.toMatch(/secret-body|OK/);
    }
  });

  it("reads a 207 create as created but not placed, and an unreadable create reply as readback", async () => {
    const { client } = makeClient({ url: server.url });
    server.script(
      json({ note: { id: "n207", content: "x" }, error: "Failed to add note to folder" }, 207),
      { status: 201, body: "" },
      json({ title: "no id" }, 201),
      { status: 201, body: "{broken" },
    );
    const created = await client.createNote(new CallContext(), { teamPath: null, body: { parentFolderId: "f" } });
    expect(created.placement_failed).toBe(true);
    expect(created.note.id).toBe("n207");
    for (let i = 0; i < 2; i += 1) {
      const error = await failure(client.createNote(new CallContext(), { teamPath: "t", body: { title: "x" } }));
      expect(error.kind).toBe("readback");
      expect(error.message.startsWith("POST /v1/teams/t/notes:")).toBe(true);
      expect(error.message).toMatch(/may exist/);
    }
    const folder = await failure(client.createFolder(new CallContext(), { teamPath: null, body: { name: "x" } }));
    expect(folder.kind).toBe("readback");
    expect(server.requests.filter((r) => r.method === "POST")).toHaveLength(4);
  });

  it("reads the image upload reply, and an unreadable one as upstream", async () => {
    const { client } = makeClient({ url: server.url });
    server.script(json({ data: { link: "https://hackmd.io/_uploads/a.png" } }, 201), { status: 201, body: "OK" });
    const image = {
      bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
      filename: 'my "pic".png',
      contentType: "image/png",
    };
    expect(await client.uploadImage(new CallContext(), { noteId: "n", image })).toEqual({
      link: "https://hackmd.io/_uploads/a.png",
    });
    const error = await failure(client.uploadImage(new CallContext(), { noteId: "n", image }));
    expect(error.kind).toBe("upstream");
    const [first] = server.requests;
    const contentType = String(first?.headers["content-type"]);
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(contentType)?.[1] ?? "";
    expect(boundary).not.toBe("");
    const body = first?.body ?? Buffer.alloc(0);
    const expected = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="my %22pic%22.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      Buffer.from([0x89, 0x50, 0x4e, 0x47]),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    expect(body.equals(expected)).toBe(true);
    expect(first?.path).toBe("/v1/notes/n/images");
  });
});

describe("status to error (docs/tools.md §6.3)", () => {
  const cases: Array<{
    status: number;
    call: "get" | "patch" | "post" | "folderPatch" | "teamNotesFolder";
    kind: string;
    text: RegExp;
    prefix: string;
  }> = [
    {
      status: 401,
      call: "get",
      kind: "auth",
      text: /rejected the token.*HACKMD_API_TOKEN/,
      prefix: "GET /v1/notes/n:",
    },
    { status: 403, call: "get", kind: "forbidden", text: /may not access/, prefix: "GET /v1/notes/n:" },
    {
      status: 404,
      call: "get",
      kind: "not_found",
      text: /check the note or folder id and the team_path/,
      prefix: "GET /v1/notes/n:",
    },
    { status: 409, call: "patch", kind: "conflict", text: /permalink is probably taken/, prefix: "PATCH /v1/notes/n:" },
    {
      status: 409,
      call: "folderPatch",
      kind: "conflict",
      text: /^(?!.*permalink).*Busy/,
      prefix: "PATCH /v1/teams/t/folders/f:",
    },
    {
      status: 409,
      call: "teamNotesFolder",
      kind: "conflict",
      text: /^(?!.*permalink).*Busy/,
      prefix: "PATCH /v1/teams/notes/folders/f:",
    },
    {
      status: 500,
      call: "get",
      kind: "upstream",
      text: /HackMD failed \(500\); retry later/,
      prefix: "GET /v1/notes/n:",
    },
    { status: 502, call: "post", kind: "readback", text: /may have landed/, prefix: "POST /v1/notes:" },
    { status: 503, call: "patch", kind: "readback", text: /may have landed/, prefix: "PATCH /v1/notes/n:" },
    { status: 400, call: "get", kind: "api", text: /HackMD answered 400.*Busy/, prefix: "GET /v1/notes/n:" },
    { status: 422, call: "post", kind: "api", text: /422/, prefix: "POST /v1/notes:" },
    { status: 413, call: "post", kind: "api", text: /413/, prefix: "POST /v1/notes:" },
    { status: 302, call: "get", kind: "api", text: /redirect.*API URL/, prefix: "GET /v1/notes/n:" },
  ];

  it.each(cases)("$status on $call → $kind", async ({ status, call, kind, text, prefix }) => {
    const { client } = makeClient({ url: server.url, config: noRetry });
    // The body echoes the credentials, as a careless server might: they must come out redacted.
    server.script({
      status,
      headers: { "content-type": "application/json", location: "https://elsewhere/" },
      body: `{"error":"Busy","echo":"Bearer ${TEST_TOKEN}"}`,
    });
    const context = new CallContext();
    const run = {
      get: () => client.getNote(context, { teamPath: null, noteId: "n" }),
      patch: () => client.updateNote(context, { teamPath: null, noteId: "n", body: { content: "c" } }),
      post: () => client.createNote(context, { teamPath: null, body: {} }),
      folderPatch: () => client.updateFolder(context, { teamPath: "t", folderId: "f", body: { name: "n" } }),
      teamNotesFolder: () => client.updateFolder(context, { teamPath: "notes", folderId: "f", body: { name: "n" } }),
    }[call];
    const error = await failure(run());
    expect(error.kind).toBe(kind);
    expect(error.message.startsWith(`${prefix} `)).toBe(true);
    expect(error.message).toMatch(text);
    expect(error.details).toEqual({ status });
    expect(error.message).toContain("[REDACTED]");
    expect(server.requests).toHaveLength(1);
  });

  it("maps 429 with the quota fragment and the bounded body", async () => {
    const { client } = makeClient({ url: server.url, config: noRetry });
    server.script(
      json({ error: "Too Many Requests" }, 429, {
        "x-ratelimit-userlimit": "100",
        "x-ratelimit-userremaining": "0",
        "x-ratelimit-userreset": "42",
      }),
      json({}, 429),
    );
    const error = await failure(client.me(new CallContext()));
    expect(error.kind).toBe("rate_limited");
    expect(error.message).toContain("remaining 0/100, reset after 42 seconds");
    expect(error.message).toContain('{"error":"Too Many Requests"}');
    expect(error.message).toMatch(/Wait before retrying/);
    const bare = await failure(client.me(new CallContext()));
    expect(bare.message).toContain("quota headers were unavailable");
  });

  it("maps 413 on an image upload to too_large with a resize hint", async () => {
    const { client } = makeClient({ url: server.url });
    server.script(json({ message: "Image too large" }, 413));
    const error = await failure(
      client.uploadImage(new CallContext(), {
        noteId: "n",
        image: { bytes: new Uint8Array(4), filename: "a.png", contentType: "image/png" },
      }),
    );
    expect(error.kind).toBe("too_large");
    expect(error.message).toMatch(/^POST \/v1\/notes\/n\/images: .*resize/);
  });

  it("classifies note routes by scanning segments", () => {
    expect(isNoteRoute(["notes", "x"])).toBe(true);
    expect(isNoteRoute(["teams", "t", "notes", "x"])).toBe(true);
    expect(isNoteRoute(["teams", "notes", "folders", "x"])).toBe(false);
    expect(isNoteRoute(["folders", "notes"])).toBe(false);
    expect(isNoteRoute(["trash", "notes", "restore"])).toBe(false);
    expect(isNoteRoute(["me"])).toBe(false);
    expect(isNoteRoute(["history"])).toBe(false);
  });
});

describe("redacted detail in errors (docs/tools.md §6.4)", () => {
  it("redacts the token in a quoted body and keeps the quote under 400 characters", async () => {
    const { client } = makeClient({ url: server.url, config: noRetry });
    server.script(
      { status: 400, body: `{"error":"bad token ${TEST_TOKEN}"}` },
      { status: 400, body: "x".repeat(5000) },
      { status: 400, body: " ".repeat(1200 + TEST_TOKEN.length - 9) + TEST_TOKEN },
      { status: 404, body: "" },
    );
    const redacted = await failure(client.me(new CallContext()));
    expect(redacted.message).toContain("[REDACTED]");
    const long = await failure(client.me(new CallContext()));
    const quoted = long.message.split("HackMD said: ")[1] ?? "";
    expect(quoted.length).toBeLessThan(400);
    expect(quoted.endsWith("…")).toBe(true);
    const split = await failure(client.me(new CallContext()));
    expect(split.message).not.toContain(TEST_TOKEN.slice(0, 9));
    const empty = await failure(client.me(new CallContext()));
    expect(empty.message).toContain("no response detail");
  });

  it("logs method, path, status and retry count, never the token or bodies", async () => {
    const logger = recordingLogger();
    const { client } = makeClient({ url: server.url, logger });
    server.script({ status: 202 });
    await client.updateNote(new CallContext(), { teamPath: null, noteId: "n", body: { content: "secret body text" } });
    expect(logger.lines).toEqual([
      {
        level: "debug",
        event: "hackmd.request",
        fields: expect.objectContaining({ method: "PATCH", path: "/v1/notes/n", status: 202, retries: 0 }) as unknown,
      },
    ]);
    const serialised = JSON.stringify(logger.lines);
    expect(serialised).not.toContain(TEST_TOKEN);
    expect(serialised).not.toContain("secret body text");
  });
});

describe("read-back over HTTP (docs/tools.md §7)", () => {
  it("a read-back read that runs past its allowance fails with readback", async () => {
    const { client } = makeClient({ url: server.url, time: { ...fakeTime(), clock: systemClock, sleep: systemSleep } });
    server.script({ hang: true });
    const context = new CallContext();
    const error = await failure(
      pollUntil({
        context,
        clock: systemClock,
        sleep: systemSleep,
        writtenBytes: 0,
        timing: { ...READBACK_TIMING, baseWindowMs: 100, inFlightMs: 250 },
        read: (deadlineAt) => client.getNote(context, { teamPath: null, noteId: "n", deadlineAt }),
        matches: () => true,
      }),
    );
    expect(error.kind).toBe("readback");
    expect(error.message).toMatch(/^GET \/v1\/notes\/n: the write was accepted/);
    expect(server.requests).toHaveLength(1);
    expect(context.snapshot()).toMatchObject({ attempts: 1, readback_attempts: 1 });
  });
});

describe("transport failures (docs/tools.md §6.3)", () => {
  const fast = { maxRetries: 0, requestTimeoutMs: 150, connectTimeoutMs: 150 };

  it("a GET that times out and one that cannot connect are network errors with different texts", async () => {
    const { client } = makeClient({ url: server.url, config: fast });
    server.script({ hang: true });
    const timedOut = await failure(client.me(new CallContext()));
    expect(timedOut.kind).toBe("network");
    expect(timedOut.message).toMatch(/^GET \/v1\/me: .*timed out/);
    const port = await freePort();
    const refused = makeClient({ url: `http://127.0.0.1:${port}/v1`, config: fast });
    const failed = await failure(refused.client.me(new CallContext()));
    expect(failed.kind).toBe("network");
    expect(failed.message).toMatch(/connection failed.*API URL/);
    expect(failed.message).not.toBe(timedOut.message);
  });

  it("a POST that timed out after connecting is readback; one that never connected is network", async () => {
    const { client } = makeClient({ url: server.url, config: fast });
    server.script({ hang: true }, { drop: true });
    const timedOut = await failure(client.createNote(new CallContext(), { teamPath: null, body: { title: "x" } }));
    expect(timedOut.kind).toBe("readback");
    expect(timedOut.message).toMatch(/^POST \/v1\/notes: the request timed out after it was sent/);
    const dropped = await failure(client.createNote(new CallContext(), { teamPath: null, body: { title: "x" } }));
    expect(dropped.kind).toBe("readback");
    expect(dropped.message).toMatch(/connection was lost/);
    const port = await freePort();
    const refused = makeClient({ url: `http://127.0.0.1:${port}/v1`, config: fast });
    const never = await failure(refused.client.createNote(new CallContext(), { teamPath: null, body: {} }));
    expect(never.kind).toBe("network");
    expect(never.message).toMatch(/nothing was sent/);
  });

  it("refuses oversized responses, declared and streamed, as too_large", async () => {
    const { client } = makeClient({ url: server.url, config: { maxResponseBytes: 1000 } });
    server.script(
      { status: 200, headers: { "content-length": "5000" }, chunks: ["x".repeat(10)], stall: true },
      { status: 200, chunks: ["[", "1,".repeat(300), "1,".repeat(300), "1]"] },
    );
    const declared = await failure(client.listNotes(new CallContext(), { teamPath: null }));
    expect(declared.kind).toBe("too_large");
    const streamed = await failure(client.listNotes(new CallContext(), { teamPath: null }));
    expect(streamed.kind).toBe("too_large");
    expect(server.requests).toHaveLength(2);
  });

  it("computes timeouts with the upload allowance and the outer ceiling", () => {
    const config = createClientConfig({ apiUrl: server.url, tokenHint: "x" });
    expect(timeoutsFor(config, 0)).toEqual({
      connectMs: 10_000,
      headersMs: 30_000,
      idleMs: 30_000,
      totalMs: 30_000 + 404_000,
    });
    expect(timeoutsFor(config, 262_144 * 4)).toMatchObject({ headersMs: 34_000, idleMs: 30_000, totalMs: 438_000 });
  });
});
