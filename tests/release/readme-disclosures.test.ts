/**
 * README.md as the community directory's reader meets it: its first screen says what the plugin
 * needs and touches, it installs the plugin three ways, and its screenshots exist.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../acceptance/checkout";

const readme = readFileSync(join(REPO, "README.md"), "utf8");
/** What a reader sees before scrolling: the title and everything above the first section. */
const firstScreen = readme.slice(0, readme.indexOf("\n## "));

it("the first screen states the account and token, what leaves the machine, and what is read outside the vault", () => {
  expect(firstScreen).toContain("HackMD account and an API token");
  expect(firstScreen).toContain("What leaves your machine");
  expect(firstScreen).toMatch(/HackMD's API/);
  expect(firstScreen).toMatch(/image/);
  expect(firstScreen).toMatch(/127\.0\.0\.1/);
  expect(firstScreen).toContain("outside the vault");
  expect(firstScreen).toMatch(/symbolic link/);
  expect(firstScreen.split("\n").length).toBeLessThan(45);
});

it("installs from the community directory, with BRAT, and by hand with Restricted mode off", () => {
  const install = readme.slice(readme.indexOf("## Installing the plugin into a vault"));
  expect(install).toContain("community directory");
  expect(install).toContain("BRAT");
  expect(install).toContain("`<vault>/.obsidian/plugins/hackmd-bridge/`");
  expect(install).toContain("Restricted mode off");
  for (const step of ["Token.", "Pull a first note.", "Push.", "Resolve a conflict."]) expect(install).toContain(step);
});

it("every embedded screenshot exists", () => {
  const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((match) => match[1] ?? "");
  expect(images.length).toBeGreaterThanOrEqual(3);
  for (const image of images) expect(existsSync(join(REPO, image))).toBe(true);
});
