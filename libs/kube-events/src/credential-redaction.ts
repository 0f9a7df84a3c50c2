import { redactBareUserinfo } from './bare-userinfo.js';
import { KNOWN_TOKEN_SHAPES, VENDOR_KEYWORDS, VENDOR_VALUE } from './known-token-shapes.js';

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
  String.raw`(?:token|secret|passw(?:or)?d|passphrase|passcode|credentials?|creds|signature|` +
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
 * one word (not a URL, whose userinfo alone is a credential). The ADO.NET
 * part stops at the next `=` or `:`, which the next name in the text
 * brings: read on to 128 characters, every `pass:` of a text of them
 * without `;` re-read the next dozen.
 */
const CREDENTIAL_VALUE = String.raw`(?:(?<=["'])(?:(?!\2)[^\r\n])*|(?<!["'])(?![a-z][a-z0-9+.-]{0,30}:\/\/)(?:[^;\r\n"'<>=:]{1,128}(?=;)|[^\s"'<>,;&]+))`;

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

/** {@link KNOWN_TOKEN_SHAPES} in one pattern, each from the start of a word. */
const KNOWN_TOKENS = new RegExp(String.raw`()\b(?:${KNOWN_TOKEN_SHAPES.join('|')})`, 'g');

/** A credential after a vendor's name ({@link VENDOR_KEYWORDS}), as gitleaks' rules of that form find it. */
const VENDOR_CREDENTIAL = new RegExp(
  String.raw`((?:${VENDOR_KEYWORDS.join('|')})[\w.-]{0,40}[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5})${VENDOR_VALUE}`,
  'gi',
);

/**
 * The userinfo of a URL with a scheme, run (with {@link redactBareUserinfo}
 * for the bare ones) only on text that holds an `@`, where a userinfo can
 * end.
 */
const USERINFO_PATTERNS: readonly RegExp[] = [/\b([a-z][a-z0-9+.-]{0,30}:\/\/)[^\s/?#"'<>]{1,512}(?=@)/gi];

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
  new RegExp(String.raw`(${CREDENTIAL_WORD}${QUOTE}\s*(?:=>|[:=])\s*(${ESCAPED_QUOTE})?)${CREDENTIAL_VALUE}`, 'gi'),
  /([?&](?:key|sig|signature|code|auth|pwd|pass|t|tk|jwt|ticket|[\w.-]{0,40}(?:credential|signature|session|auth|key)[\w.-]{0,40})=)[^\s&#"'<>]+/gi,
  new RegExp(
    String.raw`([?&](?!${KUBERNETES_QUERY_PARAMETERS}=)[a-z_][\w.~%-]{0,63}=)${TOKEN_SHAPED_QUERY_VALUE}`,
    'gi',
  ),
  /(\bhooks\.slack\.com\/(?:services|workflows|triggers)\/)[\w/+-]+/gi,
  /(\.webhook\.office\.com\/webhookb2\/)[\w@/-]+/gi,
  /(<add key="(?:ClearText)?Password"\s{0,10}value=")[^"]{1,512}/gi,
  /((?:^|\s)(?:-u|--user)(?:=|[ \t]{1,5})["']?)[^\s"':]{1,128}:[^\s"']{1,256}/g,
  /(\b_gitlab_session=)\w+/g,
  /(\bkind:[ \t]{0,5}["']?Secret\b["']?[\s\S]{0,200}?\bdata:)(?:\s{1,20}[\w.-]{1,253}:[ \t]{0,5}["']?[A-Za-z0-9+/]{4,}={0,3}["']?)+/g,
  VENDOR_CREDENTIAL,
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
    // Bare userinfo (no scheme) right after the URLs' own, so that a URL's is never taken for one.
    if (pattern === USERINFO_PATTERNS[0]) redacted = redactBareUserinfo(redacted);
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
