// Checks that a release's version is the same everywhere: package.json, manifest.json,
// versions.json (an entry for the version with the manifest's minAppVersion) and, when releasing,
// the tag. The tag is the first argument, or GITHUB_REF_NAME when GitHub Actions runs for a tag
// (GITHUB_REF_TYPE=tag); on a branch there is no tag to compare.
//
// When releasing it also asks for what a published plugin must name: package.json's
// `repository` and manifest.json's `authorUrl` (both left for the owner to fill in until the
// repository exists; without a tag their absence is only reported).
//
// Usage: node scripts/check-version.mjs [tag]     exit 1 and one line per problem when they disagree
import { readFileSync } from "node:fs";
import process from "node:process";

const read = (file) => JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), "utf8"));
const manifest = read("manifest.json");
const pkg = read("package.json");
const versions = read("versions.json");
const env = process.env;
const tag =
  process.argv[2] ??
  (env.GITHUB_REF_TYPE === "tag" || env.GITHUB_REF?.startsWith("refs/tags/") ? env.GITHUB_REF_NAME : undefined);

const problems = [];
const notes = [];
const plain = /^\d+\.\d+\.\d+$/;
if (!plain.test(manifest.version ?? "")) problems.push(`manifest.json version "${manifest.version}" is not x.y.z`);
if (pkg.version !== manifest.version)
  problems.push(
    `package.json version ${pkg.version} differs from manifest.json version ${manifest.version} (bump with npm version, which runs scripts/version-bump.mjs)`,
  );
if (!(manifest.version in versions)) problems.push(`versions.json has no entry for ${manifest.version}`);
else if (versions[manifest.version] !== manifest.minAppVersion)
  problems.push(
    `versions.json maps ${manifest.version} to ${versions[manifest.version]}, manifest.json's minAppVersion is ${manifest.minAppVersion}`,
  );
for (const key of Object.keys(versions)) if (!plain.test(key)) problems.push(`versions.json key "${key}" is not x.y.z`);
if (tag !== undefined && tag !== manifest.version)
  problems.push(
    `tag "${tag}" differs from manifest.json version ${manifest.version} (the tag must equal it, without a "v")`,
  );

const repositoryUrl = typeof pkg.repository === "string" ? pkg.repository : pkg.repository?.url;
const missing = [];
if (!repositoryUrl) missing.push("package.json repository");
if (!manifest.authorUrl) missing.push("manifest.json authorUrl");
if (manifest.authorUrl && !/^https:\/\//.test(manifest.authorUrl))
  problems.push(`manifest.json authorUrl "${manifest.authorUrl}" is not an https URL`);
if (repositoryUrl && env.GITHUB_REPOSITORY && !repositoryUrl.includes(`github.com/${env.GITHUB_REPOSITORY}`)) {
  problems.push(
    `package.json repository ${repositoryUrl} is not this repository (github.com/${env.GITHUB_REPOSITORY})`,
  );
}
if (missing.length > 0)
  (tag !== undefined ? problems : notes).push(
    `not filled in yet: ${missing.join(", ")} (the owner names the public repository; see CONTRIBUTING.md "Releasing")`,
  );

for (const note of notes) process.stdout.write(`check-version: note: ${note}\n`);
if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`check-version: ${problem}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(
    `check-version: ${manifest.version} in package.json, manifest.json and versions.json${tag !== undefined ? ` and tag ${tag}` : ""}\n`,
  );
}
