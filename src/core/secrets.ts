/** The one last-line scrub of secrets (tokens) from any text that leaves the process. */

/** Replaces every occurrence of each non-blank secret with `[REDACTED]`. */
export function scrubSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret.trim() !== "") out = out.split(secret).join("[REDACTED]");
  }
  return out;
}
