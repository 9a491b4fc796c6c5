/** The state one conversion carries through blocks and inline text. */

import type { Answers, LinkFormat, TargetKind } from "./context";

/** Which way a conversion goes: `remote` is toRemote (vault → HackMD), `local` is toLocal. */
export type Direction = "remote" | "local";

/** Something toRemote could not convert and the user may want to know (a comment pushed as written). */
export interface ConversionWarning {
  /** 1-based line number in the converted text's input. */
  readonly line: number;
  readonly message: string;
}

/** Per-conversion state; created by `index.ts` for one call. */
export interface Env {
  readonly dir: Direction;
  /** The context's answers, recording every question. */
  readonly answers: Answers;
  readonly linkFormat: LinkFormat;
  /** Comment sources by id that this conversion wrote (toRemote) or restored (toLocal). */
  readonly wrote: Map<string, string>;
  /** Placeholder ids toRemote met as plain text (not known at that point). */
  readonly literalIds: Set<string>;
  /** Vault paths of images toRemote embeds (uploaded or not). */
  readonly images: Set<string>;
  /** HackMD-side image URLs toLocal met outside code. */
  readonly imageUrls: Set<string>;
  readonly warnings: ConversionWarning[];
  /** The text being converted (the whole input). */
  readonly input: string;
  /** The input's own headings as written, and by lowercase text the first one that folds to it; built on first use (see `inline.ts`, `ownHeading`). */
  ownHeadings?: { exact: Set<string>; folded: Map<string, string> };
  /** Checked conversions of repeatable tokens by text, one map per direction and table flag; built on first use (see `inline.ts`, `repeatable`). */
  checked?: Array<Map<string, string | null>>;
}

/** A comment's source by id: this conversion's own first, then the context's. */
export function commentSource(env: Env, id: string): string | null {
  return env.wrote.get(id) ?? env.answers.comment(id);
}

/**
 * How a vault path is written as a link target: its name (without `.md` for notes) when that name
 * resolves back to it and the format is `shortest`, else the full path.
 */
export function spell(env: Env, kind: TargetKind, path: string): string {
  const full = kind === "note" && path.endsWith(".md") ? path.slice(0, -3) : path;
  if (env.linkFormat === "shortest") {
    const name = full.slice(full.lastIndexOf("/") + 1);
    if (name !== full && env.answers.target(kind, name) === path) return name;
  }
  return full;
}

/** At most this many warnings are kept (a text with a stray `%%` on every line should not produce thousands). */
const WARNING_LIMIT = 100;

/** Adds a warning once per line and message (toRemote only). */
export function warn(env: Env, line: number, message: string): void {
  if (env.dir !== "remote" || env.warnings.length >= WARNING_LIMIT) return;
  const last = env.warnings[env.warnings.length - 1];
  // Warnings arrive in line order, so a repeat is always the last one.
  if (last !== undefined && last.line === line && last.message === message) return;
  env.warnings.push({ line, message });
}
