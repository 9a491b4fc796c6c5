/** Replaces every occurrence of a secret (when there is one) with `[REDACTED]`. */
export function redactSecret(text: string, secret: string | undefined): string {
  return secret && secret.trim() !== "" ? text.split(secret).join("[REDACTED]") : text;
}
