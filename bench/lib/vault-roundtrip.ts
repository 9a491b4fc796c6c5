/**
 * A real vault's round trip through HackMD (the emulator on loopback), shared by
 * `npm run bench -- convert --vault <dir>` and tests/acceptance/vault-corpus.test.ts:
 *
 * 1. copy the vault to vault A and publish every note there (src/app/publish.ts); a note's
 *    links to notes published after it convert when those are (the engine relinks);
 * 2. for each seed: a fresh vault B with the vault's other files (images, …) but no notes, pull
 *    every note into it in a random order (seeded), and compare each file with the original —
 *    byte for byte, and with comments excepted (they stay in vault A by design);
 * 3. count the notes whose HackMD text still holds Obsidian-only syntax, by construct.
 *
 * It imports nothing from tests/ (benches must not).
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { publishFile } from "../../src/app/publish";
import { unavailableImageFetcher } from "../../src/core/image";
import { silentLogger, systemClock, systemSleep } from "../../src/core/ports";
import { startEmulator, type Emulator } from "../../src/emulator";
import { CallContext } from "../../src/hackmd/call-context";
import { createClientConfig, STANDALONE_TOKEN_HINT } from "../../src/hackmd/config";
import { createBridgeCore, type BridgeCore } from "../../src/mcp/core";
import { NodeHttpTransport } from "../../src/node/http-transport";
import { DEFAULT_CONFIG_DIR, NodeLocalFiles } from "../../src/node/local-files";
import { obsidianOnlySyntax } from "./obsidian-syntax";
import { seededRandom } from "./large-note";

/** What one vault's round trip found. */
export interface VaultReport {
  notes: number;
  published: number;
  failures: Array<{ path: string; reason: string }>;
  /** Per seed: files byte-identical to the original, identical with comments excepted, and the rest. */
  orders: Array<{
    seed: number;
    identical: number;
    identicalButComments: number;
    differing: string[];
    /** The first differing line of each differing file: original, then pulled. */
    firstDifference: Map<string, [string, string]>;
  }>;
  /** Notes whose HackMD text holds any Obsidian-only syntax. */
  withSyntax: number;
  /** Construct → notes holding it. */
  constructs: Array<[string, number]>;
  /** Note path → constructs left (for the report's examples). */
  leftIn: Map<string, string[]>;
  /** Files a pull added besides the notes (downloaded images). */
  addedFiles: string[];
  /** The HackMD text of every note, by vault path. */
  remote: Map<string, string>;
}

/** Every file under `dir` (ROOT-relative, `/`-separated), hidden folders skipped as Obsidian does. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const full = join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) out.push(relative(dir, full).split("\\").join("/"));
    }
  };
  await walk(dir);
  return out.sort();
}

export async function openCore(emu: Pick<Emulator, "url" | "token">, root: string): Promise<BridgeCore> {
  await mkdir(join(root, DEFAULT_CONFIG_DIR), { recursive: true });
  const files = await NodeLocalFiles.open({ root });
  return createBridgeCore({
    transport: new NodeHttpTransport(),
    config: createClientConfig({ apiUrl: emu.url, tokenHint: STANDALONE_TOKEN_HINT }),
    secrets: { getToken: () => emu.token },
    files,
    images: unavailableImageFetcher,
    clock: systemClock,
    sleep: systemSleep,
    random: Math.random,
    logger: silentLogger,
    convertByDefault: () => true,
  });
}

/** The seeded Fisher–Yates shuffle. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Comment sources by placeholder id, from vault A's kept conversions (`convert/<key>.json`). */
async function keptComments(root: string): Promise<Map<string, string>> {
  const comments = new Map<string, string>();
  const walk = async (folder: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name.endsWith(".json") && folder.endsWith("convert")) {
        try {
          const json = JSON.parse(await readFile(full, "utf8")) as {
            dependencies?: { comments?: Array<[string, string]> };
          };
          for (const [id, source] of json.dependencies?.comments ?? []) comments.set(id, source);
        } catch {
          // not a conversion file
        }
      }
    }
  };
  await walk(join(root, DEFAULT_CONFIG_DIR));
  return comments;
}

