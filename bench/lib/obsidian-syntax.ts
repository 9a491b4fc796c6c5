/**
 * Which Obsidian-only constructs a HackMD text still holds (docs/conversion-rules.md, "Left
 * unconverted"): what HackMD would show as literal text or a broken image. Code (fenced, also
 * inside quotes and list items, indented after a blank line, and spans) and front matter are
 * skipped, as the conversion skips them.
 * A heuristic for reports, not a parser: it errs towards counting.
 */

/** The construct names found in `text`, each once, sorted. */
export function obsidianOnlySyntax(text: string): string[] {
  const found = new Set<string>();
  const prose = withoutCode(text);
  for (const match of prose.matchAll(/(!?)\[\[([^\]\n]*)\]\]/g)) {
    const inner = match[2] as string;
    const target = inner.split("|")[0] as string;
    if (match[1] === "!") {
      if (/\.svg(#|$)/i.test(target)) found.add("embed: svg");
      else if (/\.(png|jpe?g|gif|webp|bmp)(#|$)/i.test(target))
        found.add(inner.includes("|") || target.includes("#") ? "embed: image with size or fragment" : "embed: image");
      else if (/\.(mp4|webm|ogv|mov|mkv|mp3|ogg|wav|m4a|flac|pdf)$/i.test(target))
        found.add("embed: video, audio or pdf");
      else if (target.includes("#^")) found.add("embed: block");
      else if (target.includes("#")) found.add("embed: heading");
      else found.add("embed: note");
    } else if (target.startsWith("#^")) found.add("wikilink: same-note block");
    else if (target.startsWith("#")) found.add("wikilink: same-note heading");
    else if (target.includes("#^")) found.add("wikilink: block");
    else if (target.includes("#")) found.add(inner.includes("|") ? "wikilink: heading + alias" : "wikilink: heading");
    else if (/\.[A-Za-z0-9]{2,4}$/.test(target) && !target.endsWith(".md")) found.add("wikilink: non-note file");
    else found.add(inner.includes("|") ? "wikilink: alias" : "wikilink: plain");
  }
  for (const line of prose.split("\n")) {
    if (/^\s*(?:>\s*)+\[![^\]]+\][+-]?/.test(line)) found.add("callout");
    if (/(?:^|\s)\^[A-Za-z0-9-]+\s*$/.test(line)) found.add("block id");
    if (/%%/.test(line)) found.add("comment %%");
  }
  for (const match of prose.matchAll(/!\[[^\]\n]*\]\(([^)\s]+)/g)) {
    const dest = match[1] as string;
    if (!/^[a-z][a-z0-9+.-]*:/i.test(dest) && !dest.startsWith("#")) found.add("markdown image: relative path");
  }
  return [...found].sort();
}

/** `text` with front matter, fenced and indented code and code spans blanked out (line count kept). */
function withoutCode(text: string): string {
  const lines = text.split("\n");
  let fence: string | undefined;
  let frontMatter = lines[0] === "---";
  let previousBlank = true;
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (frontMatter) {
      out.push("");
      if (i > 0 && (line === "---" || line === "...")) frontMatter = false;
      continue;
    }
    // Fences count inside blockquotes and callouts (`> ```md`) and list items (indented) too: a
    // callout example in a code block is code on HackMD as well.
    const opener = /^\s*(`{3,}|~{3,})/.exec(line.replace(/^(?:\s*>)+/, ""));
    if (fence !== undefined) {
      out.push("");
      if (opener && (opener[1] as string)[0] === fence[0] && (opener[1] as string).length >= fence.length)
        fence = undefined;
      continue;
    }
    if (opener) {
      fence = opener[1];
      out.push("");
      continue;
    }
    if (previousBlank && /^( {4}|\t)/.test(line)) {
      out.push("");
      continue;
    }
    previousBlank = line.trim() === "";
    out.push(line.replace(/(`+)[^`]*?\1/g, ""));
  }
  return out.join("\n");
}
