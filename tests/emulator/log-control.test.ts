import { startEmulator, type Emulator } from "../../src/emulator";
import { runEmulatorProcess } from "../../src/emulator/process";
import { api, type Json } from "./helpers";

describe("request log", () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ logCapacity: 5 });
  });
  afterAll(async () => {
    await emu.close();
  });
  beforeEach(() => emu.reset());

  test("never contains the token, authorization or cookie headers", async () => {
    await api(emu, "POST", "/notes", { content: "x" }, { headers: { cookie: "session=abc" } });
    await api(emu, "GET", "/me", undefined, { token: "not-a-real-token" });
    const dump = JSON.stringify(emu.requests());
    expect(dump).not.toContain(emu.token);
    expect(dump).not.toContain("not-a-real-token");
    expect(dump).not.toContain("session=abc");
    for (const entry of emu.requests()) {
      expect(entry.headers).not.toHaveProperty("authorization");
      expect(entry.headers).not.toHaveProperty("cookie");
    }
  });

  test("fields: seq, route, user, bodyKeys, bodyBytes, status; filters", async () => {
    const id = (await api(emu, "POST", "/notes", { title: "a", content: "b" })).json.id as string;
    await api(emu, "PATCH", `/notes/${id}?x=1`, { title: "c" });
    await api(emu, "GET", "/unknown");
    await api(emu, "GET", "/me", undefined, { token: null });
    const log = emu.requests();
    expect(log.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(log[0]).toMatchObject({
      method: "POST",
      path: "/v1/notes",
      route: "POST /notes",
      user: "sandbox",
      status: 201,
      bodyKeys: ["title", "content"],
      committed: true,
    });
    expect(log[0]?.bodyBytes).toBe(JSON.stringify({ title: "a", content: "b" }).length);
    expect(log[1]).toMatchObject({
      path: `/v1/notes/${id}?x=1`,
      route: "PATCH /notes/:noteId",
      bodyKeys: ["title"],
      status: 202,
    });
    expect(log[2]).toMatchObject({ route: null, status: 404 });
    expect(log[3]).toMatchObject({ user: null, status: 401 });
    expect(emu.requests({ method: "patch" })).toHaveLength(1);
    expect(emu.requests({ route: "POST /notes" })).toHaveLength(1);
    expect(emu.requests({ since: 2 }).map((e) => e.seq)).toEqual([3, 4]);
    emu.clearRequests();
    expect(emu.requests()).toEqual([]);
    await api(emu, "GET", "/me");
    expect(emu.requests()[0]?.seq).toBe(5);
  });

  test("ring buffer keeps the newest entries; uploads are not logged", async () => {
    for (let i = 0; i < 7; i++) await api(emu, "GET", "/me");
    await fetch(`${emu.origin}/_uploads/none.png`);
    expect(emu.requests().map((e) => e.seq)).toEqual([3, 4, 5, 6, 7]);
  });

  test("reset restarts numbering and data; seed adds data and returns tokens", async () => {
    await api(emu, "POST", "/notes", {});
    emu.reset();
    expect(emu.requests()).toEqual([]);
    expect(emu.inspect().notes).toEqual([]);
    const result = emu.seed({
      users: [{ userPath: "zoe", name: "Zoe" }],
      folders: [{ ref: "f", name: "Mine" }],
      notes: [{ title: "Seeded", content: "s", folder: "f" }],
    });
    expect(result.tokens.zoe).toHaveLength(1);
    expect(result.noteIds).toHaveLength(1);
    const seeded = await api(emu, "GET", `/notes/${result.noteIds[0] ?? ""}`);
    expect(seeded.json).toMatchObject({ title: "Seeded", userPath: "sandbox", folderPaths: [{ name: "Mine" }] });
    const zoe = await api(emu, "GET", "/me", undefined, { token: result.tokens.zoe?.[0] ?? "" });
    expect(zoe.json.name).toBe("Zoe");
    expect(emu.requests()[0]?.seq).toBe(1);
  });

  test("quirks getter is a copy and setQuirks merges rateLimit field by field", () => {
    const q = emu.quirks;
    q.etag = false;
    expect(emu.quirks.etag).toBe(true);
    emu.setQuirks({ rateLimit: { enabled: true } });
    expect(emu.quirks.rateLimit).toMatchObject({
      enabled: true,
      windowLimit: 100,
      monthlyQuota: { free: 2000, upgraded: 10000 },
    });
  });
});

