/**
 * What README.md tells a user to run: every line of its `sh` code blocks (comments dropped), every
 * other code block whole (configuration snippets: TOML, JSON), and every inline code span that is a
 * whole command line (it starts with a command a user types: npm, npx, node, hackmd-bridge, …).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "./checkout";

export interface ReadmeEntry {
  /** `sh` (one command line), `toml` or `json` (a whole snippet), or `inline` (a command in a span). */
  kind: "sh" | "toml" | "json" | "inline";
  /** The command line or the snippet, as the README writes it (an sh line without its comment). */
  text: string;
  /** The README line it starts on (1-based), for messages. */
  line: number;
}

/** Words that start a command line in an inline span. */
const COMMAND_START = /^(?:[A-Z][A-Z0-9_]*=\S*\s+)*(?:npm|npx|node|hackmd-bridge|claude|cd|mkdir|cp|which)(?:\s|$)/;

/** Reads README.md (or the given text) and lists what it tells a user to run. */
export function readmeEntries(text = readFileSync(join(REPO, "README.md"), "utf8")): ReadmeEntry[] {
  const lines = text.split("\n");
  const entries: ReadmeEntry[] = [];
  const prose: Array<{ text: string; line: number }> = [];
  for (let index = 0; index < lines.length; index++) {
    const fence = /^```(\w*)\s*$/.exec(lines[index] ?? "");
    if (fence === null) {
      prose.push({ text: lines[index] ?? "", line: index + 1 });
      continue;
    }
    const lang = fence[1] ?? "";
    const start = index + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? "")) end++;
    const body = lines.slice(start, end);
    if (lang === "sh" || lang === "bash" || lang === "") {
      body.forEach((raw, offset) => {
        // A comment starts with " #" after the command (no command line here has " # " inside it).
        const command = raw.replace(/\s+#\s.*$/, "").trim();
        if (command !== "" && !command.startsWith("#"))
          entries.push({ kind: "sh", text: command, line: start + offset + 1 });
      });
    } else if (lang === "toml" || lang === "json") {
      entries.push({ kind: lang, text: body.join("\n"), line: start + 1 });
    } else {
      throw new Error(`README.md line ${start}: a \`\`\`${lang} block; the acceptance suite knows sh, toml and json`);
    }
    index = end;
  }
  // Inline spans, within each paragraph (a span may wrap onto the next line).
  const paragraphs: Array<{ text: string; line: number }> = [];
  for (const { text: proseLine, line } of prose) {
    const last = paragraphs[paragraphs.length - 1];
    if (proseLine.trim() === "" || last === undefined) paragraphs.push({ text: proseLine, line });
    else last.text += `\n${proseLine}`;
  }
  for (const paragraph of paragraphs) {
    for (const match of paragraph.text.matchAll(/`([^`]+)`/g)) {
      const span = (match[1] ?? "").replace(/\s+/g, " ").trim();
      // A lone word (`hackmd-bridge`, `npx`) names a program; a command line has arguments.
      if (!COMMAND_START.test(span) || !span.includes(" ")) continue;
      const line = paragraph.line + paragraph.text.slice(0, match.index).split("\n").length - 1;
      entries.push({ kind: "inline", text: span, line });
    }
  }
  return entries;
}
