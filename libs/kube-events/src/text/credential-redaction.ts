import { redactBareUserinfo } from './bare-userinfo.js';
import { redactHighEntropyRuns } from './high-entropy-runs.js';
import { KNOWN_TOKEN_SHAPES, VENDOR_KEYWORDS, VENDOR_VALUE } from './known-token-shapes.js';

/** What a removed credential is replaced with. */
const REDACTED = '[redacted]';
/**
 * What stands for a removed credential while the rules run: one character
 * (of Unicode's private use), so that a text of many short credentials
 * does not grow fivefold for every later rule to read; each is
 * `[redacted]` in what is returned.
 */
const PLACEHOLDER = '\uE000';

/**
 * A quote, as written or escaped up to eight times (`"`, `\"`, `\\\"`), around a JSON name or value.
 * Bounded: the value's rule compares the opening quote at every later character, so an unbounded run
 * of backslashes would make the work grow with the square of the text.
 */
const ESCAPED_QUOTE = String.raw`\\{0,8}["']`;
const QUOTE = `(?:${ESCAPED_QUOTE})?`;

/**
 * The words that end a name whose value is a credential, in any naming
 * style: `token`, `secret`, `password`, `passphrase`, `credentials`,
 * `signature`, the ids and codes an auth flow keeps secret (`secret_id`,
 * `session_id`, `device_code`, `otp_code`), any key (`api-key`, `AccountKey`, `APP_KEY`,
 * `X-Functions-Key`, `PresharedKey`: `key` after a letter, a digit, `_`
 * or `-`; not `key:` alone nor `secretKeyRef.key`), base64 kubeconfig key
 * data (`client-key-data`), `pw` (`bindPW`, `ROOT_PW`); and the short ones
 * that count only after `_`, `-` or `.` or alone, `pass`, `pwd`, `auth`
 * and `sig` (`DB_PASS`, `MYSQL_PWD`, docker's `"auth"`; not `bypass`).
 */
const CREDENTIAL_WORDS =
  String.raw`(?:token|secret(?:[-_]?id)?|passw(?:or)?d|passphrase|passcode|credentials?|creds|signature|session[-_]?id|` +
  String.raw`(?:auth(?:orization)?|device|otp|mfa|totp|recovery|backup|verification)[-_]?codes?|` +
  String.raw`api[-_]?key|access[-_]?key|account[-_]?key|private[-_]?key|secret[-_]?key|shared[-_]?access[-_]?key|` +
  String.raw`key[-_]data|pw|(?<=[a-z0-9_-])key)`;
const SHORT_CREDENTIAL_WORDS = String.raw`(?:pass|pwd|auth|sig)`;

/**
 * A whole name ending in a credential word, for a flag, where the name
 * starts right after the dashes; a flag's `pass` ends a name of any style
 * (keytool's `-storepass`, `-keypass`; openssl's `-passin`, `-passout`).
 */
const CREDENTIAL_NAME = String.raw`(?:[\w.-]{0,48}?(?:${CREDENTIAL_WORDS}|pass(?:in|out)?)|(?:[\w.-]{0,48}[_.-])?${SHORT_CREDENTIAL_WORDS})`;

/**
 * What may follow a credential word at the end of a name: the form its
 * value is written in (Rails' `SECRET_KEY_BASE`, `PRIVATE_KEY_B64`,
 * `API_KEY_VALUE`).
 */
const VALUE_FORM = String.raw`(?:[-_.](?:base|value|b64|base64|hex|raw|plain|text|string|str|enc|bytes))?`;

/**
 * The same names found by their credential word, for fields and
 * assignments, which have no fixed start: what comes before the word stays
 * as it is, so the search starts at the word instead of trying every
 * prefix of up to 48 characters at every position.
 */
const CREDENTIAL_WORD = String.raw`(?:${CREDENTIAL_WORDS}|(?:(?<=[_.-])|\b)${SHORT_CREDENTIAL_WORDS})${VALUE_FORM}`;

