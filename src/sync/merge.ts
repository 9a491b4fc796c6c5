/**
 * Line-based three-way merge of a note's baseline, local and remote bodies. It yields either a
 * clean merge (non-overlapping changes, identical changes on both sides) or an ordered list of
 * hunks in which the overlapping changes carry base, local and remote. It powers the conflict
 * modal and the explicit merge option; it never writes or pushes anything by itself.
 *
 * Why `node-diff3`: the decisions themselves (which regions are stable, which change came from
 * one side, which overlap, which are "false conflicts" where both sides made the same change)
 * are the diff3 algorithm of Khanna, Kunal and Pierce, and `node-diff3` is a maintained, tested
 * implementation of it (docs/architecture.md names it for this). We do not hand it whole notes,
 * though: its LCS (Hunt–McIlroy with a linear candidate scan) is quadratic or worse on long,
 * nearly identical inputs with repeated lines such as blank lines. Measured here: 1,000 such
 * lines take 0.3 s, 4,000 take 15 s, a 1 MB note over a minute. So the texts are first cut at
 * anchors — lines that occur exactly once in each of base, local and remote, in the same order
 * (the idea of patience diff) — and `diff3Merge` only sees the small ranges between anchors.
 * Lines shared by all three texts at the ends of a range are peeled off first, and when each side
 * changed a single stretch and the two stretches are apart, the merge needs no search at all.
 */
import { diff3Merge } from "node-diff3";

/** The three bodies to merge (already line-ending-normalised by the engine, docs/tools.md §11.2). */
export interface MergeInput {
  /** The baseline: the body both sides were last known to agree on. */
  base: string;
  /** The local file's body ("mine"). */
  local: string;
  /** The HackMD note's body ("theirs"). */
  remote: string;
}

/** A run of lines the merge settled: unchanged, changed on one side, or changed alike on both. */
export interface StableHunk {
  kind: "stable";
  /** The lines, without line breaks. */
  lines: string[];
}

/** A region both sides changed differently: what the base had there and what each side has. */
export interface ConflictHunk {
  kind: "conflict";
  /** The base's lines of the region, without line breaks (empty when both sides inserted). */
  base: string[];
  /** The local side's lines of the region, without line breaks. */
  local: string[];
  /** The remote side's lines of the region, without line breaks. */
  remote: string[];
}

/** One hunk of a conflicting merge, in text order. */
export type MergeHunk = StableHunk | ConflictHunk;

/** How to settle one conflict hunk: local lines, remote lines, or local then remote lines. */
export type MergeChoice = "local" | "remote" | "both";

/** A line break a merged text is joined with. */
export type MergeLineEnding = "\n" | "\r\n";

/** Whether each text ends with a line break. */
export interface FinalNewlines {
  base: boolean;
  local: boolean;
  remote: boolean;
}

/** A merge without overlapping changes: the merged body. */
export interface CleanMerge {
  clean: true;
  merged: string;
}

/** A merge with overlapping changes: the hunks, and what `resolveHunks` needs to rebuild text. */
export interface ConflictedMerge {
  clean: false;
  /** Stable and conflict hunks in text order; no two stable hunks are adjacent. */
  hunks: MergeHunk[];
  /** How many of the hunks are conflicts (≥ 1): the length `resolveHunks` expects of `choices`. */
  conflicts: number;
  /** The line break the result is joined with: the majority of local (else remote, else base); CRLF only if it wins. */
  lineEnding: MergeLineEnding;
  /** Final-newline presence of each input. */
  finalNewline: FinalNewlines;
}

/** The outcome of `threeWayMerge`. */
export type MergeResult = CleanMerge | ConflictedMerge;

/** Ranges whose base + local + remote line count is above this are not given to `diff3Merge`. */
export const MERGE_LEAF_LIMIT = 900;
/** How many times a range is re-cut at anchors that are unique within it. */
const MAX_ANCHOR_DEPTH = 8;

