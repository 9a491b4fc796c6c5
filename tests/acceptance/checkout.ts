/**
 * The acceptance suite's "user checkout": the repository's files (what `git ls-files` lists, plus
 * new files not ignored) copied into a temporary folder with a symlink to node_modules, built
 * there once with the real `npm run build`. Every acceptance test file drives the `main.js` and
 * `dist/cli.js` built there, never the repository's own (other suites and a running `npm start`
 * use those).
 *
 * Built once per content hash: the first jest worker takes a lock folder and builds into a
 * staging folder that it renames into place; the others wait for the folder to appear. A later
 * run with the same files reuses it. Tests that write into a checkout (`npm start` creates
 * `sandbox-vault/` and rebuilds `dist/cli.js`) work in their own copy (`userCopy`).
 */
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, readdir, rename, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** The repository the tests run in. */
export const REPO = resolve(__dirname, "..", "..");

/** The files a user's checkout has: tracked, plus new files git does not ignore. */
function checkoutFiles(): string[] {
  let listed: string[];
  try {
    listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
      cwd: REPO,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).split("\0");
  } catch {
    // Not a git checkout (an unpacked archive): every file but what .gitignore names.
    listed = walk("");
  }
  return listed
    .filter((path) => path !== "" && existsSync(join(REPO, path)) && statSync(join(REPO, path)).isFile())
    .sort();
}

/** The files under `dir` (relative to the repository), skipping .git and what .gitignore names (its simple forms). */
function walk(dir: string): string[] {
  const ignore = readFileSync(join(REPO, ".gitignore"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const ignored = (name: string, isDir: boolean): boolean =>
    name === ".git" ||
    ignore.some((rule) =>
      rule.endsWith("/")
        ? isDir && name === rule.slice(0, -1)
        : rule.startsWith("*")
          ? name.endsWith(rule.slice(1))
          : name === rule,
    );
  const out: string[] = [];
  for (const entry of readdirSync(join(REPO, dir), { withFileTypes: true })) {
    if (ignored(entry.name, entry.isDirectory())) continue;
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...walk(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

async function contentHash(files: string[]): Promise<string> {
  const hash = createHash("sha256");
  for (const path of files) {
    hash.update(`${path}\0`);
    hash.update(await readFile(join(REPO, path)));
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/** Runs a command; rejects with its output when it fails. */
export function runChecked(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0
        ? resolvePromise(output)
        : reject(new Error(`${command} ${args.join(" ")} exited ${String(code)}:\n${output}`)),
    );
  });
}

/** The environment npm runs in during the tests: no network, no update check, no audit. */
export function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    npm_config_offline: "true",
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    ...extra,
  };
}

async function copyFiles(files: string[], into: string): Promise<void> {
  for (const path of files) {
    await mkdir(dirname(join(into, path)), { recursive: true });
    await cp(join(REPO, path), join(into, path), { preserveTimestamps: false });
  }
  await symlink(realpathSync(join(REPO, "node_modules")), join(into, "node_modules"), "dir");
}

const sleep = (ms: number): Promise<void> => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

/** A lock older than this is from a run that died; it is taken over. */
const STALE_LOCK_MS = 5 * 60_000;

let built: Promise<string> | undefined;

/** The built user checkout (its folder); built at most once per content of the repository. */
export function userCheckout(): Promise<string> {
  built ??= buildOnce();
  return built;
}

async function buildOnce(): Promise<string> {
  const files = checkoutFiles();
  const folder = join(tmpdir(), `hb-accept-${await contentHash(files)}`);
  const lock = `${folder}.lock`;
  for (;;) {
    if (existsSync(join(folder, ".built"))) return touched(folder);
    try {
      await mkdir(lock);
    } catch {
      const since = await stat(lock).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (since > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true });
      await sleep(200);
      continue;
    }
    try {
      if (existsSync(join(folder, ".built"))) return touched(folder);
      const staging = await mkdtemp(`${folder}.staging-`);
      await copyFiles(files, staging);
      // The real build, as a user runs it (esbuild.config.mjs: main.js and dist/cli.js).
      await runChecked("npm", ["run", "build"], { cwd: staging, env: npmEnv() });
      await writeFile(join(staging, ".built"), new Date().toISOString());
      await rm(folder, { recursive: true, force: true });
      await rename(staging, folder);
      await removeOldCheckouts(folder);
      return folder;
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
}

/** Marks a checkout as in use (its folder's time), so another run's clean-up leaves it. */
async function touched(folder: string): Promise<string> {
  const now = new Date();
  await utimes(folder, now, now);
  return folder;
}

/** Checkouts of other contents not used for an hour are removed (each is about 6 MB; a run lasts minutes). */
async function removeOldCheckouts(keep: string): Promise<void> {
  const hourAgo = Date.now() - 3600_000;
  for (const name of await readdir(tmpdir())) {
    if (!name.startsWith("hb-accept-")) continue;
    const path = join(tmpdir(), name);
    if (path === keep) continue;
    const info = await stat(path).catch(() => undefined);
    if (info !== undefined && info.mtimeMs < hourAgo) await rm(path, { recursive: true, force: true });
  }
}

/** A private copy of the built checkout, for tests that write into it; removed with `rm`. */
export async function userCopy(): Promise<string> {
  const source = await userCheckout();
  const copy = await mkdtemp(join(tmpdir(), "hb-accept-copy-"));
  await cp(source, copy, { recursive: true, filter: (path) => path !== join(source, "node_modules") });
  await symlink(realpathSync(join(REPO, "node_modules")), join(copy, "node_modules"), "dir");
  return copy;
}