/** One word of a value: a `:` that ends it (`secret_id=…: permission denied`) is not part of it. */
const WORD = String.raw`(?:[^\s"'<>,;&:]|:(?!\s|$))+`;

/**
 * A value after such a name and its opening quote, if any (the second
 * group): the rest of a quoted value, spaces included, to its closing
 * quote (escaped as the opening one was) or the end of the text when it
 * was cut; the part of an unquoted ADO.NET value before the next `;`; or
 * one word (not a URL, whose userinfo alone is a credential, and not a
 * word that says whether there is one: MySQL's `(using password: YES)`).
 * The ADO.NET part stops at the next `=` or `:`, which the next name in
 * the text brings: read on to 128 characters, every `pass:` of a text of
 * them without `;` re-read the next dozen.
 */
const CREDENTIAL_VALUE = String.raw`(?:(?<=["'])(?:(?!\2)[^\r\n])*|(?<!["'])(?![a-z][a-z0-9+.-]{0,30}:\/\/)(?!(?:yes|no|true|false|none|null|nil)\b)(?:[^;\r\n"'<>=:]{1,128}(?=;)|${WORD}))`;

/**
 * A password a CLI is given by position or short flag, after its opening
 * quote if any (the second group): a value, not a port (`-p 8080`,
 * `-p 8080:80`), a path (`mkdir -p /var/x`), JSON (`kubectl patch -p
 * '{…}'`), a format (`curl -w '%{http_code}'`) or another flag; quoted
 * to its closing quote, else one word.
 */
const CLI_PASSWORD = String.raw`(?![-/~.{[$%]|\d[\d.:/-]*(?:[\s"'\\;,)]|$))(?:(?<=["'])(?:(?!\2)[^\r\n])*|(?<!["'])${WORD})`;

/**
 * An SQL literal after its opening quote (the second group), `''` inside
 * it included, to its closing quote; or, unquoted (Oracle's `IDENTIFIED BY
 * pw`), one word.
 */
const SQL_LITERAL = String.raw`(?:(?<=["'])(?:(?!\2)[^\r\n]|\2\2)*|(?<!["'])[^\s;,"'()]+)`;

/**
 * Block types that are public by design: certificates, public keys,
 * parameters and signatures. Any other `-----BEGIN …-----` block (a
 * private key, a NATS `.creds` seed, an OpenVPN static key) is a credential.
 */
const PUBLIC_BLOCKS = String.raw`(?:(?:TRUSTED |X509 |NEW )?CERTIFICATE(?: REQUEST)?|X509 CRL|(?:RSA |EC |PGP |SSH2 )?PUBLIC KEY(?: BLOCK)?|PGP SIGNATURE|(?:DH|EC) PARAMETERS)-`;

/**
 * A word a password is, after a bare `password` or a position: it holds a
 * digit or a symbol, which words (`password authentication failed`) do not.
 */
const PASSWORD_WORD = String.raw`(?![=:\uE000]|\[redacted\])(?=[^\s"'<>]{0,128}[\d!#$%^&*+=?@~])${WORD}`;

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
 * {@link KNOWN_TOKEN_SHAPES} in one pattern, each from the start of a
 * word; the look-ahead for a character any of them starts with lets most
 * places be passed over before the 90 shapes are tried.
 */
const KNOWN_TOKENS = new RegExp(String.raw`()\b(?=[\w~.-])(?:${KNOWN_TOKEN_SHAPES.join('|')})`, 'g');

/** A credential after a vendor's name ({@link VENDOR_KEYWORDS}), as gitleaks' rules of that form find it. */
const VENDOR_CREDENTIAL = new RegExp(
  String.raw`((?:${VENDOR_KEYWORDS.join('|')})[\w.-]{0,40}[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5})${VENDOR_VALUE}`,
  'gi',
);

