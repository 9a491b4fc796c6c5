// Compares two V8 heap snapshots by object count per constructor name (closures by function
// name, other nodes by their type, in parentheses): what grew between them, largest growth
// first. Used with `npm run bench -- memory --snapshot DIR` (issue 13).
//
// Usage: node bench/heap-diff.mjs before.heapsnapshot after.heapsnapshot [--top N]
import { readFileSync } from "node:fs";

function counts(path) {
  const snapshot = JSON.parse(readFileSync(path, "utf8"));
  const { node_fields: fields, node_types: types } = snapshot.snapshot.meta;
  const typeNames = types[0];
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const { nodes, strings } = snapshot;
  const byName = new Map();
  for (let index = 0; index < nodes.length; index += width) {
    const type = typeNames[nodes[index + typeAt]];
    // Every other kind of node (strings, code, arrays of the engine) is summed by its type.
    if (type !== "object" && type !== "closure") {
      const entry = byName.get(`(${type})`) ?? { count: 0, bytes: 0 };
      entry.count += 1;
      entry.bytes += nodes[index + sizeAt];
      byName.set(`(${type})`, entry);
      continue;
    }
    const key = `${type === "closure" ? "closure " : ""}${strings[nodes[index + nameAt]]}`;
    const entry = byName.get(key) ?? { count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += nodes[index + sizeAt];
    byName.set(key, entry);
  }
  return byName;
}

const args = process.argv.slice(2);
const topAt = args.indexOf("--top");
const top = topAt === -1 ? 25 : Number(args[topAt + 1]);
const [beforePath, afterPath] = args.filter((arg, index) => !arg.startsWith("--") && index !== topAt + 1);
if (!beforePath || !afterPath) {
  process.stderr.write("usage: node bench/heap-diff.mjs before.heapsnapshot after.heapsnapshot [--top N]\n");
  process.exit(2);
}
const before = counts(beforePath);
const after = counts(afterPath);
const rows = [...after]
  .map(([name, entry]) => ({ name, before: before.get(name)?.count ?? 0, after: entry.count, grew: entry.count - (before.get(name)?.count ?? 0), bytes: entry.bytes - (before.get(name)?.bytes ?? 0) }))
  .filter((row) => row.grew > 0 || row.bytes > 0)
  .sort((a, b) => b.bytes - a.bytes)
  .slice(0, top);
process.stdout.write(`${"objects grown (by constructor / closure name)".padEnd(60)} ${"before".padStart(8)} ${"after".padStart(8)} ${"+count".padStart(8)} ${"+bytes".padStart(10)}\n`);
for (const row of rows) {
  process.stdout.write(`${row.name.slice(0, 60).padEnd(60)} ${String(row.before).padStart(8)} ${String(row.after).padStart(8)} ${String(row.grew).padStart(8)} ${String(row.bytes).padStart(10)}\n`);
}
