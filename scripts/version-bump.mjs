// The `version` lifecycle script of `npm version <patch|minor|major|x.y.z>` (the Obsidian sample
// plugin's version-bump.mjs): npm has already written the new version into package.json (and
// package-lock.json); this copies it into manifest.json and adds it to versions.json with the
// manifest's minAppVersion, then stages both so npm's commit and tag include them. The tag has no
// "v" prefix (.npmrc: tag-version-prefix=""), as the community directory wants tag == version.
import { readFileSync, writeFileSync } from "node:fs";
import process from "node:process";

const version = process.env.npm_package_version ?? JSON.parse(readFileSync("package.json", "utf8")).version;
if (!/^\d+\.\d+\.\d+$/.test(version))
  throw new Error(`version-bump: "${version}" is not x.y.z (Obsidian compares plain versions)`);

const manifest = JSON.parse(readFileSync("manifest.json", "utf8"));
manifest.version = version;
writeFileSync("manifest.json", `${JSON.stringify(manifest, null, 2)}\n`);

const versions = JSON.parse(readFileSync("versions.json", "utf8"));
versions[version] = manifest.minAppVersion;
writeFileSync("versions.json", `${JSON.stringify(versions, null, 2)}\n`);

process.stdout.write(
  `version-bump: manifest.json and versions.json at ${version} (minAppVersion ${manifest.minAppVersion})\n`,
);
