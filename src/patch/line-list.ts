/**
 * The body being patched, as a linked list of lines that hunks edit in place. Every line is
 * indexed by its text (and, once an anchor is looked up, by its trimmed text), and carries an
 * order label, so locating a hunk, finding an anchor, asking "is this line at or after that one"
 * and replacing lines each cost about the size of the hunk, not the size of the note.
 */

import type { Steps, WorkMeter } from "./steps";

/** One line of the body. Sentinels open and close the list. */
export class LineNode {
  prev: LineNode = this;
  next: LineNode = this;

  constructor(
    readonly text: string,
    /** Order label: strictly increasing from the head sentinel to the tail sentinel. */
    public label: number,
  ) {}
}

/**
 * Labels are integers below 2^52, exact in a double. When two neighbours have no label left
 * between them, the smallest aligned label range around them that is sparse enough is relabelled
 * evenly (Bender et al., "Two simplified algorithms for maintaining order in a list", 2002):
 * O(log n) amortised per insertion, so repeated insertions at one place stay cheap.
 */
const LABEL_BITS = 52;
const LABEL_END = 2 ** LABEL_BITS;
/** A range of 2^i labels may hold at most 2^i / DENSITY_BASE^i lines; 1 < base < 2. */
const DENSITY_BASE = 1.3;

/** Lines indexed by a key: one node stored bare, several in a set. */
class LineIndex {
  private readonly entries = new Map<string, LineNode | Set<LineNode>>();

  add(key: string, node: LineNode): void {
    const entry = this.entries.get(key);
    if (entry === undefined) this.entries.set(key, node);
    else if (entry instanceof Set) entry.add(node);
    else this.entries.set(key, new Set([entry, node]));
  }

  delete(key: string, node: LineNode): void {
    const entry = this.entries.get(key);
    if (entry === node) {
      this.entries.delete(key);
    } else if (entry instanceof Set) {
      entry.delete(node);
      if (entry.size === 1) this.entries.set(key, entry.values().next().value as LineNode);
    }
  }

  count(key: string): number {
    const entry = this.entries.get(key);
    if (entry === undefined) return 0;
    return entry instanceof Set ? entry.size : 1;
  }

  /** The nodes with `key`, in no particular order. */
  nodes(key: string): Iterable<LineNode> {
    const entry = this.entries.get(key);
    if (entry === undefined) return [];
    return entry instanceof Set ? entry : [entry];
  }
}

/** The lines of a body between a head and a tail sentinel. */
export class LineList {
  readonly head = new LineNode("", 0);
  readonly tail = new LineNode("", LABEL_END);
  /** Number of lines, sentinels excluded. */
  size = 0;
  private readonly byText = new LineIndex();
  /** Built by the first anchor lookup; kept current from then on. */
  private byTrimmed: LineIndex | undefined;

  private constructor() {
    this.head.next = this.tail;
    this.tail.prev = this.head;
  }

  /** A list of `lines`, labelled evenly over the whole label range. */
  static *of(lines: readonly string[], meter: WorkMeter): Steps<LineList> {
    const list = new LineList();
    const spacing = Math.floor(LABEL_END / (lines.length + 1));
    let last = list.head;
    for (const [index, text] of lines.entries()) {
      const node = new LineNode(text, (index + 1) * spacing);
      node.prev = last;
      last.next = node;
      last = node;
      list.byText.add(text, node);
      if (meter.spend()) yield;
    }
    last.next = list.tail;
    list.tail.prev = last;
    list.size = lines.length;
    return list;
  }

  /** The first line, or the tail sentinel when the list is empty. */
  get first(): LineNode {
    return this.head.next;
  }

  /** How many lines have exactly this text. */
  count(text: string): number {
    return this.byText.count(text);
  }

  /** The lines with exactly this text, in no particular order. */
  withText(text: string): Iterable<LineNode> {
    return this.byText.nodes(text);
  }

  /** The lines whose trimmed text equals `trimmed` (in no particular order) and how many there are. */
  *withTrimmedText(trimmed: string, meter: WorkMeter): Steps<{ count: number; nodes: Iterable<LineNode> }> {
    if (this.byTrimmed === undefined) {
      const index = new LineIndex();
      for (let node = this.first; node !== this.tail; node = node.next) {
        index.add(node.text.trim(), node);
        if (meter.spend()) yield;
      }
      this.byTrimmed = index;
    }
    return { count: this.byTrimmed.count(trimmed), nodes: this.byTrimmed.nodes(trimmed) };
  }

  /** Inserts a line with `text` right before `cursor` (a line or the tail) and returns it. */
  insertBefore(cursor: LineNode, text: string): LineNode {
    const after = cursor.prev;
    if (cursor.label - after.label < 2) this.relabelAround(after);
    const node = new LineNode(text, after.label + Math.floor((after.next.label - after.label) / 2));
    node.prev = after;
    node.next = after.next;
    after.next.prev = node;
    after.next = node;
    this.size++;
    this.byText.add(text, node);
    this.byTrimmed?.add(text.trim(), node);
    return node;
  }

  /** Unlinks a line (never a sentinel). */
  remove(node: LineNode): void {
    node.prev.next = node.next;
    node.next.prev = node.prev;
    this.size--;
    this.byText.delete(node.text, node);
    this.byTrimmed?.delete(node.text.trim(), node);
  }

  /** Spreads the labels around `node` so that at least two labels lie between it and its successor. */
  private relabelAround(node: LineNode): void {
    let low = node;
    let high = node;
    let count = 1;
    for (let bits = 1; bits <= LABEL_BITS; bits++) {
      const width = 2 ** bits;
      const start = Math.floor(node.label / width) * width;
      while (low !== this.head && low.prev.label >= start) {
        low = low.prev;
        count++;
      }
      while (high.next !== this.tail && high.next.label < start + width) {
        high = high.next;
        count++;
      }
      // Room for one more line, and the range no denser than its level allows.
      const spacing = width / (count + 1);
      if (spacing >= 2 && spacing >= DENSITY_BASE ** bits) {
        let index = 0;
        for (let at = low; ; at = at.next) {
          at.label = start + Math.floor(index++ * spacing);
          if (at === high) break;
        }
        return;
      }
    }
    throw new Error("patch engine: the line list ran out of order labels");
  }
}