/** Runs the round trip of the vault at `source` (left untouched). */
export async function roundTripVault(
  source: string,
  options: { seeds: readonly number[]; log?: (line: string) => void },
): Promise<VaultReport> {
  const log = options.log ?? (() => undefined);
  const work = await mkdtemp(join(tmpdir(), "hb-vault-"));
  const emu = await startEmulator({ port: 0 });
  try {
    const vaultA = join(work, "A");
    await cp(source, vaultA, {
      recursive: true,
      filter: (path) => !relative(source, path).startsWith(DEFAULT_CONFIG_DIR),
    });
    const all = await listFiles(vaultA);
    const notes = all.filter((path) => path.endsWith(".md"));
    const others = all.filter((path) => !path.endsWith(".md"));
    const core = await openCore(emu, vaultA);
    const deps = core.deps;
    const failures: VaultReport["failures"] = [];
    const ids = new Map<string, string>();
    for (const path of notes) {
      try {
        const published = await publishFile(deps, new CallContext(), {
          path,
          teamPath: null,
          readPermission: "owner",
          writePermission: "owner",
        });
        ids.set(path, published.noteId);
      } catch (error) {
        failures.push({ path, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    log(`published ${ids.size}/${notes.length}`);
    const remote = new Map<string, string>();
    const byId = new Map(emu.inspect().notes.map((note) => [note.id, note.content]));
    for (const [path, id] of ids) remote.set(path, byId.get(id) ?? "");
    const counts = new Map<string, number>();
    const leftIn = new Map<string, string[]>();
    for (const [path, text] of remote) {
      const found = obsidianOnlySyntax(text);
      if (found.length === 0) continue;
      leftIn.set(path, found);
      for (const construct of found) counts.set(construct, (counts.get(construct) ?? 0) + 1);
    }
    const comments = await keptComments(vaultA);
    const orders: VaultReport["orders"] = [];
    const added = new Set<string>();
    for (const seed of options.seeds) {
      const vaultB = join(work, `B-${seed}`);
      await mkdir(vaultB, { recursive: true });
      for (const path of others) await cp(join(vaultA, path), join(vaultB, path), { recursive: true });
      const coreB = await openCore(emu, vaultB);
      for (const path of shuffled([...ids.keys()], seed)) {
        const noteId = ids.get(path) as string;
        await coreB.deps.sync.pull({
          localPath: path,
          resolveTarget: () => Promise.resolve({ status: "resolved", teamPath: null, noteId }),
          overwriteLocal: false,
          discardLocalChanges: false,
          createParentDirs: true,
          confirmLargeFile: true,
          convert: true,
          call: new CallContext(),
        });
      }
      let identical = 0;
      let identicalButComments = 0;
      const differing: string[] = [];
      const firstDifference = new Map<string, [string, string]>();
      for (const path of ids.keys()) {
        const [a, b] = await Promise.all([readFile(join(vaultA, path), "utf8"), readFile(join(vaultB, path), "utf8")]);
        if (a === b) identical += 1;
        else if (a === restoreComments(b, comments)) identicalButComments += 1;
        else {
          differing.push(path);
          const [linesA, linesB] = [a.split("\n"), restoreComments(b, comments).split("\n")];
          const at = linesA.findIndex((line, i) => line !== linesB[i]);
          firstDifference.set(path, [linesA[at] ?? "(end)", linesB[at] ?? "(end)"]);
        }
      }
      for (const path of await listFiles(vaultB)) if (!all.includes(path)) added.add(path);
      orders.push({ seed, identical, identicalButComments, differing, firstDifference });
      log(
        `seed ${seed}: ${identical} byte-identical, ${identicalButComments} identical but for comments, ${differing.length} differ`,
      );
    }
    return {
      notes: notes.length,
      published: ids.size,
      failures,
      orders,
      withSyntax: leftIn.size,
      constructs: [...counts].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0])),
      leftIn,
      addedFiles: [...added].sort(),
      remote,
    };
  } finally {
    await emu.close();
    await rm(work, { recursive: true, force: true });
  }
}

/** A pulled file with the placeholders of comments vault A kept written back as `%%…%%`. */
function restoreComments(text: string, comments: ReadonlyMap<string, string>): string {
  return text.replace(/<!--obsidian-comment:([0-9a-f]{16})-->/g, (whole, id: string) => {
    const source = comments.get(id);
    if (source === undefined) return whole;
    // A block comment's source is its `%%` lines and all (docs/conversion-rules.md, Comments).
    return source.includes("\n") ? source : `%%${source}%%`;
  });
}

/** Whether `dir` is a folder. */
export async function isFolder(dir: string): Promise<boolean> {
  return (await stat(dir).catch(() => undefined))?.isDirectory() === true;
}
