/** What a removed credential is replaced with. */
const REDACTED = '[redacted]';

/**
 * A quote, as written or escaped up to eight times (`"`, `\"`, `\\\"`), around a JSON name or value.
 * Bounded: the value's rule compares the opening quote at every later character, so an unbounded run
 * of backslashes would make the work grow with the square of the text.
 */
const ESCAPED_QUOTE = String.raw`\\{0,8}["']`;
const QUOTE = `(?:${ESCAPED_QUOTE})?`;

/**
 * The words that end a name whose value is a credential: `token`,
 * `secret`, `password`, `passphrase`, `credentials`, `signature`, the keys
 * (`api-key`, `access_key`, `AccountKey`, `SharedAccessKey`) and base64
 * kubeconfig key data (`client-key-data`); and the short ones that count
 * only after `_`, `-` or `.` or alone, `pass`, `pwd`, `auth` and `sig`
 * (`DB_PASS`, `MYSQL_PWD`, docker's `"auth"`; not `bypass`).
 */
const CREDENTIAL_WORDS =
  String.raw`(?:token|secret|passw(?:or)?d|passphrase|passcode|credentials?|signature|` +
  String.raw`api[-_]?key|access[-_]?key|account[-_]?key|private[-_]?key|secret[-_]?key|shared[-_]?access[-_]?key|` +
  String.raw`key[-_]data)`;
const SHORT_CREDENTIAL_WORDS = String.raw`(?:pass|pwd|auth|sig)`;

/** A whole name ending in a credential word, for a flag, where the name starts right after the dashes. */
const CREDENTIAL_NAME = String.raw`(?:[\w.-]{0,48}?${CREDENTIAL_WORDS}|(?:[\w.-]{0,48}[_.-])?${SHORT_CREDENTIAL_WORDS})`;

/**
 * The same names found by their credential word, for fields and
 * assignments, which have no fixed start: what comes before the word stays
 * as it is, so the search starts at the word instead of trying every
 * prefix of up to 48 characters at every position.
 */
const CREDENTIAL_WORD = String.raw`(?:${CREDENTIAL_WORDS}|(?:(?<=[_.-])|\b)${SHORT_CREDENTIAL_WORDS})`;

/**
 * A value after such a name and its opening quote, if any (the second
 * group): the rest of a quoted value, spaces included, to its closing
 * quote (escaped as the opening one was) or the end of the text when it
 * was cut; the part of an unquoted ADO.NET value before the next `;`; or
 * one word (not a URL, whose userinfo alone is a credential).
 */
const CREDENTIAL_VALUE = String.raw`(?:(?<=["'])(?:(?!\2)[^\r\n])*|(?<!["'])(?![a-z][a-z0-9+.-]{0,30}:\/\/)(?:[^;\r\n"'<>]{1,128}(?=;)|[^\s"'<>,;&]+))`;

/**
 * The query parameters of the Kubernetes API, whose values are kept in a
 * URL's query however long (a `continue` token is not a credential).
 */
const KUBERNETES_QUERY_PARAMETERS =
  '(?:labelSelector|fieldSelector|limit|continue|watch|resourceVersion|resourceVersionMatch|timeout|timeoutSeconds|' +
  'dryRun|fieldManager|fieldValidation|force|allowWatchBookmarks|sendInitialEvents|propagationPolicy|' +
  'gracePeriodSeconds|orphanDependents|pretty|container|follow|previous|tailLines|sinceSeconds|sinceTime|' +
  'limitBytes|timestamps)';

/**
 * A query value that looks like a token, under a parameter of any name
 * (signed URLs and webhooks carry them as `?t=`, `?s=`, `?u=`): 16
 * characters or more, with a letter and a digit. `page=2`, `q=berlin` and
 * `sv=2024-01-01` are kept. Each look-ahead reads the value once.
 */
const TOKEN_SHAPED_QUERY_VALUE = String.raw`(?=[^\s&#"'<>]{16})(?=[^\s&#"'<>]*\d)(?=[^\s&#"'<>]*[a-z])[^\s&#"'<>]+`;

