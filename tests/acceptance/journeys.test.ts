/**
 * Acceptance: two journeys a user makes with the built `dist/cli.js` (./checkout.ts) beyond the
 * README's one-liners. A conflict resolved on the command line, as push's message says (merge by
 * hand, push with --expected-remote-hash): the `.remote.md` snapshot goes away with it. And
 * `doctor` typed inside the sandbox's folder, with no --root and no token, while the sandbox runs.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { userCheckout } from "./checkout";
import { sh, start, startEmulator } from "./run";

let checkout: string;
let work: string;

beforeAll(async () => {
  checkout = await userCheckout();
  work = await mkdtemp(join(tmpdir(), "hb-accept-journeys-"));
}, 240_000);

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe("a conflict resolved on the command line", () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  beforeAll(async () => {
    emu = await startEmulator(checkout);
  });
  afterAll(async () => {
    await emu?.stop();
  });

  it("push writes plan.remote.md and the next command; after the merge, that push goes through and the snapshot is gone", async () => {
    const notes = join(work, "notes");
    await mkdir(notes);
    const env = { PATH: process.env.PATH ?? "", HOME: work, HACKMD_API_URL: emu.url, HACKMD_API_TOKEN: emu.token };
    const cli = (args: string) => sh(`node ${join(checkout, "dist", "cli.js")} ${args}`, { cwd: notes, env });
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${emu.url}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${emu.token}`, "content-type": "application/json" },
      });

    const created = (await (
      await api("/notes", {
        method: "POST",
        body: JSON.stringify({ title: "Plan", content: "# Plan\n\nShip on Monday.\n" }),
      })
    ).json()) as { id: string };
    expect((await cli(`pull ${created.id} plan.md`)).status).toBe(0);
    // Both sides change the same line.
    await writeFile(join(notes, "plan.md"), "# Plan\n\nShip on Tuesday.\n");
    expect(
      (
        await api(`/notes/${created.id}`, {
          method: "PATCH",
          body: JSON.stringify({ content: "# Plan\n\nShip on Wednesday.\n" }),
        })
      ).status,
    ).toBeLessThan(300);

    const conflict = await cli("push plan.md");
    expect(conflict.status).toBe(1);
    expect(existsSync(join(notes, "plan.remote.md"))).toBe(true);
    expect(await readFile(join(notes, "plan.remote.md"), "utf8")).toContain("Wednesday");
    const next = /hackmd-bridge (push plan\.md --expected-remote-hash \S+)/.exec(conflict.stdout)?.[1];
    expect(next).toBeDefined();

    // The user merges by hand, then runs the command the message gave.
    await writeFile(join(notes, "plan.md"), "# Plan\n\nShip on Tuesday or Wednesday.\n");
    const resolved = await cli(next ?? "");
    expect({ status: resolved.status, stderr: resolved.stderr }).toEqual({ status: 0, stderr: "" });
    const remote = (await (await api(`/notes/${created.id}`)).json()) as { content: string };
    expect(remote.content).toContain("Tuesday or Wednesday");
    expect(existsSync(join(notes, "plan.remote.md"))).toBe(false);
    const status = await cli("status plan.md");
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/^in_sync/);
  }, 60_000);
});

describe("doctor inside the sandbox's folder", () => {
  it("with no --root and no token, finds the running sandbox and reports ok", async () => {
    const folder = join(work, "repo");
    await mkdir(folder);
    const env = { PATH: process.env.PATH ?? "", HOME: work };
    const sandbox = await start(`node ${join(checkout, "dist", "cli.js")} sandbox --port 0`, {
      cwd: folder,
      env,
      ready: (out) => out.includes("Press Ctrl+C"),
    });
    try {
      const doctor = await sh(`node ${join(checkout, "dist", "cli.js")} doctor --probe-api`, {
        cwd: join(folder, "sandbox-vault"),
        env,
      });
      const report = JSON.parse(doctor.stdout) as { ok: boolean; problems: string[]; sandbox?: unknown };
      expect({ status: doctor.status, ok: report.ok, problems: report.problems }).toMatchObject({
        status: 0,
        ok: true,
      });
      expect(report.sandbox).toBeDefined();
    } finally {
      expect(await sandbox.stop("SIGINT")).toBe(0);
    }
  }, 60_000);
});