/**
 * The userinfo of a URL with a scheme, and the `user/password@host` of an
 * Oracle connect string (`sqlplus scott/tiger@orcl`; not a module's
 * `path/name@v1.2.3` nor an image's `@sha256:`), run (with
 * {@link redactBareUserinfo} for the bare `user:password@host`) only on
 * text that holds an `@`, where a userinfo can end.
 */
const USERINFO_PATTERNS: readonly RegExp[] = [
  /\b([a-z][a-z0-9+.-]{0,30}:\/\/)[^\s/?#"'<>]{1,512}(?=@)/gi,
  /((?:^|[\s"'=(,;])[\w.$#-]{1,64}\/)[^\s/@"'<>:]{1,128}(?=@(?!v?\d{1,9}\.\d{1,9}\.\d{1,9}(?![\d.])|sha\d{3}[:-]|(?:latest|main|master|head)\b)[\w/([.-])/gi,
];

/**
 * Credentials as they appear in error messages and text that echoes a
 * request, a command or a configuration, each pattern keeping what comes
 * before the credential (its first group):
 * - a block of any PEM-like type but a public one ({@link PUBLIC_BLOCKS}),
 *   cut short or whole: private keys, a NATS `.creds` seed;
 * - the userinfo of a URL, with a scheme or without (`postgres://u:p@db`,
 *   `admin:pw@host`, `scott/tiger@orcl`; not an image digest's `name:tag@sha256:`);
 * - an `Authorization` (or `Proxy-Authorization`) value, whatever its
 *   scheme (`Bearer`, `Basic`, `Token`, `Negotiate`, `Digest username=…`,
 *   `AWS4-HMAC-SHA256 Credential=…, Signature=…`), as a header, in JSON
 *   (escaped or not) or in an HTML table cell, and a `Bearer` or `Basic`
 *   credential anywhere (8 characters or more);
 * - a `Cookie` or `Set-Cookie` header's value;
 * - SQL's password literals (`PASSWORD 'pw'`, `PASSWORD('pw')`,
 *   `IDENTIFIED [WITH plugin] BY 'pw'`), a bare `password` followed by a
 *   word with a digit or a symbol (`mysqladmin password S3cret!`), and the
 *   value of an env `{name, value}` pair whose name is a credential's
 *   (JSON, YAML, Go's `{Name:DB_PASSWORD Value:…}`);
 * - the value of a field, an assignment or a flag whose name is a
 *   credential's ({@link CREDENTIAL_NAME}): `"password": "two words"`,
 *   `\"password\":\"…\"`, `PGPASSWORD=…`, `APP_KEY=…`, `X-Functions-Key: …`,
 *   `"bindPW": …`, `client-key-data: …`, `--token=…`, `--password …`,
 *   `-storepass …`, `Password=…;` in a connection string;
 * - a password given to a CLI by short flag (`-p`, `-P`, `-w`, `-a`; not
 *   a port, a path or JSON), joined to `-p` after a `-u` or when it holds
 *   a digit or a symbol (`7z -pS3cret`; not `-pthread`), or by position
 *   (rabbitmqctl's `add_user name pw`, htpasswd's `-b`, Redis' `AUTH`,
 *   LDAP's `bindpw pw`, sqlplus' `user/pw`), and 32 hex digits or more
 *   after any flag but a hash's, a revision's or an id's (openssl's `-K`;
 *   not `--revision <sha>`, `--md5`, `--etag`, `--fingerprint`);
 * - Vault's unseal and recovery keys;
 * - in a URL's query, the value of `key`, `sig`, `signature`, `code`,
 *   `auth`, `pwd`, `pass`, `t`, `tk`, `jwt`, `ticket` and of any parameter
 *   whose name holds credential, signature, session, auth or key
 *   (`X-Amz-Signature`, `X-Amz-Credential`), and any value that looks like
 *   a token ({@link TOKEN_SHAPED_QUERY_VALUE}) but in the Kubernetes API's
 *   own parameters;
 * - in a URL's path, what follows a webhook's `/hooks/`, `/webhooks/`,
 *   `/build_hooks/`, `/key/` or `/token/` (Slack, Teams, Discord,
 *   Mattermost, Zapier, IFTTT, Netlify), a PagerDuty integration key and
 *   a Telegram bot's token;
 * - PuTTY's private key lines and MAC (`.ppk` files);
 * - the value of `<add key="Password" value="…">` (NuGet), GitLab's
 *   session cookie, and {@link KNOWN_TOKENS}.
 * Every repetition is bounded or anchored, so that the work is linear in
 * the text's length whatever it holds.
 */
const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  new RegExp(
    String.raw`()-----BEGIN (?!${PUBLIC_BLOCKS})[A-Za-z0-9 ]{1,60}-----[\s\S]*?(?:-----END [A-Za-z0-9 ]{1,60}------?|$)`,
    'g',
  ),
  ...USERINFO_PATTERNS,
  new RegExp(
    String.raw`((?:proxy-)?authorization${QUOTE}\s*(?:[:=]|<\/t[dh]>\s*<t[dh][^>]{0,100}>)\s*${QUOTE})${AUTHORIZATION_VALUE}`,
    'gi',
  ),
  /\b((?:bearer|basic)\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi,
  /\b((?:set-)?cookie["']?\s*[:=]\s*["']?)[^\r\n"'<>]+/gi,
  new RegExp(
    String.raw`(\bpassw(?:or)?d(?:[ \t]+for[ \t]+[^\s=]{1,128}(?=[ \t]*=))?(?:[ \t]*=[ \t]*(?:password[ \t]*\([ \t]*)?|[ \t]*\([ \t]*|[ \t]+)[NE]?(["']))${SQL_LITERAL}`,
    'gi',
  ),
  new RegExp(
    String.raw`(\bidentified[ \t]+(?:with[ \t]+["'\x60]?\w{1,64}["'\x60]?[ \t]+)?by(?:[ \t]+password)?[ \t]+(["']?))${SQL_LITERAL}`,
    'gi',
  ),
  new RegExp(String.raw`(\bpassw(?:or)?d[ \t]+)${PASSWORD_WORD}`, 'gi'),
  new RegExp(
    String.raw`(\bname${QUOTE}\s{0,8}[:=]\s{0,8}${QUOTE}[\w.-]{0,64}?(?:${CREDENTIAL_WORDS}|${SHORT_CREDENTIAL_WORDS})${QUOTE}\s{0,40},?\s{0,40}${QUOTE}value${QUOTE}\s{0,8}[:=]\s{0,8}(${ESCAPED_QUOTE})?)${CREDENTIAL_VALUE}`,
    'gi',
  ),
  new RegExp(String.raw`((?:^|\s)--?${CREDENTIAL_NAME}(?:=|\s+)(?!-)(${ESCAPED_QUOTE})?)${CREDENTIAL_VALUE}`, 'gi'),
  new RegExp(String.raw`(${CREDENTIAL_WORD}${QUOTE}\s*(?:=>|[:=])\s*(${ESCAPED_QUOTE})?)${CREDENTIAL_VALUE}`, 'gi'),
  new RegExp(String.raw`((?:^|\s)-[pPwa][ \t]+(${ESCAPED_QUOTE})?)${CLI_PASSWORD}`, 'g'),
  /((?:^|\s)-u[ \t]?[^\s-]\S{0,63}[ \t]+-p)(?![\s-])(?:"[^"\r\n]*"?|'[^'\r\n]*'?|[^\s"'<>]+)/g,
  new RegExp(
    String.raw`(\b(?:add_user|change_password|authenticate_user)[ \t]+[^\s-]\S{0,127}[ \t]+)${PASSWORD_WORD}`,
    'g',
  ),
  new RegExp(String.raw`(\bhtpasswd[ \t]+-(?=\w{0,8}b)(?=\w{0,8}n)\w{1,8}[ \t]+\S{1,128}[ \t]+)${WORD}`, 'g'),
  new RegExp(
    String.raw`(\bhtpasswd[ \t]+-(?=\w{0,8}b)(?!\w{0,8}n)\w{1,8}[ \t]+\S{1,256}[ \t]+\S{1,128}[ \t]+)${WORD}`,
    'g',
  ),
  new RegExp(String.raw`(\bAUTH[ \t]+)(?!<)[^\s"'<>]+(?:[ \t]+${PASSWORD_WORD})?`, 'g'),
  new RegExp(String.raw`((?:^|\s)-p)(?!\d[\d.:/-]*(?:\s|$))${PASSWORD_WORD}`, 'g'),
  new RegExp(String.raw`(\b(?:bind|root)[_-]?pw[ \t]+)${WORD}`, 'gi'),
  new RegExp(
    String.raw`(\b(?:sqlplus|rman|expdp|impdp|CONN(?:ECT)?)(?:[ \t]+-\w{1,16})*[ \t]+[\w$#.]{1,64}\/)(?!\/)[^\s/@"'<>,;]+`,
    'g',
  ),
  /(\bPrivate-Lines:[ \t]*\d{1,4}\s)(?:\s{0,8}(?!Private-)[A-Za-z0-9+/=]{1,128}(?=\s|$))+/g,
  /(\bPrivate-MAC:[ \t]*)[0-9a-fA-F]+/g,
  new RegExp(
    String.raw`((?:^|\s)--?(?![\w-]{0,40}?(?:sha\d{0,3}|md5|commit|rev(?:ision)?|ref|digest|hash|sum|etag|fingerprint|uid|id)[ \t=])[A-Za-z][\w-]{0,40}(?:=|[ \t]+)${QUOTE})[0-9a-fA-F]{32,}(?!\w)`,
    'g',
  ),
  /(\b(?:unseal|recovery)[ \t]+key(?:[ \t]+\d{1,2})?[ \t]*:[ \t]*)[^\s"'<>]+/gi,
  /([?&](?:key|sig|signature|code|auth|pwd|pass|t|tk|jwt|ticket|[\w.-]{0,40}(?:credential|signature|session|auth|key)[\w.-]{0,40})=)[^\s&#"'<>]+/gi,
  new RegExp(
    String.raw`([?&](?!${KUBERNETES_QUERY_PARAMETERS}=)[a-z_][\w.~%-]{0,63}=)${TOKEN_SHAPED_QUERY_VALUE}`,
    'gi',
  ),
  /(\bhooks\.slack\.com\/(?:services|workflows|triggers)\/)[\w/+-]+/gi,
  /(\.webhook\.office\.com\/webhookb2\/)[\w@/-]+/gi,
  /(\/(?:\w{0,20}[_-])?(?:hooks|webhooks?|key|apikey|api[-_]key|token|access[-_]token)\/)(?:[^\s?#"'<>:]|:(?!\s|$))+/gi,
  /(\/integration\/)[0-9a-f]{32}\b/g,
  /(\/bot)(?=\d{5,12}:)[^\s/?#"'<>]+/g,
  /(<add key="(?:ClearText)?Password"\s{0,10}value=")[^"]{1,512}/gi,
  /((?:^|\s)(?:-u|--user)(?:=|[ \t]{1,5})["']?)[^\s"':]{1,128}:[^\s"']{1,256}/g,
  /(\b_gitlab_session=)\w+/g,
  VENDOR_CREDENTIAL,
  KNOWN_TOKENS,
];
const PATTERNS_WITHOUT_USERINFO = CREDENTIAL_PATTERNS.filter((pattern) => !USERINFO_PATTERNS.includes(pattern));

/**
 * The headers an OpenTelemetry exporter is given, every value of which is
 * a credential (`OTEL_EXPORTER_OTLP_HEADERS=api-key=…,x-team=…`): the list
 * whole (what comes before it in the first group, the list in the
 * second), then each value in it (what comes before it in the first group).
 */
const HEADERS_LIST = new RegExp(String.raw`(_HEADERS${QUOTE}[ \t]*[:=][ \t]*${QUOTE})([^\s"'\\]+)`, 'gi');
const HEADERS_LIST_VALUE = /(=)[^,]+/g;

/**
 * A Secret's `data` and `stringData` entries, in YAML or JSON (escaped or
 * not), whichever comes first, `data` or `kind` (`kubectl get -o json`
 * sorts `data` first): run only on text that holds a `kind: Secret`
 * ({@link SECRET_KIND}). The entries go whole, names and values; of YAML
 * whose lines were joined (as `describeError` joins a message's), what
 * follows `data:` on the line goes.
 */
const SECRET_DATA = new RegExp(
  String.raw`(\b(?:string)?data${QUOTE}[ \t]*:[ \t]*(?:\{|(?=\s)))(?:(?:[ \t]{0,40}(?:,[ \t\r\n]{0,40})?|\r?\n[ \t]{1,40})${QUOTE}[\w.-]{1,253}${QUOTE}[ \t]{0,8}:[ \t]{0,8}${QUOTE}[^\s"'\\,}]+${QUOTE})+`,
  'g',
);
const SECRET_KIND = /\bkind\\{0,8}["']?[ \t]*:[ \t]*\\{0,8}["']?Secret\b/;

/**
 * `text` with every credential it shows replaced by `[redacted]`: the
 * values in `secrets` (the token a request was sent with, say) wherever
 * they appear, and whatever looks like a credential, by its shape or by
 * its context: the userinfo of URLs, `Authorization` values of any
 * scheme, `Bearer`, `Basic` and cookie values, fields, assignments and
 * flags named for a token, secret, password, passphrase, key, credentials
 * or signature in any naming style (quoted values whole, JSON escaped or
 * not), env `{name, value}` pairs so named, passwords given to a CLI by
 * short flag or position and in SQL, a URL's query values so named or
 * shaped like a token and a webhook's path, a Secret's data and base64
 * kubeconfig key data, credential blocks of any PEM-like type, tokens
 * known by their form (JSON Web Tokens, cloud, registry, forge, payment
 * and package services' keys) and long runs of base64 that read as
 * random. For text that came from outside (an answer's body, an error's
 * message) before it goes into an error message, a note or a log line;
 * apply it to the whole text before cutting it. The recorder applies it
 * to every note (its `redactNotes` option), and {@link describeError} to
 * every description.
 *
 * @example
 * redactCredentials('Authorization: Bearer abc.def'); // 'Authorization: [redacted]'
 * redactCredentials('POST https://bot:hunter2@hooks.example.com/notify'); // 'POST https://[redacted]@hooks.example.com/notify'
 */
export function redactCredentials(text: string, secrets: readonly string[] = []): string {
  let redacted = text;
  for (const secret of secrets) {
    // Short values would match ordinary words; a credential worth hiding is longer.
    if (secret.length >= 8) redacted = redacted.split(secret).join(PLACEHOLDER);
  }
  redacted = redacted.replace(
    HEADERS_LIST,
    (_, name: string, values: string) => name + values.replace(HEADERS_LIST_VALUE, `$1${PLACEHOLDER}`),
  );
  if (SECRET_KIND.test(redacted)) redacted = redacted.replace(SECRET_DATA, `$1${PLACEHOLDER}`);
  const patterns = redacted.includes('@') ? CREDENTIAL_PATTERNS : PATTERNS_WITHOUT_USERINFO;
  for (const pattern of patterns) {
    redacted = redacted.replace(pattern, `$1${PLACEHOLDER}`);
    // Bare userinfo (no scheme) right after the URLs' own, so that a URL's is never taken for one.
    if (pattern === USERINFO_PATTERNS[0]) redacted = redactBareUserinfo(redacted);
  }
  return redactHighEntropyRuns(redacted.replaceAll(PLACEHOLDER, REDACTED));
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
