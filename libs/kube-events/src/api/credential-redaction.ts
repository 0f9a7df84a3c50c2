/** What a removed credential is replaced with. */
const REDACTED = '[redacted]';

/**
 * Credentials as they appear in error messages and text that echoes a
 * request, each pattern keeping what comes before the credential (its
 * first group):
 * - the userinfo of a URL (`https://user:password@host`, `https://token@host`),
 *   as Node's `fetch` quotes a URL it refuses;
 * - an `Authorization` (or `Proxy-Authorization`) header's value
 *   (`Authorization: Bearer …`, `"authorization":"…"`, an HTML table cell
 *   after it), and a `Bearer` or `Basic` credential anywhere (8 characters
 *   or more);
 * - a `Cookie` or `Set-Cookie` header's value;
 * - the value of a field whose name says token, secret, password, passwd,
 *   api key, access key or private key (`refresh-token=…`, `"password": "…"`,
 *   `X-Api-Key: …`, `AWS_SECRET_ACCESS_KEY=…`);
 * - in a URL's query, the value of `key`, `sig`, `signature`, `code`,
 *   `auth`, `pwd`, `pass` and of any parameter whose name holds credential,
 *   signature, session, auth or key (`X-Amz-Signature`, `X-Amz-Credential`);
 * - tokens recognisable by their form wherever they are: JSON Web Tokens
 *   (ServiceAccount tokens are), PEM private keys, GitHub, GitLab, Slack,
 *   OpenShift, Google API and AWS access keys.
 */
const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'<>]+(?=@)/gi,
  /\b((?:proxy-)?authorization["']?\s*(?:[:=]|<\/t[dh]>\s*<t[dh][^>]*>)\s*["']?)(?:(?:bearer|basic)\s+)?[^\s"'<>,;]+/gi,
  /\b((?:bearer|basic)\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi,
  /\b((?:set-)?cookie["']?\s*[:=]\s*["']?)[^\r\n"'<>]+/gi,
  /\b([\w-]*(?:token|secret|password|passwd|api[-_]?key|access[-_]?key|private[-_]?key)[\w-]*["']?\s*[:=]\s*["']?)[^\s"'<>,;&]+/gi,
  /([?&](?:key|sig|signature|code|auth|pwd|pass|[\w.-]*(?:credential|signature|session|auth|key)[\w.-]*)=)[^\s&#"'<>]+/gi,
  /()-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /()\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
  /()\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,})/g,
  /()\b(?:sha256~[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35}|(?:AKIA|ASIA)[0-9A-Z]{16})\b/g,
];

/**
 * `text` with every credential it shows replaced by `[redacted]`: the
 * values in `secrets` (the token a request was sent with, say) wherever
 * they appear, and whatever looks like a credential: the userinfo of URLs,
 * `Authorization`, `Bearer`, `Basic` and cookie values, fields and query
 * parameters named for a token, secret, password, key or signature, and
 * tokens known by their form (JSON Web Tokens, PEM private keys, GitHub,
 * GitLab, Slack, OpenShift, Google and AWS keys). For text that came from
 * outside (an answer's body, an error's message) before it goes into an
 * error message, a note or a log line. The recorder applies it to every
 * note (its `redactNotes` option).
 *
 * @example
 * redactCredentials('Authorization: Bearer abc.def'); // 'Authorization: [redacted]'
 * redactCredentials('POST https://bot:hunter2@hooks.example.com/notify'); // 'POST https://[redacted]@hooks.example.com/notify'
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
