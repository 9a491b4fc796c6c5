/**
 * The command line as data: every subcommand's options, positionals, help and exit codes are a
 * CommandSpec; one parser (node:util parseArgs in token mode) checks a command line against it
 * and turns every mistake into a UsageError that names the fix ("did you mean --dry-run?").
 * The same specs render `--help`, `help <command>` and the README's exit-code table.
 */
import { parseArgs } from "node:util";
import { UsageError } from "./output";

/** One option of a subcommand (long form only; `-h` is the one short form, for `--help`). */
export interface OptionDef {
  type: "string" | "boolean";
  /** How the value is shown in help, e.g. `<dir>`; string options only. */
  value?: string;
  /** One line of help. */
  help: string;
}

/** Options by long name (without the leading `--`). */
export type OptionDefs = Readonly<Record<string, OptionDef>>;

/** What each exit code means for one subcommand (README's exit-code table is built from these). */
export interface ExitCodeMeanings {
  0: string;
  1?: string;
  2: string;
}

/** A subcommand described as data. */
export interface CommandSpec {
  name: string;
  /** One line for the command list of `hackmd-bridge --help`. */
  summary: string;
  /** What follows `hackmd-bridge <name>` in the usage line, e.g. `<note_ref> <path> [options]`. */
  synopsis: string;
  /** A paragraph or two for `<name> --help`. */
  description?: string;
  positionals: { required: readonly string[]; optional?: readonly string[] };
  /** The subcommand's own options. */
  options: OptionDefs;
  /** Shared option groups it also takes. */
  shared: ReadonlyArray<keyof typeof SHARED_OPTIONS>;
  exitCodes: ExitCodeMeanings;
  examples?: readonly string[];
}

/** Option values after parsing: strings for string options, `true` for booleans given. */
export type ParsedValues = Readonly<Record<string, string | boolean | undefined>>;

/** A checked command line. */
export interface ParsedLine {
  values: ParsedValues;
  positionals: string[];
  /** `--help` or `-h` was given: the caller prints the help and exits 0. */
  help: boolean;
}

/** The shared option groups. */
export const SHARED_OPTIONS = {
  root: {
    root: { type: "string", value: "<dir>", help: "the folder every local file operation is confined to" },
    "config-dir": { type: "string", value: "<name>", help: "the vault configuration folder inside the root (default .obsidian when present)" },
    "protect-agent-files": { type: "string", value: "<true|false>", help: "refuse to write files coding agents read as instructions (default true)" },
  },
  json: {
    json: { type: "boolean", help: "print exactly one JSON object on stdout instead of text" },
  },
} as const satisfies Record<string, OptionDefs>;

/** Every option a spec accepts: its own, then its shared groups. */
export function allOptions(spec: CommandSpec): OptionDefs {
  return Object.assign({}, spec.options, ...spec.shared.map((group) => SHARED_OPTIONS[group])) as OptionDefs;
}

/**
 * Checks a command line against a spec. `--help`/`-h` anywhere before `--` wins over every other
 * check. Unknown options, missing or unexpected values and a wrong number of positionals are
 * UsageErrors whose message names the fix; `others` lets an option of another subcommand be
 * named as such.
 */
export function parseCommandLine(spec: CommandSpec, args: readonly string[], others: readonly CommandSpec[] = []): ParsedLine {
  const defs = allOptions(spec);
  const parseOptions: Record<string, { type: "string" | "boolean"; short?: string }> = { help: { type: "boolean", short: "h" } };
  for (const [name, def] of Object.entries(defs)) parseOptions[name] = { type: def.type };
  const { tokens } = parseArgs({ args: [...args], options: parseOptions, strict: false, allowPositionals: true, tokens: true });
  const values: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  const problems: UsageError[] = [];
  let help = false;
  for (const token of tokens) {
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === "option-terminator") continue;
    if (token.name === "help") {
      help = true;
      continue;
    }
    const def = defs[token.name];
    if (def === undefined) {
      problems.push(new UsageError(unknownOption(spec, token.rawName, others)));
      continue;
    }
    if (def.type === "boolean") {
      if (token.inlineValue === true || token.value !== undefined) problems.push(new UsageError(`--${token.name} takes no value; write just --${token.name}`));
      else values[token.name] = true;
      continue;
    }
    // `--root --json`: parseArgs would take `--json` as the folder; that is a forgotten value.
    if (token.value === undefined || token.value === "" || (token.inlineValue === false && token.value.startsWith("--"))) {
      problems.push(new UsageError(`--${token.name} needs a value: --${token.name} ${def.value ?? "<value>"}`));
      continue;
    }
    values[token.name] = token.value;
  }
  if (help) return { values, positionals, help };
  const first = problems[0];
  if (first !== undefined) throw first;
  checkPositionals(spec, positionals);
  return { values, positionals, help };
}

