/**
 * A mirror bound to one HackMD folder (src/app/mirror.ts): only that folder's notes (and its
 * subfolders') become files; the notes outside are read once, remembered, and not read again
 * while they do not change. Emulator on loopback, requests from its log.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { startBridge, type TestBridge } from "../helpers/bridge";
import { runMirror } from "../../src/node/commands/mirror";
import type { CommandContext } from "../../src/node/commands/command";

let bridge: TestBridge;
const out: string[] = [];

beforeAll(async () => {
  bridge = await startBridge({ emulator: { seed: "empty" }, cacheTtlMs: 0 });
});

afterAll(async () => {
  await bridge.close();
});

function context(): CommandContext {
  return {
    core: bridge.core,
    env: {},
    io: { out: (text) => out.push(text), err: () => undefined, errIsTty: false },
  };
}

test("mirrors one folder's subtree; outside notes cost one read once", async () => {
  const past = Date.now() - 120_000;
  bridge.emu.seed({
    folders: [
      { ref: "p", name: "Projects" },
      { ref: "q", name: "Q3", parent: "p" },
      { ref: "o", name: "Other" },
    ],
    notes: [
      { title: "In projects", content: "# In projects\n", folder: "p", lastChangedAt: past },
      { title: "In Q3", content: "# In Q3\n", folder: "q", lastChangedAt: past },
      { title: "Elsewhere", content: "# Elsewhere\n", folder: "o", lastChangedAt: past },
      { title: "At the top", content: "# At the top\n", lastChangedAt: past },
    ],
  });
  bridge.mark();
  expect(
    await runMirror(
      { target: "personal/Projects", dir: "Proj", exclude: undefined, dryRun: false, json: true },
      context(),
    ),
  ).toBe(0);
  const routes = bridge.requestsSinceMark();
  expect(routes.filter((r) => r === "GET /notes")).toHaveLength(1);
  expect(routes.filter((r) => r === "GET /folders")).toHaveLength(1);
  expect(routes.filter((r) => r === "GET /notes/:noteId")).toHaveLength(4);
  expect((await readdir(join(bridge.root, "Proj"))).sort()).toEqual(["In projects.md", "Q3"]);
  expect(await readdir(join(bridge.root, "Proj/Q3"))).toEqual(["In Q3.md"]);
  // Run again: nothing new, and the notes outside are not read again.
  bridge.mark();
  expect(
    await runMirror(
      { target: "personal/Projects", dir: "Proj", exclude: undefined, dryRun: false, json: true },
      context(),
    ),
  ).toBe(0);
  expect(bridge.requestsSinceMark()).toEqual(["GET /notes"]);
  // Another target for the same folder is refused with a clear message.
  await expect(
    runMirror({ target: "personal", dir: "Proj", exclude: undefined, dryRun: false, json: true }, context()),
  ).rejects.toThrow(/already mirrors personal\/Projects/);
  // A folder that does not exist is named in the refusal.
  await expect(
    runMirror({ target: "personal/Nope", dir: "Nope", exclude: undefined, dryRun: false, json: true }, context()),
  ).rejects.toThrow(/no folder Nope/);
});
