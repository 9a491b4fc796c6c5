/** Deterministic generated Markdown notes of a chosen size, for benches that need large bodies. */

/** A small seeded PRNG (mulberry32), so every run generates the same note. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "sync",
  "note",
  "baseline",
  "remote",
  "local",
  "merge",
  "hunk",
  "patch",
  "vault",
  "agent",
  "team",
  "folder",
  "hash",
  "draft",
  "review",
  "owner",
  "deadline",
  "budget",
  "meeting",
  "decision",
  "risk",
  "follow-up",
  "editor",
  "release",
];

/**
 * A Markdown note of at least `bytes` UTF-8 bytes (LF, final newline): sections with headings,
 * paragraphs, bullet lists, fenced code and tables, so it has the blank lines, fences and table
 * rules real notes repeat as well as mostly unique text lines.
 */
export function largeMarkdownNote(bytes: number, seed = 1): string {
  const random = seededRandom(seed);
  const word = (): string => WORDS[Math.floor(random() * WORDS.length)]!;
  const sentence = (n: number): string => Array.from({ length: n }, word).join(" ");
  const lines: string[] = ["# Large generated note", ""];
  let size = 0;
  for (let section = 1; size < bytes; section++) {
    const block: string[] = [`## Section ${section}: ${sentence(3)}`, ""];
    block.push(`Paragraph ${section}.1 ${sentence(14)}.`, `Paragraph ${section}.2 ${sentence(10)}.`, "");
    for (let item = 1; item <= 4; item++) block.push(`- item ${section}.${item}: ${sentence(6)}`);
    block.push("", "```ts", `const section${section} = "${sentence(4)}";`, "```", "");
    block.push(
      "| key | value |",
      "| --- | --- |",
      `| s${section}a | ${sentence(2)} |`,
      `| s${section}b | ${sentence(2)} |`,
      "",
      "---",
      "",
    );
    for (const line of block) size += line.length + 1;
    lines.push(...block);
  }
  return `${lines.join("\n")}\n`;
}
