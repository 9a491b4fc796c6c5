/**
 * Obsidian ↔ HackMD conversion (the rules are docs/conversion-rules.md). Pure and
 * host-neutral: no I/O, no module state. `toRemote` turns vault text into what HackMD stores,
 * `toLocal` the reverse; for a given context they are inverse bijections on all strings, so a file
 * nobody edited never differs from its baseline after a round trip.
 */

import { convertLines } from "./blocks";
import {
  type ConversionContext,
  type ConversionDependencies,
  answerPairs,
  recordingAnswers,
  type AnswerRecord,
} from "./context";
import type { ConversionWarning, Direction, Env } from "./env";
import { joinFrom, splitLinesAt } from "./lines";

export {
  buildConversionContext,
  commentIdOf,
  contextFromDependencies,
  dependenciesHold,
  preferRecorded,
  type ConversionContext,
  type ConversionDependencies,
  type ConversionInput,
  type LinkFormat,
  type TrackedNote,
} from "./context";
export type { ConversionWarning } from "./env";

/** What a conversion returns. */
export interface ConversionResult {
  /** The converted text. */
  readonly text: string;
  /** What the conversion consulted (see `dependenciesHold`, `contextFromDependencies`); keep it with the baseline. */
  readonly dependencies: ConversionDependencies;
  /** Things left as written that the user may want to know about (toRemote only). */
  readonly warnings: readonly ConversionWarning[];
}

/** toRemote's result. */
export interface RemoteResult extends ConversionResult {
  /** Vault paths of the images the text embeds where a conversion applies (uploaded or not): upload those without a URL, then convert again. */
  readonly images: readonly string[];
}

/** toLocal's result. */
export interface LocalResult extends ConversionResult {
  /** URLs of the images the text shows outside code (known or not): the engine may download unknown HackMD-hosted ones and convert again. */
  readonly imageUrls: readonly string[];
}

/**
 * Vault text → the text HackMD should store. The comments it hid are in
 * `dependencies.comments`; the engine must keep them (they come back as `ConversionInput.comments`)
 * for `toLocal` to restore them.
 */
export function toRemote(localText: string, context: ConversionContext): RemoteResult {
  let result = run("remote", localText, context, new Map());
  // A placeholder written as text before the comment that produces the same id: convert again
  // knowing that id, so the text one is escaped.
  if ([...result.env.literalIds].some((id) => result.env.wrote.has(id)))
    result = run("remote", localText, context, result.env.wrote);
  return { ...finish(result, localText, context), images: [...result.env.images].sort() };
}

/** HackMD's text → the vault text it came from (or a faithful vault form of a collaborator's text). */
export function toLocal(remoteText: string, context: ConversionContext): LocalResult {
  const result = run("local", remoteText, context, new Map());
  return { ...finish(result, remoteText, context), imageUrls: [...result.env.imageUrls].sort() };
}

interface Run {
  readonly text: string;
  readonly env: Env;
  readonly record: AnswerRecord;
}

function run(dir: Direction, text: string, context: ConversionContext, preload: ReadonlyMap<string, string>): Run {
  const record: AnswerRecord = new Map();
  const env: Env = {
    dir,
    answers: recordingAnswers(context.answers, record),
    linkFormat: context.linkFormat,
    wrote: new Map(preload),
    literalIds: new Set(),
    images: new Set(),
    imageUrls: new Set(),
    warnings: [],
    input: text,
  };
  if (!context.enabled) return { text, env, record };
  // A lone CR (old Mac line ending) would merge with a following empty line into one CRLF once a
  // line's text changes; such texts stay as they are (both ways, so still one-to-one). The engine
  // normalises line endings first, so this only guards direct callers.
  if (text.includes("\r") && /\r(?!\n)/.test(text)) {
    if (dir === "remote")
      env.warnings.push({ line: 1, message: "the text has a line ending that is a lone CR; nothing was converted" });
    return { text, env, record };
  }
  const starts: number[] = [];
  const lines = splitLinesAt(text, starts);
  return { text: joinFrom(convertLines(lines, env, true, false), text, lines, starts), env, record };
}

function finish(result: Run, input: string, context: ConversionContext): ConversionResult {
  const dependencies: ConversionDependencies = {
    enabled: context.enabled,
    linkFormat: context.linkFormat,
    answers: answerPairs(result.record),
    comments: [...result.env.wrote],
  };
  return { text: context.enabled ? result.text : input, dependencies, warnings: result.env.warnings };
}
