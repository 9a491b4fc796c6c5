/**
 * Where a run's time goes: counts and summed durations of every file-system call the Node adapter
 * makes (node:fs/promises, FileHandle methods and the synchronous calls, wrapped in place) and of
 * every SHA-256 digest (WebCrypto's, and the synchronous one the Node host installs),
 * grouped as path checks, stats, reads, writes, listings and hashing, each split into state-folder
 * and working files. Calls overlap (several are in flight at once), so the sums can exceed the
 * wall time; their shares still show what dominates. Bench-only: nothing in src/ knows of it.
 */
import "../../src/node/node-apis-install";
import type * as FsSync from "node:fs";
import type * as FsPromises from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import process from "node:process";
import { installedSyncSha256, useSyncSha256 } from "../../src/core/hash";
import { nodeSha256 } from "../../src/node/node-sha256";

// The module object itself (an `import * as` namespace is a read-only copy in the bundle), so the
// adapter's calls, which go through it, see the wrappers: Node's require, named for an ES module
// (the place it resolves from does not matter for Node's own modules).
const nodeRequire = createRequire(join(process.cwd(), "package.json"));
const fsp = nodeRequire("node:fs/promises") as typeof FsPromises;
const fs = nodeRequire("node:fs") as typeof FsSync;

type Group = "path checks" | "stats" | "reads" | "writes" | "listings" | "hashing";
const GROUPS: readonly Group[] = ["path checks", "stats", "reads", "writes", "listings", "hashing"];

interface Tally {
  count: number;
  ms: number;
}

/** A snapshot of the tallies: `${group} ${state|files|root|-}` → count and summed ms. */
export type FsTallies = Map<string, Tally>;

export interface FsProfiler {
  /** The tallies since the last reset (a copy). */
  snapshot(): FsTallies;
  /** Resets the tallies; `root` (absolute, real) and `stateFolder` (ROOT-relative) name the sides from now on. */
  reset(root: string, stateFolder: string): void;
}

let installed: Promise<FsProfiler> | undefined;

/** Wraps the file-system calls and the digest (once per process). */
export function installFsProfiler(): Promise<FsProfiler> {
  installed ??= install();
  return installed;
}