/** The message for an option the spec does not take. */
function unknownOption(spec: CommandSpec, rawName: string, others: readonly CommandSpec[]): string {
  const written = rawName;
  const name = rawName.replace(/^-+/, "");
  const known = Object.keys(allOptions(spec));
  const close = closest(name, known);
  if (close !== undefined) return `unknown option ${written}; did you mean --${close}?`;
  const owners = others.filter((other) => other.name !== spec.name && name in allOptions(other)).map((other) => other.name);
  if (owners.length > 0) return `${written} is not an option of ${spec.name} (it goes with ${owners.join(", ")}); see hackmd-bridge ${spec.name} --help`;
  return `unknown option ${written}; see hackmd-bridge ${spec.name} --help for its options`;
}

/** Checks the number of positionals against the spec. */
function checkPositionals(spec: CommandSpec, given: readonly string[]): void {
  const required = spec.positionals.required;
  const optional = spec.positionals.optional ?? [];
  if (given.length < required.length) {
    const missing = required.slice(given.length).map((name) => `<${name}>`).join(" ");
    throw new UsageError(`missing ${missing}`);
  }
  const max = required.length + optional.length;
  if (given.length > max) {
    const extra = given.slice(max);
    if (max === 0) throw new UsageError(`${spec.name} takes no arguments, but got ${extra.map((value) => JSON.stringify(value)).join(" ")}`);
    throw new UsageError(`${spec.name} takes at most ${max} argument${max === 1 ? "" : "s"} (${[...required, ...optional].map((name) => `<${name}>`).join(" ")}), but got ${given.length}; unexpected ${extra.map((value) => JSON.stringify(value)).join(" ")}`);
  }
}

/**
 * The candidate closest to `input` (optimal string alignment distance, so one swapped pair
 * counts as one edit), if it is close enough to be what was meant.
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  const allowed = Math.max(1, Math.floor(Math.max(input.length, best.length) / 3));
  if (bestDistance <= allowed) return best;
  // A clear prefix (`--dry` for `--dry-run`) counts too.
  const prefixed = candidates.filter((candidate) => input.length >= 3 && candidate.startsWith(input));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i]!;
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

/** `hackmd-bridge <name> <synopsis>`. */
export function usageLine(spec: CommandSpec): string {
  return `hackmd-bridge ${spec.name}${spec.synopsis === "" ? "" : ` ${spec.synopsis}`}`;
}

/** Lays out `label  text` rows with the texts aligned. */
function rows(entries: ReadonlyArray<readonly [string, string]>, indent = "  "): string {
  const width = Math.min(34, Math.max(...entries.map(([label]) => label.length)));
  return entries.map(([label, text]) => (label.length > width ? `${indent}${label}\n${indent}${" ".repeat(width)}  ${text}` : `${indent}${label.padEnd(width)}  ${text}`)).join("\n");
}

/** How an option reads in help: `--root <dir>`, `--protect-agent-files=<true|false>`, `--json`. */
function optionLabel(name: string, def: OptionDef): string {
  if (def.type === "boolean") return `--${name}`;
  return name === "protect-agent-files" ? `--${name}=${def.value ?? "<value>"}` : `--${name} ${def.value ?? "<value>"}`;
}

/** The help of one subcommand (`<name> --help`, `help <name>`). */
export function commandHelp(spec: CommandSpec, notes: { rootDefault: string }): string {
  const defs = allOptions(spec);
  const optionRows: Array<[string, string]> = Object.entries(defs).map(([name, def]) => [
    optionLabel(name, def),
    name === "root" ? `${def.help} (default: ${notes.rootDefault})` : def.help,
  ]);
  optionRows.push(["-h, --help", "show this help"]);
  const codes = ([0, 1, 2] as const).flatMap((code) => (spec.exitCodes[code] === undefined ? [] : [[String(code), spec.exitCodes[code]] as [string, string]]));
  const parts = [`hackmd-bridge ${spec.name} — ${spec.summary}`, "", `Usage: ${usageLine(spec)}`];
  if (spec.description !== undefined) parts.push("", spec.description);
  parts.push("", "Options:", rows(optionRows), "", "Exit codes:", rows(codes));
  if (spec.examples !== undefined && spec.examples.length > 0) parts.push("", "Examples:", ...spec.examples.map((example) => `  ${example}`));
  return `${parts.join("\n")}\n`;
}

/** The command list of `hackmd-bridge --help`, grouped. */
export function commandList(groups: ReadonlyArray<{ title: string; commands: readonly CommandSpec[] }>): string {
  return groups.map(({ title, commands }) => `${title}\n${rows(commands.map((spec) => [spec.name, spec.summary]))}`).join("\n\n");
}

/** The README's exit-code table: one row per subcommand, one column per code. */
export function exitCodeTable(specs: readonly CommandSpec[]): string {
  const cell = (text: string | undefined): string => (text === undefined ? "—" : text.replace(/\|/g, "\\|").replace(/</g, "&lt;").replace(/>/g, "&gt;"));
  const lines = ["| Command | 0 | 1 | 2 |", "|---|---|---|---|"];
  for (const spec of specs) lines.push(`| \`${spec.name}\` | ${cell(spec.exitCodes[0])} | ${cell(spec.exitCodes[1])} | ${cell(spec.exitCodes[2])} |`);
  return lines.join("\n");
}
