// Brings the public Obsidian vaults the conversion is measured on (bench/README.md, "Real vaults")
// with `git clone`, where the network allows. Nothing is committed: the Obsidian help vault has no
// licence, so only this script is in the repository (a subset of the MIT-licensed one is in
// tests/fixtures/vaults/).
//
// Usage: node scripts/fetch-vaults.mjs [DIR]   (default: <tmp>/hackmd-bridge-vaults)
// Then:  npm run bench -- convert --vault DIR/obsidian-help/en
import process from "node:process";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const VAULTS = [
  // The Obsidian help vault: the `en` folder (173 notes when measured), sparse so that the other
  // languages' files are not fetched.
  { name: "obsidian-help", url: "https://github.com/obsidianmd/obsidian-help.git", sparse: "en", vault: "en" },
  // Steph Ango's vault template (MIT).
  { name: "kepano-obsidian", url: "https://github.com/kepano/kepano-obsidian.git", vault: "." },
];

const dir = resolve(process.argv[2] ?? join(tmpdir(), "hackmd-bridge-vaults"));
mkdirSync(dir, { recursive: true });

function git(args, cwd) {
  const run = spawnSync("git", args, { cwd, stdio: "inherit" });
  if (run.status !== 0) {
    process.stderr.write(`fetch-vaults: git ${args.join(" ")} failed; is the network reachable?\n`);
    process.exit(1);
  }
}

for (const vault of VAULTS) {
  const target = join(dir, vault.name);
  if (existsSync(join(target, ".git"))) {
    process.stdout.write(`${vault.name}: already there, updating\n`);
    git(["pull", "--ff-only", "--depth", "1"], target);
  } else if (vault.sparse !== undefined) {
    git(["clone", "--depth", "1", "--filter=blob:none", "--sparse", vault.url, target]);
    git(["sparse-checkout", "set", vault.sparse], target);
  } else {
    git(["clone", "--depth", "1", vault.url, target]);
  }
  const head = spawnSync("git", ["rev-parse", "HEAD"], { cwd: target, encoding: "utf8" }).stdout.trim();
  process.stdout.write(`${vault.name} at ${head}: npm run bench -- convert --vault ${join(target, vault.vault)}\n`);
}