async function install(): Promise<FsProfiler> {
  const tallies: FsTallies = new Map();
  let root = "/nonexistent";
  let statePrefix = "/nonexistent";
  const side = (path: unknown): string => {
    const text = typeof path === "string" ? path : "";
    if (text === root) return "root";
    if (text.startsWith(statePrefix)) return "state";
    return text.startsWith(root) ? "files" : "-";
  };
  const add = (group: Group, where: string, ms: number): void => {
    const key = `${group}|${where}`;
    const tally = tallies.get(key) ?? { count: 0, ms: 0 };
    tally.count += 1;
    tally.ms += ms;
    tallies.set(key, tally);
  };
  const handleSide = new WeakMap<object, { where: string; write: boolean }>();
  const timed = async <T>(group: Group, where: string, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      add(group, where, performance.now() - started);
    }
  };
  const mutable = fsp as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const wrap = (name: string, group: (args: unknown[]) => Group): void => {
    const original = mutable[name] as (...args: unknown[]) => Promise<unknown>;
    mutable[name] = (...args: unknown[]) => timed(group(args), side(args[0]), () => original(...args));
  };
  // The adapter's synchronous path checks (ROOT identity, realpath).
  const timedSync = <T>(group: Group, where: string, work: () => T): T => {
    const started = performance.now();
    try {
      return work();
    } finally {
      add(group, where, performance.now() - started);
    }
  };
  const syncFs = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
  const statSync = syncFs.statSync as (...args: unknown[]) => unknown;
  syncFs.statSync = (...args: unknown[]) =>
    timedSync(side(args[0]) === "root" ? "path checks" : "stats", side(args[0]), () => statSync(...args));
  const realpathNative = fs.realpathSync.native as (...args: unknown[]) => unknown;
  (fs.realpathSync as unknown as Record<string, unknown>).native = (...args: unknown[]) =>
    timedSync("path checks", side(args[0]), () => realpathNative(...args));
  const lstatSync = syncFs.lstatSync as (...args: unknown[]) => unknown;
  syncFs.lstatSync = (...args: unknown[]) => timedSync("path checks", side(args[0]), () => lstatSync(...args));
  // Reads by descriptor (node/local-files.ts reads small files synchronously): side by descriptor.
  const fdSide = new Map<number, string>();
  const openSync = syncFs.openSync as (...args: unknown[]) => number;
  syncFs.openSync = (...args: unknown[]) => {
    const flags = typeof args[1] === "number" ? args[1] : 0;
    const where = side(args[0]);
    const fd = timedSync((flags & 3) !== 0 ? "writes" : "reads", where, () => openSync(...args));
    fdSide.set(fd, where);
    return fd;
  };
  for (const name of ["fstatSync", "readSync", "closeSync"]) {
    const original = syncFs[name] as (...args: unknown[]) => unknown;
    syncFs[name] = (...args: unknown[]) => {
      const where = fdSide.get(args[0] as number) ?? "-";
      if (name === "closeSync") fdSide.delete(args[0] as number);
      return timedSync("reads", where, () => original(...args));
    };
  }
  wrap("realpath", () => "path checks");
  wrap("lstat", () => "path checks");
  wrap("stat", (args) => (side(args[0]) === "root" ? "path checks" : "stats"));
  wrap("readdir", () => "listings");
  for (const name of ["rename", "unlink", "mkdir", "chmod", "rm"]) wrap(name, () => "writes");
  const originalOpen = mutable.open as (...args: unknown[]) => Promise<FsPromises.FileHandle>;
  mutable.open = async (...args: unknown[]) => {
    const flags = typeof args[1] === "number" ? args[1] : 0;
    const write = (flags & 3) !== 0;
    const where = side(args[0]);
    const handle = await timed(write ? "writes" : "reads", where, () => originalOpen(...args));
    handleSide.set(handle, { where, write });
    return handle;
  };
  // FileHandle methods live on its prototype: wrap them through one handle.
  const probe = await originalOpen(process.execPath, "r");
  const proto = Object.getPrototypeOf(probe) as Record<string, (...args: unknown[]) => Promise<unknown>>;
  await probe.close();
  for (const name of ["read", "stat", "close", "writeFile", "sync", "chmod"]) {
    const original = proto[name] as (...args: unknown[]) => Promise<unknown>;
    proto[name] = function (this: object, ...args: unknown[]) {
      const known = handleSide.get(this);
      const group: Group =
        known?.write === true || name === "writeFile" || name === "sync" || name === "chmod" ? "writes" : "reads";
      return timed(group, known?.where ?? "-", () => original.apply(this, args));
    };
  }
  const subtle = crypto.subtle as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const digest = subtle.digest?.bind(crypto.subtle) as (...args: unknown[]) => Promise<unknown>;
  subtle.digest = (...args: unknown[]) => timed("hashing", "-", () => digest(...args));
  // The Node host's synchronous digest (installed here first, so NodeLocalFiles.open keeps it).
  const sync = installedSyncSha256() ?? nodeSha256;
  useSyncSha256((bytes) => timedSync("hashing", "-", () => sync(bytes)));
  return {
    snapshot: () => new Map([...tallies].map(([key, tally]) => [key, { ...tally }])),
    reset: (newRoot, stateFolder) => {
      tallies.clear();
      root = newRoot;
      statePrefix = `${newRoot}/${stateFolder}`;
    },
  };
}

/** `path checks 31,000 calls 2.1 s (state 1.2, files 0.9) / reads …`, largest first. */
export function tallyText(tallies: FsTallies): string {
  const byGroup = new Map<Group, { count: number; ms: number; sides: Map<string, number> }>();
  for (const [key, tally] of tallies) {
    const [group, where] = key.split("|") as [Group, string];
    const entry = byGroup.get(group) ?? { count: 0, ms: 0, sides: new Map<string, number>() };
    entry.count += tally.count;
    entry.ms += tally.ms;
    entry.sides.set(where, (entry.sides.get(where) ?? 0) + tally.ms);
    byGroup.set(group, entry);
  }
  return GROUPS.filter((group) => byGroup.has(group))
    .map((group) => [group, byGroup.get(group) as { count: number; ms: number; sides: Map<string, number> }] as const)
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([group, entry]) => {
      const sides = [...entry.sides]
        .filter(([where]) => where !== "-")
        .map(([where, ms]) => `${where} ${(ms / 1000).toFixed(2)}`);
      return `${group} ${entry.count} calls ${(entry.ms / 1000).toFixed(2)} s${sides.length > 1 ? ` (${sides.join(", ")})` : ""}`;
    })
    .join("; ");
}
