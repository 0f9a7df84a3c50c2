/** What a removed credential is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Credentials as they appear in text that echoes a request: an
 * `Authorization` header's value (`Authorization: Bearer …`,
 * `"authorization":"…"`, an HTML table cell after it), a `Bearer` or
 * `Basic` credential anywhere (8 characters or more), and the value of a field whose name says
 * token, secret or password (`refresh-token=…`, `"password": "…"`).
 */
const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /\b(authorization["']?\s*(?:[:=]|<\/t[dh]>\s*<t[dh][^>]*>)\s*["']?)(?:(?:bearer|basic)\s+)?[^\s"'<>,;]+/gi,
  /\b((?:bearer|basic)\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi,
  /\b([\w-]*(?:token|secret|password|passwd)[\w-]*["']?\s*[:=]\s*["']?)[^\s"'<>,;&]+/gi,
];

/**
 * `text` with every credential it shows replaced by `[redacted]`: the
 * values in `secrets` (the token a request was sent with, say) wherever
 * they appear, and whatever looks like a credential (see above). For text
 * that came from outside (an answer's body, a server's message) before it
 * goes into an error message, a note or a log line.
 *
 * @example
 * redactCredentials('Authorization: Bearer abc.def'); // 'Authorization: [redacted]'
 */
export function redactCredentials(text: string, secrets: readonly string[] = []): string {
  let redacted = text;
  for (const secret of secrets) {
    // Short values would match ordinary words; a credential worth hiding is longer.
    if (secret.length >= 8) redacted = redacted.split(secret).join(REDACTED);
  }
  for (const pattern of CREDENTIAL_PATTERNS) {
    redacted = redacted.replace(pattern, (_, name: string) => `${name}${REDACTED}`);
  }
  return redacted;
}
