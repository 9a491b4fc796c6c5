/**
 * The command line as data: every subcommand's options, positionals, help and exit codes are a
 * CommandSpec; one parser checks a command line against it and turns every mistake into a
 * UsageError that names the fix ("did you mean --dry-run?"). The same specs render `--help`,
 * `help <command>` and the README's exit-code table.
 *
 * The parser is our own rather than node:util parseArgs because note ids are base64url: one in
 * 64 begins with `-`, and parseArgs reads `-ve4vn…` as a group of short flags (one of them `-h`).
 * Here only `--help` and a standalone `-h` ask for help; any other word of one dash and more than
 * one character is an argument (a note id, a file name); `--` ends the options.
 */
import { DEFAULT_CONFIG_DIR } from "../local-files";
import { UsageError } from "./output";

/** One option of a subcommand (long form only; `-h` is the one short form, for `--help`). */
export interface OptionDef {
  type: "string" | "boolean";
  /** How the value is shown in help, e.g. `<dir>`; string options only. */
  value?: string;
  /** One line of help. */
  help: string;
  /**
   * A string option that may be given more than once; its values accumulate, in order. Any other
   * string option given twice is a usage error (never "the last one wins").
   */
  repeatable?: boolean;
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

/**
 * Option values after parsing: strings for string options, `true` for booleans given, and for a
 * repeatable option every value given, in order.
 */
export type ParsedValues = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

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
    "config-dir": {
      type: "string",
      value: "<name>",
      help: `the vault configuration folder inside the root (default ${DEFAULT_CONFIG_DIR} when present)`,
    },
    "protect-agent-files": {
      type: "string",
      value: "<true|false>",
      help: "refuse to write files coding agents read as instructions (default true)",
    },
  },
  json: {
    json: { type: "boolean", help: "print exactly one JSON object on stdout instead of text" },
  },
} as const satisfies Record<string, OptionDefs>;

/** Every option a spec accepts: its own, then its shared groups. */
export function allOptions(spec: CommandSpec): OptionDefs {
  return Object.assign({}, spec.options, ...spec.shared.map((group) => SHARED_OPTIONS[group])) as OptionDefs;
}

/** What every help of a command with arguments says about arguments that begin with `-`. */
export const DASH_ARGUMENT_NOTE = [
  "An argument that begins with - (one note id in 64 does) is read as an argument, not an option;",
  "-- ends the options, so everything after it is an argument: hackmd-bridge pull -- -PxV… plan.md",
].join("\n");

/**
 * Parses `args` (what follows the subcommand) against the spec. `--help`/`-h` anywhere before `--`
 * wins over every other check. Unknown options, missing or unexpected values, a single-valued
 * option given twice and a wrong number of positionals are UsageErrors whose message names the
 * fix; `others` lets an option of another subcommand be named as such.
 */
