// What main.js holds, by package and src/ folder (or per file with --files): the code evaluated at
// load (reached from src/main.ts by static imports) and the code behind import() (in the file, and
// so parsed at load, but evaluated only at the import). From esbuild's metafile of the real build.
// Usage: node scripts/bundle-report.mjs [--files]
import process from "node:process";
import esbuild from "esbuild";
import pluginBuild from "./plugin-build.cjs";

const perFile = process.argv.includes("--files");
const options = pluginBuild.pluginOptions({ version: "report" });
const result = await esbuild.build({ ...options, write: false, metafile: true, logLevel: "warning" });
const { inputs, outputs } = result.metafile;
const output = Object.values(outputs)[0];
const entry = options.entryPoints[0];

// Static imports (and require calls) from the entry: evaluated at load.
const eager = new Set([entry]);
const queue = [entry];
while (queue.length > 0) {
  for (const edge of inputs[queue.pop()]?.imports ?? []) {
    if (edge.kind !== "dynamic-import" && !edge.external && !eager.has(edge.path)) {
      eager.add(edge.path);
      queue.push(edge.path);
    }
  }
}

/** The group an input belongs to: its package, or its folder under src/. */
function group(path) {
  if (perFile) return path;
  const at = path.lastIndexOf("node_modules/");
  const parts = (at === -1 ? path : path.slice(at)).split("/");
  if (parts[0] === "node_modules") return parts.slice(0, parts[1].startsWith("@") ? 3 : 2).join("/");
  return parts.slice(0, 2).join("/");
}

const all = Object.entries(output.inputs);
process.stdout.write(`main.js: ${(output.bytes / 1024).toFixed(1)} KiB\n\n`);
for (const [title, keep] of [
  ["evaluated at load (static imports of src/main.ts)", (path) => eager.has(path)],
  ["behind import() (parsed at load, evaluated at first import)", (path) => !eager.has(path)],
]) {
  const sizes = new Map();
  for (const [path, input] of all)
    if (keep(path)) sizes.set(group(path), (sizes.get(group(path)) ?? 0) + input.bytesInOutput);
  const total = [...sizes.values()].reduce((sum, bytes) => sum + bytes, 0);
  process.stdout.write(`${title}: ${(total / 1024).toFixed(1)} KiB\n`);
  for (const [name, bytes] of [...sizes].sort((a, b) => b[1] - a[1]))
    if (bytes >= 1024) process.stdout.write(`${(bytes / 1024).toFixed(1).padStart(8)}  ${name}\n`);
  process.stdout.write("\n");
}
