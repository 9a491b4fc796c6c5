/**
 * File and folder names of a mirror (src/app/mirror.ts): a note's title or a HackMD folder's name
 * made safe on every platform Obsidian runs on (Windows, macOS, Linux, iOS, Android), unique in
 * its folder without regard to case, and — because the mirror stores the name it chose — stable
 * once chosen. Exclude patterns too. Pure; linear in the input.
 */
import { BridgeError } from "../core/errors";

/** Longest name stem (characters), well under every platform's 255-byte component limit. */
export const MAX_NAME_LENGTH = 100;

/** Names Windows reserves whatever their extension. */
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/**
 * A title as a safe file or folder name stem: characters Windows, macOS or Obsidian refuse or
 * treat specially (`\ / : * ? " < > |`, `#`, `^`, `[`, `]`, control characters) become spaces,
 * runs of spaces one, no leading dot, no trailing dot or space, a reserved Windows name gets a
 * suffix, at most 100 characters; an empty result is `fallback`.
 */
export function safeName(title: string, fallback = "Untitled"): string {
  let out = "";
  for (const char of title.normalize("NFC")) {
    const code = char.codePointAt(0) ?? 0;
    const bad = code < 32 || code === 127 || '\\/:*?"<>|#^[]'.includes(char);
    out += bad ? " " : char;
  }
  let name = out
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\.+/, "")
    .replace(/[. ]+$/, "");
  if ([...name].length > MAX_NAME_LENGTH)
    name = [...name]
      .slice(0, MAX_NAME_LENGTH)
      .join("")
      .replace(/[. ]+$/, "");
  if (name === "") return fallback;
  if (RESERVED.test(name) || RESERVED.test(name.split(".")[0] ?? "")) name = `${name} (note)`;
  return name;
}

/**
 * `stem`, or `stem 2`, `stem 3`, … : the first not in `taken` (lower-cased names of the folder's
 * entries, without `.md` for files); the chosen name is added to `taken`.
 */
export function uniqueName(stem: string, taken: Set<string>): string {
  let candidate = stem;
  for (let n = 2; taken.has(candidate.toLowerCase()); n += 1) candidate = `${stem} ${n}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

/** Most exclude patterns a mirror keeps, and the longest one (characters). */
export const MAX_EXCLUDE_PATTERNS = 100;
export const MAX_EXCLUDE_LENGTH = 200;

/**
 * Exclude patterns (paths relative to the mirror's folder, `/`-separated): `*` any characters but
 * `/`, `**` any characters, `?` one character but `/`; a pattern ending in `/` excludes a folder
 * and everything in it. Refuses blank, too long or too many patterns.
 */
export function checkExcludePatterns(patterns: readonly string[]): string[] {
  if (patterns.length > MAX_EXCLUDE_PATTERNS)
    throw new BridgeError("invalid_input", `A mirror takes at most ${MAX_EXCLUDE_PATTERNS} exclude patterns.`);
  return patterns.map((pattern) => {
    const trimmed = pattern.trim();
    if (trimmed === "" || trimmed.length > MAX_EXCLUDE_LENGTH || [...trimmed].some((char) => char < " "))
      throw new BridgeError(
        "invalid_input",
        `An exclude pattern must be 1 to ${MAX_EXCLUDE_LENGTH} characters without control characters.`,
      );
    return trimmed;
  });
}

/** A matcher of a mirror's exclude patterns over paths relative to the mirror's folder. */
export function excludeMatcher(patterns: readonly string[]): (relative: string) => boolean {
  const tests = patterns.map(globTest);
  return (relative) => tests.some((test) => test(relative));
}

/**
 * One pattern as a test. Matching is by dynamic programming over pattern and path (at most
 * 200 × path length steps), so no pattern can make it slow.
 */
function globTest(pattern: string): (path: string) => boolean {
  const folder = pattern.endsWith("/");
  // "**", "*", "?" or one literal character.
  const tokens: string[] = [];
  const body = folder ? pattern.slice(0, -1) : pattern;
  for (let i = 0; i < body.length; i += 1) {
    if (body[i] === "*" && body[i + 1] === "*") {
      tokens.push("**");
      i += 1;
      if (body[i + 1] === "/") i += 1; // `**/` also matches no folder at all
    } else tokens.push(body[i] === "*" ? "*" : body[i] === "?" ? "?" : (body[i] ?? ""));
  }
  const matches = (path: string): boolean => {
    // reach[j]: pattern tokens [0, j) match the path read so far.
    let reach = new Array<boolean>(tokens.length + 1).fill(false);
    reach[0] = true;
    const close = (states: boolean[]): void => {
      for (let j = 0; j < tokens.length; j += 1)
        if (states[j] && (tokens[j] === "**" || tokens[j] === "*")) states[j + 1] = true;
    };
    close(reach);
    for (const char of path) {
      const next = new Array<boolean>(tokens.length + 1).fill(false);
      for (let j = 0; j < tokens.length; j += 1) {
        if (!reach[j]) continue;
        const token = tokens[j];
        if (token === "**") next[j] = true;
        else if (token === "*") {
          if (char !== "/") next[j] = true;
        } else if (token === "?") {
          if (char !== "/") next[j + 1] = true;
        } else if (token === char) next[j + 1] = true;
      }
      close(next);
      reach = next;
    }
    return reach[tokens.length] === true;
  };
  // A pattern without `/` names a file or folder at any depth, as .gitignore does.
  const anywhere = !body.includes("/");
  return (path) => {
    const parts = path.split("/");
    const candidates: string[] = [];
    for (let end = 1; end <= parts.length; end += 1) {
      const isFile = end === parts.length;
      if (folder && isFile) continue;
      const prefix = parts.slice(0, end).join("/");
      candidates.push(prefix);
      if (anywhere) candidates.push(parts[end - 1] ?? "");
    }
    return candidates.some(matches);
  };
}
