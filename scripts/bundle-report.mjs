// What main.js compiles at load and what it keeps packed (deflated) until first import (issue 13).
// Usage: node scripts/bundle-report.mjs [--files]   (groups by package / src folder, or per file)
import esbuild from "esbuild";
import bundle from "./plugin-bundle.cjs";

const perFile = process.argv.includes("--files");
const options = bundle.pluginOptions({ version: "report" });
const { outfile: _outfile, ...rest } = options;
const result = await esbuild.build({
  ...rest,
  format: "esm",
  splitting: true,
  outdir: "bundle-report",
  entryNames: "main",
  chunkNames: "chunk-[hash]",
  write: false,
  metafile: true,
  logLevel: "warning",
});
const outputs = result.metafile.outputs;
const entry = Object.keys(outputs).find((name) => outputs[name].entryPoint === options.entryPoints[0]);
const eager = new Set([entry]);
const queue = [entry];
while (queue.length > 0) {
  for (const edge of outputs[queue.pop()].imports) {
    if (edge.kind === "import-statement" && !edge.external && !eager.has(edge.path)) {
      eager.add(edge.path);
      queue.push(edge.path);
    }
  }
}

/** The group an input belongs to: its package, or its folder under src/. */
function group(path) {
  if (perFile) return path;
  const parts = path.split("/");
  if (parts[0] === "node_modules") return parts.slice(0, parts[1].startsWith("@") ? 3 : 2).join("/");
  return parts.slice(0, 2).join("/");
}

for (const [title, names] of [["compiled at load", [...eager]], ["packed (deflated) until first import", Object.keys(outputs).filter((name) => !eager.has(name))]]) {
  const sizes = new Map();
  for (const name of names) for (const [path, input] of Object.entries(outputs[name].inputs)) sizes.set(group(path), (sizes.get(group(path)) ?? 0) + input.bytesInOutput);
  const total = [...sizes.values()].reduce((sum, bytes) => sum + bytes, 0);
  process.stdout.write(`${title}: ${(total / 1024).toFixed(1)} KiB in ${names.length} chunk(s)\n`);
  for (const [name, bytes] of [...sizes].sort((a, b) => b[1] - a[1])) if (bytes >= 1024) process.stdout.write(`${(bytes / 1024).toFixed(1).padStart(8)}  ${name}\n`);
  process.stdout.write("\n");
}
