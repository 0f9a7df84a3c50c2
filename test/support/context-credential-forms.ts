/**
 * Credentials that no table of token shapes knows, in the forms an
 * operator's errors carry them: found only by their context (a name in
 * any naming style, a CLI's flag or position, SQL, a credential block, a
 * URL's path) or because they read as random. The secrets are made here
 * by a seeded generator, in the alphabet and length each kind has, so
 * that they are realistic without being real (and without tripping
 * secret scanners on this file); and a table of texts that only look
 * like credentials (names, uids, digests, shas, versions), which must
 * come through unchanged.
 */
import type { CredentialForm } from './credential-forms.js';

/** A small seeded generator (mulberry32), so that the secrets are the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

const random = seeded(0x5eed);
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const DIGITS = '0123456789';
const HEX = '0123456789abcdef';
const BASE64 = `${UPPER}${LOWER}${DIGITS}+/`;
const BASE64URL = `${UPPER}${LOWER}${DIGITS}-_`;
const BASE32 = `${UPPER}234567`;

/** `length` characters of `alphabet`. */
function from(alphabet: string, length: number): string {
  return Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
}

/** A password as people and generators choose them: letters of both cases, digits and a symbol or two. */
function password(length = 14): string {
  const symbols = '!#%*-_.';
  const body = from(`${UPPER}${LOWER}${DIGITS}`, length - 3);
  return `${from(UPPER, 1)}${body}${from(symbols, 1)}${from(DIGITS, 1)}`;
}

/** `bytes` random bytes as base64, padded. */
function base64(bytes: number): string {
  const letters = from(BASE64, Math.ceil((bytes * 4) / 3));
  const padding = (3 - (bytes % 3)) % 3;
  return `${letters.slice(0, letters.length - padding)}${'='.repeat(padding)}`;
}

function uuid(): string {
  return `${from(HEX, 8)}-${from(HEX, 4)}-4${from(HEX, 3)}-a${from(HEX, 3)}-${from(HEX, 12)}`;
}

function form(name: string, text: string, secret: string, kept: readonly string[]): CredentialForm {
  return { form: name, text, secret, kept };
}