/** An `Authorization` value: a scheme and its token, or a scheme's comma-separated parameters (Digest, AWS SigV4). */
const AUTHORIZATION_VALUE = String.raw`(?:[A-Za-z][\w-]{0,40}\s+)?(?:[\w-]{1,40}=(?:"[^"\r\n]*"|[^\s,"'<>]*)(?:\s*,\s*[\w-]{1,40}=(?:"[^"\r\n]*"|[^\s,"'<>]*))*|[^\s"'<>,;\\]+)`;

/**
 * Tokens known by their form wherever they are, after the rule lists of
 * secret scanners (gitleaks, secretlint): JSON Web Tokens (ServiceAccount
 * tokens are), and the keys of GitHub, GitLab, Slack, AWS, Google, Azure
 * AD, Stripe, npm, PyPI, Docker Hub, OpenAI and Anthropic, Twilio,
 * SendGrid, Shopify, Hugging Face, DigitalOcean, HashiCorp Vault and
 * OpenShift. A JSON Web Token is recognised from its start, so that one
 * cut short is still removed.
 */
const KNOWN_TOKENS = new RegExp(
  String.raw`()\b(?:eyJ[\w-]{8,}(?:\.[\w-]*){0,2}` +
    String.raw`|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,}|gl(?:pat|dt|rt|ptt|cbt|imt|oas)-[\w-]{20,}` +
    String.raw`|xox[abposre]-[\w-]{10,}|xapp-[\w-]{10,}` +
    String.raw`|(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}|AIza[\w-]{35}|ya29\.[\w-]{20,}|GOCSPX-[\w-]{20,}` +
    String.raw`|[\w~.-]{3}\dQ~[\w~.-]{31,34}` +
    String.raw`|(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}|whsec_[0-9A-Za-z]{20,}` +
    String.raw`|npm_[A-Za-z0-9]{36}|pypi-[\w-]{50,}|dckr_(?:pat|oat)_[\w-]{20,}` +
    String.raw`|sk-(?:ant-|proj-|svcacct-|admin-)?[\w-]{20,}` +
    String.raw`|SK[0-9a-fA-F]{32}|SG\.[\w-]{16,}\.[\w-]{16,}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}` +
    String.raw`|hf_[A-Za-z]{34}|do[pro]_v1_[a-f0-9]{64}|hv[sbr]\.[\w-]{24,}|sha256~[\w-]{20,})`,
  'g',
);

/**
 * The userinfo rules, run only on text that holds an `@`: each tries up to
 * a few hundred characters after every word or separator, which costs
 * tens of milliseconds on 64 KiB of `a.a.` or `=a:=a:` and is wasted
 * where no `@` can end a userinfo.
 */