/**
 * Three-way merge of `base`, `local` and `remote`, line by line.
 *
 * - A side equal to the base yields the other side byte for byte; equal sides yield that text.
 * - Otherwise lines are split on `\n` (a `\r` before it belongs to the break) and the result is
 *   joined with the local body's majority line break, so LF and CRLF bodies survive (a body
 *   mixing both, which §11.2 normalisation rules out, comes out with the majority one).
 * - The final newline is kept when both sides agree; when only one side changed it, that
 *   change wins (a yes/no value cannot conflict).
 * - A range both sides changed (or touched at adjacent lines, or inserted into at the same
 *   place) differently becomes a conflict hunk.
 * - A range larger than `MERGE_LEAF_LIMIT` lines with no common anchor that both sides changed
 *   becomes one conflict hunk rather than being searched line by line (bounded work).
 */
export function threeWayMerge({ base, local, remote }: MergeInput): MergeResult {
  if (local === remote || remote === base) return { clean: true, merged: local };
  if (local === base) return { clean: true, merged: remote };

  const o = splitText(base);
  const a = splitText(local);
  const b = splitText(remote);
  const lineEnding = pickLineEnding(local, remote, base);
  const finalNewline: FinalNewlines = { base: o.final, local: a.final, remote: b.final };

  const single = mergeSeparateEdits(o.lines, a.lines, b.lines);
  if (single !== undefined)
    return { clean: true, merged: joinLines(single, lineEnding, mergedFinalNewline(finalNewline)) };

  // Lines shared by all three at either end need no ids; the rest become small integers once,
  // so every later comparison and count is an array access.
  const [head, tail] = sharedEnds(o.lines, a.lines, b.lines);
  const ids = new Map<string, number>();
  const texts: string[] = [];
  const intern = (lines: readonly string[]): Int32Array => {
    const out = new Int32Array(lines.length - head - tail);
    for (let i = 0; i < out.length; i++) {
      const line = lines[head + i]!;
      let id = ids.get(line);
      if (id === undefined) {
        id = texts.length;
        ids.set(line, id);
        texts.push(line);
      }
      out[i] = id;
    }
    return out;
  };
  const mo = intern(o.lines);
  const ma = intern(a.lines);
  const mb = intern(b.lines);
  const merger = new RangeMerger(mo, ma, mb, texts.length);
  merger.merge({ oLo: 0, oHi: mo.length, aLo: 0, aHi: ma.length, bLo: 0, bHi: mb.length }, 0);
  const lines = (list: readonly number[]): string[] => list.map((id) => texts[id]!);
  const hunks = merger.hunks.map((hunk): MergeHunk =>
    hunk.kind === "stable"
      ? { kind: "stable", lines: lines(hunk.lines) }
      : { kind: "conflict", base: lines(hunk.base), local: lines(hunk.local), remote: lines(hunk.remote) },
  );
  // The shared ends go back into the first and last stable hunks.
  if (head > 0) {
    const first = hunks[0];
    if (first?.kind === "stable") first.lines = [...o.lines.slice(0, head), ...first.lines];
    else hunks.unshift({ kind: "stable", lines: o.lines.slice(0, head) });
  }
  if (tail > 0) {
    const last = hunks[hunks.length - 1];
    if (last?.kind === "stable") last.lines = last.lines.concat(o.lines.slice(o.lines.length - tail));
    else hunks.push({ kind: "stable", lines: o.lines.slice(o.lines.length - tail) });
  }
  const conflicts = hunks.filter((hunk) => hunk.kind === "conflict").length;
  if (conflicts === 0) {
    const lines = hunks.flatMap((hunk) => (hunk.kind === "stable" ? hunk.lines : []));
    return { clean: true, merged: joinLines(lines, lineEnding, mergedFinalNewline(finalNewline)) };
  }
  return { clean: false, hunks, conflicts, lineEnding, finalNewline };
}

/**
 * Builds the text of a merge from one choice per conflict hunk, in order. Stable hunks are
 * taken as they are, so the result contains every change that merged cleanly.
 *
 * All `"local"` gives exactly `local` when every change remote made (final newline included)
 * lies inside a conflict hunk, that is when remote has no change of its own that merged
 * cleanly; otherwise the result is local plus those clean remote changes. All `"remote"`
 * likewise. The final newline follows the choice for a conflict hunk that ends the text
 * (`"both"`: remote's when remote has lines there), and otherwise the rule of `threeWayMerge`.
 * A clean result takes no choices and returns its merged body.
 */