describe("HTTP control routes", () => {
  test("404 unless enabled", async () => {
    const emu = await startEmulator();
    try {
      const res = await fetch(`${emu.origin}/__emulator/state`, { headers: { authorization: `Bearer ${emu.token}` } });
      expect(res.status).toBe(404);
    } finally {
      await emu.close();
    }
  });

  test("require the token; mirror the in-process methods", async () => {
    const emu = await startEmulator({ control: true, seed: "demo" });
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      token: string | null = emu.token,
    ): Promise<{ status: number; json: Json }> => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (token !== null) headers.authorization = `Bearer ${token}`;
      const res = await fetch(`${emu.origin}/__emulator/${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: text === "" ? undefined : JSON.parse(text) };
    };
    try {
      expect((await call("GET", "state", undefined, null)).status).toBe(401);
      expect((await call("GET", "state", undefined, "wrong")).status).toBe(401);
      const state = await call("GET", "state");
      expect(state.status).toBe(200);
      expect(state.json.notes).toHaveLength(5);
      expect((await call("PATCH", "quirks", { etag: false })).json.etag).toBe(false);
      expect(emu.quirks.etag).toBe(false);
      expect((await call("GET", "quirks")).json.etag).toBe(false);
      const fault = await call("POST", "faults", {
        match: { path: { regex: "me$" } },
        action: { status: 503 },
        times: null,
      });
      expect(fault.status).toBe(201);
      expect((await api(emu, "GET", "/me")).status).toBe(503);
      expect((await api(emu, "GET", "/me")).status).toBe(503);
      const faults = await call("GET", "faults");
      expect(faults.json[0]).toMatchObject({
        id: fault.json.id,
        hits: 2,
        times: null,
        match: { path: { regex: "me$" } },
      });
      expect((await call("DELETE", "faults")).status).toBe(204);
      expect((await api(emu, "GET", "/me")).status).toBe(200);
      const log = await call("GET", "requests?since=2");
      expect(log.json.map((e: { seq: number }) => e.seq)).toEqual([3]);
      expect((await call("DELETE", "requests")).status).toBe(204);
      expect(emu.requests()).toEqual([]);
      const noteId = state.json.notes[0].id as string;
      expect((await call("POST", `notes/${noteId}/collaborator-edit`, { content: "web edit", as: "ada" })).status).toBe(
        204,
      );
      expect(emu.inspect().notes[0]).toMatchObject({ content: "web edit" });
      expect((await call("POST", `notes/${noteId}/collaborator-delete`)).status).toBe(204);
      expect(emu.inspect().notes[0]?.trashedAt).not.toBeNull();
      const seeded = await call("POST", "seed", { users: [{ userPath: "neo" }] });
      expect(seeded.json.tokens.neo).toHaveLength(1);
      emu.setQuirks({ visibilityDelayMs: 1000 });
      await api(emu, "PATCH", `/notes/${state.json.notes[1].id as string}`, { content: "later" });
      expect(emu.inspect().pending.notes).toBe(1);
      expect((await call("POST", "flush")).status).toBe(204);
      expect(emu.inspect().pending.notes).toBe(0);
      expect((await call("POST", "reset", { seed: "empty" })).status).toBe(204);
      expect(emu.inspect().notes).toEqual([]);
      expect((await call("GET", "nope")).status).toBe(404);
    } finally {
      await emu.close();
    }
  });

  test("refuse a non-loopback Host", async () => {
    const emu = await startEmulator({ control: true });
    try {
      const { request } = await import("node:http");
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${emu.origin}/__emulator/state`,
          { headers: { host: "evil.example", authorization: `Bearer ${emu.token}` } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end();
      });
      expect(status).toBe(403);
    } finally {
      await emu.close();
    }
  });
});

describe("process entry", () => {
  function capture(): { write(text: string): boolean; text: () => string } {
    let out = "";
    return {
      write: (t: string) => {
        out += t;
        return true;
      },
      text: () => out,
    };
  }

  test("prints one JSON line; the token answers GET /v1/me; stops cleanly", async () => {
    const stdout = capture();
    const stderr = capture();
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const running = runEmulatorProcess(["--seed", "demo", "--control"], { stdout, stderr, stopped });
    for (let i = 0; i < 100 && !stdout.text().includes("\n"); i++) await new Promise((r) => setTimeout(r, 10));
    const lines = stdout
      .text()
      .split("\n")
      .filter((l) => l !== "");
    expect(lines).toHaveLength(1);
    const { url, token } = JSON.parse(lines[0] ?? "{}") as { url: string; token: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const me = await fetch(`${url}/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { userPath: string }).userPath).toBe("sandbox");
    const notes = await fetch(`${url}/notes`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await notes.json()) as unknown[]).length).toBe(3);
    stop();
    await expect(running).resolves.toBe(0);
    expect(stderr.text()).toBe("");
    await expect(fetch(`${url}/me`)).rejects.toThrow();
  });

  test("a new token on every start", async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const stdout = capture();
      const running = runEmulatorProcess([], {
        stdout,
        stderr: capture(),
        stopped: new Promise((r) => setTimeout(r, 50)),
      });
      await running;
      tokens.push((JSON.parse(stdout.text()) as { token: string }).token);
    }
    expect(tokens[0]).not.toBe(tokens[1]);
  });

  test("bad arguments and a taken port: one stderr line, non-zero", async () => {
    for (const argv of [["--seed", "huge"], ["--port", "x"], ["--bogus"]]) {
      const stdout = capture();
      const stderr = capture();
      const code = await runEmulatorProcess(argv, { stdout, stderr, stopped: Promise.resolve() });
      expect(code).not.toBe(0);
      expect(stdout.text()).toBe("");
      expect(stderr.text().trim().split("\n")).toHaveLength(1);
    }
    const blocker = await startEmulator();
    try {
      const stderr = capture();
      const code = await runEmulatorProcess(["--port", String(blocker.port)], {
        stdout: capture(),
        stderr,
        stopped: Promise.resolve(),
      });
      expect(code).not.toBe(0);
      expect(stderr.text()).toMatch(/already in use/);
    } finally {
      await blocker.close();
    }
  });
});