const USERINFO_PATTERNS: readonly RegExp[] = [
  /\b([a-z][a-z0-9+.-]{0,30}:\/\/)[^\s/?#"'<>]{1,512}(?=@)/gi,
  /(^|[\s"'(<[=,;])[\w.%+-]{1,128}:(?!\/\/)[^\s/"'<>]{1,256}(?=@[\w-]+(?:[.:][\w-]+)*)(?!@sha\d{3}:)/gi,
];

/**
 * Credentials as they appear in error messages and text that echoes a
 * request or a configuration, each pattern keeping what comes before the
 * credential (its first group):
 * - the userinfo of a URL, with a scheme or without (`postgres://u:p@db`,
 *   `admin:pw@host`; not an image digest's `name:tag@sha256:`);
 * - an `Authorization` (or `Proxy-Authorization`) value, whatever its
 *   scheme (`Bearer`, `Basic`, `Token`, `Negotiate`, `Digest username=…`,
 *   `AWS4-HMAC-SHA256 Credential=…, Signature=…`), as a header, in JSON
 *   (escaped or not) or in an HTML table cell, and a `Bearer` or `Basic`
 *   credential anywhere (8 characters or more);
 * - a `Cookie` or `Set-Cookie` header's value;
 * - the value of a field, an assignment or a flag whose name is a
 *   credential's ({@link CREDENTIAL_NAME}): `"password": "two words"`,
 *   `\"password\":\"…\"`, `PGPASSWORD=…`, `client-key-data: …`,
 *   `--token=…`, `--password …`, `Password=…;` in a connection string;
 * - in a URL's query, the value of `key`, `sig`, `signature`, `code`,
 *   `auth`, `pwd`, `pass`, `t`, `tk`, `jwt`, `ticket` and of any parameter
 *   whose name holds credential, signature, session, auth or key
 *   (`X-Amz-Signature`, `X-Amz-Credential`), and any value that looks like
 *   a token ({@link TOKEN_SHAPED_QUERY_VALUE}) but in the Kubernetes API's
 *   own parameters;
 * - a Slack webhook's path;
 * - PEM private keys (cut short or whole) and {@link KNOWN_TOKENS}.
 * Every repetition is bounded or anchored, so that the work is linear in
 * the text's length whatever it holds.
 */
const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /()-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY[A-Z ]{0,10}-----[\s\S]*?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY[A-Z ]{0,10}-----|$)/g,
  ...USERINFO_PATTERNS,
  new RegExp(
    String.raw`((?:proxy-)?authorization${QUOTE}\s*(?:[:=]|<\/t[dh]>\s*<t[dh][^>]{0,100}>)\s*${QUOTE})${AUTHORIZATION_VALUE}`,
    'gi',
  ),
  /\b((?:bearer|basic)\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi,
  /\b((?:set-)?cookie["']?\s*[:=]\s*["']?)[^\r\n"'<>]+/gi,
  new RegExp(String.raw`((?:^|\s)--?${CREDENTIAL_NAME}(?:=|\s+)(?!-)(${ESCAPED_QUOTE})?)${CREDENTIAL_VALUE}`, 'gi'),
  new RegExp(String.raw`(${CREDENTIAL_WORD}${QUOTE}\s*[:=]\s*(${ESCAPED_QUOTE})?)${CREDENTIAL_VALUE}`, 'gi'),
  /([?&](?:key|sig|signature|code|auth|pwd|pass|t|tk|jwt|ticket|[\w.-]{0,40}(?:credential|signature|session|auth|key)[\w.-]{0,40})=)[^\s&#"'<>]+/gi,
  new RegExp(
    String.raw`([?&](?!${KUBERNETES_QUERY_PARAMETERS}=)[a-z_][\w.~%-]{0,63}=)${TOKEN_SHAPED_QUERY_VALUE}`,
    'gi',
  ),
  /(\bhooks\.slack\.com\/(?:services|workflows|triggers)\/)[\w/-]+/gi,
  KNOWN_TOKENS,
];
const PATTERNS_WITHOUT_USERINFO = CREDENTIAL_PATTERNS.filter((pattern) => !USERINFO_PATTERNS.includes(pattern));

/**
 * `text` with every credential it shows replaced by `[redacted]`: the
 * values in `secrets` (the token a request was sent with, say) wherever
 * they appear, and whatever looks like a credential: the userinfo of URLs,
 * `Authorization` values of any scheme, `Bearer`, `Basic` and cookie
 * values, fields, assignments and flags named for a token, secret,
 * password, passphrase, key, credentials or signature (quoted values
 * whole, JSON escaped or not), a URL's query values so named or shaped
 * like a token, base64 kubeconfig key data,
 * PEM private keys and tokens known by their form (JSON Web Tokens, cloud,
 * registry, forge, payment and package services' keys). For text that came
 * from outside (an answer's body, an error's message) before it goes into
 * an error message, a note or a log line; apply it to the whole text before
 * cutting it. The recorder applies it to every note (its `redactNotes`
 * option), and {@link describeError} to every description.
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
  const patterns = redacted.includes('@') ? CREDENTIAL_PATTERNS : PATTERNS_WITHOUT_USERINFO;
  for (const pattern of patterns) {
    redacted = redacted.replace(pattern, (_, name: string) => `${name}${REDACTED}`);
  }
  return redacted;
}

/** Characters a token may hold: what a cut may leave of one at the end of a text. */
const TOKEN_CHAR = /[\w.~+/=%:@-]/;
/** The longest end of a cut text dropped as the rest of a token. */
const MAX_TOKEN_TAIL = 256;

/**
 * The first `maxChars` characters of `text`, for redaction of a text too
 * long to redact whole, without the word the cut went through: what is
 * left of a token there may be too short to be recognised, and it would
 * be cut from what is shown anyway.
 */
export function redactionWindow(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars;
  const stop = Math.max(0, maxChars - MAX_TOKEN_TAIL);
  while (end > stop && TOKEN_CHAR.test(text[end - 1])) end--;
  return text.slice(0, end);
}