const appKey = base64(32);
const pusherKey = from(`${LOWER}${DIGITS}`, 20);
const encryptionKey = from(`${UPPER}${LOWER}${DIGITS}`, 32);
const subscriptionKey = from(HEX, 32);
const functionsKey = `${from(BASE64URL, 54)}==`;
const googKey = from(BASE64URL, 39);
const secretId = uuid();
const secretIdJson = uuid();
const bindPw = password(16);
const bindPwYaml = password(12);
const rootPw = password(18);
const envPassword = password(20);
const envPasswordYaml = password(15);
const envRedisAuth = password(24);
const secretDataKey = base64(48);
const secretDataUser = base64(9);
const secretYamlPassword = base64(18);
const unsealKey = base64(33);
const recoveryKey = base64(33);
const mysqlPassword = password(13);
const mysqlJoined = password(12);
const storePassword = password(11);
const keyPassword = password(12);
const sshPassword = password(14);
const redisPassword = from(`${UPPER}${LOWER}${DIGITS}`, 32);
const ldapPassword = password(15);
const rabbitPassword = password(16);
const htpasswdPassword = password(12);
const mysqladminPassword = password(14);
const pgRolePassword = password(17);
const pgAlterPassword = password(13);
const mysqlIdentified = password(15);
const mysqlPluginPassword = password(14);
const oraclePassword = `${from(LOWER, 6)}${from(DIGITS, 3)}`;
const sqlplusPassword = password(12).replace(/[!#%*.-]/g, '_');
const connectPassword = password(11).replace(/[!#%*.-]/g, '_');
const natsSeed = `SU${from(BASE32, 56)}`;
const natsAccountSeed = `SA${from(BASE32, 56)}`;
const natsJwtBody = from(BASE64URL, 120);
const ovpnKey = Array.from({ length: 4 }, () => from(HEX, 32)).join('\n');
const discordToken = from(BASE64URL, 68);
const mattermostHook = from(`${LOWER}${DIGITS}`, 26);
const telegramToken = `${from(DIGITS, 10)}:AA${from(BASE64URL, 33)}`;
const iftttKey = from(BASE64URL, 22);
const zapierHook = `${from(DIGITS, 7)}/${from(`${LOWER}${DIGITS}`, 7)}`;
const opensslKey = from(HEX, 64);
const opensslIv = from(HEX, 32);
const flagKey = from(HEX, 64);
const otlpKey = from(`${LOWER}${DIGITS}`, 32);
const otlpTeam = from(`${UPPER}${LOWER}${DIGITS}`, 22);
const otlpBearer = from(BASE64URL, 40);
const bareKey = from(`${UPPER}${LOWER}${DIGITS}`, 40);
const pathToken = from(BASE64URL, 43);
const railsSecret = from(HEX, 128);
const deviceCode = from(BASE64URL, 40);
const mssqlPassword = password(13);
const sevenZipPassword = password(12);
const nslcdPassword = password(14);
const puttyKey = `${from(BASE64, 64)}\n${from(BASE64, 24)}`;
const puttyMac = from(HEX, 64);
const netlifyHook = from(HEX, 24);
const pagerDutyKey = from(HEX, 32);

/** The forms of credentials found by context, several of each kind. */
export const CONTEXT_CREDENTIAL_FORMS: readonly CredentialForm[] = [
  // Values under names that are a credential's in any naming style.
  form('an APP_KEY assignment', `artisan failed: APP_KEY=base64:${appKey} is not valid`, appKey, [
    'artisan failed: APP_KEY=',
    'is not valid',
  ]),
  form('a *_APP_KEY assignment', `pusher: 401 with PUSHER_APP_KEY=${pusherKey} PUSHER_APP_CLUSTER=eu`, pusherKey, [
    'pusher: 401 with PUSHER_APP_KEY=',
    'PUSHER_APP_CLUSTER=eu',
  ]),
  form('a *_KEY in YAML', `values.yaml: ENCRYPTION_KEY: "${encryptionKey}" rejected`, encryptionKey, [
    'values.yaml: ENCRYPTION_KEY: "',
    '" rejected',
  ]),
  form(
    'a *-Key header echoed in an error',
    `APIM answered 401 Access denied due to invalid subscription key. Sent Ocp-Apim-Subscription-Key: ${subscriptionKey} Host: api.example.com`,
    subscriptionKey,
    [
      'APIM answered 401 Access denied due to invalid subscription key. Sent Ocp-Apim-Subscription-Key:',
      'Host: api.example.com',
    ],
  ),
  form(
    'a *-Key header in JSON',
    `function call failed: {"headers":{"X-Functions-Key":"${functionsKey}","Accept":"application/json"}}`,
    functionsKey,
    ['function call failed: {"headers":{"X-Functions-Key":"', '","Accept":"application/json"}}'],
  ),
  form('a *-key header, lower case', `gemini 403: x-goog-api-key=${googKey} denied`, googKey, [
    'gemini 403: x-goog-api-key=',
    'denied',
  ]),
  form(
    "an auth flow's secret_id",
    `vault write auth/approle/login role_id=db02de05-fa39-4855-859b-67221c5c2f63 secret_id=${secretId}: permission denied`,
    secretId,
    ['vault write auth/approle/login role_id=db02de05-fa39-4855-859b-67221c5c2f63 secret_id=', ': permission denied'],
  ),
  form(
    "an auth flow's secretId in JSON",
    `login body {"roleId":"ops","secretId":"${secretIdJson}"} refused`,
    secretIdJson,
    ['login body {"roleId":"ops","secretId":"', '"} refused'],
  ),
  form(
    'a bindPW JSON field',
    `ldap sync config {"url":"ldaps://ldap.example.com","bindDN":"cn=sync,dc=example","bindPW":"${bindPw}"} invalid`,
    bindPw,
    ['ldap sync config {"url":"ldaps://ldap.example.com","bindDN":"cn=sync,dc=example","bindPW":"', '"} invalid'],
  ),
  form('a bind_pw YAML field', `dex connector: bind_pw: ${bindPwYaml} user_search: ou=people`, bindPwYaml, [
    'dex connector: bind_pw:',
    'user_search: ou=people',
  ]),
  form('a ROOT_PW assignment', `slapd exited 1 with ROOT_PW=${rootPw} LDAP_DOMAIN=example.com`, rootPw, [
    'slapd exited 1 with ROOT_PW=',
    'LDAP_DOMAIN=example.com',
  ]),
  form(
    "a pod's env {name, value} pair in JSON",
    `Deployment.apps "db" is invalid: spec.template.spec.containers[0].env: [{"name":"POSTGRES_USER","value":"app"},{"name":"POSTGRES_PASSWORD","value":"${envPassword}"}]`,
    envPassword,
    [
      'Deployment.apps "db" is invalid:',
      '{"name":"POSTGRES_USER","value":"app"},{"name":"POSTGRES_PASSWORD","value":"',
      '"}]',
    ],
  ),
  form(
    "a pod's env {name, value} pair in YAML",
    `apply failed:\n  env:\n  - name: DB_PASS\n    value: ${envPasswordYaml}\n  - name: DB_HOST\n    value: db`,
    envPasswordYaml,
    ['apply failed:', '- name: DB_PASS', 'value: db'],
  ),
  form(
    "a pod's env as Go prints it",
    `reconcile: container env [{Name:REDIS_AUTH Value:${envRedisAuth} ValueFrom:nil} {Name:REDIS_HOST Value:cache ValueFrom:nil}]`,
    envRedisAuth,
    [
      'reconcile: container env [{Name:REDIS_AUTH Value:',
      'ValueFrom:nil} {Name:REDIS_HOST Value:cache ValueFrom:nil}]',
    ],
  ),
  form(
    "a Secret's data in `kubectl get -o json` (data before kind)",
    `apply refused: {"apiVersion":"v1","data":{"tls.key":"${secretDataKey}","username":"${secretDataUser}"},"kind":"Secret","metadata":{"name":"db-tls","namespace":"ops"},"type":"Opaque"}`,
    `${secretDataKey} ${secretDataUser}`,
    ['apply refused: {"apiVersion":"v1","data":{', '"kind":"Secret","metadata":{"name":"db-tls","namespace":"ops"}'],
  ),
  form(
    "a Secret's data in `kubectl get -o yaml` (data before kind)",
    `diff:\napiVersion: v1\ndata:\n  password: ${secretYamlPassword}\nkind: Secret\nmetadata:\n  name: db`,
    secretYamlPassword,
    ['diff:\napiVersion: v1\ndata:', 'kind: Secret\nmetadata:\n  name: db'],
  ),
  form(
    'an unseal key line',
    `vault operator init output:\nUnseal Key 1: ${unsealKey}\nUnseal Key 2: (hidden)`,
    unsealKey,
    ['vault operator init output:\nUnseal Key 1:'],
  ),
  form('a recovery key line', `init: Recovery Key 3: ${recoveryKey} stored`, recoveryKey, [
    'init: Recovery Key 3:',
    'stored',
  ]),
  form("Rails' SECRET_KEY_BASE", `boot failed: SECRET_KEY_BASE=${railsSecret} is too short`, railsSecret, [
    'boot failed: SECRET_KEY_BASE=',
    'is too short',
  ]),
  form(
    "a device flow's device_code",
    `token request device_code=${deviceCode}&client_id=ops-cli failed: expired_token`,
    deviceCode,
    ['token request device_code=', '&client_id=ops-cli failed: expired_token'],
  ),
  form("LDAP's bindpw in a config line", `nslcd: bad config line: bindpw ${nslcdPassword}`, nslcdPassword, [
    'nslcd: bad config line: bindpw',
  ]),
  // Passwords given to a CLI by short flag or position.
  form('mysql -p <pw>', `exec: mysql -h db -u root -p ${mysqlPassword} -e "select 1": exit status 1`, mysqlPassword, [
    'exec: mysql -h db -u root -p',
    '-e "select 1": exit status 1',
  ]),
  form('mysql -p<pw> joined', `exec: mysql -uroot -p${mysqlJoined} orders: exit status 1`, mysqlJoined, [
    'exec: mysql -uroot -p',
    'orders: exit status 1',
  ]),
  form(
    'keytool -storepass and -keypass',
    `keytool -importkeystore -srckeystore in.p12 -storepass ${storePassword} -keypass ${keyPassword} -noprompt failed`,
    `${storePassword} ${keyPassword}`,
    ['keytool -importkeystore -srckeystore in.p12 -storepass', '-keypass', '-noprompt failed'],
  ),
  form('sshpass -p', `sshpass -p '${sshPassword}' ssh deploy@10.0.0.7 exited 5`, sshPassword, [
    "sshpass -p '",
    "' ssh deploy@10.0.0.7 exited 5",
  ]),
  form('redis-cli -a', `redis-cli -h cache -a ${redisPassword} ping: NOAUTH`, redisPassword, [
    'redis-cli -h cache -a',
    'ping: NOAUTH',
  ]),
  form(
    'ldapsearch -w',
    `ldapsearch -x -D cn=admin,dc=example -w ${ldapPassword} -b dc=example: exit 49`,
    ldapPassword,
    ['ldapsearch -x -D cn=admin,dc=example -w', '-b dc=example: exit 49'],
  ),
  form(
    'rabbitmqctl add_user by position',
    `rabbitmqctl add_user svc ${rabbitPassword} failed: nodedown`,
    rabbitPassword,
    ['rabbitmqctl add_user svc', 'failed: nodedown'],
  ),
  form(
    'htpasswd -b by position',
    `htpasswd -b /etc/nginx/.htpasswd admin ${htpasswdPassword}: permission denied`,
    htpasswdPassword,
    ['htpasswd -b /etc/nginx/.htpasswd admin', ': permission denied'],
  ),
  form(
    'mysqladmin password by position',
    `mysqladmin -u root password ${mysqladminPassword} failed`,
    mysqladminPassword,
    ['mysqladmin -u root password', 'failed'],
  ),
  form('7z -p<pw> joined', `7z x backup.7z -p${sevenZipPassword} -o/restore: Wrong password`, sevenZipPassword, [
    '7z x backup.7z -p',
    '-o/restore: Wrong password',
  ]),
  // Password literals in SQL and connect strings.
  form(
    "PostgreSQL's PASSWORD '<pw>'",
    `ERROR: role "app" already exists (statement: CREATE ROLE app LOGIN PASSWORD '${pgRolePassword}')`,
    pgRolePassword,
    ['ERROR: role "app" already exists (statement: CREATE ROLE app LOGIN PASSWORD', ')'],
  ),
  form(
    "ALTER USER … WITH PASSWORD '<pw>'",
    `migration 12 failed: ALTER USER app WITH PASSWORD '${pgAlterPassword}';`,
    pgAlterPassword,
    ['migration 12 failed: ALTER USER app WITH PASSWORD'],
  ),
  form(
    "MySQL's IDENTIFIED BY '<pw>'",
    `ER_CANNOT_USER: Operation CREATE USER failed for 'app'@'%' (CREATE USER 'app'@'%' IDENTIFIED BY '${mysqlIdentified}')`,
    mysqlIdentified,
    ["ER_CANNOT_USER: Operation CREATE USER failed for 'app'@'%' (CREATE USER 'app'@'%' IDENTIFIED BY"],
  ),
  form(
    'IDENTIFIED WITH a plugin BY',
    `ALTER USER 'svc'@'%' IDENTIFIED WITH mysql_native_password BY '${mysqlPluginPassword}' failed`,
    mysqlPluginPassword,
    ["ALTER USER 'svc'@'%' IDENTIFIED WITH mysql_native_password BY", 'failed'],
  ),
  form(
    "SQL Server's PASSWORD = N'<pw>'",
    `Msg 15118: CREATE LOGIN app WITH PASSWORD = N'${mssqlPassword}', CHECK_POLICY = ON`,
    mssqlPassword,
    ['Msg 15118: CREATE LOGIN app WITH PASSWORD', ', CHECK_POLICY = ON'],
  ),
  form(
    "Oracle's unquoted IDENTIFIED BY",
    `ORA-01920: ALTER USER scott IDENTIFIED BY ${oraclePassword};`,
    oraclePassword,
    ['ORA-01920: ALTER USER scott IDENTIFIED BY'],
  ),
  form('an Oracle user/password@host', `sqlplus scott/${sqlplusPassword}@orcl: ORA-12154`, sqlplusPassword, [
    'sqlplus scott/',
    '@orcl: ORA-12154',
  ]),
  form(
    'a connect string user/password@//host:port/service',
    `connect system/${connectPassword}@//db.internal:1521/XEPDB1 failed`,
    connectPassword,
    ['connect system/', '@//db.internal:1521/XEPDB1 failed'],
  ),
  // Credential blocks other than PEM private keys, and tokens in a URL's path.
  form(
    "a NATS .creds file's seed block",
    `nats: bad creds file:\n-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.${natsJwtBody}\n------END NATS USER JWT------\n\n` +
      `-----BEGIN USER NKEY SEED-----\n${natsSeed}\n------END USER NKEY SEED------\n`,
    `${natsSeed} ${natsJwtBody}`,
    ['nats: bad creds file:'],
  ),
  form('a NATS seed on its own', `nats: nkey ${natsAccountSeed} is not an account's public key`, natsAccountSeed, [
    'nats: nkey',
    "is not an account's public key",
  ]),
  form(
    'an OpenVPN static key block',
    `openvpn: tls-auth:\n-----BEGIN OpenVPN Static key V1-----\n${ovpnKey}\n-----END OpenVPN Static key V1-----\nrejected`,
    ovpnKey,
    ['openvpn: tls-auth:', 'rejected'],
  ),
  form(
    "a PuTTY key's private lines and MAC",
    `pageant: cannot load key:\nPuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 2\n${puttyKey}\nPrivate-MAC: ${puttyMac}`,
    `${puttyKey} ${puttyMac}`,
    ['pageant: cannot load key:\nPuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 2'],
  ),
  form(
    'a Netlify build hook',
    `deploy trigger failed: POST https://api.netlify.com/build_hooks/${netlifyHook}: 404`,
    netlifyHook,
    ['deploy trigger failed: POST https://api.netlify.com/build_hooks/', ': 404'],
  ),
  form(
    'a PagerDuty integration key in a path',
    `POST https://events.pagerduty.com/integration/${pagerDutyKey}/enqueue answered 400`,
    pagerDutyKey,
    ['POST https://events.pagerduty.com/integration/', '/enqueue answered 400'],
  ),
  form(
    'a Discord webhook',
    `POST https://discord.com/api/webhooks/112233445566778899/${discordToken} answered 401`,
    discordToken,
    ['POST https://discord.com/api/webhooks/', 'answered 401'],
  ),
  form(
    'a Mattermost webhook',
    `notify failed: POST https://chat.example.com/hooks/${mattermostHook}: 403`,
    mattermostHook,
    ['notify failed: POST https://chat.example.com/hooks/', ': 403'],
  ),
  form(
    'a Telegram bot token in a path',
    `GET https://api.telegram.org/bot${telegramToken}/sendMessage answered 404`,
    telegramToken,
    ['GET https://api.telegram.org/bot', 'answered 404'],
  ),
  form(
    'an IFTTT webhook key in a path',
    `trigger failed: https://maker.ifttt.com/trigger/deployed/with/key/${iftttKey} (401)`,
    iftttKey,
    ['trigger failed: https://maker.ifttt.com/trigger/deployed/with/key/', '(401)'],
  ),
  form('a Zapier webhook', `POST https://hooks.zapier.com/hooks/catch/${zapierHook}/ timed out`, zapierHook, [
    'POST https://hooks.zapier.com/hooks/',
    'timed out',
  ]),
  // A hex key after a CLI flag; an OpenTelemetry headers list.
  form(
    "openssl's -K and -iv",
    `openssl enc -d -aes-256-cbc -K ${opensslKey} -iv ${opensslIv} -in backup.enc: bad decrypt`,
    `${opensslKey} ${opensslIv}`,
    ['openssl enc -d -aes-256-cbc -K', '-iv', '-in backup.enc: bad decrypt'],
  ),
  form('a hex key after a long flag', `restic restore --master-key ${flagKey} --target /data failed`, flagKey, [
    'restic restore --master-key',
    '--target /data failed',
  ]),
  form(
    'an OTLP headers list',
    `exporter refused OTEL_EXPORTER_OTLP_HEADERS=api-key=${otlpKey},x-honeycomb-team=${otlpTeam} endpoint=https://otlp.example.com`,
    `${otlpKey} ${otlpTeam}`,
    ['exporter refused OTEL_EXPORTER_OTLP_HEADERS=api-key=', ',x-honeycomb-team=', 'endpoint=https://otlp.example.com'],
  ),
  form(
    'an OTLP headers list with an Authorization',
    `OTEL_EXPORTER_OTLP_TRACES_HEADERS="authorization=Bearer%20${otlpBearer}" was rejected`,
    otlpBearer,
    ['OTEL_EXPORTER_OTLP_TRACES_HEADERS="authorization=', '" was rejected'],
  ),
  // Keys that only read as random.
  form('a bare random key', `upstream rejected key ${bareKey} for tenant ops`, bareKey, [
    'upstream rejected key',
    'for tenant ops',
  ]),
  form(
    'a random token in a URL path',
    `GET https://status.example.com/api/v2/${pathToken}/summary.json answered 410`,
    pathToken,
    ['GET https://status.example.com/api/v2/', '/summary.json answered 410'],
  ),
];

/**
 * Texts a note or an error carries that only look like credentials: they
 * must come through redaction unchanged.
 */
export const NOT_CREDENTIALS: readonly { readonly kind: string; readonly text: string }[] = [
  {
    kind: 'Kubernetes names with dashes and dots',
    text: 'configmaps "sample-operator.config-v2" not found in namespace kube-system for pod web-7d9f8b6c5-x2x4z',
  },
  {
    kind: 'a uid',
    text: 'owner uid 3f2b5c1e-8a4d-4e6f-9b7a-1c2d3e4f5a6b does not match 0c9a6b8e-2f1d-4c3b-a5e7-9d8c7b6a5f4e',
  },
  {
    kind: 'an image digest',
    text: 'pulled ghcr.io/example/operator:v1.4.2@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31',
  },
  { kind: 'a resourceVersion', text: 'Operation cannot be fulfilled: resourceVersion 184467 is older than 184502' },
  {
    kind: 'a git sha of 40 hex',
    text: 'deployed revision 9c1185a5c5e9fc54612808977ee8f548b2258d31 (argocd app sync --revision 9c1185a5c5e9fc54612808977ee8f548b2258d31)',
  },
  { kind: 'timestamps', text: 'lease renewed at 2026-12-07T19:34:01.123456Z, expires 2026-12-07T19:34:16Z (15s)' },
  {
    kind: 'ordinary words about credentials',
    text: 'password authentication failed for user "app"; the token expired; secretName: tls-cert; tokens: 3; bypass=false',
  },
  { kind: "MySQL's (using password: YES)", text: "Access denied for user 'root'@'localhost' (using password: YES)" },
  { kind: "MySQL's (using password: NO)", text: "Access denied for user 'app'@'10.0.0.7' (using password: NO)" },
  {
    kind: "a secretKeyRef's key",
    text: 'spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.key: Required value',
  },
  {
    kind: 'Go stack-ish text',
    text: 'panic: runtime error: invalid memory address\ngoroutine 1 [running]:\nsigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).reconcileHandler(0xc0001a2000)\n\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.19.1/pkg/internal/controller/controller.go:316 +0x3c5',
  },
  {
    kind: 'Java stack-ish text',
    text: 'io.grpc.StatusRuntimeException: UNAVAILABLE: io exception at io.grpc.stub.ClientCalls.toStatusRuntimeException(ClientCalls.java:268) at com.example.operator.WidgetReconciler2Controller.reconcile(WidgetReconciler2Controller.java:87)',
  },
  {
    kind: 'identifiers made of words and digits',
    text: 'AbstractSingletonProxyFactoryBean2Test and Http2ServerRequestStreamHandlerImpl failed in K8sEventRecorderReconcileLoopIteration123',
  },
  {
    kind: 'module versions and ports',
    text: 'go: github.com/go-logr/logr@v1.4.1 needs go1.21; npm ERR! 404 @nestjs/core@11.0.1; docker run -p 8080:80; ssh -p 2222 host',
  },
  {
    kind: 'a Kubernetes API path',
    text: 'GET https://10.96.0.1:443/apis/apps/v1/namespaces/default/deployments/web-7d9f8b6c5?resourceVersion=184467 answered 404',
  },
  {
    kind: 'hashes after flags named for them',
    text: 'upload --md5 9e107d9d372bb6826bd81d3542a419d6 --etag 9e107d9d372bb6826bd81d3542a419d6 answered 412',
  },
  {
    kind: 'an npm integrity',
    text: 'integrity sha512-Q2xhaW1zU2lnbmF0dXJlQnl0ZXNIZXJlMTIzNDU2Nzg5MA0KzZ9xw== mismatch',
  },
];
