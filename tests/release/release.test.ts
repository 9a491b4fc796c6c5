/**
 * The release as the community directory receives it (.github/workflows/release.yml): the three
 * assets the workflow attests and uploads are what a fresh checkout's `npm run build` makes and
 * match manifest.json; `npm version` keeps package.json, manifest.json and versions.json in step
 * and tags without a "v"; scripts/check-version.mjs refuses a tag or a file that disagrees.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO, npmEnv, userCheckout } from "../acceptance/checkout";

const run = promisify(execFile);
const ASSETS = ["main.js", "manifest.json", "styles.css"];

interface Manifest {
  id: string;
  version: string;
  minAppVersion: string;
  isDesktopOnly: boolean;
}

/** The environment without GitHub Actions' variables (the release workflow runs these tests for a tag). */
const baseEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith("GITHUB_")),
);

const readJson = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, "utf8")) as T;

/** Runs a command; its exit code and output, without throwing. */
async function attempt(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: options.cwd, env: options.env ?? baseEnv });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === "number" ? failed.code : 1,
      out: (failed.stdout ?? "") + (failed.stderr ?? ""),
    };
  }
}

describe("the release workflow", () => {
  let workflow: string;
  beforeAll(async () => {
    workflow = await readFile(join(REPO, ".github", "workflows", "release.yml"), "utf8");
  });

  it("runs on a pushed tag with the permissions attestation needs", () => {
    expect(workflow).toMatch(/^on:\n {2}push:\n {4}tags:\n {6}- "\*"$/m);
    for (const permission of ["contents: write", "id-token: write", "attestations: write"])
      expect(workflow).toContain(permission);
  });

  it("installs from the lock file, checks the version, lints as the hub does, tests and builds, in that order", () => {
    const steps = [
      "npm ci",
      "node scripts/check-version.mjs",
      "npm run lint:review",
      "npm test",
      "npm run build",
      "actions/attest-build-provenance@",
      "gh release create",
    ];
    const at = steps.map((step) => workflow.indexOf(step));
    expect(at.every((index) => index >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it("attests exactly main.js, manifest.json and styles.css and uploads exactly those", () => {
    const subjects = /subject-path: \|\n((?: {12}\S+\n)+)/
      .exec(workflow)?.[1]
      ?.split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    expect(subjects).toEqual(ASSETS);
    const create = /gh release create ((?:.*\\\n)*.*)/.exec(workflow)?.[1] ?? "";
    const uploaded = create
      .split(/\s+/)
      .filter((word) => word !== "\\" && word !== "" && !word.startsWith("--") && !word.startsWith('"'));
    expect(uploaded).toEqual(ASSETS);
  });
});

describe("the assets a fresh checkout builds", () => {
  it("npm run build makes main.js next to manifest.json and styles.css, matching manifest.json and versions.json", async () => {
    const checkout = await userCheckout();
    for (const asset of ASSETS) expect((await stat(join(checkout, asset))).size).toBeGreaterThan(0);
    const manifest = await readJson<Manifest>(join(checkout, "manifest.json"));
    const repoManifest = await readJson<Manifest>(join(REPO, "manifest.json"));
    expect({ id: manifest.id, version: manifest.version, minAppVersion: manifest.minAppVersion }).toEqual({
      id: repoManifest.id,
      version: repoManifest.version,
      minAppVersion: repoManifest.minAppVersion,
    });
    expect(manifest.id).toBe("hackmd-bridge");
    const pkg = await readJson<{ version: string }>(join(checkout, "package.json"));
    expect(pkg.version).toBe(manifest.version);
    const versions = await readJson<Record<string, string>>(join(checkout, "versions.json"));
    expect(versions[manifest.version]).toBe(manifest.minAppVersion);
    const checked = await attempt(process.execPath, ["scripts/check-version.mjs"], {
      cwd: checkout,
      env: { ...baseEnv, GITHUB_REF_TYPE: "branch" },
    });
    expect(checked).toEqual({
      code: 0,
      out: expect.stringContaining(`${manifest.version} in package.json, manifest.json and versions.json`) as string,
    });
  }, 240_000);
});

describe("npm version and the version check", () => {
  let folder: string;
  const git = (args: string[]) => run("git", args, { cwd: folder, env: gitEnv() });
  const gitEnv = (): NodeJS.ProcessEnv => ({
    ...npmEnv(),
    ...Object.fromEntries(
      Object.keys(process.env)
        .filter((name) => name.startsWith("GITHUB_"))
        .map((name) => [name, undefined]),
    ),
    GIT_AUTHOR_NAME: "Release test",
    GIT_AUTHOR_EMAIL: "release@example.invalid",
    GIT_COMMITTER_NAME: "Release test",
    GIT_COMMITTER_EMAIL: "release@example.invalid",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
  });

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), "hb-release-"));
    await mkdir(join(folder, "scripts"));
    for (const file of [
      "package.json",
      "manifest.json",
      "versions.json",
      ".npmrc",
      "scripts/version-bump.mjs",
      "scripts/check-version.mjs",
    ]) {
      await copyFile(join(REPO, file), join(folder, file));
    }
    await git(["init", "-q"]);
    await git(["add", "-A"]);
    await git(["commit", "-qm", "start"]);
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("npm version minor moves package.json, manifest.json and versions.json together and tags the bare version", async () => {
    const before = await readJson<Manifest>(join(folder, "manifest.json"));
    const [major, minor] = before.version.split(".").map(Number);
    const next = `${major ?? 0}.${(minor ?? 0) + 1}.0`;
    const bumped = await attempt("npm", ["version", "minor"], { cwd: folder, env: gitEnv() });
    expect(bumped.code).toBe(0);
    expect((await readJson<{ version: string }>(join(folder, "package.json"))).version).toBe(next);
    const manifest = await readJson<Manifest>(join(folder, "manifest.json"));
    expect(manifest).toEqual({ ...before, version: next });
    const versions = await readJson<Record<string, string>>(join(folder, "versions.json"));
    expect(versions[next]).toBe(before.minAppVersion);
    expect(versions[before.version]).toBe(before.minAppVersion);
    // One commit holds all three files, and the tag is the version itself (no "v").
    expect((await git(["tag", "--list"])).stdout.trim()).toBe(next);
    expect(
      (await git(["diff-tree", "--no-commit-id", "--name-only", "-r", `${next}^{commit}`])).stdout
        .trim()
        .split("\n")
        .sort(),
    ).toEqual(["manifest.json", "package.json", "versions.json"]);
    expect((await git(["status", "--porcelain"])).stdout.trim()).toBe("");
    // The workflow's check agrees for that tag, and refuses a "v" tag (with the owner's fields filled in).
    await writeFile(
      join(folder, "manifest.json"),
      JSON.stringify({ ...manifest, authorUrl: "https://github.com/owner" }),
    );
    const pkg = await readJson<Record<string, unknown>>(join(folder, "package.json"));
    await writeFile(
      join(folder, "package.json"),
      JSON.stringify({ ...pkg, repository: "https://github.com/owner/hackmd-bridge" }),
    );
    expect(
      (
        await attempt(process.execPath, ["scripts/check-version.mjs"], {
          cwd: folder,
          env: { ...baseEnv, GITHUB_REF_TYPE: "tag", GITHUB_REF_NAME: next },
        })
      ).code,
    ).toBe(0);
    const refused = await attempt(process.execPath, ["scripts/check-version.mjs", `v${next}`], { cwd: folder });
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(`tag "v${next}" differs from manifest.json version ${next}`);
  }, 60_000);

  it("refuses a manifest that lags package.json, and a versions.json without the version", async () => {
    const pkg = await readJson<Record<string, unknown>>(join(folder, "package.json"));
    await writeFile(join(folder, "package.json"), JSON.stringify({ ...pkg, version: "9.9.9" }));
    const lagging = await attempt(process.execPath, ["scripts/check-version.mjs"], { cwd: folder });
    expect(lagging.code).toBe(1);
    expect(lagging.out).toContain("package.json version 9.9.9 differs from manifest.json version");

    await writeFile(join(folder, "package.json"), JSON.stringify(pkg));
    await writeFile(join(folder, "versions.json"), "{}");
    const missing = await attempt(process.execPath, ["scripts/check-version.mjs"], { cwd: folder });
    expect(missing.code).toBe(1);
    expect(missing.out).toContain("versions.json has no entry for");
  });

  it("on a branch (no tag) it only notes what the owner has yet to fill in; for a tag, that blocks the release", async () => {
    const manifest = await readJson<Record<string, unknown>>(join(folder, "manifest.json"));
    const pkg = await readJson<Record<string, unknown>>(join(folder, "package.json"));
    const version = String(manifest.version);
    await writeFile(join(folder, "manifest.json"), JSON.stringify({ ...manifest, authorUrl: undefined }));
    await writeFile(join(folder, "package.json"), JSON.stringify({ ...pkg, repository: undefined }));
    const branch = await attempt(process.execPath, ["scripts/check-version.mjs"], {
      cwd: folder,
      env: { ...baseEnv, GITHUB_REF_TYPE: "branch", GITHUB_REF_NAME: "main" },
    });
    expect(branch.code).toBe(0);
    expect(branch.out).toContain("not filled in yet: package.json repository, manifest.json authorUrl");
    const tagged = await attempt(process.execPath, ["scripts/check-version.mjs", version], { cwd: folder });
    expect(tagged.code).toBe(1);

    await writeFile(
      join(folder, "manifest.json"),
      JSON.stringify({ ...manifest, authorUrl: "https://github.com/owner" }),
    );
    await writeFile(
      join(folder, "package.json"),
      JSON.stringify({ ...pkg, repository: { type: "git", url: "git+https://github.com/owner/hackmd-bridge.git" } }),
    );
    expect(
      (
        await attempt(process.execPath, ["scripts/check-version.mjs", version], {
          cwd: folder,
          env: { ...baseEnv, GITHUB_REPOSITORY: "owner/hackmd-bridge" },
        })
      ).code,
    ).toBe(0);
    const elsewhere = await attempt(process.execPath, ["scripts/check-version.mjs", version], {
      cwd: folder,
      env: { ...baseEnv, GITHUB_REPOSITORY: "someone/else" },
    });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.out).toContain("is not this repository");
  });
});