export function resolveHunks(result: MergeResult, choices: readonly MergeChoice[]): string {
  if (result.clean) {
    if (choices.length !== 0)
      throw new RangeError(`resolveHunks: a clean merge takes no choices, got ${choices.length}`);
    return result.merged;
  }
  if (choices.length !== result.conflicts) {
    throw new RangeError(
      `resolveHunks: expected ${result.conflicts} choices (one per conflict hunk), got ${choices.length}`,
    );
  }
  const lines: string[] = [];
  let next = 0;
  let final = mergedFinalNewline(result.finalNewline);
  for (const [index, hunk] of result.hunks.entries()) {
    if (hunk.kind === "stable") {
      append(lines, hunk.lines);
      continue;
    }
    const choice = choices[next++];
    if (choice === "local" || choice === "both") append(lines, hunk.local);
    if (choice === "remote" || choice === "both") append(lines, hunk.remote);
    if (index === result.hunks.length - 1) {
      const remoteEnds = choice === "remote" || (choice === "both" && hunk.remote.length > 0);
      final = remoteEnds ? result.finalNewline.remote : result.finalNewline.local;
    }
  }
  return joinLines(lines, result.lineEnding, final);
}

// ---------------------------------------------------------------------------------------------
// Lines
// ---------------------------------------------------------------------------------------------

interface SplitText {
  lines: string[];
  final: boolean;
}

/** Splits on `\n`; a final `\n` ends the last line; `\r` is dropped only before a `\n`. */
function splitText(text: string): SplitText {
  if (text === "") return { lines: [], final: false };
  const lines = text.split("\n");
  const final = text.endsWith("\n");
  if (final) lines.pop();
  const terminated = final ? lines.length : lines.length - 1;
  for (let i = 0; i < terminated; i++) {
    const line = lines[i]!;
    if (line.endsWith("\r")) lines[i] = line.slice(0, -1);
  }
  return { lines, final };
}

/** `target.push(...source)` without the argument-count limit a long stable hunk would hit. */
function append(target: string[], source: readonly string[]): void {
  for (const line of source) target.push(line);
}

function joinLines(lines: readonly string[], ending: MergeLineEnding, final: boolean): string {
  return lines.join(ending) + (final && lines.length > 0 ? ending : "");
}

/** Both agree → that; only one side changed it → that side's. */
function mergedFinalNewline({ base, local, remote }: FinalNewlines): boolean {
  return local === base ? remote : local;
}

/** The majority line break of the first text that has one (local, then remote, then base). */
function pickLineEnding(...texts: string[]): MergeLineEnding {
  for (const text of texts) {
    let crlf = 0;
    let lf = 0;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
      if (i > 0 && text[i - 1] === "\r") crlf++;
      else lf++;
    }
    if (crlf + lf > 0) return crlf > lf ? "\r\n" : "\n";
  }
  return "\n";
}

