/** Reporting helpers shared by the benches: sample statistics, plain-text tables, machine info. */
import process from "node:process";
import { cpus, loadavg, platform, release, totalmem } from "node:os";

/** Summary of a sample of durations in milliseconds. */
export interface Summary {
  n: number;
  p50: number;
  p95: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of an ascending sample (p in 0–100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

/** p50, p95, mean, min and max of a sample. */
export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** Milliseconds with a precision that suits the magnitude. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

/** A ratio as `1.23×`. */
export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : "n/a";
}

/** A plain-text table with a header rule; `right` lists right-aligned column indexes. */
export function table(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  right: readonly number[] = [],
): string {
  const widths = header.map((title, column) =>
    Math.max([...title].length, ...rows.map((row) => [...(row[column] ?? "")].length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => {
        const pad = " ".repeat(Math.max(0, (widths[column] ?? 0) - [...cell].length));
        return right.includes(column) ? pad + cell : cell + pad;
      })
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map((row) => line(row))].join(
    "\n",
  );
}

/** Node version, OS, CPU model and count, memory, load and the date. */
export function machineInfo(): string {
  const cores = cpus();
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
  return [
    `date:    ${new Date().toISOString()}`,
    `node:    ${process.version} (${platform()} ${release()})`,
    `cpu:     ${cores[0]?.model.trim() ?? "unknown"} × ${cores.length}`,
    `memory:  ${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    `load:    ${load} (1/5/15 min averages at start)`,
  ].join("\n");
}

/** The current 1-minute load average, for noting how busy the machine was. */
export function loadNow(): string {
  return loadavg()[0]?.toFixed(2) ?? "n/a";
}
