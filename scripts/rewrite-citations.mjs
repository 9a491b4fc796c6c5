#!/usr/bin/env node
// Rewrites citations of texts outside the repository into citations of docs/ in the repository
// (and drops the two of the product brief, PRODUCT.md, whose sentences read without them):
// "TOOLS.md §X" → "docs/tools.md §X", HACKMD_API.md → docs/hackmd-api.md, STYLE.md → docs/style.md,
// ARCHITECTURE.md §N → the docs/architecture.md section that now holds that subject, and "issue N"
// → the page that describes what issue N built (or nothing, where the sentence reads without it).
//
// Only comments are touched in source files (a small scanner tells comments from strings, template
// literals and regular expressions); in test files string literals are also cleaned (test titles),
// by dropping the issue number. Markdown files are rewritten as a whole. Idempotent: a second run
// changes nothing. Prints a count per rule; `--check` changes nothing and exits 1 if a run would.
//
// Usage: node scripts/rewrite-citations.mjs [--check] [root]

import process from "node:process";
import { readFileSync, writeFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

const args = process.argv.slice(2);
const CHECK = args.includes("--check");
const ROOT = args.find((a) => !a.startsWith("--")) ?? process.cwd();

const SOURCE_DIRS = ["src", "tests", "bench", "scripts", "docs"];
const SOURCE_FILES = ["README.md"];
const CODE_EXT = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SELF = "scripts/rewrite-citations.mjs";

/** What each issue built, and the page in the repository that describes it now. */
const ISSUES = {
  8: { doc: "docs/adr/0004-one-queue.md", topic: "concurrency" },
  9: { doc: "docs/tool-contract-extensions.md", topic: "conflict resolution" },
  10: { doc: "README.md", topic: "the command line" },
  11: { doc: "docs/conversion-rules.md", topic: "conversion" },
  12: { doc: "docs/versions-and-comments.md", topic: "versions and comments" },
  13: { doc: "docs/architecture.md §5", topic: "load time" },
  14: { doc: "docs/tool-contract-extensions.md", topic: "the tool policy" },
  15: { doc: "docs/auto-sync.md", topic: "automatic sync" },
};
/** Per-folder targets that fit better than the default (benchmarks are described in bench/). */
const ISSUE_DOC_BY_PREFIX = [{ prefix: "bench/", issue: 13, doc: "bench/README.md" }];

/** Sections of the old architecture sketch → sections of docs/architecture.md that hold them now. */
const ARCH_SECTIONS = {
  1: "docs/architecture.md §1",
  2: "docs/architecture.md §2",
  3: "docs/architecture.md §1", // ports: "One core, two hosts"
  4: "docs/architecture.md §3", // flows
  5: "docs/architecture.md §4", // the MCP endpoint
  6: "docs/architecture.md §7", // toolchain → build
  7: "bench/README.md", // performance budgets
};

/** Exact phrases that read badly under the general rules: [from, to]. Applied first. */
const PHRASES = [
  // Whole sentences and headings that name an issue as their subject.
  [
    "Issue 14 (docs/tool-contract-extensions.md): the tool policy and the user's approval.",
    "The tool policy and the user's approval (docs/tool-contract-extensions.md).",
  ],
  ['Issue 8, "the editor\'s unsaved text": ', "The editor's unsaved text: "],
  ["Issue 12's tools, beside the 14.", "The versions and comments tools, beside the 14."],
  ["(issue 12's tools)", "(the versions and comments tools)"],
  ["- Issue 15's typical day", "- The typical day of docs/auto-sync.md"],
  ["issue 15's typical day", "the typical day"],
  ["issue 15's typical use", "the typical use of docs/auto-sync.md"],
  [
    "the overlapping operations of issue 8 (sequences 1–4, 6 and 7)",
    "overlapping operations (docs/adr/0004-one-queue.md)",
  ],
  ["the 5 of issue 12", "the 5 of docs/versions-and-comments.md"],
  ["Added beside the 14 by issue 12 (", "Added beside the 14 ("],
  ["Since issue 12 every deliberate overwrite", "Every deliberate overwrite"],
  ["(no `McpServer` since issue 13: it only", "(no `McpServer`: it only"],
  [" (issue 10, 8)", ""],
  ["Open editors (issue 8):", 'Open editors (docs/architecture.md §5, "Vault host"):'],
  ["(TOOLS.md §1.3, issue 9)", "(docs/tools.md §1.3, docs/architecture.md §5)"],
  ["dropped without the user asking (issue 9)", "dropped without the user asking (docs/style.md rule 6)"],
  ['issue 9 "snapshot lifecycle"', 'docs/sync-decision-table.md "The snapshot\'s end"'],
  [', issue 9 "nothing discarded\n * unasked")', ": nothing discarded\n * unasked)"],
  [
    'Issue "HackMD versions and\n  comments" makes',
    "Naming a version first (`docs/versions-and-comments.md`)\n  makes",
  ],
  ["loads exactly what ships. Issue 13.", "loads exactly what ships."],
  [
    "Where an issue\nextends it, the extension is written here",
    "Where the code\nextends it, the extension is written here",
  ],
  // Files outside the repository named without their file name.
  ["(the API notes beside the repository, §1.2)", "(docs/hackmd-api.md §1.2)"],
  ["TOOLS.md (kept beside the repository)", "docs/tools.md"],
  ["(TOOLS.md, kept\nbeside the repository)", "(docs/tools.md)"],
  ['(ARCHITECTURE.md §4 "Obsidian command")', "(docs/architecture.md §3)"],
  // The product brief, also outside the repository: the sentence says what it asked for.
  [
    "(PRODUCT.md: token in secret storage, connection test, defaults, MCP endpoint)",
    "(token in secret storage, connection test, defaults, MCP endpoint)",
  ],
  [' (PRODUCT.md: "copy-ready client\n * configurations"). Pure', ".\n * Pure"],
  [
    "the roughly 400 KiB that\n  ARCHITECTURE.md §6 expects",
    "the roughly 400 KiB that\n  the first toolchain plan expected",
  ],
];

const counts = new Map();
const count = (rule, n = 1) => counts.set(rule, (counts.get(rule) ?? 0) + n);

function issueDoc(n, file) {
  for (const o of ISSUE_DOC_BY_PREFIX) if (o.issue === n && file.startsWith(o.prefix)) return o.doc;
  return ISSUES[n]?.doc;
}
const docFile = (doc) => doc.split(" ")[0];
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** Index of the "(" that encloses position i in text, or -1. */
function enclosingOpen(text, i) {
  let depth = 0;
  for (let k = i - 1; k >= 0 && k >= i - 400; k--) {
    const c = text[k];
    if (c === "\n" && text[k - 1] === "\n") return -1;
    if (c === ")") depth++;
    else if (c === "(") {
      if (depth === 0) return k;
      depth--;
    }
  }
  return -1;
}
/** Index of the ")" closing the "(" at p, or -1. */
function closing(text, p) {
  let depth = 0;
  for (let k = p; k < text.length && k < p + 800; k++) {
    if (text[k] === "\n" && text[k + 1] === "\n") return -1;
    if (text[k] === "(") depth++;
    else if (text[k] === ")" && --depth === 0) return k;
  }
  return -1;
}

/**
 * Rewrites one piece of prose. `mode` "cite" replaces issue numbers by the page that describes
 * them; "drop" only removes them (strings in tests, where a path reads oddly).
 */
function rewriteProse(text, file, mode) {
  let out = text;
  for (const [from, to] of PHRASES) {
    if (out.includes(from)) {
      const n = out.split(from).length - 1;
      out = out.split(from).join(to);
      count("exact phrases", n);
    }
  }

  // ARCHITECTURE.md §N → the section that holds that subject now; bare → the page.
  out = out.replace(/ARCHITECTURE\.md(?: (§(\d+)))?/g, (_m, sec, n) => {
    count("ARCHITECTURE.md → docs/architecture.md");
    if (!sec) return "docs/architecture.md";
    return ARCH_SECTIONS[n] ?? `docs/architecture.md ${sec}`;
  });
  out = out.replace(/TOOLS\.md/g, () => (count("TOOLS.md → docs/tools.md"), "docs/tools.md"));
  out = out.replace(/HACKMD_API\.md/g, () => (count("HACKMD_API.md → docs/hackmd-api.md"), "docs/hackmd-api.md"));
  out = out.replace(/STYLE\.md/g, () => (count("STYLE.md → docs/style.md"), "docs/style.md"));

  // "Issue N (1, 2): text" / "Issue N: text" opening a sentence, a comment or a heading: the rest
  // says what the test or section is about, so the number goes and the sentence starts anew.
  out = out.replace(/Issue (\d+)(?: \([\d, ]+\))?: (\S)/g, (_m, _n, c) => {
    count('"Issue N: …" dropped');
    return c.toUpperCase();
  });
  // "Issue N" as the subject of a sentence or heading → what the issue built.
  out = out.replace(/Issue (\d+)\b/g, (m, n) => {
    const topic = ISSUES[n]?.topic;
    if (!topic) return m;
    count('"Issue N" → its subject');
    return cap(topic);
  });

  // Lower-case "issue N", normally inside parentheses among other references.
  const re = /issue (\d+)\b/g;
  let m;
  let guard = 0;
  while ((m = re.exec(out)) !== null && guard++ < 10000) {
    const n = Number(m[1]);
    const doc = issueDoc(n, file);
    if (!doc) continue;
    const start = m.index;
    const end = start + m[0].length;
    const p = enclosingOpen(out, start);
    const q = p >= 0 ? closing(out, p) : -1;
    const inParens = p >= 0 && q >= end;
    const inner = inParens ? out.slice(p + 1, q) : "";
    const self = docFile(doc) === file;
    const redundant = inParens && (inner.includes(docFile(doc)) || inner.includes(doc));
    if (mode === "drop" || self || redundant || !inParens) {
      if (!inParens && mode === "cite" && !self) {
        // Outside parentheses the number is part of a phrase ("of issue 8"): cite the page instead.
        out = out.slice(0, start) + doc + out.slice(end);
        re.lastIndex = start + doc.length;
        count('"issue N" → its page');
        continue;
      }
      // Remove the element and one separator; an emptied parenthesis goes with its leading space.
      let a = start;
      let b = end;
      const after = out.slice(b).match(/^[,;:]\s*/);
      if (after) b += after[0].length;
      else {
        const before = out.slice(0, a).match(/[,;]\s*$/);
        if (before) a -= before[0].length;
      }
      if (inParens && out.slice(p + 1, a).trim() === "" && out.slice(b, q).trim() === "") {
        a = p;
        b = q + 1;
        if (a > 0 && out[a - 1] === " ") a--;
      }
      out = out.slice(0, a) + out.slice(b);
      re.lastIndex = a;
      count('"issue N" dropped');
      continue;
    }
    out = out.slice(0, start) + doc + out.slice(end);
    re.lastIndex = start + doc.length;
    count('"issue N" → its page');
  }
  return out;
}

/**
 * Splits JavaScript/TypeScript source into code, comments and string-like literals, well enough
 * for comments: strings, template literals (with nested `${}`) and regular-expression literals are
 * skipped so that nothing inside them is mistaken for a comment.
 */
function segments(src) {
  const parts = [];
  let i = 0;
  let codeStart = 0;
  let lastSignificant = "";
  const pushCode = (end) => {
    if (end > codeStart) parts.push({ kind: "code", text: src.slice(codeStart, end) });
  };
  const regexAllowedAfter = (ch, word) =>
    ch === "" ||
    "(,=:[!&|?{};+-*%<>~^".includes(ch) ||
    /^(return|typeof|case|do|else|in|of|void|yield|await)$/.test(word);
  let lastWord = "";
  const templateDepth = [];
  while (i < src.length) {
    const c = src[i];
    const d = src[i + 1];
    if (c === "/" && d === "/") {
      pushCode(i);
      let j = src.indexOf("\n", i);
      if (j < 0) j = src.length;
      parts.push({ kind: "comment", text: src.slice(i, j) });
      i = codeStart = j;
      continue;
    }
    if (c === "/" && d === "*") {
      pushCode(i);
      let j = src.indexOf("*/", i + 2);
      j = j < 0 ? src.length : j + 2;
      parts.push({ kind: "comment", text: src.slice(i, j) });
      i = codeStart = j;
      continue;
    }
    if (c === '"' || c === "'") {
      pushCode(i);
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1;
      j = Math.min(j + 1, src.length);
      parts.push({ kind: "string", text: src.slice(i, j) });
      i = codeStart = j;
      lastSignificant = c;
      lastWord = "";
      continue;
    }
    if (c === "`" || (c === "}" && templateDepth.length && templateDepth[templateDepth.length - 1] === 0)) {
      // A template literal, or its continuation after a `${…}`.
      if (c === "}") templateDepth.pop();
      pushCode(i);
      let j = i + 1;
      let opened = false;
      while (j < src.length && src[j] !== "`") {
        if (src[j] === "\\") j += 2;
        else if (src[j] === "$" && src[j + 1] === "{") {
          j += 2;
          templateDepth.push(0);
          opened = true;
          break;
        } else j++;
      }
      if (!opened) j = Math.min(j + 1, src.length);
      parts.push({ kind: "template", text: src.slice(i, j) });
      i = codeStart = j;
      lastSignificant = "`";
      lastWord = "";
      continue;
    }
    if (c === "{" && templateDepth.length) templateDepth[templateDepth.length - 1]++;
    if (c === "}" && templateDepth.length) templateDepth[templateDepth.length - 1]--;
    if (c === "/" && regexAllowedAfter(lastSignificant, lastWord)) {
      pushCode(i);
      let j = i + 1;
      let inClass = false;
      while (j < src.length && src[j] !== "\n") {
        if (src[j] === "\\") j += 2;
        else if (src[j] === "[" || src[j] === "]") {
          inClass = src[j] === "[";
          j++;
        } else if (src[j] === "/" && !inClass) break;
        else j++;
      }
      j++;
      while (j < src.length && /[a-z]/i.test(src[j])) j++;
      parts.push({ kind: "regex", text: src.slice(i, j) });
      i = codeStart = j;
      lastSignificant = "/";
      lastWord = "";
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (/[A-Za-z0-9_$]/.test(c)) {
      let j = i;
      while (j < src.length && /[A-Za-z0-9_$]/.test(src[j])) j++;
      lastWord = src.slice(i, j);
      lastSignificant = "a";
      i = j;
      continue;
    }
    lastSignificant = c === ")" || c === "]" ? "a" : c;
    lastWord = "";
    i++;
  }
  pushCode(src.length);
  return parts;
}

const PATTERN =
  /TOOLS\.md|STYLE\.md|ARCHITECTURE\.md|HACKMD_API\.md|PRODUCT\.md|[Ii]ssue (\d+|")|beside the repository/;

function rewriteFile(rel, src) {
  if (!CODE_EXT.test(rel)) {
    // Markdown: a heading only loses its issue number; the prose cites the page.
    const headed = src
      .split("\n")
      .map((line) => (/^#+ /.test(line) && PATTERN.test(line) ? rewriteProse(line, rel, "drop") : line))
      .join("\n");
    return rewriteProse(headed, rel, "cite");
  }
  // Test titles and benchmark reports are read by maintainers only.
  const isTest = rel.startsWith("tests/") || rel.startsWith("bench/");
  return segments(src)
    .map((part) => {
      if (!PATTERN.test(part.text)) return part.text;
      if (part.kind === "comment") return rewriteProse(part.text, rel, "cite");
      // Strings: only in tests and benchmarks, and generated comments written out by build scripts.
      if (part.kind === "string" && (isTest || /^["']\/\/ /.test(part.text))) {
        const before = part.text;
        const after = rewriteProse(before, rel, "drop");
        if (after !== before) count("(of which in strings of tests and generated comments)");
        return after;
      }
      return part.text;
    })
    .join("");
}

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".") || name === "__snapshots__") continue;
    const full = join(dir, name);
    const st = statSync(full);
    if (st.isDirectory()) yield* walk(full);
    else if (CODE_EXT.test(name) || name.endsWith(".md")) yield full;
  }
}

const files = [];
for (const d of SOURCE_DIRS) {
  try {
    if (statSync(join(ROOT, d)).isDirectory()) files.push(...walk(join(ROOT, d)));
  } catch {
    // a missing folder has nothing to rewrite
  }
}
for (const f of SOURCE_FILES) {
  try {
    if (statSync(join(ROOT, f)).isFile()) files.push(join(ROOT, f));
  } catch {
    // no such file
  }
}

let changed = 0;
for (const full of files) {
  const rel = relative(ROOT, full).split(sep).join("/");
  if (rel === SELF) continue;
  const src = readFileSync(full, "utf8");
  if (!PATTERN.test(src)) continue;
  const out = rewriteFile(rel, src);
  if (out !== src) {
    changed++;
    if (!CHECK) writeFileSync(full, out);
    else process.stdout.write(`would change ${rel}\n`);
  }
}

for (const [rule, n] of [...counts.entries()].sort()) process.stdout.write(`${String(n).padStart(5)}  ${rule}\n`);
process.stdout.write(`${String(changed).padStart(5)}  files ${CHECK ? "that would change" : "changed"}\n`);
if (CHECK && changed > 0) process.exitCode = 1;
