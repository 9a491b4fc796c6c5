/**
 * The emulator's own small content and title rules (§2.7). Deliberately independent of
 * src/core/text: a bug shared with the client would be invisible to the tests.
 */

/** `\r\n` → `\n`, then lone `\r` → `\n`; everything else byte for byte. */
export function normalizeEol(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/\r/g, "\n");
}

/** Title of a note created without one: front-matter `title:`, else first H1, else `Untitled`. */
export function deriveTitle(content: string): string {
  const lines = content.replace(/^\uFEFF/, "").split("\n");
  let start = 0;
  if (lines[0]?.trim() === "---") {
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] ?? "";
      if (line.trim() === "---" || line.trim() === "...") {
        start = i + 1;
        break;
      }
      const match = /^title:\s*(.*)$/.exec(line);
      if (match) {
        const value = unquote((match[1] ?? "").trim());
        if (value !== "") return value;
      }
    }
  }
  let fence: string | null = null;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const fenceMatch = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1] ?? "";
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h1 = /^ {0,3}#(?:[ \t]+(.*?))?[ \t]*$/.exec(line);
    if (h1) {
      const text = (h1[1] ?? "")
        .replace(/[ \t]+#+$/, "")
        .replace(/^#+$/, "")
        .trim();
      if (text !== "") return text;
    }
  }
  return "Untitled";
}

function unquote(value: string): string {
  if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0])) {
    return value.slice(1, -1);
  }
  return value;
}

/**
 * The body a `partialApply` fault stores: the intended body, except that the last changed line
 * keeps its old text (a pure insertion loses its last line, a pure deletion keeps its last line).
 */
export function partiallyApplied(oldText: string, newText: string): string {
  if (oldText === newText) return newText;
  const a = oldText.split("\n");
  const b = newText.split("\n");
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix++;
  }
  const oldLast = a.length - suffix - 1;
  const newLast = b.length - suffix - 1;
  const out = [...b];
  if (newLast >= prefix && oldLast >= prefix) out[newLast] = a[oldLast] ?? "";
  else if (newLast >= prefix) out.splice(newLast, 1);
  else out.splice(newLast + 1, 0, a[oldLast] ?? "");
  return out.join("\n");
}