/** Lines all three texts share at the start, and then at the end, as counts. */
function sharedEnds(o: readonly string[], a: readonly string[], b: readonly string[]): [number, number] {
  const shortest = Math.min(o.length, a.length, b.length);
  let head = 0;
  while (head < shortest && o[head] === a[head] && o[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < shortest - head &&
    o[o.length - 1 - tail] === a[a.length - 1 - tail] &&
    o[o.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  return [head, tail];
}

/**
 * The common case without any search: each side changed one stretch of the base (everything
 * else matches line for line from either end), and the two stretches are separated by at least
 * one untouched line. Returns the merged lines then, or undefined to take the general path.
 */
function mergeSeparateEdits(o: readonly string[], a: readonly string[], b: readonly string[]): string[] | undefined {
  const changed = (side: readonly string[]): { start: number; end: number; sideEnd: number } => {
    const shortest = Math.min(o.length, side.length);
    let start = 0;
    while (start < shortest && o[start] === side[start]) start++;
    let tail = 0;
    while (tail < shortest - start && o[o.length - 1 - tail] === side[side.length - 1 - tail]) tail++;
    return { start, end: o.length - tail, sideEnd: side.length - tail };
  };
  const x = changed(a);
  const y = changed(b);
  // diff3 calls changes that touch (end === start) overlapping, so a gap of one line is needed.
  const [first, firstSide, second, secondSide] = x.end < y.start ? [x, a, y, b] : y.end < x.start ? [y, b, x, a] : [];
  if (!first || !firstSide || !second || !secondSide) return undefined;
  return [
    ...o.slice(0, first.start),
    ...firstSide.slice(first.start, first.sideEnd),
    ...o.slice(first.end, second.start),
    ...secondSide.slice(second.start, second.sideEnd),
    ...o.slice(second.end),
  ];
}

// ---------------------------------------------------------------------------------------------
// Merging ranges
// ---------------------------------------------------------------------------------------------

/** Half-open line ranges of base (o), local (a) and remote (b). */
interface Range {
  oLo: number;
  oHi: number;
  aLo: number;
  aHi: number;
  bLo: number;
  bHi: number;
}

/** A hunk over interned line ids. */
type IdHunk =
  { kind: "stable"; lines: number[] } | { kind: "conflict"; base: number[]; local: number[]; remote: number[] };

/** Merges ranges of interned base (o), local (a) and remote (b) lines into hunks. */
class RangeMerger {
  readonly hunks: IdHunk[] = [];
  // Scratch counts and positions per line id for `anchors`, reset after each use.
  private readonly countO: Int32Array;
  private readonly countA: Int32Array;
  private readonly countB: Int32Array;
  private readonly atA: Int32Array;
  private readonly atB: Int32Array;

  constructor(
    private readonly o: Int32Array,
    private readonly a: Int32Array,
    private readonly b: Int32Array,
    distinct: number,
  ) {
    this.countO = new Int32Array(distinct);
    this.countA = new Int32Array(distinct);
    this.countB = new Int32Array(distinct);
    this.atA = new Int32Array(distinct);
    this.atB = new Int32Array(distinct);
  }

  /** Merges one range: shared ends first, then the middle. */
  merge(range: Range, depth: number): void {
    const { o, a, b } = this;
    let { oLo, oHi, aLo, aHi, bLo, bHi } = range;
    // Lines all three share at either end are settled without any search.
    const prefixStart = oLo;
    while (oLo < oHi && aLo < aHi && bLo < bHi && o[oLo] === a[aLo] && o[oLo] === b[bLo]) {
      oLo++;
      aLo++;
      bLo++;
    }
    this.stable(o, prefixStart, oLo);
    const suffixEnd = oHi;
    while (oHi > oLo && aHi > aLo && bHi > bLo && o[oHi - 1] === a[aHi - 1] && o[oHi - 1] === b[bHi - 1]) {
      oHi--;
      aHi--;
      bHi--;
    }
    this.middle({ oLo, oHi, aLo, aHi, bLo, bHi }, depth);
    this.stable(o, oHi, suffixEnd);
  }

  private middle(r: Range, depth: number): void {
    const { o, a, b } = this;
    if (r.oLo === r.oHi && r.aLo === r.aHi && r.bLo === r.bHi) return;
    if (same(o, r.oLo, r.oHi, a, r.aLo, r.aHi)) {
      this.stable(b, r.bLo, r.bHi);
      return;
    }
    if (same(o, r.oLo, r.oHi, b, r.bLo, r.bHi) || same(a, r.aLo, r.aHi, b, r.bLo, r.bHi)) {
      this.stable(a, r.aLo, r.aHi);
      return;
    }

    const chain = depth < MAX_ANCHOR_DEPTH ? this.anchors(r) : [];
    if (chain.length > 0) {
      let from = { o: r.oLo, a: r.aLo, b: r.bLo };
      for (const anchor of chain) {
        this.merge({ oLo: from.o, oHi: anchor.o, aLo: from.a, aHi: anchor.a, bLo: from.b, bHi: anchor.b }, depth + 1);
        this.stable(o, anchor.o, anchor.o + 1);
        from = { o: anchor.o + 1, a: anchor.a + 1, b: anchor.b + 1 };
      }
      this.merge({ oLo: from.o, oHi: r.oHi, aLo: from.a, aHi: r.aHi, bLo: from.b, bHi: r.bHi }, depth + 1);
      return;
    }

    const oLines = Array.from(o.subarray(r.oLo, r.oHi));
    const aLines = Array.from(a.subarray(r.aLo, r.aHi));
    const bLines = Array.from(b.subarray(r.bLo, r.bHi));
    if (oLines.length + aLines.length + bLines.length > MERGE_LEAF_LIMIT) {
      this.hunks.push({ kind: "conflict", base: oLines, local: aLines, remote: bLines });
      return;
    }
    for (const region of diff3Merge(aLines, oLines, bLines, { excludeFalseConflicts: true })) {
      if (region.ok) this.stableIds(region.ok);
      else if (region.conflict)
        this.hunks.push({
          kind: "conflict",
          base: region.conflict.o,
          local: region.conflict.a,
          remote: region.conflict.b,
        });
    }
  }

  /**
   * Lines that occur exactly once in each of the three ranges, as a chain increasing in base,
   * local and remote positions (a longest chain by local position, then by remote position).
   */
  private anchors(r: Range): Anchor[] {
    const { o, a, b, countO, countA, countB, atA, atB } = this;
    for (let i = r.oLo; i < r.oHi; i++) countO[o[i]!]!++;
    for (let i = r.aLo; i < r.aHi; i++) {
      const id = a[i]!;
      countA[id]!++;
      atA[id] = i;
    }
    for (let i = r.bLo; i < r.bHi; i++) {
      const id = b[i]!;
      countB[id]!++;
      atB[id] = i;
    }
    const unique: Anchor[] = [];
    for (let i = r.oLo; i < r.oHi; i++) {
      const id = o[i]!;
      if (countO[id] === 1 && countA[id] === 1 && countB[id] === 1) unique.push({ o: i, a: atA[id]!, b: atB[id]! });
    }
    for (let i = r.oLo; i < r.oHi; i++) countO[o[i]!] = 0;
    for (let i = r.aLo; i < r.aHi; i++) countA[a[i]!] = 0;
    for (let i = r.bLo; i < r.bHi; i++) countB[b[i]!] = 0;
    if (unique.length === 0) return [];
    const byLocal = longestIncreasing(unique, (anchor) => anchor.a);
    return longestIncreasing(byLocal, (anchor) => anchor.b);
  }

  private stable(source: Int32Array, lo: number, hi: number): void {
    if (lo >= hi) return;
    const target = this.openStable();
    for (let i = lo; i < hi; i++) target.push(source[i]!);
  }

  private stableIds(ids: readonly number[]): void {
    if (ids.length === 0) return;
    const target = this.openStable();
    for (const id of ids) target.push(id);
  }

  private openStable(): number[] {
    const last = this.hunks[this.hunks.length - 1];
    if (last?.kind === "stable") return last.lines;
    const hunk: IdHunk = { kind: "stable", lines: [] };
    this.hunks.push(hunk);
    return hunk.lines;
  }
}

function same(x: Int32Array, xLo: number, xHi: number, y: Int32Array, yLo: number, yHi: number): boolean {
  if (xHi - xLo !== yHi - yLo) return false;
  for (let i = 0; i < xHi - xLo; i++) if (x[xLo + i] !== y[yLo + i]) return false;
  return true;
}

interface Anchor {
  o: number;
  a: number;
  b: number;
}

/** A longest subsequence of `items` whose keys strictly increase (patience sorting, O(n log n)). */
function longestIncreasing<T>(items: readonly T[], key: (item: T) => number): T[] {
  const tails: number[] = []; // index into items of the smallest tail of each length
  const previous = new Array<number>(items.length).fill(-1);
  for (let i = 0; i < items.length; i++) {
    const value = key(items[i]!);
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (key(items[tails[mid]!]!) < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const chain: T[] = [];
  for (let i = tails[tails.length - 1] ?? -1; i !== -1; i = previous[i]!) chain.push(items[i]!);
  return chain.reverse();
}
