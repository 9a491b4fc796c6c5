/**
 * Compares two V8 heap snapshots by node count per constructor name (closures by function name,
 * other nodes by their type, in parentheses): what grew between them, largest growth first.
 * Used by `npm run bench -- memory --heap-diff before.heapsnapshot,after.heapsnapshot` (bench/README.md).
 */
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Tally {
  count: number;
  bytes: number;
}

function tally(path: string): Map<string, Tally> {
  const snapshot = JSON.parse(readFileSync(path, "utf8")) as Snapshot;
  const { node_fields: fields, node_types: types } = snapshot.snapshot.meta;
  const typeNames = types[0];
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const { nodes, strings } = snapshot;
  const byName = new Map<string, Tally>();
  for (let index = 0; index < nodes.length; index += width) {
    const type = typeNames[nodes[index + typeAt] ?? 0] ?? "?";
    const name = strings[nodes[index + nameAt] ?? 0] ?? "?";
    const key = type === "object" ? name : type === "closure" ? `closure ${name}` : `(${type})`;
    const entry = byName.get(key) ?? { count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += nodes[index + sizeAt] ?? 0;
    byName.set(key, entry);
  }
  return byName;
}

/** The rows that grew from `beforePath` to `afterPath`, as a printable table. */
export function heapDiff(beforePath: string, afterPath: string, top = 25): string {
  const before = tally(beforePath);
  const after = tally(afterPath);
  const rows = [...after]
    .map(([name, entry]) => {
      const was = before.get(name) ?? { count: 0, bytes: 0 };
      return {
        name,
        before: was.count,
        after: entry.count,
        grew: entry.count - was.count,
        bytes: entry.bytes - was.bytes,
      };
    })
    .filter((row) => row.grew > 0 || row.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top);
  const line = (cells: string[]): string =>
    `${(cells[0] ?? "").slice(0, 60).padEnd(60)} ${cells
      .slice(1)
      .map((cell, i) => cell.padStart(i === 3 ? 10 : 8))
      .join(" ")}`;
  return [
    line(["grown (constructor, closure name or (type))", "before", "after", "+count", "+bytes"]),
    ...rows.map((row) => line([row.name, String(row.before), String(row.after), String(row.grew), String(row.bytes)])),
  ].join("\n");
}