export function parseCommandLine(
  spec: CommandSpec,
  args: readonly string[],
  others: readonly CommandSpec[] = [],
): ParsedLine {
  const defs = allOptions(spec);
  const values: Record<string, string | boolean | string[]> = {};
  const positionals: string[] = [];
  const problems: UsageError[] = [];
  let help = false;
  let index = 0;
  let optionsEnded = false;
  while (index < args.length) {
    const arg = args[index++] ?? "";
    if (optionsEnded || arg === "-" || !arg.startsWith("-")) {
      positionals.push(arg);
      continue;
    }
    if (arg === "--") {
      optionsEnded = true;
      continue;
    }
    if (!arg.startsWith("--")) {
      // One dash: `-h` is help; `-x` is an unknown short option; anything longer is an argument
      // (a note id such as -PxV… or -ve4vn…), unless it is a long option written with one dash.
      const word = arg.slice(1).split("=")[0] ?? "";
      if (arg === "-h") help = true;
      else if (arg.length === 2) problems.push(new UsageError(unknownOption(spec, arg, others)));
      else if (word === "help" || Object.hasOwn(defs, word))
        problems.push(new UsageError(`${arg} has one dash; write --${arg.slice(1)}`));
      else positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf("=");
    const name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
    const inline = equals === -1 ? undefined : arg.slice(equals + 1);
    if (name === "help") {
      help = true;
      continue;
    }
    const def = Object.hasOwn(defs, name) ? defs[name] : undefined;
    if (def === undefined) {
      problems.push(new UsageError(unknownOption(spec, `--${name}`, others)));
      continue;
    }
    if (def.type === "boolean") {
      if (inline !== undefined) problems.push(new UsageError(`--${name} takes no value; write just --${name}`));
      else values[name] = true;
      continue;
    }
    let value = inline;
    // `--root --json`: the next word is another option, so the value was forgotten.
    if (value === undefined && index < args.length && !(args[index] ?? "").startsWith("--")) value = args[index++];
    if (value === undefined || value === "") {
      problems.push(new UsageError(`--${name} needs a value: --${name} ${def.value ?? "<value>"}`));
      continue;
    }
    const earlier = values[name];
    if (def.repeatable === true) values[name] = [...(Array.isArray(earlier) ? earlier : []), value];
    else if (typeof earlier === "string")
      problems.push(
        new UsageError(
          `--${name} is given twice (${JSON.stringify(earlier)} and ${JSON.stringify(value)}); give it once`,
        ),
      );
    else values[name] = value;
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
  const owners = others
    .filter((other) => other.name !== spec.name && name in allOptions(other))
    .map((other) => other.name);
  if (owners.length > 0)
    return `${written} is not an option of ${spec.name} (it goes with ${owners.join(", ")}); see hackmd-bridge ${spec.name} --help`;
  // A note id (22 characters, or a short id of 9) may begin with --, and so may a file name.
  const takesArguments = spec.positionals.required.length + (spec.positionals.optional?.length ?? 0) > 0;
  if (
    takesArguments &&
    spec.name !== "help" &&
    (written.length === 22 || written.length === 9 || /\.md$/i.test(written)) &&
    /^--[\w.-]+$/.test(written)
  ) {
    return `unknown option ${written}; if it is a note id or a file name, end the options with -- before it: hackmd-bridge ${spec.name} [options] -- ${written} …`;
  }
  return `unknown option ${written}; see hackmd-bridge ${spec.name} --help for its options`;
}

/** Checks the number of positionals against the spec. */
function checkPositionals(spec: CommandSpec, given: readonly string[]): void {
  const required = spec.positionals.required;
  const optional = spec.positionals.optional ?? [];
  if (given.length < required.length) {
    const missing = required
      .slice(given.length)
      .map((name) => `<${name}>`)
      .join(" ");
    throw new UsageError(`missing ${missing}`);
  }
  const max = required.length + optional.length;
  if (given.length > max) {
    const extra = given.slice(max);
    if (max === 0)
      throw new UsageError(
        `${spec.name} takes no arguments, but got ${extra.map((value) => JSON.stringify(value)).join(" ")}`,
      );
    throw new UsageError(
      `${spec.name} takes at most ${max} argument${max === 1 ? "" : "s"} (${[...required, ...optional].map((name) => `<${name}>`).join(" ")}), but got ${given.length}; unexpected ${extra.map((value) => JSON.stringify(value)).join(" ")}`,
    );
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
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i]!;
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
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
  return entries
    .map(([label, text]) =>
      label.length > width
        ? `${indent}${label}\n${indent}${" ".repeat(width)}  ${text}`
        : `${indent}${label.padEnd(width)}  ${text}`,
    )
    .join("\n");
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
    name === "root"
      ? `${def.help} (default: ${notes.rootDefault})`
      : def.repeatable === true
        ? `${def.help}; may be repeated`
        : def.help,
  ]);
  optionRows.push(["-h, --help", "show this help"]);
  const codes = ([0, 1, 2] as const).flatMap((code) =>
    spec.exitCodes[code] === undefined ? [] : [[String(code), spec.exitCodes[code]] as [string, string]],
  );
  const parts = [`hackmd-bridge ${spec.name} — ${spec.summary}`, "", `Usage: ${usageLine(spec)}`];
  if (spec.description !== undefined) parts.push("", spec.description);
  // Every command with arguments but `help` (whose argument is a command name) can be given a note id or a file name.
  if (spec.name !== "help" && spec.positionals.required.length + (spec.positionals.optional?.length ?? 0) > 0)
    parts.push("", DASH_ARGUMENT_NOTE);
  parts.push("", "Options:", rows(optionRows), "", "Exit codes:", rows(codes));
  if (spec.examples !== undefined && spec.examples.length > 0)
    parts.push("", "Examples:", ...spec.examples.map((example) => `  ${example}`));
  return `${parts.join("\n")}\n`;
}

/** The command list of `hackmd-bridge --help`, grouped. */
export function commandList(groups: ReadonlyArray<{ title: string; commands: readonly CommandSpec[] }>): string {
  return groups
    .map(({ title, commands }) => `${title}\n${rows(commands.map((spec) => [spec.name, spec.summary]))}`)
    .join("\n\n");
}

/** The README's exit-code table: one row per subcommand, one column per code. */
export function exitCodeTable(specs: readonly CommandSpec[]): string {
  const cell = (text: string | undefined): string =>
    text === undefined ? "—" : text.replace(/\|/g, "\\|").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const lines = ["| Command | 0 | 1 | 2 |", "|---|---|---|---|"];
  for (const spec of specs)
    lines.push(
      `| \`${spec.name}\` | ${cell(spec.exitCodes[0])} | ${cell(spec.exitCodes[1])} | ${cell(spec.exitCodes[2])} |`,
    );
  return lines.join("\n");
}
