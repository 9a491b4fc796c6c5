/**
 * Bounded, redacted error detail (docs/tools.md §6.4). Works on a copy of the response bytes taken
 * when the error is created; the request that was sent is never touched.
 */

/** Characters of quoted detail kept before the `…` mark. */
export const DETAIL_MAX_CHARS = 300;

/** What replaces every complete occurrence of the token. */
export const REDACTED = "[REDACTED]";

/** The text used when a response carried nothing to quote. */
export const NO_DETAIL = "no response detail";

const encoder = new TextEncoder();

/**
 * Quotes a response body for an error message: reads at most `300 × 4 + token length` bytes,
 * drops a token prefix the cut went through, replaces the token, keeps 300 characters plus `…`.
 */
export function boundedDetail(body: Uint8Array, token: string | undefined): string {
  const secret = token ?? "";
  const windowBytes = DETAIL_MAX_CHARS * 4 + encoder.encode(secret).byteLength;
  const cutBytes = body.byteLength > windowBytes;
  // subarray + decode yields a fresh string: the response bytes are never modified.
  let text = new TextDecoder("utf-8", { fatal: false }).decode(body.subarray(0, windowBytes));
  let cut = cutBytes;
  if (cutBytes) {
    // A multi-byte character split by the cut decodes as U+FFFD; it is not content.
    text = text.replace(/\uFFFD$/, "");
    text = dropTrailingTokenPrefix(text, secret);
  }
  if (secret !== "") text = text.split(secret).join(REDACTED);
  text = collapseWhitespace(text);
  const chars = Array.from(text);
  if (chars.length > DETAIL_MAX_CHARS) {
    text = chars.slice(0, DETAIL_MAX_CHARS).join("");
    cut = true;
  }
  if (text === "") return cut ? "…" : NO_DETAIL;
  return cut ? `${text}…` : text;
}

/** Removes every complete occurrence of the token from any text (a last line of defence). */
export function redactToken(text: string, token: string | undefined): string {
  if (token === undefined || token === "") return text;
  return text.split(token).join(REDACTED);
}

function dropTrailingTokenPrefix(text: string, token: string): string {
  for (let length = Math.min(token.length - 1, text.length); length > 0; length -= 1) {
    if (text.endsWith(token.slice(0, length))) return text.slice(0, text.length - length);
  }
  return text;
}

/** Turns runs of whitespace and control characters into single spaces (one-line messages). */
function collapseWhitespace(text: string): string {
  let out = "";
  let pendingSpace = false;
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (/\s/.test(char) || code <= 0x1f || (code >= 0x7f && code <= 0x9f)) {
      pendingSpace = out !== "";
      continue;
    }
    if (pendingSpace) out += " ";
    pendingSpace = false;
    out += char;
  }
  return out;
}
