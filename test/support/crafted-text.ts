/**
 * Text built from the redaction rules' own building blocks (quotes and
 * their escapes, separators, credential words, URL pieces, token
 * prefixes), repeated to a size: what a hostile server or caller would
 * send to make a backtracking rule slow. Shared by the linear-time
 * property test and the redaction benchmark.
 */
export const CRAFTED_PIECES: readonly string[] = [
  '\\',
  '\\\\',
  '"',
  "'",
  '\\"',
  ':',
  '=',
  ' ',
  '.',
  '-',
  '_',
  '@',
  '/',
  '//',
  '://',
  ';',
  ',',
  '&',
  '?',
  'a',
  'token',
  'password',
  'pass',
  'secret',
  'api_key',
  'Authorization',
  'Bearer ',
  'Basic ',
  'cookie',
  '--token ',
  'https',
  'eyJ',
  'ghp_',
  'AKIA',
  'sk-',
  'adafruit',
  'kind: Secret',
  'data:',
  '-u ',
  'webhook.office.com/webhookb2/',
  '-----BEGIN PRIVATE KEY-----',
  '<td>',
  'x'.repeat(40),
  '-p ',
  '-storepass ',
  'PASSWORD ',
  "PASSWORD '",
  "IDENTIFIED BY '",
  'name',
  '"value"',
  '_HEADERS=',
  'Unseal Key 1:',
  '/hooks/',
  '-----BEGIN X-----',
  'htpasswd -b ',
  'AUTH ',
  'add_user ',
  'Ab3+Xy9/',
  '-pA1',
  'bindpw ',
  'sqlplus a/',
  'Private-Lines: 1 ',
  '/build_hooks/',
];

/** The cases named when the rules were found slow, each repeated to `size` characters. */
export const KNOWN_CRAFTED_TEXTS: Readonly<Record<string, (size: number) => string>> = {
  'token: and a quote behind a run of backslashes': (size) =>
    `token: ${'\\'.repeat(size / 4)}'${'\\'.repeat(size - size / 4 - 8)}`,
  'password= and a quote behind backslashes': (size) =>
    `password=${'\\'.repeat(size / 4)}"${'\\'.repeat(size - size / 4 - 10)}`,
  'a. repeated': (size) => 'a.'.repeat(size / 2),
  '=a: repeated': (size) => '=a:'.repeat(Math.floor(size / 3)),
  '=a: repeated, then an @ and a host': (size) => `${'=a:'.repeat(Math.floor((size - 5) / 3))}@host`,
  'a@ repeated': (size) => 'a@'.repeat(size / 2),
  'a:b@ repeated': (size) => 'a:b@'.repeat(size / 4),
  'a vendor name repeated': (size) => 'adafruit '.repeat(Math.floor(size / 9)),
  'pass:x repeated': (size) => 'pass:x '.repeat(Math.floor(size / 7)),
  ' -u repeated': (size) => ' -u '.repeat(size / 4),
  'kind: Secret repeated': (size) => 'kind: Secret data: '.repeat(Math.floor(size / 19)),
  ' -p repeated': (size) => ' -p '.repeat(size / 4),
  " IDENTIFIED BY ' repeated": (size) => repeatedTo(" IDENTIFIED BY '", size),
  " PASSWORD ' repeated": (size) => repeatedTo(" PASSWORD '", size),
  'one run of base64 with no end': (size) =>
    repeatedTo('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', size),
  'runs of base64 just too short, between slashes': (size) => repeatedTo(`/${'aB3'.repeat(10)}x`, size),
  'name" pairs repeated': (size) => repeatedTo('{"name":"DB_PASSWORD","value":', size),
  '"name":" repeated': (size) => repeatedTo('"name":"', size),
  'a flag and hex one short of a key, repeated': (size) => repeatedTo(` --key ${'a'.repeat(31)}g`, size),
  'a Secret and its data entries': (size) => `kind: Secret\ndata:\n${repeatedTo('  k: v\n', size - 20)}`,
  'user/ before an @, repeated': (size) => repeatedTo(' a/b', size - 1) + '@',
  'a PuTTY key of words with no end': (size) => `Private-Lines: 9\n${repeatedTo('AAAA ', size - 17)}`,
  ' -pA1 repeated': (size) => repeatedTo(' -pA1', size),
  'sqlplus user/ repeated': (size) => repeatedTo('sqlplus a/', size),
};

/** `unit` repeated to `size` characters. */
export function repeatedTo(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / Math.max(1, unit.length))).slice(0, size);
}

/** A plain note of `size` characters: the baseline crafted text is measured against. */
export function plainText(size: number): string {
  return repeatedTo('NotFound: configmaps "source-missing" not found while mirroring widget default/w1; ', size);
}
