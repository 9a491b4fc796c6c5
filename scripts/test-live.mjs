#!/usr/bin/env node
// npm run test:live — the contract suite (tests/contract/scenarios.ts) against the real HackMD.
// Without HACKMD_LIVE_TOKEN it runs nothing, says so in one line and exits 0, so CI and people
// without an account are not failed by it. The token is passed on in the environment only.
import process from "node:process";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

if (!process.env.HACKMD_LIVE_TOKEN?.trim()) {
  process.stdout.write(
    "test:live ran nothing: HACKMD_LIVE_TOKEN is not set (set it to a HackMD API token to check the emulator against HackMD; HACKMD_LIVE_MUTATIONS=1 also creates and deletes its own notes).\n",
  );
  process.exit(0);
}
const mode = process.env.HACKMD_LIVE_MUTATIONS === "1" ? "read-write (own notes and folders only)" : "read-only";
process.stdout.write(`test:live: running the contract suite against HackMD, ${mode}.\n`);

// The unit project's transform, with only the live suite (never matched by `npm test`).
const root = fileURLToPath(new URL("..", import.meta.url));
const unit = (await import("../jest.config.mjs")).default.projects.find((project) => project.displayName === "unit");
const config = {
  rootDir: root,
  testTimeout: 120000,
  transform: unit.transform,
  moduleNameMapper: unit.moduleNameMapper,
  moduleFileExtensions: unit.moduleFileExtensions,
  testEnvironment: "node",
  testMatch: ["<rootDir>/tests/contract/live.contract.ts"],
};
const jest = fileURLToPath(new URL("../node_modules/jest/bin/jest.js", import.meta.url));
const child = spawn(
  process.execPath,
  [jest, "--config", JSON.stringify(config), "--runInBand", ...process.argv.slice(2)],
  { stdio: "inherit", cwd: root },
);
child.on("exit", (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
