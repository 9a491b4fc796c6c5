import { startEmulator, type Emulator } from "../../src/emulator";
import { api, fakeClock, type FakeClock } from "./helpers";

let emu: Emulator;
let clock: FakeClock;

beforeAll(async () => {
  clock = fakeClock(Date.UTC(2024, 5, 30, 23, 0, 0));
  emu = await startEmulator({ clock });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => emu.reset());

test("off by default: no headers, no limit", async () => {
  for (let i = 0; i < 5; i++) {
    const res = await api(emu, "GET", "/me");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-userlimit")).toBeNull();
  }
});

test("100 requests per 300 s rolling window, then 429; rejected requests do not count", async () => {
  emu.setQuirks({ rateLimit: { enabled: true } });
  const t0 = clock.now();
  for (let i = 0; i < 100; i++) expect((await api(emu, "GET", "/me")).status).toBe(200);
  const limited = await api(emu, "GET", "/me");
  expect(limited.status).toBe(429);
  expect(limited.json).toEqual({ error: "Too Many Requests" });
  expect(limited.headers.get("x-ratelimit-userremaining")).toBe("0");
  expect(limited.headers.get("x-ratelimit-userreset")).toBe(String(t0 + 300_000));
  expect(limited.headers.get("retry-after")).toBeNull();
  expect(emu.requests().at(-1)).toMatchObject({ status: 429, rateLimited: true });
  clock.advance(299_999);
  expect((await api(emu, "GET", "/me")).status).toBe(429);
  clock.advance(1);
  expect((await api(emu, "GET", "/me")).status).toBe(200);
});

test("headers on every reply: limit, remaining, reset, target scope and id", async () => {
  emu.setQuirks({ rateLimit: { enabled: true, windowLimit: 5 } });
  const first = await api(emu, "GET", "/me");
  expect(first.headers.get("x-ratelimit-userlimit")).toBe("5");
  expect(first.headers.get("x-ratelimit-userremaining")).toBe("4");
  expect(first.headers.get("x-ratelimit-userreset")).toBe(String(clock.now() + 300_000));
  expect(first.headers.get("x-target-scope")).toBe("user");
  expect(first.headers.get("x-target-id")).toBe(first.json.id);
  const team = await api(emu, "GET", "/teams/sandbox-team/notes");
  expect(team.headers.get("x-target-scope")).toBe("team");
  expect(team.headers.get("x-ratelimit-userremaining")).toBe("3");
  const notFound = await api(emu, "GET", "/notes/missing");
  expect(notFound.status).toBe(404);
  expect(notFound.headers.get("x-ratelimit-userlimit")).toBe("5");
  emu.setQuirks({ rateLimit: { headers: false } });
  expect((await api(emu, "GET", "/me")).headers.get("x-ratelimit-userlimit")).toBeNull();
});

test("resetUnit variants", async () => {
  emu.setQuirks({ rateLimit: { enabled: true, resetUnit: "epoch-s" } });
  const now = clock.now();
  expect((await api(emu, "GET", "/me")).headers.get("x-ratelimit-userreset")).toBe(
    String(Math.ceil((now + 300_000) / 1000)),
  );
  emu.setQuirks({ rateLimit: { resetUnit: "seconds" } });
  clock.advance(100_000);
  expect((await api(emu, "GET", "/me")).headers.get("x-ratelimit-userreset")).toBe("200");
});

test("retryAfter and headersOnWindow429", async () => {
  emu.setQuirks({ rateLimit: { enabled: true, windowLimit: 2, retryAfter: true } });
  await api(emu, "GET", "/me");
  clock.advance(60_000);
  await api(emu, "GET", "/me");
  const limited = await api(emu, "GET", "/me");
  expect(limited.status).toBe(429);
  expect(limited.headers.get("retry-after")).toBe("240");
  expect(limited.headers.get("x-ratelimit-userlimit")).toBe("2");
  emu.setQuirks({ rateLimit: { headersOnWindow429: false } });
  const bare = await api(emu, "GET", "/me");
  expect(bare.status).toBe(429);
  expect(bare.headers.get("x-ratelimit-userlimit")).toBeNull();
  expect(bare.headers.get("retry-after")).toBe("240");
});

test("monthly quota per workspace and calendar month; headers can describe the quota", async () => {
  emu.setQuirks({ rateLimit: { enabled: true, monthlyQuota: { free: 3 }, headersDescribe: "quota" } });
  const first = await api(emu, "GET", "/me");
  expect(first.headers.get("x-ratelimit-userlimit")).toBe("3");
  expect(first.headers.get("x-ratelimit-userremaining")).toBe("2");
  expect(first.headers.get("x-ratelimit-userreset")).toBe(String(Date.UTC(2024, 6, 1)));
  await api(emu, "GET", "/me");
  await api(emu, "GET", "/me");
  const over = await api(emu, "GET", "/me");
  expect(over.status).toBe(429);
  expect(over.headers.get("x-ratelimit-userremaining")).toBe("0");
  // The team's quota is separate.
  expect((await api(emu, "GET", "/teams/sandbox-team/notes")).status).toBe(200);
  // A new month starts a new quota.
  clock.advance(3_600_000);
  expect((await api(emu, "GET", "/me")).status).toBe(200);
});

test("upgraded users get the upgraded quota", async () => {
  const { tokens } = emu.seed({ users: [{ userPath: "prime", upgraded: true }] });
  emu.setQuirks({ rateLimit: { enabled: true, headersDescribe: "quota" } });
  const res = await api(emu, "GET", "/me", undefined, { token: tokens.prime?.[0] ?? "" });
  expect(res.headers.get("x-ratelimit-userlimit")).toBe("10000");
  expect((await api(emu, "GET", "/me")).headers.get("x-ratelimit-userlimit")).toBe("2000");
});

test("401s are not limited or counted", async () => {
  emu.setQuirks({ rateLimit: { enabled: true, windowLimit: 1 } });
  for (let i = 0; i < 3; i++) expect((await api(emu, "GET", "/me", undefined, { token: "bad" })).status).toBe(401);
  expect((await api(emu, "GET", "/me")).status).toBe(200);
});
